//! Blob rows become the lock that lets instances collect unused bytes safely: a `state` (`writing` while an
//! upload writes the bytes, `stored` once they are complete, `collecting` while the collector deletes them)
//! and `touched_at`, the last time an upload wrote or reused them (the collector leaves recent ones alone).
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters a table one column at a time.
        manager
            .alter_table(
                Table::alter()
                    .table("blobs")
                    .add_column(string_len("state", 16).default("stored"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("blobs")
                    .add_column(timestamp_with_time_zone_null("touched_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared("UPDATE blobs SET touched_at = created_at")
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in ["touched_at", "state"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("blobs")
                        .drop_column(Alias::new(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
