use crate::helpers::{create_indexes, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // Server-side web sessions, shared by every instance through the database.
        manager
            .create_table(
                Table::create()
                    .table("web_sessions")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    // SHA-256 of the session cookie value.
                    .col(string_len_uniq("session_hash", 64))
                    .col(string_len("csrf_token", 64))
                    .col(integer("user_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .foreign_key(&mut fk(
                        "web_sessions",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(manager, vec![index("web_sessions", &["user_id"], false)]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["web_sessions"]).await
    }
}
