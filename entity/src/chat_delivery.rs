//! One try to post a chat message: the destination's answer or the error met, and how long it took.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "chat_deliveries")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub outbox_id: i64,
    pub destination_id: i32,
    pub event: String,
    pub attempt: i32,
    pub status_code: Option<i32>,
    pub error: Option<String>,
    pub duration_ms: i64,
    pub created_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
