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
                    .table("projects")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("name", 200))
                    .col(text("description").default(""))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("archived_at"))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![index("projects", &["archived_at", "name"], false)],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["projects"]).await
    }
}
