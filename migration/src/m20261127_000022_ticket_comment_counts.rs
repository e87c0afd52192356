//! Comment counts on the ticket row: `public_comment_count` (live public comments) and
//! `all_comment_count` (live comments, internal included). The comment service keeps them exact in the
//! same transaction as every comment write, so list pages read them with the ticket instead of counting
//! each ticket's comments on every request; they are back-filled here from the comments that exist.
use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

const COLUMNS: [&str; 2] = ["public_comment_count", "all_comment_count"];

/// Recounts every ticket (the same statement as `service::comments::counts::recount`, for all tickets).
const BACKFILL: &str = "UPDATE tickets SET \
     public_comment_count = (SELECT count(*) FROM comments c WHERE c.ticket_id = tickets.id \
     AND c.is_deleted = false AND c.comment_type = 'public'), \
     all_comment_count = (SELECT count(*) FROM comments c WHERE c.ticket_id = tickets.id \
     AND c.is_deleted = false)";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one thing at a time.
        for column in COLUMNS {
            manager
                .alter_table(
                    Table::alter()
                        .table("tickets")
                        .add_column(ColumnDef::new(column).big_integer().not_null().default(0))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .get_connection()
            .execute_unprepared(BACKFILL)
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in COLUMNS {
            manager
                .get_connection()
                .execute_unprepared(&format!("ALTER TABLE tickets DROP COLUMN {column}"))
                .await?;
        }
        Ok(())
    }
}
