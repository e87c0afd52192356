//! An SLA event that happened (at risk or breached, per target): at most one per ticket, target and kind.
use crate::values::{SlaEventKind, SlaTarget};
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "sla_events")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub ticket_id: i32,
    pub target: SlaTarget,
    pub kind: SlaEventKind,
    pub created_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
