//! Time rules: administrators' rules that act on tickets once a wait has passed since a moment of the
//! ticket (created, last updated, status changed, resolved). Tickets learn when their status last changed,
//! and each firing is remembered per rule and ticket with the moment it counted from, so a rule fires once
//! until that moment moves.
use crate::helpers::{create_indexes, drop_index, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("tickets")
                    .add_column(timestamp_with_time_zone_null("status_changed_at"))
                    .to_owned(),
            )
            .await?;
        // The best moment known for tickets written before the column: their last change.
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE tickets SET status_changed_at = updated_at WHERE status_changed_at IS NULL",
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("time_rules")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 200))
                    .col(integer_null("project_id"))
                    .col(boolean("active"))
                    // `{"since": ..., "hours": ..., "business_hours": ...}`, as the service validated it.
                    .col(json("wait"))
                    .col(json("conditions"))
                    .col(json("actions"))
                    // Bumped by every change: a scheduled run of an older generation does nothing.
                    .col(integer("generation"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "time_rules",
                        "project_id",
                        "projects",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("time_rule_fires")
                    .if_not_exists()
                    .col(integer("rule_id"))
                    .col(integer("ticket_id"))
                    // The moment the wait counted from, in milliseconds: the rule fires again only from
                    // another one.
                    .col(big_integer("anchor_ms"))
                    .col(timestamp_with_time_zone("fired_at"))
                    .primary_key(
                        Index::create()
                            .col(Alias::new("rule_id"))
                            .col(Alias::new("ticket_id")),
                    )
                    .foreign_key(&mut fk(
                        "time_rule_fires",
                        "rule_id",
                        "time_rules",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "time_rule_fires",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        // The scans walk live tickets of some statuses by the moment a wait counts from.
        create_indexes(
            manager,
            vec![
                index("tickets", &["status", "updated_at"], false),
                index("tickets", &["status", "status_changed_at"], false),
                index("tickets", &["status", "resolved_at"], false),
                index("time_rule_fires", &["ticket_id"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["time_rule_fires", "time_rules"]).await?;
        // SQLite cannot drop a column an index names.
        drop_index(manager, "tickets", &["status", "status_changed_at"]).await?;
        manager
            .alter_table(
                Table::alter()
                    .table("tickets")
                    .drop_column(Alias::new("status_changed_at"))
                    .to_owned(),
            )
            .await
    }
}
