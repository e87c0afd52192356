//! Exact list totals without scans, and search that scales.
//!
//! `ticket_counts` holds one row per counted shape of live (non-archived) tickets: `all`, `status:<s>` and
//! `requester:<id>`. The ticket service keeps it exact in the same transaction as every create, status
//! change, archive and restore; it is back-filled here from the tickets that already exist.
//!
//! On PostgreSQL, trigram GIN indexes on `lower(title)` and `lower(description)` serve the list's
//! `lower(col) LIKE '%…%'` search, and a partial index serves the newest-first list of live tickets.
use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Recomputes every counter from the tickets table (same statements as `service::tickets::totals::rebuild`).
const BACKFILL: &[&str] = &[
    "INSERT INTO ticket_counts (scope, n) \
     SELECT 'all', count(*) FROM tickets WHERE archived_at IS NULL",
    "INSERT INTO ticket_counts (scope, n) \
     SELECT 'status:' || status, count(*) FROM tickets WHERE archived_at IS NULL GROUP BY status",
    "INSERT INTO ticket_counts (scope, n) \
     SELECT 'requester:' || CAST(requester_id AS TEXT), count(*) FROM tickets \
     WHERE archived_at IS NULL GROUP BY requester_id",
];

const POSTGRES_INDEXES: &[&str] = &[
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS idx_tickets_title_trgm ON tickets USING gin (lower(title) gin_trgm_ops)",
    "CREATE INDEX IF NOT EXISTS idx_tickets_description_trgm ON tickets \
     USING gin (lower(description) gin_trgm_ops)",
    "CREATE INDEX IF NOT EXISTS idx_tickets_live_created ON tickets (created_at DESC, id DESC) \
     WHERE archived_at IS NULL",
];

const SQLITE_INDEXES: &[&str] = &[
    "CREATE INDEX IF NOT EXISTS idx_tickets_live_created ON tickets (created_at DESC, id DESC) \
     WHERE archived_at IS NULL",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("ticket_counts")
                    .if_not_exists()
                    .col(
                        ColumnDef::new("scope")
                            .string_len(64)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new("n").big_integer().not_null().default(0))
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        for sql in BACKFILL {
            db.execute_unprepared(sql).await?;
        }
        let indexes = match manager.get_database_backend() {
            DbBackend::Postgres => POSTGRES_INDEXES,
            _ => SQLITE_INDEXES,
        };
        for sql in indexes {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        for name in [
            "idx_tickets_title_trgm",
            "idx_tickets_description_trgm",
            "idx_tickets_live_created",
        ] {
            db.execute_unprepared(&format!("DROP INDEX IF EXISTS {name}"))
                .await?;
        }
        manager
            .drop_table(Table::drop().table("ticket_counts").if_exists().to_owned())
            .await
    }
}
