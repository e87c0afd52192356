//! Service levels: policies (`policies`), business-hours arithmetic (`calendar`), the per-ticket clock
//! (`clock`), and keeping each ticket's clock in step with its changes, in the change's transaction.
//!
//! Breaches are found without scanning: whenever a clock's due time moves, an outbox row of kind
//! [`KIND_CHECK`] is written due at the at-risk and breach instants. The delivery worker hands such rows to
//! [`check`], which looks again (the ticket may have been answered, paused or resolved since) and, the
//! first time only, records the event and queues its webhooks and emails.
pub mod calendar;
mod check;
pub mod clock;
pub mod policies;
pub mod reclock;
mod view;

pub use check::check;
pub use view::{due_at_of_ticket, tickets_in, view_of, views, SlaState, SlaView};
pub mod seeded;

use crate::domain::{StatusCategory, Workflow};
use crate::error::AppResult;
use crate::notify::outbox;
use chrono::{DateTime, Duration, Utc};
use clock::{Kind, Pauses, Standing, Target};
use entity::{outbox as outbox_row, ticket, ticket_sla};
use policies::Policy;
use sea_orm::sea_query::{Expr, InsertStatement, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, Iterable, QueryFilter, QueryTrait,
    Set,
};
use serde::Serialize;

/// Outbox row kind of a scheduled SLA check.
pub const KIND_CHECK: &str = "sla_check";

/// What a scheduled check looks at.
#[derive(Debug, Clone, Copy, Serialize)]
struct CheckPayload {
    ticket_id: i32,
    target: &'static str,
    kind: &'static str,
}

fn is_stopped(policy: &Policy, t: &ticket::Model) -> bool {
    t.status.category() == StatusCategory::Done || policy.pause_statuses.contains(&t.status)
}

fn standing(t: &ticket::Model) -> Standing {
    Standing {
        responded: t.first_responded_at.is_some(),
        resolved: t.resolved_at.is_some() || t.status.category() == StatusCategory::Done,
    }
}

fn ms_of(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// The stored clock of `t` under `policy` at `now`, from its previous state `before` (none for a new
/// ticket), and the checks to schedule: one per event whose instant moved and has not happened yet.
fn next_clock(
    policy: &Policy,
    t: &ticket::Model,
    before: Option<&ticket_sla::Model>,
    now: DateTime<Utc>,
) -> (ticket_sla::Model, Vec<outbox_row::ActiveModel>) {
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
    let happened = |target: Target, kind: Kind| {
        before.and_then(|b| match (target, kind) {
            (Target::FirstResponse, Kind::AtRisk) => b.first_response_at_risk_at,
            (Target::FirstResponse, Kind::Breached) => b.first_response_breached_at,
            (Target::Resolution, Kind::AtRisk) => b.resolution_at_risk_at,
            (Target::Resolution, Kind::Breached) => b.resolution_breached_at,
        })
    };
    let old_due = |target: Target| {
        before.and_then(|b| match target {
            Target::FirstResponse => b.first_response_due_at,
            Target::Resolution => b.resolution_due_at,
        })
    };
    let mut checks = Vec::new();
    for target in Target::ALL {
        let due = dues.of(target, Kind::Breached);
        if due.is_none() || due == old_due(target) {
            continue;
        }
        for kind in [Kind::AtRisk, Kind::Breached] {
            let (Some(at), None) = (dues.of(target, kind), happened(target, kind)) else {
                continue;
            };
            checks.push(check_row(t.id, target, kind, at));
        }
    }
    let row = ticket_sla::Model {
        ticket_id: t.id,
        policy_id: Some(policy.row.id),
        paused_ms: pauses.paused.num_milliseconds(),
        paused_since: pauses.since,
        first_response_due_at: dues.first_response,
        resolution_due_at: dues.resolution,
        due_at: dues.next(),
        first_response_at_risk_at: happened(Target::FirstResponse, Kind::AtRisk),
        resolution_at_risk_at: happened(Target::Resolution, Kind::AtRisk),
        first_response_breached_at: happened(Target::FirstResponse, Kind::Breached),
        resolution_breached_at: happened(Target::Resolution, Kind::Breached),
        updated_at: now,
    };
    (row, checks)
}

fn check_row(
    ticket_id: i32,
    target: Target,
    kind: Kind,
    at: DateTime<Utc>,
) -> outbox_row::ActiveModel {
    let payload = CheckPayload {
        ticket_id,
        target: target.as_str(),
        kind: kind.as_str(),
    };
    let mut row = outbox::row(
        KIND_CHECK,
        &outbox::new_event_id(),
        kind.event(),
        None,
        serde_json::to_string(&payload).unwrap_or_default(),
    );
    row.due_at_ms = Set(ms_of(at));
    row
}

/// The clock of a ticket being created and the checks it schedules, for the creating transaction to
/// write (`policies` are the ones for the ticket's priority, read before it).
pub fn on_created(
    policies: &[Policy],
    t: &ticket::Model,
) -> Option<(ticket_sla::Model, Vec<outbox_row::ActiveModel>)> {
    let policy = policies::matching(
        policies,
        t.priority.as_str(),
        t.project_id,
        t.assigned_group_id,
    )?;
    Some(next_clock(policy, t, None, t.created_at))
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
    let policies = known.for_priority(db, after.priority.as_str()).await?;
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
    let policy = policies::matching(
        policies,
        t.priority.as_str(),
        t.project_id,
        t.assigned_group_id,
    );
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
            ..current
        };
        return (Some(stored(next)), Vec::new());
    };
    // A clock that changes policy keeps its pause accounting and the events that happened.
    let (next, checks) = next_clock(policy, t, current.as_ref(), now);
    match current {
        Some(current) if same_clock(&current, &next) => (None, Vec::new()),
        _ => (Some(stored(next)), checks),
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
