//! The Slack thread a bot destination keeps a ticket's messages in: the `ts` of the first one posted.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "chat_threads")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub destination_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    pub thread_ts: String,
    pub created_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
