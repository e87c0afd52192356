//! Chat destinations (Slack and Teams channels that hear of tickets), the Slack thread each ticket's messages
//! go into, and the outbox column naming a chat row's destination (no foreign key: SQLite cannot add one to an
//! existing table; a row whose destination was deleted is given up at delivery).
use crate::helpers::{drop_tables, fk};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("chat_destinations")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 100))
                    .col(string_len("kind", 16))
                    .col(string_len_null("url", 2000))
                    .col(string_len_null("token", 200))
                    .col(string_len_null("channel", 100))
                    .col(integer_null("project_id"))
                    .col(json("events"))
                    .col(json("priorities"))
                    .col(boolean("team_only").default(false))
                    .col(boolean("active").default(true))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "chat_destinations",
                        "project_id",
                        "projects",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("chat_threads")
                    .if_not_exists()
                    .col(integer("destination_id"))
                    .col(integer("ticket_id"))
                    .col(string_len("thread_ts", 64))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("destination_id").col("ticket_id"))
                    .foreign_key(&mut fk(
                        "chat_threads",
                        "destination_id",
                        "chat_destinations",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "chat_threads",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("outbox")
                    .add_column(integer_null("chat_destination_id"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("outbox")
                    .drop_column(Alias::new("chat_destination_id"))
                    .to_owned(),
            )
            .await?;
        drop_tables(manager, &["chat_threads", "chat_destinations"]).await
    }
}
