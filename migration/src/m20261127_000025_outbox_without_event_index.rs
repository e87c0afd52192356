//! The outbox loses its index on `event_id`: nothing looks rows up by it (deliveries are claimed by status and
//! due time, redeliveries by row id), and every write that queues an event paid for a random-key insert into it
//! (every ticket create, for instance, queues its SLA check). `webhook_deliveries` keeps the event id it sends.
use crate::helpers::{create_indexes, drop_index, index};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_index(manager, "outbox", &["event_id"]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        create_indexes(manager, vec![index("outbox", &["event_id"], false)]).await
    }
}
