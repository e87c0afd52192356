//! Mail in: each message the help desk took in, by its `Message-ID`, with what it became, so a message
//! delivered twice (a retry after a crash, a forwarded copy) does nothing the second time.
use crate::helpers::{create_indexes, drop_tables, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("mail_messages")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    // As the message gave it, without the angle brackets; at most 998 characters (a line).
                    .col(string_len("message_id", 998))
                    .col(string_len("sender", 320))
                    // `ticket`, `comment` or `ignored`.
                    .col(string_len("outcome", 20))
                    .col(integer_null("ticket_id"))
                    .col(integer_null("comment_id"))
                    .col(timestamp_with_time_zone("received_at"))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("mail_messages", &["message_id"], true),
                index("mail_messages", &["sender", "received_at"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["mail_messages"]).await
    }
}
