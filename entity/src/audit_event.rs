//! One audit-trail record: who changed what, with old and new values.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "audit_events")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub actor_id: Option<i32>,
    pub entity_type: String,
    pub entity_id: i32,
    pub ticket_id: Option<i32>,
    pub action: String,
    pub changes: Json,
    pub is_internal: bool,
    pub created_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
