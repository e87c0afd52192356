//! That a time rule fired for a ticket, from which moment its wait counted.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "time_rule_fires")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub rule_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    pub anchor_ms: i64,
    pub fired_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
