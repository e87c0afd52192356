//! Idempotency keys of creates: the first answer to a key, kept a day per account, so that a client that
//! lost its answer can send the create again and get that answer instead of a second record. The key of
//! an account is its primary key: two concurrent creates with one key cannot both commit.
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
                    .table("idempotency_keys")
                    .if_not_exists()
                    .col(integer("user_id"))
                    .col(string_len("key", 255))
                    // SHA-256 (hex) of what was asked: another request under the same key is refused.
                    .col(string_len("fingerprint", 64))
                    // The first answer, as JSON.
                    .col(text("answer"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("user_id").col("key"))
                    .foreign_key(&mut fk(
                        "idempotency_keys",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // Expired keys are swept by age.
        create_indexes(
            manager,
            vec![index("idempotency_keys", &["created_at"], false)],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["idempotency_keys"]).await
    }
}
