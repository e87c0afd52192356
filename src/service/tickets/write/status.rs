//! Status moves: the workflow check and the lifecycle dates a move sets or clears.
use super::update::{update, update_noting, write_change};
use super::TicketPatch;
use crate::auth::Actor;
use crate::domain::{Channel, TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use crate::service::WriteDeps;
use chrono::Utc;
use entity::ticket;

/// The workflow's check on moving from `current` to `next`: refused with the moves allowed from `current`.
pub(super) fn check_transition(current: TicketStatus, next: TicketStatus) -> AppResult<()> {
    if current.can_move_to(next) {
        return Ok(());
    }
    Err(AppError::InvalidTransition {
        message: format!("cannot move a ticket from {current} to {next}"),
        allowed: current
            .allowed_next()
            .iter()
            .map(|s| s.as_str().to_string())
            .collect(),
    })
}

/// Set or clear the resolved and closed dates for a move to `status`, and when the status changed.
pub(super) fn apply_lifecycle(
    t: &mut ticket::Model,
    status: TicketStatus,
    now: chrono::DateTime<Utc>,
) {
    t.status_changed_at = Some(now);
    match status {
        TicketStatus::Resolved => t.resolved_at = Some(now),
        TicketStatus::Closed => {
            t.closed_at = Some(now);
            t.resolved_at.get_or_insert(now);
        }
        _ => {
            t.resolved_at = None;
            t.closed_at = None;
        }
    }
}

/// Move a ticket to `status` (team, assignee or assigned group; workflow-checked).
pub async fn change_status(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    status: TicketStatus,
) -> AppResult<ticket::Model> {
    update(
        state,
        actor,
        id,
        TicketPatch {
            status: Some(status),
            ..Default::default()
        },
    )
    .await
}

/// [`change_status`] with a public comment by `actor` (HTML, sanitised; a resolution note for the requester),
/// written in the same transaction: a note refused (too long, blank) or a move refused leaves both unwritten.
pub async fn change_status_noting(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    status: TicketStatus,
    note: &str,
) -> AppResult<ticket::Model> {
    let patch = TicketPatch {
        status: Some(status),
        ..Default::default()
    };
    update_noting(state, actor, id, patch, Some(note)).await
}

/// A requester's public reply on their own ticket that waits for them (`on_hold`, the status in which the
/// desk waits for its requester) moves it back to `open`, in the reply's transaction (`txn`, the ticket
/// `t` read in it) and as their change: the desk sees the answer in its queue, the SLA clock paused for
/// the wait runs again, and the requester's "Waiting for me" no longer lists it. So does their reply by
/// mail to a `resolved` ticket, which mail in lets through only where the project's rule is to reopen
/// (`service::project_mail`): a mail client has no reopen button, the reply is how they say it is not
/// fixed. The ticket before and after; none when it did not wait for them. The team's replies and
/// internal notes move nothing.
pub(in crate::service) async fn on_requester_reply(
    txn: &sea_orm::DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<Option<(ticket::Model, ticket::Model)>> {
    let answers = |status: TicketStatus| {
        status == TicketStatus::OnHold
            || (status == TicketStatus::Resolved && state.channel == Channel::Email)
    };
    if actor.is_team() || t.requester_id != actor.id() || !answers(t.status) {
        return Ok(None);
    }
    let current = super::relock(txn, t.id, super::Lock::UnderComment, true).await?;
    if !answers(current.status) {
        return Ok(None);
    }
    let now = Utc::now();
    let mut next = current.clone();
    next.status = TicketStatus::Open;
    apply_lifecycle(&mut next, TicketStatus::Open, now);
    let before = current.clone();
    let saved = write_change(
        txn,
        state,
        Some(actor),
        &mut crate::service::events::Hooks::default(),
        "status_change",
        current,
        next,
        now,
        false,
    )
    .await?;
    Ok(saved.map(|after| (before, after.ticket)))
}
