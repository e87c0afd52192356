//! Saved views of the queue: a user's name for a set of the queue's filters, view and order, kept as the
//! queue's query string. A name is unique per user whatever its case (`name_key`, lowercase).
use crate::helpers::{drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("saved_views")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("user_id"))
                    .col(string_len("name", 80))
                    .col(string_len("name_key", 80))
                    .col(string_len("query", 2000))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "saved_views",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("saved_views", &["user_id", "name_key"], true))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["saved_views"]).await
    }
}
