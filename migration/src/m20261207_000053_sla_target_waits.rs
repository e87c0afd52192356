//! Time rules that act a while before an SLA target is due ("two hours before the first response is due") walk
//! the pending clocks in the order of that target. Partial, as a target is pending only until it is met (the
//! clock then clears it), so answered and resolved tickets cost the indexes nothing.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const TARGETS: [&str; 2] = ["first_response_due_at", "resolution_due_at"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // Partial indexes read the same on both databases; sea-query has no builder for the `WHERE`.
        for column in TARGETS {
            manager
                .get_connection()
                .execute_unprepared(&format!(
                    "CREATE INDEX IF NOT EXISTS idx_ticket_slas_pending_{column} \
                     ON ticket_slas ({column}, ticket_id) WHERE {column} IS NOT NULL"
                ))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in TARGETS {
            manager
                .get_connection()
                .execute_unprepared(&format!(
                    "DROP INDEX IF EXISTS idx_ticket_slas_pending_{column}"
                ))
                .await?;
        }
        Ok(())
    }
}
