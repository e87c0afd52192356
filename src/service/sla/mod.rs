//! Service levels: policies (`policies`), business-hours arithmetic (`calendar`), the per-ticket clock
//! (`clock`), and keeping each ticket's clock in step with its changes, in the change's transaction.
//!
//! Breaches are found without scanning: each clock has one outbox row of kind `JobKind::SlaCheck`, due at its
//! first at-risk or breach instant still ahead (`ticket_slas.check_at_ms` names it). The delivery worker
//! hands it to [`check`], which looks again (the ticket may have been answered, paused or resolved since),
//! records what has come due, the first time only, with its webhooks and emails, and queues the check for
//! the next instant. When a change moves the first instant, a check for the new one is queued and the old
//! one, no longer its clock's, does nothing when it comes.
pub mod calendar;
mod check;
pub mod clock;
mod events;
pub mod policies;
pub mod reclock;
mod view;

pub use check::check;
pub use view::{due_at_of_ticket, tickets_in, view_of, views, SlaState, SlaView};
pub mod seeded;

use events::{check_row, happened, happened_mut, ms_of, next_check, pending, Check, EVENTS};

use crate::domain::{StatusCategory, Workflow};
use crate::error::AppResult;
use crate::notify::outbox;
use chrono::{DateTime, Duration, Utc};
use clock::{Pauses, Standing};
use entity::{outbox as outbox_row, ticket, ticket_sla};
use policies::Policy;
use sea_orm::sea_query::{Expr, InsertStatement, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, Iterable, QueryFilter, QueryTrait,
};

fn is_stopped(policy: &Policy, t: &ticket::Model) -> bool {
    t.status.category() == StatusCategory::Done || policy.pause_statuses.contains(&t.status)
}

fn standing(t: &ticket::Model) -> Standing {
    Standing {
        responded: t.first_responded_at.is_some(),
        resolved: t.resolved_at.is_some() || t.status.category() == StatusCategory::Done,
    }
}

/// The stored clock of `t` under `policy` at `now`, from its previous state `before` (none for a new
/// ticket), and the check to schedule: one for the first event ahead, unless the clock already waits for
/// a check at that instant.
fn next_clock(
    policy: &Policy,
    t: &ticket::Model,
    before: Option<&ticket_sla::Model>,
    now: DateTime<Utc>,
) -> (ticket_sla::Model, Option<Check>) {
    let pauses = Pauses {
        paused: Duration::milliseconds(before.map_or(0, |b| b.paused_ms)),
        since: before.and_then(|b| b.paused_since),
    }
    .at(&policy.calendar, is_stopped(policy, t), now);
    let dues = clock::dues(
        &policy.calendar,
        &policy.targets,
        t.created_at,
        pauses,
        standing(t),
    );
    let mut row = ticket_sla::Model {
        ticket_id: t.id,
        policy_id: Some(policy.row.id),
        paused_ms: pauses.paused.num_milliseconds(),
        paused_since: pauses.since,
        first_response_due_at: dues.first_response,
        resolution_due_at: dues.resolution,
        due_at: dues.next(),
        first_response_at_risk_at: None,
        resolution_at_risk_at: None,
        first_response_breached_at: None,
        resolution_breached_at: None,
        updated_at: now,
        check_at_ms: None,
    };
    if let Some(before) = before {
        for (target, kind) in EVENTS {
            *happened_mut(&mut row, target, kind) = happened(before, target, kind);
        }
    }
    // One check per clock: a new one only when the first event ahead moved; the one already queued for the
    // same instant serves otherwise.
    let next = next_check(&dues, &row, None);
    row.check_at_ms = next.map(|(_, _, at)| ms_of(at));
    let check = next.filter(|_| row.check_at_ms != before.and_then(|b| b.check_at_ms));
    (row, check)
}

/// A new ticket's clock, computed before the ticket has its id: the create computes it before it takes the
/// ticket number, whose lock every create waits on.
#[derive(Debug)]
pub struct NewClock {
    clock: ticket_sla::Model,
    check: Option<Check>,
}

impl NewClock {
    /// The clock's row and its check's, for the ticket that got `id`.
    pub fn rows(self, id: i32) -> (ticket_sla::Model, Vec<outbox_row::ActiveModel>) {
        let check = self
            .check
            .map(|(target, kind, at)| check_row(id, target, kind, at));
        let clock = ticket_sla::Model {
            ticket_id: id,
            ..self.clock
        };
        (clock, check.into_iter().collect())
    }
}

/// The clock of ticket `t` being created, if a policy matches it (`policies` are the ones for its
/// priority, read before). Only its id may change before it is stored ([`NewClock::rows`]).
pub fn on_created(policies: &[Policy], t: &ticket::Model) -> Option<NewClock> {
    let policy = policies::matching(policies, t.priority, t.project_id, t.assigned_group_id)?;
    let (clock, check) = next_clock(policy, t, None, t.created_at);
    Some(NewClock { clock, check })
}

/// The statements bringing the clock of `after` in step with a change from `before`, for the change's
/// transaction to run with its other writes (`crate::db::run_together`), after it locked the ticket's row.
/// Only a change of what matches a policy (priority, project, group) or of the status moves it; a ticket
/// that no policy matches keeps the clock it had, without a policy.
pub async fn on_updated(
    db: &impl ConnectionTrait,
    known: &policies::KnownPolicies,
    before: &ticket::Model,
    after: &ticket::Model,
    now: DateTime<Utc>,
) -> AppResult<Vec<InsertStatement>> {
    let moved = before.priority != after.priority
        || before.project_id != after.project_id
        || before.assigned_group_id != after.assigned_group_id
        || before.status != after.status;
    if !moved {
        return Ok(Vec::new());
    }
    let policies = known.for_priority(db, after.priority).await?;
    // Read after the ticket's lock, not joined to its locked read: a check that recorded a breach while this
    // change waited for the lock is seen (PostgreSQL re-reads only the locked row of a join after a wait).
    let clock = ticket_sla::Entity::find_by_id(after.id).one(db).await?;
    let (write, checks) = recomputed(&policies, after, clock, now);
    Ok(write.into_iter().chain(outbox::insert_of(checks)).collect())
}

/// Write the clock of `t` under the best match among `policies` (those of its priority), from its stored
/// clock `current`, unless nothing in it changes; returns whether it changed and the checks to schedule.
pub(super) async fn recompute(
    db: &impl ConnectionTrait,
    policies: &[Policy],
    t: &ticket::Model,
    current: Option<ticket_sla::Model>,
    now: DateTime<Utc>,
) -> AppResult<(bool, Vec<outbox_row::ActiveModel>)> {
    let (write, checks) = recomputed(policies, t, current, now);
    let Some(write) = write else {
        return Ok((false, checks));
    };
    db.execute(&write).await?;
    Ok((true, checks))
}

/// The clock of `t` under the best match among `policies`, from its stored clock `current`: the write that
/// stores it (none when nothing in it changes) and the checks to schedule. A ticket that no policy matches
/// keeps the events it had, without a policy or due times.
fn recomputed(
    policies: &[Policy],
    t: &ticket::Model,
    current: Option<ticket_sla::Model>,
    now: DateTime<Utc>,
) -> (Option<InsertStatement>, Vec<outbox_row::ActiveModel>) {
    let policy = policies::matching(policies, t.priority, t.project_id, t.assigned_group_id);
    let Some(policy) = policy else {
        let Some(current) = current.filter(|c| c.policy_id.is_some() || c.due_at.is_some()) else {
            return (None, Vec::new());
        };
        let next = ticket_sla::Model {
            policy_id: None,
            first_response_due_at: None,
            resolution_due_at: None,
            due_at: None,
            updated_at: now,
            check_at_ms: None,
            ..current
        };
        return (Some(stored(next)), Vec::new());
    };
    // A clock that changes policy keeps its pause accounting and the events that happened.
    let (next, check) = next_clock(policy, t, current.as_ref(), now);
    match current {
        Some(current) if same_clock(&current, &next) => (None, Vec::new()),
        _ => {
            let checks = check.map(|(target, kind, at)| check_row(t.id, target, kind, at));
            (Some(stored(next)), checks.into_iter().collect())
        }
    }
}

/// The statement storing `clock` whole, whether the ticket had one or not.
fn stored(clock: ticket_sla::Model) -> InsertStatement {
    use ticket_sla::Column as C;
    let columns = C::iter().filter(|c| !matches!(c, C::TicketId));
    ticket_sla::Entity::insert(clock.into_active_model())
        .on_conflict(
            OnConflict::column(C::TicketId)
                .update_columns(columns)
                .to_owned(),
        )
        .into_query()
}

/// Whether two clocks differ in nothing but when they were written.
fn same_clock(a: &ticket_sla::Model, b: &ticket_sla::Model) -> bool {
    ticket_sla::Model {
        updated_at: b.updated_at,
        ..a.clone()
    } == *b
}

/// The first response to `ticket_id` happened: its first-response target stops running.
pub async fn on_first_response(db: &impl ConnectionTrait, ticket_id: i32) -> AppResult<()> {
    use ticket_sla::Column as C;
    ticket_sla::Entity::update_many()
        .col_expr(
            C::FirstResponseDueAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(C::DueAt, Expr::col(C::ResolutionDueAt))
        .filter(C::TicketId.eq(ticket_id))
        .exec(db)
        .await?;
    Ok(())
}
