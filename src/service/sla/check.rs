//! The scheduled check: when an at-risk or breach instant comes, record the event once, with its audit
//! record, webhooks and emails.
use super::clock::{self, Kind, Pauses, Target};
use super::policies::{self, Policy};
use super::standing;
use crate::error::{AppError, AppResult};
use crate::notify::events;
use crate::notify::live::{LiveEvent, LiveKind};
use crate::service::audit;
use crate::service::tickets::counters;
use crate::service::WriteDeps;
use chrono::{DateTime, Duration, Utc};
use entity::{sla_event, ticket, ticket_sla};
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, QuerySelect, Set};
use serde::Deserialize;
use serde_json::json;

/// A scheduled check's row payload, as read back.
#[derive(Debug, Deserialize)]
struct CheckRow {
    ticket_id: i32,
    target: String,
    kind: String,
}

/// Run a scheduled check at `now`: when the event is due and has not happened, record it once (a unique
/// key decides between instances racing), with its audit record, webhooks and emails, in one transaction.
/// Returns whether this call recorded it.
pub async fn check(deps: WriteDeps<'_>, payload: &str, now: DateTime<Utc>) -> AppResult<bool> {
    let Ok(row) = serde_json::from_str::<CheckRow>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!("unreadable SLA check")));
    };
    let (Some(target), Some(kind)) = (Target::parse(&row.target), Kind::parse(&row.kind)) else {
        return Err(AppError::internal(anyhow::anyhow!("unknown SLA check")));
    };
    let txn = deps.db.begin_write().await?;
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
    events::sla_event(&txn, deps.config, &t, target, kind, at).await?;
    txn.commit().await?;
    deps.live
        .publish(deps.db, LiveEvent::new(LiveKind::SlaChanged, t.id))
        .await;
    Ok(true)
}

fn sla_action(kind: Kind) -> &'static str {
    match kind {
        Kind::AtRisk => "sla_at_risk",
        Kind::Breached => "sla_breached",
    }
}
