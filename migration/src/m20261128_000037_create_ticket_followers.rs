//! Followers of tickets: people who hear of a ticket's changes and public replies as its requester does
//! (internal notes only when they may read them).
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
                    .table("ticket_followers")
                    .if_not_exists()
                    .col(integer("ticket_id"))
                    .col(integer("user_id"))
                    .col(integer_null("added_by"))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("ticket_id").col("user_id"))
                    .foreign_key(&mut fk(
                        "ticket_followers",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_followers",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![index("ticket_followers", &["user_id"], false)],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["ticket_followers"]).await
    }
}
