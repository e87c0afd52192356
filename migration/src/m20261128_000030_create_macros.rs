//! Macros: saved sets of ticket changes and replies an agent applies in one step. A macro is personal (an
//! owner), belongs to a group (its members use it) or to everyone on the team (neither set).
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
                    .table("macros")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 200))
                    .col(integer_null("owner_id"))
                    .col(integer_null("group_id"))
                    // The rule language's actions, as the service validated them.
                    .col(json("actions"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "macros",
                        "owner_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "macros",
                        "group_id",
                        "groups",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("macros", &["owner_id"], false),
                index("macros", &["group_id"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["macros"]).await
    }
}
