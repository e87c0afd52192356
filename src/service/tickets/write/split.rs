//! Splitting a ticket: chosen comments (with their files and the time logged on them) move to a new ticket of
//! the same requester, project, group and priority, linked `relates_to` the original, in one transaction.
use super::create::{insert, prepare};
use super::NewTicket;
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::tickets::{self, rules};
use crate::service::{audit, comments, links, text, users, WriteDeps};
use entity::{attachment, comment, ticket, time_entry};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;

/// Most comments one split moves.
pub const MAX_COMMENTS: usize = 100;

/// What to split off a ticket.
#[derive(Debug, Clone, Default)]
pub struct SplitOff {
    /// The live comments of the ticket that move (1 to [`MAX_COMMENTS`]).
    pub comment_ids: Vec<i32>,
    /// The new ticket's title; by default "<title> (split from TKT-5)".
    pub title: Option<String>,
}

/// Split comments of ticket `source_id` off into a new ticket (team members only). 404 when the actor cannot
/// see the ticket, 403 when they are not on the team, 400 on `comments` when a comment is not a live one of
/// it, 409 when the ticket was merged. Answers the new ticket.
pub async fn split(
    state: WriteDeps<'_>,
    actor: &Actor,
    source_id: i32,
    input: SplitOff,
) -> AppResult<ticket::Model> {
    let source = tickets::get(&state.db.conn, actor, source_id).await?;
    if !rules::can_archive(actor) {
        return Err(AppError::forbidden("only team members may split tickets"));
    }
    if source.merged_into_id.is_some() {
        return Err(AppError::conflict(format!(
            "{} was merged into another ticket: split that one",
            source.ticket_number
        )));
    }
    let mut ids = input.comment_ids.clone();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() || ids.len() > MAX_COMMENTS {
        return Err(AppError::field(
            "comments",
            format!("choose 1 to {MAX_COMMENTS} comments to split off"),
        ));
    }
    let title = match input.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => text::required_line("title", t)?,
        _ => {
            let suffix = format!(" (split from {})", source.ticket_number);
            let room = 200usize.saturating_sub(suffix.chars().count());
            let head: String = source.title.chars().take(room).collect();
            format!("{head}{suffix}")
        }
    };
    let db = &state.db.conn;
    let assignee = match source.assignee_id {
        Some(id) if users::active_user_exists(db, id).await? => Some(id),
        _ => None,
    };
    let new = NewTicket {
        title,
        description: Some(crate::sanitize::text_to_html(&format!(
            "Split from {}.",
            source.ticket_number
        ))),
        priority: Some(source.priority),
        project_id: source.project_id,
        assignee_id: assignee,
        assigned_group_id: source.assigned_group_id,
        requester_id: Some(source.requester_id),
        ..Default::default()
    };
    let prepared = match prepare(state, actor, &new).await {
        // The original's project may have been archived since: the new ticket goes without.
        Err(AppError::Validation { fields, .. }) if fields.contains_key("project") => {
            prepare(
                state,
                actor,
                &NewTicket {
                    project_id: None,
                    ..new
                },
            )
            .await?
        }
        other => other?,
    }
    .without_required();
    let txn = state.db.begin_write().await?;
    // Comments of the original take turns with the split, so the ones chosen are still there when they move.
    let source = Some(super::relock(&txn, source.id, super::Lock::Write, false).await?)
        .filter(|t| t.merged_into_id.is_none())
        .ok_or_else(|| AppError::not_found("ticket"))?;
    let live = comment::Entity::find()
        .filter(comment::Column::Id.is_in(ids.iter().copied()))
        .filter(comment::Column::TicketId.eq(source.id))
        .filter(comment::Column::IsDeleted.eq(false))
        .count(&txn)
        .await?;
    if usize::try_from(live).ok() != Some(ids.len()) {
        return Err(AppError::field(
            "comments",
            format!(
                "only live comments of {} can be split off",
                source.ticket_number
            ),
        ));
    }
    let ran = insert(&txn, state, actor, prepared, None).await?;
    let made = ran.ticket.clone();
    comment::Entity::update_many()
        .col_expr(comment::Column::TicketId, Expr::value(made.id))
        .filter(comment::Column::Id.is_in(ids.iter().copied()))
        .exec(&txn)
        .await?;
    attachment::Entity::update_many()
        .col_expr(attachment::Column::TicketId, Expr::value(made.id))
        .filter(attachment::Column::CommentId.is_in(ids.iter().copied()))
        .exec(&txn)
        .await?;
    time_entry::Entity::update_many()
        .col_expr(time_entry::Column::TicketId, Expr::value(made.id))
        .filter(time_entry::Column::CommentId.is_in(ids.iter().copied()))
        .exec(&txn)
        .await?;
    comments::recount(&txn, source.id).await?;
    comments::recount(&txn, made.id).await?;
    links::relate(&txn, state, actor, &made, &source).await?;
    for (this, key, other) in [(&source, "split_to", &made), (&made, "split_from", &source)] {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "ticket", this.id, "split")
                .ticket(this.id)
                .changes(json!({ key: [null, other.ticket_number], "comments": ids.len() })),
        )
        .await?;
    }
    let made = ticket::Entity::find_by_id(made.id)
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("ticket"))?;
    txn.commit().await?;
    ran.publish_created(state).await;
    state
        .live
        .publish(state.db, LiveEvent::new(LiveKind::Updated, source.id))
        .await;
    Ok(made)
}
