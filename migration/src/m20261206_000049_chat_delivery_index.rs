//! A chat destination's messages, newest first, are an index range: the administrators' delivery log reads
//! them by destination. Partial, so the outbox's other rows (email, webhooks, the service's own work) cost it
//! nothing.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // Partial indexes read the same on both databases; sea-query has no builder for the `WHERE`.
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX IF NOT EXISTS idx_outbox_chat_destination \
                 ON outbox (chat_destination_id, id) WHERE chat_destination_id IS NOT NULL",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP INDEX IF EXISTS idx_outbox_chat_destination")
            .await?;
        Ok(())
    }
}
