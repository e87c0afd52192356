//! Bringing open tickets' clocks in step with a policy that was created, changed or deleted.
//!
//! The policy's transaction writes one outbox row of kind `JobKind::SlaReclock` naming the priorities whose
//! matches may have moved. The delivery worker hands it to [`run`], which recomputes one batch of open
//! tickets of those priorities (by id, from where the row says) in one transaction and, when the batch was
//! full, writes the row for the next batch in the same transaction. So an edit affecting a million tickets
//! costs many short transactions, never one long one, and a crash resumes at the batch it stopped in.
use super::{policies, recompute};
use crate::db::Db;
use crate::domain::{Priority, StatusCategory, TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use crate::notify::live::{LiveBus, LiveEvent, LiveKind};
use crate::notify::outbox;
use crate::service::tickets::counters;
use chrono::{DateTime, Utc};
use entity::{ticket, ticket_sla};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Tickets recomputed per transaction.
pub const BATCH: u64 = 100;

/// What a batch re-clocks: open tickets of `priorities` with an id above `after`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Batch {
    priorities: Vec<Priority>,
    after: i32,
}

fn row_of(batch: &Batch) -> AppResult<entity::outbox::ActiveModel> {
    let payload = serde_json::to_string(batch).map_err(AppError::internal)?;
    Ok(outbox::row(
        outbox::JobKind::SlaReclock,
        &outbox::new_event_id(),
        "sla.reclock",
        None,
        payload,
    ))
}

/// Schedule re-clocking the open tickets of `priorities`, inside the transaction that changed a policy
/// of those priorities (so the work is queued exactly when the change commits).
pub async fn schedule(
    db: &impl ConnectionTrait,
    priorities: impl IntoIterator<Item = Priority>,
) -> AppResult<()> {
    let mut priorities: Vec<Priority> = priorities.into_iter().collect();
    priorities.sort_by_key(|p| p.as_str());
    priorities.dedup();
    let batch = Batch {
        priorities,
        after: 0,
    };
    if let Some(insert) = outbox::insert_of(vec![row_of(&batch)?]) {
        db.execute(&insert).await?;
    }
    Ok(())
}

fn done_statuses() -> Vec<&'static str> {
    TicketStatus::ALL
        .iter()
        .copied()
        .filter(|s| s.category() == StatusCategory::Done)
        .map(TicketStatus::as_str)
        .collect()
}

/// Recompute one batch at `now`, as the row `payload` describes, and queue the next batch when this one
/// was full. Resolved, closed and archived tickets are left alone: their clocks are stopped, and the
/// change that reopens or restores one recomputes it. Returns how many clocks changed (each announced on
/// `live`).
pub async fn run(db: &Db, live: &LiveBus, payload: &str, now: DateTime<Utc>) -> AppResult<usize> {
    let Ok(batch) = serde_json::from_str::<Batch>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!(
            "unreadable SLA reclock"
        )));
    };
    let txn = db.begin_write().await?;
    // Locked, so a ticket changing meanwhile is recomputed by one of the two, after the other.
    let tickets = ticket::Entity::find()
        .filter(ticket::Column::Priority.is_in(batch.priorities.clone()))
        .filter(ticket::Column::Id.gt(batch.after))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(ticket::Column::Status.is_not_in(done_statuses()))
        .order_by_asc(ticket::Column::Id)
        .limit(BATCH)
        .lock_exclusive()
        .all(&txn)
        .await?;
    let policies = policies::for_priorities(&txn, batch.priorities.clone()).await?;
    let mut clocks: HashMap<i32, ticket_sla::Model> = ticket_sla::Entity::find()
        .filter(ticket_sla::Column::TicketId.is_in(tickets.iter().map(|t| t.id)))
        .all(&txn)
        .await?
        .into_iter()
        .map(|c| (c.ticket_id, c))
        .collect();
    let mut changed = Vec::new();
    let mut checks = Vec::new();
    for t in &tickets {
        let (moved, more) = recompute(&txn, &policies, t, clocks.remove(&t.id), now).await?;
        if moved {
            changed.push(t.id);
        }
        checks.extend(more);
    }
    if tickets.len() as u64 == BATCH {
        let next = Batch {
            after: tickets.last().map_or(batch.after, |t| t.id),
            ..batch
        };
        checks.push(row_of(&next)?);
    }
    if let Some(insert) = outbox::insert_of(checks) {
        txn.execute(&insert).await?;
    }
    if !changed.is_empty() {
        // Lists filter and sort by the clock: counts remembered before this batch no longer hold.
        counters::on_clock_moved(&txn).await?;
    }
    txn.commit().await?;
    for id in &changed {
        let event = LiveEvent::new(LiveKind::SlaChanged, *id);
        live.publish(db, event).await;
    }
    Ok(changed.len())
}
