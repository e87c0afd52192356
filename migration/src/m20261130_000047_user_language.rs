//! The language a user reads the web pages in (a catalogue's code such as `de`); none follows the browser's.
use crate::helpers::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, "users", &mut string_len_null("language", 16)).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "users", "language").await
    }
}
