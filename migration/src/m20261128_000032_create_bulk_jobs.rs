//! Bulk changes: one row per change asked for, which the worker works through ticket by ticket, keeping
//! its progress and the failures, so a restart resumes where it stopped.
use crate::helpers::{create_indexes, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("bulk_jobs")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("owner_id"))
                    .col(string_len("status", 20))
                    .col(json("changes"))
                    .col(json("ticket_ids"))
                    .col(integer("processed"))
                    .col(integer("failed"))
                    .col(json("failures"))
                    .col(big_integer("locked_until_ms"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("finished_at"))
                    .foreign_key(&mut fk(
                        "bulk_jobs",
                        "owner_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![index("bulk_jobs", &["owner_id", "status"], false)],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["bulk_jobs"]).await
    }
}
