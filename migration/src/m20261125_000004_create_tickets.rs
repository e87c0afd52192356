use crate::helpers::{create_indexes, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // Named sequences bumped inside the creating transaction: gapless on every backend, unlike
        // auto-increment, which may skip values on rollback.
        manager
            .create_table(
                Table::create()
                    .table("counters")
                    .if_not_exists()
                    .col(string_len("name", 100).primary_key())
                    .col(big_integer("value").default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .exec_stmt(
                Query::insert()
                    .into_table("counters")
                    .columns(["name", "value"])
                    .values_panic(["ticket_number".into(), 0i64.into()])
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("tickets")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(big_integer_uniq("number"))
                    .col(string_len_uniq("ticket_number", 40))
                    .col(string_len("title", 200))
                    .col(text("description").default(""))
                    .col(string_len("status", 20))
                    .col(string_len("priority", 20))
                    .col(integer("requester_id"))
                    .col(integer_null("assignee_id"))
                    .col(integer_null("assigned_group_id"))
                    .col(integer_null("project_id"))
                    .col(date_null("due_date"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .col(timestamp_with_time_zone_null("first_responded_at"))
                    .col(timestamp_with_time_zone_null("resolved_at"))
                    .col(timestamp_with_time_zone_null("closed_at"))
                    .col(timestamp_with_time_zone_null("archived_at"))
                    .col(integer_null("archived_by_id"))
                    .foreign_key(&mut fk(
                        "tickets",
                        "requester_id",
                        "users",
                        ForeignKeyAction::Restrict,
                    ))
                    .foreign_key(&mut fk(
                        "tickets",
                        "assignee_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "tickets",
                        "assigned_group_id",
                        "groups",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "tickets",
                        "project_id",
                        "projects",
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        "tickets",
                        "archived_by_id",
                        "users",
                        ForeignKeyAction::SetNull,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index("tickets", &["archived_at", "created_at", "id"], false),
                index("tickets", &["requester_id", "created_at"], false),
                index("tickets", &["assignee_id", "created_at"], false),
                index("tickets", &["assigned_group_id", "created_at"], false),
                index("tickets", &["project_id", "created_at"], false),
                index("tickets", &["status", "created_at"], false),
                index("tickets", &["priority", "created_at"], false),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, &["tickets", "counters"]).await
    }
}
