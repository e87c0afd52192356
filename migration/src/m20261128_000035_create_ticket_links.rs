//! Links between tickets: parent and child, related, duplicate and blocking, each stored once, one way round.
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
                    .table("ticket_links")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("source_id"))
                    .col(integer("target_id"))
                    // `parent_of`, `relates_to`, `duplicate_of` or `blocks`.
                    .col(string_len("kind", 20))
                    .col(integer_null("created_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "ticket_links",
                        "source_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_links",
                        "target_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("ticket_links", &["source_id", "target_id", "kind"], true),
                index("ticket_links", &["target_id", "kind"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["ticket_links"]).await
    }
}
