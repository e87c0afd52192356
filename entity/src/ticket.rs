//! A ticket: a request or incident raised by a requester.
use crate::values::{Priority, TicketStatus};
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// Serialisable so that the first answer to an idempotent create can be kept (`idempotency_key`).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "tickets")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    #[sea_orm(unique)]
    pub number: i64,
    #[sea_orm(unique)]
    pub ticket_number: String,
    pub title: String,
    pub description: String,
    pub status: TicketStatus,
    pub priority: Priority,
    pub requester_id: i32,
    pub assignee_id: Option<i32>,
    pub assigned_group_id: Option<i32>,
    pub project_id: Option<i32>,
    pub due_date: Option<Date>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub first_responded_at: Option<DateTimeUtc>,
    pub resolved_at: Option<DateTimeUtc>,
    pub closed_at: Option<DateTimeUtc>,
    pub archived_at: Option<DateTimeUtc>,
    pub archived_by_id: Option<i32>,
    /// Live public comments (kept by the comment service in each comment write's transaction).
    pub public_comment_count: i64,
    /// Live comments, internal ones included (likewise).
    pub all_comment_count: i64,
    /// When the status last changed (at creation, the creation). Time rules count waits from it.
    #[serde(default)]
    pub status_changed_at: Option<DateTimeUtc>,
    /// The ticket this one was merged into (it is closed, and replies and comments go there).
    #[serde(default)]
    pub merged_into_id: Option<i32>,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
