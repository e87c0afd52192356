//! A bulk change: the same change to many tickets, made by the worker ticket by ticket for the person who
//! asked, with its progress and per-ticket failures.
use crate::values::BulkStatus;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "bulk_jobs")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub owner_id: i32,
    pub status: BulkStatus,
    /// The change, in the REST spelling (`{"status": …, "assigned_to": …}`).
    pub changes: Json,
    /// The tickets, as named or as the filter found them when the change was asked for.
    pub ticket_ids: Json,
    /// How many of `ticket_ids` were tried (the next one's index).
    pub processed: i32,
    pub failed: i32,
    /// `[{"ticket_id", "code", "message"}]`, the first 1,000.
    pub failures: Json,
    /// A run holds the job until then (milliseconds), so two never work on it at once.
    pub locked_until_ms: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub finished_at: Option<DateTimeUtc>,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
