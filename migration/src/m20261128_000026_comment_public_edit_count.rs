//! `comments.public_edit_count`: the edits whose earlier version was public, so that a viewer who may not
//! read internal text is told only of the versions they may see (a comment made public after edits as an
//! internal note shows no edits to the requester). The comment service keeps it in the edit's transaction;
//! it is back-filled here from the edit history.
use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const BACKFILL: &str =
    "UPDATE comments SET public_edit_count = (SELECT count(*) FROM comment_edits e \
     WHERE e.comment_id = comments.id AND e.previous_comment_type = 'public') WHERE edit_count > 0";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("comments")
                    .add_column(
                        ColumnDef::new("public_edit_count")
                            .integer()
                            .not_null()
                            .default(0),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(BACKFILL)
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("ALTER TABLE comments DROP COLUMN public_edit_count")
            .await?;
        Ok(())
    }
}
