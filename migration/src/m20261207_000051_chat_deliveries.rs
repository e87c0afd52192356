//! Every try to post a chat message: what the destination answered, what went wrong, how long it took. The
//! message's own outbox row keeps only its last error; administrators read the tries to see a destination that
//! throttles (429s) or fails now and then.
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
                    .table("chat_deliveries")
                    .if_not_exists()
                    .col(big_pk_auto("id"))
                    .col(big_integer("outbox_id"))
                    .col(integer("destination_id"))
                    .col(string_len("event", 40))
                    .col(integer("attempt"))
                    .col(integer_null("status_code"))
                    .col(text_null("error"))
                    .col(big_integer("duration_ms"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "chat_deliveries",
                        "outbox_id",
                        "outbox",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "chat_deliveries",
                        "destination_id",
                        "chat_destinations",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("chat_deliveries", &["destination_id", "id"], false),
                index("chat_deliveries", &["outbox_id"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["chat_deliveries"]).await
    }
}
