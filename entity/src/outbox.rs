//! One message waiting for (or done with) delivery: a webhook call, an email, a chat message, or the service's
//! own work.
use crate::values::{JobKind, JobStatus};
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "outbox")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub kind: JobKind,
    pub event_id: String,
    pub event: String,
    pub webhook_id: Option<i32>,
    /// The chat destination of a `chat` row.
    pub chat_destination_id: Option<i32>,
    pub payload: String,
    pub status: JobStatus,
    pub attempts: i32,
    pub due_at_ms: i64,
    pub locked_until_ms: i64,
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub delivered_at: Option<DateTimeUtc>,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
