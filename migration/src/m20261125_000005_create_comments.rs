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
                    .table("comments")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("ticket_id"))
                    .col(integer_null("author_id"))
                    .col(text("body"))
                    .col(string_len("comment_type", 10).default("public"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("edited_at"))
                    .col(integer_null("edited_by_id"))
                    .col(integer("edit_count").default(0))
                    .col(boolean("is_deleted").default(false))
                    .col(timestamp_with_time_zone_null("deleted_at"))
                    .col(integer_null("deleted_by_id"))
                    .foreign_key(&mut fk(
                        "comments",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "comments",
                        "author_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "comments",
                        "edited_by_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "comments",
                        "deleted_by_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("comment_edits")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("comment_id"))
                    .col(integer_null("edited_by_id"))
                    .col(text("previous_body"))
                    .col(string_len("previous_comment_type", 10).default("public"))
                    .col(timestamp_with_time_zone("edited_at"))
                    .foreign_key(&mut fk(
                        "comment_edits",
                        "comment_id",
                        "comments",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "comment_edits",
                        "edited_by_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index(
                    "comments",
                    &["ticket_id", "is_deleted", "created_at"],
                    false,
                ),
                index("comments", &["author_id"], false),
                index("comment_edits", &["comment_id", "edited_at"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["comment_edits", "comments"]).await
    }
}
