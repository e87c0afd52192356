//! The rows a list filters on (custom field values, multiple-choice picks, tags) carry their ticket's creation
//! time, which never changes, in an index after the filtered value: a list in the default order (newest first)
//! filtered by one value walks that value's rows in the list's order and reads only the page's tickets, instead
//! of walking every ticket newest first and probing each for the value.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// One new index per typed value column, partial like the value indexes.
use crate::m20261129_000039_create_custom_fields::VALUE_COLUMNS;

/// The tables whose rows a filtered list walks.
const TABLES: [&str; 3] = ["ticket_field_values", "ticket_field_choices", "ticket_tags"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let postgres =
            manager.get_database_backend() == sea_orm_migration::sea_orm::DbBackend::Postgres;
        let db = manager.get_connection();
        for table in TABLES {
            // SQLite adds a NOT NULL column only with a constant default; every row gets its ticket's
            // time at once, and PostgreSQL drops the default so that a write that forgets it fails.
            manager
                .alter_table(
                    Table::alter()
                        .table(Alias::new(table))
                        .add_column(
                            ColumnDef::new(Alias::new("ticket_created_at"))
                                .timestamp_with_time_zone()
                                .not_null()
                                .default("1970-01-01 00:00:00+00:00"),
                        )
                        .to_owned(),
                )
                .await?;
            db.execute_unprepared(&format!(
                "UPDATE {table} SET ticket_created_at = \
                 (SELECT created_at FROM tickets WHERE tickets.id = {table}.ticket_id)"
            ))
            .await?;
            if postgres {
                db.execute_unprepared(&format!(
                    "ALTER TABLE {table} ALTER COLUMN ticket_created_at DROP DEFAULT"
                ))
                .await?;
            }
        }
        for column in VALUE_COLUMNS {
            db.execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS idx_ticket_field_values_{column}_created \
                 ON ticket_field_values (field_id, {column}, ticket_created_at, ticket_id) \
                 WHERE {column} IS NOT NULL"
            ))
            .await?;
        }
        db.execute_unprepared(
            "CREATE INDEX IF NOT EXISTS idx_ticket_field_choices_created \
             ON ticket_field_choices (field_id, choice, ticket_created_at, ticket_id)",
        )
        .await?;
        db.execute_unprepared(
            "CREATE INDEX IF NOT EXISTS idx_ticket_tags_created \
             ON ticket_tags (tag_id, ticket_created_at, ticket_id)",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        for column in VALUE_COLUMNS {
            db.execute_unprepared(&format!(
                "DROP INDEX IF EXISTS idx_ticket_field_values_{column}_created"
            ))
            .await?;
        }
        for index in [
            "idx_ticket_field_choices_created",
            "idx_ticket_tags_created",
        ] {
            db.execute_unprepared(&format!("DROP INDEX IF EXISTS {index}"))
                .await?;
        }
        for table in TABLES {
            crate::helpers::drop_column(manager, table, "ticket_created_at").await?;
        }
        Ok(())
    }
}
