//! `BulkJob`: a bulk change under way or done, with its progress and per-ticket failures.
use crate::graphql::ids;
use crate::service::tickets::bulk;
use async_graphql::{Enum, Json, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::bulk_job;
use entity::values::BulkStatus;

/// Where a bulk change stands.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum BulkJobStatus {
    /// Waiting for the worker.
    Queued,
    /// Some of its tickets are done.
    Running,
    /// Every ticket was tried.
    Done,
}

/// A ticket a bulk change could not change.
#[derive(SimpleObject)]
pub struct BulkFailure {
    /// Global id of the ticket.
    ticket_id: ID,
    /// The error code (`FORBIDDEN`, `NOT_FOUND`, `INVALID_TRANSITION`, …).
    code: String,
    /// Why.
    message: String,
}

/// The same change to many tickets, made by the worker ticket by ticket as the person who asked for it.
pub struct BulkJob(pub bulk_job::Model);

/// The same change to many tickets, made ticket by ticket in the background as the person who asked for it.
#[Object]
impl BulkJob {
    /// Global id.
    async fn id(&self) -> ID {
        ids::encode("BulkJob", self.0.id)
    }

    /// The integer id (`GET /api/jobs/<id>/`).
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Where it stands.
    async fn status(&self) -> BulkJobStatus {
        match self.0.status {
            BulkStatus::Queued => BulkJobStatus::Queued,
            BulkStatus::Running => BulkJobStatus::Running,
            BulkStatus::Done => BulkJobStatus::Done,
        }
    }

    /// The change, in the REST spelling (`{"status": "resolved", "assigned_to": 3}`).
    async fn changes(&self) -> Json<serde_json::Value> {
        Json(self.0.changes.clone())
    }

    /// Tickets it names.
    async fn total(&self) -> usize {
        bulk::total(&self.0)
    }

    /// Tickets tried so far.
    async fn processed(&self) -> i32 {
        self.0.processed
    }

    /// Tickets it could not change.
    async fn failed(&self) -> i32 {
        self.0.failed
    }

    /// Why, ticket by ticket (the first 1,000).
    async fn failures(&self) -> Vec<BulkFailure> {
        bulk::failures(&self.0)
            .into_iter()
            .map(|f| BulkFailure {
                ticket_id: ids::encode("Ticket", f.ticket_id),
                code: f.code.to_uppercase(),
                message: f.message,
            })
            .collect()
    }

    /// When it was asked for.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When every ticket had been tried.
    async fn finished_at(&self) -> Option<DateTime<Utc>> {
        self.0.finished_at
    }
}
