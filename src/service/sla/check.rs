//! The scheduled check: when an at-risk or breach instant comes, record the event once, with its audit
//! record, webhooks and emails.
use super::clock::{self, Kind, Pauses, Target};
use super::policies::{self, Policy};
use super::{check_row, happened_mut, ms_of, next_check, pending, standing, Check};
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveEvent, LiveKind};
use crate::notify::outbox;
use crate::service::audit;
use crate::service::events;
use crate::service::tickets::counters;
use crate::service::tickets::write::triggered;
use crate::service::WriteDeps;
use chrono::{DateTime, Duration, Utc};
use entity::{sla_event, ticket, ticket_sla};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait,
    IntoActiveModel, QueryFilter, QuerySelect, Set,
};
use serde::Deserialize;
use serde_json::json;

/// A scheduled check's row payload, as read back. `at` names the check its clock waits for; rows queued
/// before checks were chained have none and look at their own event only.
#[derive(Debug, Deserialize)]
struct CheckRow {
    ticket_id: i32,
    target: String,
    kind: String,
    at: Option<i64>,
}

/// Run a scheduled check at `now`: record every event of the ticket whose instant has come and that has
/// not happened, once each (a unique key decides between instances racing), with its audit record,
/// webhooks and emails, and schedule the check for the next event, all in one transaction. A check its
/// clock no longer waits for (the due times moved, and a check for the new ones was scheduled) does
/// nothing. Returns whether this call recorded an event.
pub async fn check(deps: WriteDeps<'_>, payload: &str, now: DateTime<Utc>) -> AppResult<bool> {
    let Ok(row) = serde_json::from_str::<CheckRow>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!("unreadable SLA check")));
    };
    let (Some(target), Some(kind)) = (Target::parse(&row.target).ok(), Kind::parse(&row.kind).ok())
    else {
        return Err(AppError::internal(anyhow::anyhow!("unknown SLA check")));
    };
    let triggers = deps.triggers.active(&deps.db.conn).await?;
    let txn = deps.db.begin_write().await?;
    let Some((t, clock, policy)) = clocked(&txn, row.ticket_id).await? else {
        if let Some(at) = row.at {
            // The chain ends here (archived ticket, policy gone): the clock's next recompute queues a check
            // again even if its first instant ahead is this one.
            use ticket_sla::Column as C;
            ticket_sla::Entity::update_many()
                .col_expr(C::CheckAtMs, Expr::value(Option::<i64>::None))
                .filter(C::TicketId.eq(row.ticket_id))
                .filter(C::CheckAtMs.eq(at))
                .exec(&txn)
                .await?;
        }
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
    // The check its clock waits for takes every event come due; one queued before checks were chained, its
    // own event; any other is stale.
    let chained = row.at.is_some_and(|at| clock.check_at_ms == Some(at));
    let due: Vec<Check> = match row.at {
        Some(_) if chained => pending(&dues, &clock)
            .into_iter()
            .filter(|&(_, _, at)| at <= now)
            .collect(),
        Some(_) => Vec::new(),
        None => dues
            .of(target, kind)
            .filter(|at| *at <= now)
            .map(|at| (target, kind, at))
            .into_iter()
            .collect(),
    };
    let mut next = clock.clone();
    let mut recorded = false;
    let mut happened = Vec::new();
    for (target, kind, at) in due {
        // A check that comes late (the workers were down) does not warn of a breach that already happened.
        let superseded = kind == Kind::AtRisk
            && dues
                .of(target, Kind::Breached)
                .is_some_and(|due| due <= now);
        if superseded || !record(&txn, deps, &t, target, kind, at, now).await? {
            continue;
        }
        *happened_mut(&mut next, target, kind) = Some(now);
        recorded = true;
        happened.push((target, kind));
    }
    if chained {
        let following = next_check(&dues, &next, Some(now));
        next.check_at_ms = following.map(|(_, _, at)| ms_of(at));
        if let Some(insert) = outbox::insert_of(
            following
                .map(|(target, kind, at)| check_row(t.id, target, kind, at))
                .into_iter()
                .collect(),
        ) {
            txn.execute(&insert).await?;
        }
    }
    if next != clock {
        next.updated_at = now;
        next.into_active_model().reset_all().update(&txn).await?;
    }
    if recorded {
        counters::on_clock_moved(&txn).await?;
    }
    // Last, once the clock is saved: a rule that changes the priority re-clocks the ticket from it.
    let before = t.clone();
    let mut current = t;
    let mut ran = Vec::new();
    for (target, kind) in happened {
        let breached = kind == Kind::Breached;
        let done = triggered::after_sla_event(
            &txn,
            deps,
            &triggers,
            current.clone(),
            breached,
            target.as_str(),
        )
        .await?;
        current = done.ticket.clone();
        ran.push(done);
    }
    txn.commit().await?;
    if recorded {
        deps.live
            .publish(deps.db, LiveEvent::new(LiveKind::SlaChanged, current.id))
            .await;
    }
    for done in &ran {
        done.publish(deps, &before).await;
    }
    Ok(recorded)
}

/// The live ticket `id` locked for the check, its clock and the clock's policy; `None` when any is gone.
async fn clocked(
    txn: &DatabaseTransaction,
    id: i32,
) -> AppResult<Option<(ticket::Model, ticket_sla::Model, Policy)>> {
    let Some(t) = ticket::Entity::find_by_id(id)
        .lock_exclusive()
        .one(txn)
        .await?
        .filter(|t| t.archived_at.is_none())
    else {
        return Ok(None);
    };
    let Some(clock) = ticket_sla::Entity::find_by_id(t.id).one(txn).await? else {
        return Ok(None);
    };
    let Some(policy_id) = clock.policy_id else {
        return Ok(None);
    };
    let Some(policy) = policies::get(txn, policy_id).await? else {
        return Ok(None);
    };
    Ok(Some((t, clock, Policy::from_row(policy)?)))
}

/// Record that `kind` of `target` happened to `t` (its instant was `at`), with its audit record, webhooks
/// and emails, unless it was recorded already; returns whether this call recorded it.
async fn record(
    txn: &DatabaseTransaction,
    deps: WriteDeps<'_>,
    t: &ticket::Model,
    target: Target,
    kind: Kind,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let insert = sla_event::Entity::insert(sla_event::ActiveModel {
        ticket_id: Set(t.id),
        target: Set(target),
        kind: Set(kind),
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
    .exec_without_returning(txn)
    .await?;
    if insert == 0 {
        return Ok(false);
    }
    let field = format!("sla_{}_{}", target.as_str(), kind.as_str());
    audit::record(
        txn,
        audit::Entry::new(None, "ticket", t.id, sla_action(kind))
            .ticket(t.id)
            .changes(json!({ field: [null, at] })),
    )
    .await?;
    events::sla_event(txn, deps.config, t, target, kind, at).await?;
    Ok(true)
}

fn sla_action(kind: Kind) -> &'static str {
    match kind {
        Kind::AtRisk => "sla_at_risk",
        Kind::Breached => "sla_breached",
    }
}
