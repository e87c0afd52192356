//! What reports need of a ticket that its own row does not keep, kept by the ticket service in the
//! transaction of each status move: how often it was reopened (moved out of a done status), and how long it
//! spent in each status category before its current status (milliseconds). A ticket whose status never moved
//! has no row. And an index on `resolved_at`, which reports read ranges of.
use crate::helpers::{drop_index, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("ticket_metrics")
                    .if_not_exists()
                    .col(integer("ticket_id").primary_key())
                    .col(integer("reopens").default(0))
                    .col(big_integer("todo_ms").default(0))
                    .col(big_integer("in_progress_ms").default(0))
                    .col(big_integer("done_ms").default(0))
                    .foreign_key(&mut fk(
                        "ticket_metrics",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("tickets", &["resolved_at"], false))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_index(manager, "tickets", &["resolved_at"]).await?;
        drop_tables(manager, &["ticket_metrics"]).await
    }
}
