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
                    .table("webhooks")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("url", 2000))
                    .col(string_len("secret", 200))
                    // JSON array of event names; empty means every event.
                    .col(json("events"))
                    .col(boolean("active").default(true))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("outbox")
                    .if_not_exists()
                    .col(big_pk_auto("id"))
                    // `webhook` or `email`.
                    .col(string_len("kind", 16))
                    // Shared by every row of one event: the X-Webhook-Id receivers deduplicate on.
                    .col(string_len("event_id", 64))
                    .col(string_len("event", 40))
                    // Null with kind `webhook` means the endpoint configured by DESKGRAPH_WEBHOOK_URL.
                    .col(integer_null("webhook_id"))
                    // The exact webhook body, or the rendered email as JSON.
                    .col(text("payload"))
                    // `pending`, `delivered` or `failed`.
                    .col(string_len("status", 16))
                    .col(integer("attempts").default(0))
                    // Epoch milliseconds: plain integers compare the same way on both databases.
                    .col(big_integer("due_at_ms"))
                    // A claimed row is leased to one worker until then; 0 when free.
                    .col(big_integer("locked_until_ms").default(0))
                    .col(text_null("last_error"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("delivered_at"))
                    .foreign_key(&mut fk(
                        "outbox",
                        "webhook_id",
                        "webhooks",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("webhook_deliveries")
                    .if_not_exists()
                    .col(big_pk_auto("id"))
                    .col(big_integer("outbox_id"))
                    .col(integer_null("webhook_id"))
                    .col(string_len("event_id", 64))
                    .col(string_len("event", 40))
                    .col(integer("attempt"))
                    .col(integer_null("status_code"))
                    .col(text_null("error"))
                    .col(big_integer("duration_ms"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "webhook_deliveries",
                        "outbox_id",
                        "outbox",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "webhook_deliveries",
                        "webhook_id",
                        "webhooks",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("outbox", &["status", "due_at_ms"], false),
                index("outbox", &["event_id"], false),
                index("webhook_deliveries", &["webhook_id", "id"], false),
                index("webhook_deliveries", &["outbox_id"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["webhook_deliveries", "outbox", "webhooks"]).await
    }
}
