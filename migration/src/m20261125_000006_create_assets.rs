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
                    .table("assets")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 200))
                    .col(string_len("asset_type", 20))
                    .col(string_len("status", 20).default("in_stock"))
                    .col(string_len("location", 200).default(""))
                    .col(integer_null("owner_id"))
                    .col(text("description").default(""))
                    .col(string_len("serial_number", 200).default(""))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("archived_at"))
                    .foreign_key(&mut fk(
                        "assets",
                        "owner_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ticket_assets")
                    .if_not_exists()
                    .col(integer("ticket_id"))
                    .col(integer("asset_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("ticket_id").col("asset_id"))
                    .foreign_key(&mut fk(
                        "ticket_assets",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_assets",
                        "asset_id",
                        "assets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("assets", &["archived_at", "name"], false),
                index("assets", &["owner_id"], false),
                index("assets", &["asset_type"], false),
                index("assets", &["status"], false),
                index("ticket_assets", &["asset_id"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["ticket_assets", "assets"]).await
    }
}
