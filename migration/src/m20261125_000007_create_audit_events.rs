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
                    .table("audit_events")
                    .if_not_exists()
                    .col(big_pk_auto("id"))
                    .col(integer_null("actor_id"))
                    .col(string_len("entity_type", 40))
                    .col(integer("entity_id"))
                    // The ticket an event concerns (itself, or a comment's ticket), for ticket history.
                    .col(integer_null("ticket_id"))
                    .col(string_len("action", 40))
                    .col(json("changes"))
                    // True when the event concerns an internal comment: hidden from those who may not read it.
                    .col(boolean("is_internal").default(false))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "audit_events",
                        "actor_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("audit_events", &["entity_type", "entity_id"], false),
                index("audit_events", &["ticket_id", "id"], false),
                index("audit_events", &["created_at"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["audit_events"]).await
    }
}
