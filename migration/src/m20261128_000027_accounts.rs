//! Accounts administered in the product: when each user last signed in, when their credentials were last
//! reset (deactivation, a new password: access tokens issued before are refused), user names and emails
//! unique whatever their letter case, and one-time password-reset links (only their hash is kept).
use crate::helpers::fk;
use sea_orm_migration::sea_orm::ConnectionTrait;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

const COLUMNS: [&str; 2] = ["last_login_at", "credentials_changed_at"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one thing at a time.
        for column in COLUMNS {
            manager
                .alter_table(
                    Table::alter()
                        .table("users")
                        .add_column(timestamp_with_time_zone_null(column))
                        .to_owned(),
                )
                .await?;
        }
        let db = manager.get_connection();
        db.execute_unprepared("CREATE UNIQUE INDEX users_username_ci ON users (lower(username))")
            .await?;
        db.execute_unprepared(
            "CREATE UNIQUE INDEX users_email_ci ON users (lower(email)) WHERE email IS NOT NULL",
        )
        .await?;
        manager
            .create_table(
                Table::create()
                    .table("password_resets")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("user_id"))
                    .col(string_len_uniq("token_hash", 64))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("expires_at"))
                    .col(timestamp_with_time_zone_null("used_at"))
                    .foreign_key(&mut fk(
                        "password_resets",
                        "user_id",
                        "users",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("password_resets").to_owned())
            .await?;
        let db = manager.get_connection();
        db.execute_unprepared("DROP INDEX users_email_ci").await?;
        db.execute_unprepared("DROP INDEX users_username_ci")
            .await?;
        for column in COLUMNS {
            db.execute_unprepared(&format!("ALTER TABLE users DROP COLUMN {column}"))
                .await?;
        }
        Ok(())
    }
}
