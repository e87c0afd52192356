//! Merging a ticket into another: its comments, files and time move to the target with their authors and
//! times, its tags and followers (its requester among them) are added there, and its links re-pointed. The
//! merged ticket is closed and remembers the target, so reads of it, replies to it and comments on it lead
//! there. A merge is final: there is no unmerge (`docs/decisions.md`).
use super::status::apply_lifecycle;
use super::update::{publish_change, write_change};
use crate::auth::Actor;
use crate::domain::TicketStatus;
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::comments::{self, post_notice};
use crate::service::tickets::{self, rules};
use crate::service::{audit, events, followers, links, tags, WriteDeps};
use chrono::Utc;
use entity::{attachment, comment, ticket, time_entry};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use serde_json::json;

/// The ticket to merge into: by id (the APIs) or by number in any spelling (`TKT-12`, `12`: the web form).
#[derive(Debug, Clone)]
pub enum MergeTarget {
    /// A ticket id.
    Id(i32),
    /// A ticket number.
    Number(String),
}

/// Both tickets after a merge.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The merged ticket: closed, with `merged_into_id` set.
    pub source: ticket::Model,
    /// The ticket it went into.
    pub target: ticket::Model,
}

/// Where a merged ticket went.
#[derive(Debug, Clone)]
pub struct MergedInto {
    /// The target's id.
    pub id: i32,
    /// The target's number.
    pub ticket_number: String,
}

/// Where `t` (a ticket the caller read through a visibility check) was merged into, if it was. Told to
/// whoever may see `t`: the notice posted on it names the target as well.
pub async fn merged_into(
    db: &impl ConnectionTrait,
    t: &ticket::Model,
) -> AppResult<Option<MergedInto>> {
    let Some(id) = t.merged_into_id else {
        return Ok(None);
    };
    let number = ticket::Entity::find_by_id(id)
        .select_only()
        .column(ticket::Column::TicketNumber)
        .into_tuple::<String>()
        .one(db)
        .await?;
    Ok(number.map(|ticket_number| MergedInto { id, ticket_number }))
}

/// Merge ticket `source_id` into `target_id` (team members only). 404 when the actor cannot see the source,
/// 403 when they are not on the team, 400 naming `into` for a target that does not exist, is the source or
/// was itself merged, 409 when the source was merged already (two merges of one ticket: the second loses).
pub async fn merge(
    state: WriteDeps<'_>,
    actor: &Actor,
    source_id: i32,
    into: MergeTarget,
) -> AppResult<Merged> {
    let mut merged = merge_many(state, actor, &[source_id], into, "into").await?;
    let source = merged
        .sources
        .pop()
        .ok_or_else(|| AppError::not_found("ticket"))?;
    Ok(Merged {
        source,
        target: merged.target,
    })
}

/// The most tickets one request merges.
pub const MAX_MERGED_AT_ONCE: usize = 50;

/// Tickets after a merge of several into one.
#[derive(Debug, Clone)]
pub struct MergedMany {
    /// The merged tickets, in the order asked: closed, with `merged_into_id` set.
    pub sources: Vec<ticket::Model>,
    /// The ticket they went into.
    pub target: ticket::Model,
}

/// Merge the tickets `source_ids` into `into`, all in one transaction: every one or none. Each is merged as
/// [`merge`] merges one; `target_field` names the target in errors (`into`, `targetId`), `sourceIds` the list.
pub async fn merge_many(
    state: WriteDeps<'_>,
    actor: &Actor,
    source_ids: &[i32],
    into: MergeTarget,
    target_field: &str,
) -> AppResult<MergedMany> {
    if source_ids.is_empty() {
        return Err(AppError::field("sourceIds", "names no ticket"));
    }
    if source_ids.len() > MAX_MERGED_AT_ONCE {
        return Err(AppError::field(
            "sourceIds",
            format!("at most {MAX_MERGED_AT_ONCE} tickets are merged at once"),
        ));
    }
    let mut sorted = source_ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != source_ids.len() {
        return Err(AppError::field("sourceIds", "names a ticket twice"));
    }
    let db = &state.db.conn;
    for id in &sorted {
        tickets::get(db, actor, *id).await?;
    }
    if !rules::can_archive(actor) {
        return Err(AppError::forbidden("only team members may merge tickets"));
    }
    let found = match &into {
        MergeTarget::Id(id) => tickets::get(db, actor, *id).await,
        MergeTarget::Number(n) => {
            tickets::get_by_number(db, actor, n, &state.config.ticket_prefix).await
        }
    };
    let target_id = match found {
        Ok(t) => t.id,
        Err(AppError::NotFound(_)) => {
            let named = match into {
                MergeTarget::Id(id) => format!("ticket {id}"),
                MergeTarget::Number(n) => format!("ticket {:?}", n.trim()),
            };
            return Err(AppError::field(
                target_field,
                format!("{named} does not exist"),
            ));
        }
        Err(e) => return Err(e),
    };
    if sorted.contains(&target_id) {
        return Err(AppError::field(
            target_field,
            "a ticket cannot be merged into itself",
        ));
    }
    let txn = state.db.begin_write().await?;
    // In id order, so that two merges of overlapping tickets lock them in the same order and wait rather
    // than deadlock.
    let mut merged = Vec::with_capacity(sorted.len());
    for id in &sorted {
        merged.push(merge_one(&txn, state, actor, *id, target_id, target_field).await?);
    }
    let target = ticket::Entity::find_by_id(target_id)
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("ticket"))?;
    txn.commit().await?;
    for (before, source) in &merged {
        publish_change(state, before, source).await;
    }
    state
        .live
        .publish(state.db, LiveEvent::new(LiveKind::Updated, target.id))
        .await;
    let mut sources = Vec::with_capacity(source_ids.len());
    for id in source_ids {
        if let Some((_, source)) = merged.iter().find(|(_, s)| s.id == *id) {
            sources.push(source.clone());
        }
    }
    Ok(MergedMany { sources, target })
}

/// Merge `source_id` into `target_id` within `txn`: the source as it was and as it is after.
async fn merge_one(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    source_id: i32,
    target_id: i32,
    target_field: &str,
) -> AppResult<(ticket::Model, ticket::Model)> {
    let (source, target) = lock_both(txn, source_id, target_id, target_field).await?;
    if source.merged_into_id.is_some() {
        return Err(AppError::conflict(format!(
            "{} was merged into another ticket already",
            source.ticket_number
        )));
    }
    if target.merged_into_id.is_some() {
        return Err(AppError::field(
            target_field,
            format!(
                "{} was itself merged into another ticket: merge into that one",
                target.ticket_number
            ),
        ));
    }
    let now = Utc::now();
    // The target's requester hears of it before the source's followers join the target.
    post_notice(
        txn,
        state.config,
        actor,
        &target,
        crate::sanitize::text_to_html(&format!(
            "{} was merged into this ticket.",
            source.ticket_number
        )),
    )
    .await?;
    let comments_moved =
        move_rows::<comment::Entity>(txn, comment::Column::TicketId, source.id, target.id).await?;
    let attachments_moved =
        move_rows::<attachment::Entity>(txn, attachment::Column::TicketId, source.id, target.id)
            .await?;
    let time_moved =
        move_rows::<time_entry::Entity>(txn, time_entry::Column::TicketId, source.id, target.id)
            .await?;
    let followers_moved = followers::carry_over(txn, actor, &source, &target).await?;
    let (links_moved, links_removed) = links::carry_over(txn, source.id, target.id).await?;
    let moved = json!({
        "comments": comments_moved,
        "attachments": attachments_moved,
        "time_entries": time_moved,
        "followers": followers_moved,
        "links": links_moved,
        "links_removed": links_removed,
    });
    tags::carry_over(txn, state, actor.id(), source.id, &target).await?;
    comments::recount(txn, source.id).await?;
    comments::recount(txn, target.id).await?;
    // Tickets merged into the source earlier lead to the target from now on.
    ticket::Entity::update_many()
        .col_expr(ticket::Column::MergedIntoId, Expr::value(target.id))
        .filter(ticket::Column::MergedIntoId.eq(source.id))
        .exec(txn)
        .await?;
    let before = source.clone();
    let mut next = source.clone();
    if next.status != TicketStatus::Closed {
        next.status = TicketStatus::Closed;
        apply_lifecycle(&mut next, TicketStatus::Closed, now);
    }
    let closed = write_change(
        txn,
        state,
        Some(actor),
        &mut events::Hooks::default(),
        "status_change",
        source,
        next,
        now,
        false,
    )
    .await?
    .map_or(before.clone(), |w| w.ticket);
    ticket::Entity::update_many()
        .col_expr(ticket::Column::MergedIntoId, Expr::value(target.id))
        .filter(ticket::Column::Id.eq(closed.id))
        .exec(txn)
        .await?;
    let source = ticket::Model {
        merged_into_id: Some(target.id),
        ..closed
    };
    post_notice(
        txn,
        state.config,
        actor,
        &source,
        crate::sanitize::text_to_html(&format!(
            "This ticket was merged into {}.",
            target.ticket_number
        )),
    )
    .await?;
    for (this, key, other) in [
        (&source, "merged_into", &target),
        (&target, "merged_from", &source),
    ] {
        audit::record(
            txn,
            audit::Entry::new(Some(actor.id()), "ticket", this.id, "merge")
                .ticket(this.id)
                .changes(json!({ key: [null, other.ticket_number], "moved": moved })),
        )
        .await?;
    }
    events::ticket_merged(txn, state.config, &source, &target).await?;
    Ok((before, source))
}

/// Both live tickets, locked in id order (two merges of the same pair the other way round wait rather than
/// deadlock).
async fn lock_both(
    txn: &DatabaseTransaction,
    source_id: i32,
    target_id: i32,
    target_field: &str,
) -> AppResult<(ticket::Model, ticket::Model)> {
    let rows = ticket::Entity::find()
        .filter(ticket::Column::Id.is_in([source_id, target_id]))
        .filter(ticket::Column::ArchivedAt.is_null())
        .order_by_asc(ticket::Column::Id)
        .lock_exclusive()
        .all(txn)
        .await?;
    let take = |id: i32| rows.iter().find(|t| t.id == id).cloned();
    match (take(source_id), take(target_id)) {
        (Some(s), Some(t)) => Ok((s, t)),
        (None, _) => Err(AppError::not_found("ticket")),
        (_, None) => Err(AppError::field(
            target_field,
            format!("ticket {target_id} does not exist"),
        )),
    }
}

/// Move every row of `E` whose `column` names ticket `from` to ticket `to`; answers how many moved.
async fn move_rows<E: EntityTrait>(
    txn: &impl ConnectionTrait,
    column: E::Column,
    from: i32,
    to: i32,
) -> AppResult<u64> {
    Ok(E::update_many()
        .col_expr(column, Expr::value(to))
        .filter(column.eq(from))
        .exec(txn)
        .await?
        .rows_affected)
}
