//! Merged tickets: a ticket merged into another keeps the one it went into, so that reads of it, replies to
//! it and comments on it lead there. No foreign key (SQLite cannot add one to an existing table); tickets
//! are never deleted, only archived, so the id always names a row.
use crate::helpers::{create_indexes, drop_index, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("tickets")
                    .add_column(integer_null("merged_into_id"))
                    .to_owned(),
            )
            .await?;
        // A later merge of the target moves the tickets merged into it along (`merged_into_id = target`).
        create_indexes(manager, vec![index("tickets", &["merged_into_id"], false)]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_index(manager, "tickets", &["merged_into_id"]).await?;
        manager
            .alter_table(
                Table::alter()
                    .table("tickets")
                    .drop_column(Alias::new("merged_into_id"))
                    .to_owned(),
            )
            .await
    }
}
