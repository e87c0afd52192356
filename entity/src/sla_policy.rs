//! An SLA policy: which tickets it matches, its targets, its business-hours calendar and pause statuses.
use crate::values::Priority;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "sla_policies")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub name: String,
    pub priority: Priority,
    pub project_id: Option<i32>,
    pub group_id: Option<i32>,
    pub first_response_minutes: i32,
    pub resolution_minutes: i32,
    pub time_zone: String,
    pub hours: Json,
    pub holidays: Json,
    pub pause_statuses: Json,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
