//! Time spent on tickets, for billing and reports: who, how many minutes, on which day, billable or not, and
//! the kind of work.
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
                    .table("time_entries")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("ticket_id"))
                    .col(integer_null("comment_id"))
                    .col(integer("user_id"))
                    .col(integer("minutes"))
                    .col(date("spent_on"))
                    .col(boolean("billable").default(true))
                    .col(string_len("activity", 50))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "time_entries",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "time_entries",
                        "user_id",
                        "users",
                        ForeignKeyAction::Restrict,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("time_entries", &["ticket_id"], false),
                index("time_entries", &["spent_on"], false),
                index("time_entries", &["user_id", "spent_on"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["time_entries"]).await
    }
}
