//! Links between tickets: parent and child, related, duplicate and blocking. Who may make them, the checks
//! that keep parents a tree (one parent each, no loops, no self-links), and visibility-aware reads: a viewer
//! sees a link only when they may see the ticket at its other end, and counts never tell of the others.
use crate::auth::Actor;
use crate::domain::{StatusCategory, TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::tickets::{self, rules};
use crate::service::{audit, events, WriteDeps};
use chrono::Utc;
use entity::values::{LinkKind, LinkType};
use entity::{counter, ticket, ticket_link};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue, ColumnTrait, Condition, ConnectionTrait, DatabaseTransaction, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, Set,
};
use serde_json::json;
use std::collections::HashMap;

/// Most links one ticket may have (an outage with this many children is one parent too many).
pub const MAX_PER_TICKET: u64 = 500;
/// How far up a chain of parents a new parent link looks for a loop.
const MAX_DEPTH: usize = 1_000;

/// A link as one of its tickets sees it.
#[derive(Debug, Clone)]
pub struct LinkView {
    /// The link's id.
    pub id: i32,
    /// How this ticket stands to the other.
    pub link_type: LinkType,
    /// The ticket at the other end.
    pub other: ticket::Model,
}

/// Link ticket `ticket_id` to `other_id` as `link_type` says (`child_of`: this ticket is the other's child).
/// Answers the link and whether it is new (linking twice changes nothing). 404 when the ticket is not
/// visible, 403 when the actor may not change all of it, 400 naming `ticket` for a self-link, a ticket
/// the actor cannot see, a second parent or a loop.
pub async fn add(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
    link_type: LinkType,
    other_id: i32,
) -> AppResult<(LinkView, bool)> {
    let txn = state.db.begin_write().await?;
    let t = changeable(&txn, actor, ticket_id).await?;
    if other_id == ticket_id {
        return Err(AppError::field(
            "ticket",
            "a ticket cannot be linked to itself",
        ));
    }
    let other = match tickets::get(&txn, actor, other_id).await {
        Err(AppError::NotFound(_)) => Err(AppError::field(
            "ticket",
            format!("ticket {other_id} does not exist"),
        )),
        found => found,
    }?;
    let (kind, forward) = link_type.stored();
    let (mut source, mut target) = if forward {
        (t.id, other.id)
    } else {
        (other.id, t.id)
    };
    if kind == LinkKind::RelatesTo && source > target {
        (source, target) = (target, source);
    }
    if let Some(found) = existing(&txn, source, target, kind).await? {
        txn.commit().await?;
        return Ok((view(&found, t.id, other), false));
    }
    if kind == LinkKind::ParentOf {
        // Parent links are made one at a time, so two that together would close a loop cannot both pass.
        take_turn(&txn).await?;
        check_tree(&txn, source, target, &other, &t).await?;
    }
    for id in [source, target] {
        if held(&txn, id).await? >= MAX_PER_TICKET {
            return Err(AppError::field(
                "ticket",
                format!("a ticket has at most {MAX_PER_TICKET} links"),
            ));
        }
    }
    let now = Utc::now();
    let made = ticket_link::ActiveModel {
        id: ActiveValue::NotSet,
        source_id: Set(source),
        target_id: Set(target),
        kind: Set(kind),
        created_by: Set(Some(actor.id())),
        created_at: Set(now),
    };
    let inserted = ticket_link::Entity::insert(made)
        .on_conflict(
            OnConflict::columns([
                ticket_link::Column::SourceId,
                ticket_link::Column::TargetId,
                ticket_link::Column::Kind,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    let found = existing(&txn, source, target, kind)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("a new link was not found")))?;
    if inserted > 0 {
        record(&txn, state, actor, "link", &found, &t, &other).await?;
    }
    txn.commit().await?;
    if inserted > 0 {
        publish(state, &found).await;
    }
    Ok((view(&found, t.id, other), inserted > 0))
}

/// Re-point the links of ticket `source` to `target`: a merge. A link that would join the target to itself,
/// repeat one it has, give it a second parent, close a loop of parents, or pass its link limit is removed
/// instead. Answers how many were moved and how many removed.
pub(crate) async fn carry_over(
    txn: &DatabaseTransaction,
    source: i32,
    target: i32,
) -> AppResult<(u64, u64)> {
    let links = ticket_link::Entity::find()
        .filter(
            Condition::any()
                .add(ticket_link::Column::SourceId.eq(source))
                .add(ticket_link::Column::TargetId.eq(source)),
        )
        .order_by_asc(ticket_link::Column::Id)
        .all(txn)
        .await?;
    if links.is_empty() {
        return Ok((0, 0));
    }
    take_turn(txn).await?;
    // Links between the two go first, so that a parent link between them does not count against another.
    let between = ticket_link::Entity::delete_many()
        .filter(
            Condition::any()
                .add(
                    Condition::all()
                        .add(ticket_link::Column::SourceId.eq(source))
                        .add(ticket_link::Column::TargetId.eq(target)),
                )
                .add(
                    Condition::all()
                        .add(ticket_link::Column::SourceId.eq(target))
                        .add(ticket_link::Column::TargetId.eq(source)),
                ),
        )
        .exec(txn)
        .await?
        .rows_affected;
    let mut room = MAX_PER_TICKET.saturating_sub(held(txn, target).await?);
    let (mut moved, mut removed) = (0, between);
    let links = links
        .into_iter()
        .filter(|l| l.source_id != target && l.target_id != target);
    for link in links {
        let swap = |id: i32| if id == source { target } else { id };
        let (mut from, mut to) = (swap(link.source_id), swap(link.target_id));
        if link.kind == LinkKind::RelatesTo && from > to {
            (from, to) = (to, from);
        }
        let keep = from != to
            && room > 0
            && existing(txn, from, to, link.kind).await?.is_none()
            && (link.kind != LinkKind::ParentOf || fits_tree(txn, from, to, target).await?);
        if keep {
            ticket_link::Entity::update_many()
                .col_expr(ticket_link::Column::SourceId, from.into())
                .col_expr(ticket_link::Column::TargetId, to.into())
                .filter(ticket_link::Column::Id.eq(link.id))
                .exec(txn)
                .await?;
            room -= 1;
            moved += 1;
        } else {
            ticket_link::Entity::delete_by_id(link.id).exec(txn).await?;
            removed += 1;
        }
    }
    Ok((moved, removed))
}

/// Link the new ticket `t` and `other` as related inside `txn` (a split: the new ticket and the one it came
/// from; a follow-up by mail and the finished ticket it answers), recorded as [`add`] does; `t` is new, so
/// the link cannot be there already. None is made when `other` has all the links it may have: the new
/// ticket is still opened (a requester writing to an old ticket again and again must not be refused).
pub(crate) async fn relate(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    t: &ticket::Model,
    other: &ticket::Model,
) -> AppResult<()> {
    if held(txn, other.id).await? >= MAX_PER_TICKET {
        return Ok(());
    }
    let (source, target) = (t.id.min(other.id), t.id.max(other.id));
    let made = ticket_link::ActiveModel {
        id: ActiveValue::NotSet,
        source_id: Set(source),
        target_id: Set(target),
        kind: Set(LinkKind::RelatesTo),
        created_by: Set(Some(actor.id())),
        created_at: Set(Utc::now()),
    };
    ticket_link::Entity::insert(made)
        .exec_without_returning(txn)
        .await?;
    let found = existing(txn, source, target, LinkKind::RelatesTo)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("a new link was not found")))?;
    record(txn, state, actor, "link", &found, t, other).await
}

/// How many links ticket `id` has, either way round.
async fn held(db: &impl ConnectionTrait, id: i32) -> AppResult<u64> {
    Ok(ticket_link::Entity::find()
        .filter(
            Condition::any()
                .add(ticket_link::Column::SourceId.eq(id))
                .add(ticket_link::Column::TargetId.eq(id)),
        )
        .count(db)
        .await?)
}

/// Whether `parent` may become the parent of `child` once `target` takes a merged ticket's place: the child
/// has no other parent (the merged ticket's own link to it is being moved) and is not above the parent.
async fn fits_tree(
    db: &impl ConnectionTrait,
    parent: i32,
    child: i32,
    target: i32,
) -> AppResult<bool> {
    if child == target && parent_of(db, child).await?.is_some() {
        return Ok(false);
    }
    let mut at = Some(parent);
    for _ in 0..MAX_DEPTH {
        match at {
            Some(id) if id == child => return Ok(false),
            Some(id) => at = parent_of(db, id).await?,
            None => return Ok(true),
        }
    }
    Ok(false)
}

/// Remove link `link_id` of ticket `ticket_id` (404 unless it is one of the ticket's links whose other
/// ticket the actor may see; 403 when the actor may not change all of the ticket).
pub async fn remove(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
    link_id: i32,
) -> AppResult<()> {
    let txn = state.db.begin_write().await?;
    let t = changeable(&txn, actor, ticket_id).await?;
    let found = ticket_link::Entity::find_by_id(link_id)
        .filter(
            Condition::any()
                .add(ticket_link::Column::SourceId.eq(ticket_id))
                .add(ticket_link::Column::TargetId.eq(ticket_id)),
        )
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("link"))?;
    let other_id = if found.source_id == ticket_id {
        found.target_id
    } else {
        found.source_id
    };
    let other = match tickets::get(&txn, actor, other_id).await {
        Err(AppError::NotFound(_)) => Err(AppError::not_found("link")),
        found => found,
    }?;
    ticket_link::Entity::delete_by_id(found.id)
        .exec(&txn)
        .await?;
    record(&txn, state, actor, "unlink", &found, &t, &other).await?;
    txn.commit().await?;
    publish(state, &found).await;
    Ok(())
}

/// The ticket, visible (404) and fully changeable by the actor (403): team members, the assignee and the
/// assigned group. A requester does not link their own ticket.
async fn changeable(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<ticket::Model> {
    let t = tickets::get(db, actor, ticket_id).await?;
    if rules::can_update_all(actor, &t) {
        Ok(t)
    } else {
        Err(AppError::forbidden(
            "you may not change the links of this ticket",
        ))
    }
}

async fn existing(
    db: &impl ConnectionTrait,
    source: i32,
    target: i32,
    kind: LinkKind,
) -> AppResult<Option<ticket_link::Model>> {
    Ok(ticket_link::Entity::find()
        .filter(ticket_link::Column::SourceId.eq(source))
        .filter(ticket_link::Column::TargetId.eq(target))
        .filter(ticket_link::Column::Kind.eq(kind))
        .one(db)
        .await?)
}

/// Hold the parent links' turn until the transaction ends (an upsert locks the row on PostgreSQL; SQLite
/// writes one transaction at a time anyway).
async fn take_turn(txn: &DatabaseTransaction) -> AppResult<()> {
    counter::Entity::insert(counter::ActiveModel {
        name: Set("ticket_links".to_string()),
        value: Set(0),
    })
    .on_conflict(
        OnConflict::column(counter::Column::Name)
            .update_column(counter::Column::Value)
            .to_owned(),
    )
    .exec_without_returning(txn)
    .await?;
    Ok(())
}

/// The parent of `id`, if it has one.
async fn parent_of(db: &impl ConnectionTrait, id: i32) -> AppResult<Option<i32>> {
    Ok(ticket_link::Entity::find()
        .filter(ticket_link::Column::TargetId.eq(id))
        .filter(ticket_link::Column::Kind.eq(LinkKind::ParentOf))
        .one(db)
        .await?
        .map(|l| l.source_id))
}

/// A child has one parent, and no ticket is its own ancestor.
async fn check_tree(
    db: &impl ConnectionTrait,
    parent: i32,
    child: i32,
    other: &ticket::Model,
    t: &ticket::Model,
) -> AppResult<()> {
    let number = |id: i32| {
        if id == t.id {
            t.ticket_number.clone()
        } else if id == other.id {
            other.ticket_number.clone()
        } else {
            format!("ticket {id}")
        }
    };
    if parent_of(db, child).await?.is_some() {
        return Err(AppError::field(
            "ticket",
            format!(
                "{} already has a parent; remove that link first",
                number(child)
            ),
        ));
    }
    let mut at = Some(parent);
    for _ in 0..MAX_DEPTH {
        match at {
            Some(id) if id == child => {
                return Err(AppError::field(
                    "ticket",
                    format!(
                        "{} is above {} already: the link would make a loop",
                        number(child),
                        number(parent)
                    ),
                ))
            }
            Some(id) => at = parent_of(db, id).await?,
            None => return Ok(()),
        }
    }
    Err(AppError::field(
        "ticket",
        format!("parents may nest at most {MAX_DEPTH} deep"),
    ))
}

fn view(link: &ticket_link::Model, this: i32, other: ticket::Model) -> LinkView {
    LinkView {
        id: link.id,
        link_type: LinkType::seen(link.kind, link.source_id == this),
        other,
    }
}

/// The audit records (one on each ticket, the team's: a requester's history does not name tickets they may
/// not see) and the webhook of a link made or removed.
async fn record(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    action: &'static str,
    link: &ticket_link::Model,
    t: &ticket::Model,
    other: &ticket::Model,
) -> AppResult<()> {
    for (this, that) in [(t, other), (other, t)] {
        let seen = LinkType::seen(link.kind, link.source_id == this.id);
        let (old, new) = if action == "link" {
            (serde_json::Value::Null, json!(that.id))
        } else {
            (json!(that.id), serde_json::Value::Null)
        };
        audit::record(
            txn,
            audit::Entry::new(Some(actor.id()), "ticket", this.id, action)
                .ticket(this.id)
                .internal(true)
                .changes(json!({ seen.as_str(): [old, new] })),
        )
        .await?;
    }
    let event = if action == "link" {
        "ticket.linked"
    } else {
        "ticket.unlinked"
    };
    let seen = LinkType::seen(link.kind, link.source_id == t.id);
    events::ticket_linked(txn, state.config, event, t, seen.as_str(), other.id).await
}

async fn publish(state: WriteDeps<'_>, link: &ticket_link::Model) {
    for id in [link.source_id, link.target_id] {
        let event = LiveEvent::new(LiveKind::Updated, id);
        state.live.publish(state.db, event).await;
    }
}

/// The links of each of `ticket_ids` (live tickets the actor may see) to live tickets the actor may see, by
/// type and then the other ticket's number; two statements for any number of tickets. Tickets without such
/// links are absent.
pub async fn of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
) -> AppResult<HashMap<i32, Vec<LinkView>>> {
    if ticket_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let live = || {
        ticket::Entity::find()
            .filter(ticket::Column::ArchivedAt.is_null())
            .filter(rules::visible_to(actor))
    };
    let asked: Vec<i32> = live()
        .filter(ticket::Column::Id.is_in(ticket_ids.iter().copied()))
        .all(db)
        .await?
        .into_iter()
        .map(|t| t.id)
        .collect();
    if asked.is_empty() {
        return Ok(HashMap::new());
    }
    let links = ticket_link::Entity::find()
        .filter(
            Condition::any()
                .add(ticket_link::Column::SourceId.is_in(asked.iter().copied()))
                .add(ticket_link::Column::TargetId.is_in(asked.iter().copied())),
        )
        .order_by_asc(ticket_link::Column::Id)
        .all(db)
        .await?;
    if links.is_empty() {
        return Ok(HashMap::new());
    }
    let ends: Vec<i32> = links
        .iter()
        .flat_map(|l| [l.source_id, l.target_id])
        .collect();
    let seen: HashMap<i32, ticket::Model> = live()
        .filter(ticket::Column::Id.is_in(ends))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let mut out: HashMap<i32, Vec<LinkView>> = HashMap::new();
    for link in &links {
        for (this, that) in [
            (link.source_id, link.target_id),
            (link.target_id, link.source_id),
        ] {
            if !asked.contains(&this) {
                continue;
            }
            if let Some(other) = seen.get(&that) {
                out.entry(this)
                    .or_default()
                    .push(view(link, this, other.clone()));
            }
        }
    }
    for views in out.values_mut() {
        views.sort_by_key(|v| (v.link_type.as_str(), v.other.number));
    }
    Ok(out)
}

/// The links of one ticket the actor may see (404 otherwise), as [`of_tickets`] gives them.
pub async fn of_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<Vec<LinkView>> {
    tickets::get(db, actor, ticket_id).await?;
    Ok(of_tickets(db, actor, &[ticket_id])
        .await?
        .remove(&ticket_id)
        .unwrap_or_default())
}

/// Resolve the open children of ticket `ticket_id` that the actor may see and change, one by one, each
/// as a change by hand (the workflow may refuse one: its outcome says so). Answers each child's outcome.
pub async fn resolve_children(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<Vec<(i32, AppResult<ticket::Model>)>> {
    let links = of_ticket(&state.db.conn, actor, ticket_id).await?;
    let mut out = Vec::new();
    for link in links {
        let open = link.other.status.category() != StatusCategory::Done;
        if link.link_type == LinkType::ParentOf && open {
            let outcome =
                tickets::change_status(state, actor, link.other.id, TicketStatus::Resolved).await;
            out.push((link.other.id, outcome));
        }
    }
    Ok(out)
}
