//! How mail to a project is taken in: what a reply to a resolved ticket does, and which unknown senders get an
//! account. One row per project that has its own rules; a project without one follows the defaults.
use crate::helpers::{drop_tables, fk};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("project_mail_rules")
                    .if_not_exists()
                    .col(integer("project_id").primary_key())
                    .col(string_len("resolved_reply", 16))
                    .col(string_len_null("unknown_senders", 16))
                    .col(string_len("sender_domains", 4000))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "project_mail_rules",
                        "project_id",
                        "projects",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["project_mail_rules"]).await
    }
}
