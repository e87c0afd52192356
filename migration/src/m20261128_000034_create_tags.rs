//! Tags: one row per name (normalised: lowercase, trimmed, at most 50 characters), the names an admin keeps
//! as the curated list marked, and the ticket–tag pairs, read both ways (a ticket's tags, a tag's tickets).
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
                    .table("tags")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("name", 50))
                    .col(boolean("curated").default(false))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ticket_tags")
                    .if_not_exists()
                    .col(integer("ticket_id"))
                    .col(integer("tag_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("ticket_id").col("tag_id"))
                    .foreign_key(&mut fk(
                        "ticket_tags",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_tags",
                        "tag_id",
                        "tags",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![index("ticket_tags", &["tag_id", "ticket_id"], false)],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["ticket_tags", "tags"]).await
    }
}
