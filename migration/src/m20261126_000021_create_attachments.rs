//! Attachments on tickets and comments, and the content-addressed blobs they name.
use crate::helpers::{create_indexes, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One row per stored content, written after its bytes are complete in the storage backend, so a
        // row here means the bytes can be read (whatever the backend).
        manager
            .create_table(
                Table::create()
                    .table("blobs")
                    .if_not_exists()
                    .col(string_len("sha256", 64).primary_key())
                    .col(big_integer("size"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        // The database storage backend's bytes, in fixed-size chunks numbered from 0.
        manager
            .create_table(
                Table::create()
                    .table("blob_chunks")
                    .if_not_exists()
                    .col(string_len("sha256", 64))
                    .col(integer("seq"))
                    .col(binary("data"))
                    .primary_key(Index::create().col("sha256").col("seq"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("attachments")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("ticket_id"))
                    .col(integer_null("comment_id"))
                    .col(string_len("filename", 255))
                    .col(string_len("content_type", 127))
                    .col(big_integer("size"))
                    .col(string_len("sha256", 64))
                    .col(integer_null("uploaded_by_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .foreign_key(&mut fk(
                        "attachments",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "attachments",
                        "comment_id",
                        "comments",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "attachments",
                        "uploaded_by_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_attachments_sha256")
                            .from(Alias::new("attachments"), Alias::new("sha256"))
                            .to(Alias::new("blobs"), Alias::new("sha256"))
                            .on_delete(ForeignKeyAction::Restrict),
                    )
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("attachments", &["ticket_id", "deleted_at"], false),
                index("attachments", &["comment_id"], false),
                index("attachments", &["sha256"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["attachments", "blob_chunks", "blobs"]).await
    }
}
