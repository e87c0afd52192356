//! Triggers: rules an administrator writes that change a ticket when a write to it matches their
//! conditions. Conditions and actions are stored as the JSON the service validated when it saved them.
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
                    .table("triggers")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 200))
                    // Only tickets of this project, when set.
                    .col(integer_null("project_id"))
                    // Evaluation order, ascending; ties by id.
                    .col(integer("position"))
                    .col(boolean("active"))
                    .col(json("conditions"))
                    .col(json("actions"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "triggers",
                        "project_id",
                        "projects",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(manager, vec![index("triggers", &["position"], false)]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["triggers"]).await
    }
}
