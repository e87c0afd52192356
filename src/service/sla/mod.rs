//! Service levels: policies (`policies`), business-hours arithmetic (`calendar`), the per-ticket clock
//! (`clock`), and keeping each ticket's clock in step with its changes, in the change's transaction.
//!
//! Breaches are found without scanning: whenever a clock's due time moves, an outbox row of kind
//! [`KIND_CHECK`] is written due at the at-risk and breach instants. The delivery worker hands such rows to
//! [`check`], which looks again (the ticket may have been answered, paused or resolved since) and, the
//! first time only, records the event and queues its webhooks and emails.
pub mod calendar;
pub mod clock;
pub mod policies;
pub mod reclock;

use crate::domain::{StatusCategory, Workflow};
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::notify::{events, outbox};
use crate::service::audit;
use crate::service::tickets::counters;
use crate::state::AppState;
use chrono::{DateTime, Duration, Utc};
use clock::{Kind, Pauses, Standing, Target};
use entity::{outbox as outbox_row, sla_event, sla_policy, ticket, ticket_sla};
use policies::Policy;
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict, Query, SelectStatement};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QuerySelect, Set,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;

/// Outbox row kind of a scheduled SLA check.
pub const KIND_CHECK: &str = "sla_check";

/// What a scheduled check looks at.
#[derive(Debug, Clone, Copy, Serialize)]
struct CheckPayload {
    ticket_id: i32,
    target: &'static str,
    kind: &'static str,
}

#[derive(Debug, Deserialize)]
struct CheckRow {
    ticket_id: i32,
    target: String,
    kind: String,
}

/// Which tickets a list keeps by their SLA state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlaState {
    /// A target was breached.
    Breached,
    /// A running target is past its at-risk point and not breached.
    AtRisk,
    /// A target is running (the clock has a due time).
    Running,
}

/// A ticket's clock as readers see it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlaView {
    /// The policy that set it (gone when deleted since).
    pub policy: Option<sla_policy::Model>,
    /// First-response due time, while that target runs.
    pub first_response_due_at: Option<DateTime<Utc>>,
    /// Resolution due time, while that target runs.
    pub resolution_due_at: Option<DateTime<Utc>>,
    /// When the first-response target was breached.
    pub first_response_breached_at: Option<DateTime<Utc>>,
    /// When the resolution target was breached.
    pub resolution_breached_at: Option<DateTime<Utc>>,
    /// Whether a running target passed its at-risk point.
    pub at_risk: bool,
    /// Since when the clock is stopped.
    pub paused_since: Option<DateTime<Utc>>,
    /// Business time the clock was stopped in past stops.
    pub paused: Duration,
}

impl SlaView {
    /// The earlier running due time.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        match (self.first_response_due_at, self.resolution_due_at) {
            (Some(a), Some(b)) => Some(Ord::min(a, b)),
            (a, b) => a.or(b),
        }
    }
}

/// The clocks of tickets the caller has already been allowed to see (a `Ticket` the service returned),
/// by ticket id; tickets no policy ever applied to are absent. Everyone who sees a ticket sees its clock
/// and the policy that set it.
pub async fn views(
    db: &impl ConnectionTrait,
    ticket_ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, SlaView>> {
    let rows = ticket_sla::Entity::find()
        .filter(ticket_sla::Column::TicketId.is_in(ticket_ids))
        .all(db)
        .await?;
    let policy_ids: Vec<i32> = rows.iter().filter_map(|r| r.policy_id).collect();
    let policies: HashMap<i32, sla_policy::Model> = if policy_ids.is_empty() {
        HashMap::new()
    } else {
        sla_policy::Entity::find()
            .filter(sla_policy::Column::Id.is_in(policy_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|p| (p.id, p))
            .collect()
    };
    Ok(rows
        .into_iter()
        .map(|r| {
            let policy = r.policy_id.and_then(|id| policies.get(&id).cloned());
            (r.ticket_id, view_of(r, policy))
        })
        .collect())
}

/// The clock of one ticket the caller may see (see [`views`]).
pub async fn view(db: &impl ConnectionTrait, t: &ticket::Model) -> AppResult<Option<SlaView>> {
    Ok(views(db, [t.id]).await?.remove(&t.id))
}

fn view_of(row: ticket_sla::Model, policy: Option<sla_policy::Model>) -> SlaView {
    let at_risk = (row.first_response_due_at.is_some()
        && row.first_response_at_risk_at.is_some()
        && row.first_response_breached_at.is_none())
        || (row.resolution_due_at.is_some()
            && row.resolution_at_risk_at.is_some()
            && row.resolution_breached_at.is_none());
    SlaView {
        policy,
        first_response_due_at: row.first_response_due_at,
        resolution_due_at: row.resolution_due_at,
        first_response_breached_at: row.first_response_breached_at,
        resolution_breached_at: row.resolution_breached_at,
        at_risk,
        paused_since: row.paused_since,
        paused: Duration::milliseconds(row.paused_ms),
    }
}

/// The ids of tickets in `state`, as a subquery for list filters. Decided by stored columns only, so a
/// list costs the same whatever the time, and what a list shows agrees with each ticket's `sla`.
pub fn tickets_in(state: SlaState) -> SelectStatement {
    use ticket_sla::Column as C;
    let col = |c: C| Expr::col((ticket_sla::Entity, c));
    let cond = match state {
        SlaState::Breached => col(C::FirstResponseBreachedAt)
            .is_not_null()
            .or(col(C::ResolutionBreachedAt).is_not_null()),
        SlaState::AtRisk => col(C::FirstResponseDueAt)
            .is_not_null()
            .and(col(C::FirstResponseAtRiskAt).is_not_null())
            .and(col(C::FirstResponseBreachedAt).is_null())
            .or(col(C::ResolutionDueAt)
                .is_not_null()
                .and(col(C::ResolutionAtRiskAt).is_not_null())
                .and(col(C::ResolutionBreachedAt).is_null())),
        SlaState::Running => col(C::DueAt).is_not_null(),
    };
    Query::select()
        .column((ticket_sla::Entity, C::TicketId))
        .from(ticket_sla::Entity)
        .and_where(cond)
        .to_owned()
}

/// The next due time of the ticket in the outer query, as an expression lists sort on.
pub fn due_at_of_ticket() -> Expr {
    Expr::SubQuery(
        None,
        Box::new(
            Query::select()
                .column((ticket_sla::Entity, ticket_sla::Column::DueAt))
                .from(ticket_sla::Entity)
                .and_where(
                    Expr::col((ticket_sla::Entity, ticket_sla::Column::TicketId))
                        .equals((ticket::Entity, ticket::Column::Id)),
                )
                .to_owned()
                .into(),
        ),
    )
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
    policies: Vec<Policy>,
    t: &ticket::Model,
) -> Option<(ticket_sla::Model, Vec<outbox_row::ActiveModel>)> {
    let policy = policies::matching(
        &policies,
        t.priority.as_str(),
        t.project_id,
        t.assigned_group_id,
    )?;
    Some(next_clock(policy, t, None, t.created_at))
}

/// Bring the clock of `after` in step with a change from `before`, inside the change's transaction.
/// Only a change of what matches a policy (priority, project, group) or of the status moves it; a
/// ticket that no policy matches keeps the clock it had, without a policy.
pub async fn on_updated(
    db: &impl ConnectionTrait,
    before: &ticket::Model,
    after: &ticket::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let moved = before.priority != after.priority
        || before.project_id != after.project_id
        || before.assigned_group_id != after.assigned_group_id
        || before.status != after.status;
    if !moved {
        return Ok(());
    }
    let policies = policies::for_priority(db, after.priority.as_str()).await?;
    let current = ticket_sla::Entity::find_by_id(after.id).one(db).await?;
    let (_, checks) = recompute(db, &policies, after, current, now).await?;
    if let Some(insert) = outbox::insert_of(checks) {
        db.execute(&insert).await?;
    }
    Ok(())
}

/// Write the clock of `t` under the best match among `policies` (those of its priority), from its stored
/// clock `current`, unless nothing in it changes; returns whether it changed and the checks to schedule.
/// A ticket that no policy matches keeps the events it had, without a policy or due times.
pub(super) async fn recompute(
    db: &impl ConnectionTrait,
    policies: &[Policy],
    t: &ticket::Model,
    current: Option<ticket_sla::Model>,
    now: DateTime<Utc>,
) -> AppResult<(bool, Vec<outbox_row::ActiveModel>)> {
    let policy = policies::matching(
        policies,
        t.priority.as_str(),
        t.project_id,
        t.assigned_group_id,
    );
    let Some(policy) = policy else {
        let Some(current) = current.filter(|c| c.policy_id.is_some() || c.due_at.is_some()) else {
            return Ok((false, Vec::new()));
        };
        let mut active = current.into_active_model();
        active.policy_id = Set(None);
        active.first_response_due_at = Set(None);
        active.resolution_due_at = Set(None);
        active.due_at = Set(None);
        active.updated_at = Set(now);
        active.update(db).await?;
        return Ok((true, Vec::new()));
    };
    // A clock that changes policy keeps its pause accounting and the events that happened.
    let (next, checks) = next_clock(policy, t, current.as_ref(), now);
    match current {
        Some(current) if same_clock(&current, &next) => return Ok((false, Vec::new())),
        Some(_) => {
            // Every column is written: the row is recomputed whole.
            let mut active = next.into_active_model().reset_all();
            active.ticket_id = sea_orm::ActiveValue::Unchanged(t.id);
            active.update(db).await?;
        }
        None => {
            ticket_sla::Entity::insert(next.into_active_model())
                .exec_without_returning(db)
                .await?;
        }
    }
    Ok((true, checks))
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

/// Run a scheduled check at `now`: when the event is due and has not happened, record it once (a unique
/// key decides between instances racing), with its audit record, webhooks and emails, in one transaction.
/// Returns whether this call recorded it.
pub async fn check(state: &AppState, payload: &str, now: DateTime<Utc>) -> AppResult<bool> {
    let Ok(row) = serde_json::from_str::<CheckRow>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!("unreadable SLA check")));
    };
    let (Some(target), Some(kind)) = (Target::parse(&row.target), Kind::parse(&row.kind)) else {
        return Err(AppError::internal(anyhow::anyhow!("unknown SLA check")));
    };
    let txn = state.db.begin_write().await?;
    let Some(t) = ticket::Entity::find_by_id(row.ticket_id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .filter(|t| t.archived_at.is_none())
    else {
        txn.commit().await?;
        return Ok(false);
    };
    let Some(clock) = ticket_sla::Entity::find_by_id(t.id).one(&txn).await? else {
        txn.commit().await?;
        return Ok(false);
    };
    let policy = match clock.policy_id {
        Some(id) => policies::get(&txn, id)
            .await?
            .map(Policy::from_row)
            .transpose()?,
        None => None,
    };
    let Some(policy) = policy else {
        txn.commit().await?;
        return Ok(false);
    };
    let pauses = Pauses {
        paused: Duration::milliseconds(clock.paused_ms),
        since: clock.paused_since,
    };
    let dues = clock::dues(
        &policy.calendar,
        &policy.targets,
        t.created_at,
        pauses,
        standing(&t),
    );
    let Some(at) = dues.of(target, kind).filter(|at| *at <= now) else {
        txn.commit().await?;
        return Ok(false);
    };
    // A check that comes late (the workers were down) does not warn of a breach that already happened.
    let superseded = kind == Kind::AtRisk
        && dues
            .of(target, Kind::Breached)
            .is_some_and(|due| due <= now);
    if superseded {
        txn.commit().await?;
        return Ok(false);
    }
    let insert = sla_event::Entity::insert(sla_event::ActiveModel {
        ticket_id: Set(t.id),
        target: Set(target.as_str().to_string()),
        kind: Set(kind.as_str().to_string()),
        created_at: Set(now),
        ..Default::default()
    })
    .on_conflict(
        OnConflict::columns([
            sla_event::Column::TicketId,
            sla_event::Column::Target,
            sla_event::Column::Kind,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(&txn)
    .await?;
    if insert == 0 {
        txn.commit().await?;
        return Ok(false);
    }
    let mut active = clock.into_active_model();
    let column = match (target, kind) {
        (Target::FirstResponse, Kind::AtRisk) => &mut active.first_response_at_risk_at,
        (Target::FirstResponse, Kind::Breached) => &mut active.first_response_breached_at,
        (Target::Resolution, Kind::AtRisk) => &mut active.resolution_at_risk_at,
        (Target::Resolution, Kind::Breached) => &mut active.resolution_breached_at,
    };
    *column = Set(Some(now));
    active.updated_at = Set(now);
    active.update(&txn).await?;
    counters::on_clock_moved(&txn).await?;
    let field = format!("sla_{}_{}", target.as_str(), kind.as_str());
    audit::record(
        &txn,
        audit::Entry::new(None, "ticket", t.id, sla_action(kind))
            .ticket(t.id)
            .changes(json!({ field: [null, at] })),
    )
    .await?;
    events::sla_event(&txn, state, &t, target, kind, at).await?;
    txn.commit().await?;
    state
        .live
        .publish(&state.db, LiveEvent::new(LiveKind::SlaChanged, t.id))
        .await;
    Ok(true)
}

fn sla_action(kind: Kind) -> &'static str {
    match kind {
        Kind::AtRisk => "sla_at_risk",
        Kind::Breached => "sla_breached",
    }
}
