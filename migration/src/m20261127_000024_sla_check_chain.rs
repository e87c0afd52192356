//! One scheduled check per clock: `ticket_slas.check_at_ms` is the instant of the clock's one pending
//! `sla_check` outbox row. That check records what is due and schedules the next one, so a ticket carries one
//! check row instead of one per event; a check whose instant is no longer its clock's (the due times moved
//! and a new check was scheduled) does nothing. Clocks written before keep `NULL` here: they were given a
//! check row per event, which still run as before.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("ticket_slas")
                    .add_column(big_integer_null("check_at_ms"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared("ALTER TABLE ticket_slas DROP COLUMN check_at_ms")
            .await?;
        Ok(())
    }
}
