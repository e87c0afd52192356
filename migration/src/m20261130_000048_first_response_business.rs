//! A ticket's first response in business time (milliseconds), kept when it happens under the calendar of the
//! SLA policy that governs the ticket then; none for a ticket no policy governed, or answered before this.
use crate::helpers::{add_column, drop_column};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            "ticket_metrics",
            &mut big_integer_null("first_response_business_ms"),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, "ticket_metrics", "first_response_business_ms").await
    }
}
