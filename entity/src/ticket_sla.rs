//! A ticket's SLA clock: its policy, pause accounting, due times and when its events happened.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "ticket_slas")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    pub policy_id: Option<i32>,
    pub paused_ms: i64,
    pub paused_since: Option<DateTimeUtc>,
    pub first_response_due_at: Option<DateTimeUtc>,
    pub resolution_due_at: Option<DateTimeUtc>,
    pub due_at: Option<DateTimeUtc>,
    pub first_response_at_risk_at: Option<DateTimeUtc>,
    pub resolution_at_risk_at: Option<DateTimeUtc>,
    pub first_response_breached_at: Option<DateTimeUtc>,
    pub resolution_breached_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
    /// The instant (ms) of the clock's one pending check; `None` when no event is ahead.
    pub check_at_ms: Option<i64>,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
