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
                    .table("users")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("username", 150))
                    .col(string_len("full_name", 200).default(""))
                    .col(string_len_null("email", 254))
                    .col(string("password_hash").default(""))
                    .col(boolean("is_staff").default(false))
                    .col(boolean("is_superuser").default(false))
                    .col(boolean("is_active").default(true))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("groups")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("name", 150))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("user_groups")
                    .if_not_exists()
                    .col(integer("user_id"))
                    .col(integer("group_id"))
                    .primary_key(Index::create().col("user_id").col("group_id"))
                    .foreign_key(&mut fk(
                        "user_groups",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "user_groups",
                        "group_id",
                        "groups",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("user_groups", &["group_id"], false))
            .await?;
        // Instance-wide values the service generates once (e.g. the JWT secret when none is configured).
        manager
            .create_table(
                Table::create()
                    .table("settings")
                    .if_not_exists()
                    .col(string_len("key", 100).primary_key())
                    .col(text("value"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["settings", "user_groups", "groups", "users"]).await
    }
}
