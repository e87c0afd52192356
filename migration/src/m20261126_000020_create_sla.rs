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
                    .table("sla_policies")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len("name", 200).unique_key())
                    // The match: a priority, and optionally a project and an assigned group.
                    .col(string_len("priority", 16))
                    .col(integer_null("project_id"))
                    .col(integer_null("group_id"))
                    // Business minutes.
                    .col(integer("first_response_minutes"))
                    .col(integer("resolution_minutes"))
                    // IANA zone name; hours as JSON `[{"day": "mon", "open": "09:00", "close": "17:00"}]`;
                    // holidays as a JSON array of `YYYY-MM-DD`.
                    .col(string_len("time_zone", 64))
                    .col(json("hours"))
                    .col(json("holidays"))
                    // JSON array of status names that stop the clock.
                    .col(json("pause_statuses"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "sla_policies",
                        "project_id",
                        "projects",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "sla_policies",
                        "group_id",
                        "groups",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ticket_slas")
                    .if_not_exists()
                    .col(integer("ticket_id").primary_key())
                    .col(integer_null("policy_id"))
                    // Business milliseconds the clock was stopped in past stops, and the current stop.
                    .col(big_integer("paused_ms").default(0))
                    .col(timestamp_with_time_zone_null("paused_since"))
                    // Due times of the targets still running (null when met, stopped or without a policy);
                    // `due_at` is the earlier of the two, what lists sort on.
                    .col(timestamp_with_time_zone_null("first_response_due_at"))
                    .col(timestamp_with_time_zone_null("resolution_due_at"))
                    .col(timestamp_with_time_zone_null("due_at"))
                    // When each event happened (set once, by the breach check).
                    .col(timestamp_with_time_zone_null("first_response_at_risk_at"))
                    .col(timestamp_with_time_zone_null("resolution_at_risk_at"))
                    .col(timestamp_with_time_zone_null("first_response_breached_at"))
                    .col(timestamp_with_time_zone_null("resolution_breached_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "ticket_slas",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_slas",
                        "policy_id",
                        "sla_policies",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("sla_events")
                    .if_not_exists()
                    .col(big_pk_auto("id"))
                    .col(integer("ticket_id"))
                    // `first_response` or `resolution`.
                    .col(string_len("target", 20))
                    // `at_risk` or `breached`.
                    .col(string_len("kind", 16))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "sla_events",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("sla_policies", &["priority"], false),
                index("ticket_slas", &["due_at"], false),
                // Once per ticket, target and kind, whichever instance gets there first.
                index("sla_events", &["ticket_id", "target", "kind"], true),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["sla_events", "ticket_slas", "sla_policies"]).await
    }
}
