//! IMAP mailboxes the help desk fetches mail from, managed by administrators: where each is, the secret it
//! signs in with, where a taken message goes, the project its new tickets open in, and the lease that lets
//! one instance at a time fetch from it.
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
                    .table("mailboxes")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 100))
                    .col(string_len("url", 2000))
                    .col(string_len("secret", 4000))
                    .col(string_len_null("done_folder", 200))
                    .col(string_len("failed_folder", 200))
                    .col(integer_null("project_id"))
                    .col(boolean("active").default(true))
                    .col(string_len_null("lease_owner", 64))
                    .col(timestamp_with_time_zone_null("leased_until"))
                    .col(timestamp_with_time_zone_null("checked_at"))
                    .col(string_len_null("last_error", 500))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "mailboxes",
                        "project_id",
                        "projects",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["mailboxes"]).await
    }
}
