//! Custom fields: the definitions admins keep, and tickets' values stored typed, one column per kind, each
//! with a partial index on (field, value) so that a filter on a field is an index read. Multiple choices
//! are rows of their own.
use crate::helpers::{create_indexes, drop_tables, fk, index};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The typed value columns; each row sets at most one, so each index holds only its own kind's rows.
pub(crate) const VALUE_COLUMNS: [&str; 6] = [
    "text_value",
    "number_value",
    "date_value",
    "time_value",
    "bool_value",
    "ref_id",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("custom_fields")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string_len_uniq("key", 50))
                    .col(string_len("label", 200))
                    .col(string_len("kind", 20))
                    .col(integer_null("project_id"))
                    .col(text("choices"))
                    .col(string_len_null("required_from", 20))
                    .col(boolean("team_only").default(false))
                    .col(integer("position").default(0))
                    .col(timestamp_with_time_zone_null("archived_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk(
                        "custom_fields",
                        "project_id",
                        "projects",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ticket_field_values")
                    .if_not_exists()
                    .col(integer("ticket_id"))
                    .col(integer("field_id"))
                    .col(string_len_null("text_value", 200))
                    .col(text_null("long_value"))
                    .col(double_null("number_value"))
                    .col(date_null("date_value"))
                    .col(timestamp_with_time_zone_null("time_value"))
                    .col(boolean_null("bool_value"))
                    .col(integer_null("ref_id"))
                    .primary_key(Index::create().col("ticket_id").col("field_id"))
                    .foreign_key(&mut fk(
                        "ticket_field_values",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_field_values",
                        "field_id",
                        "custom_fields",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("ticket_field_choices")
                    .if_not_exists()
                    .col(integer("ticket_id"))
                    .col(integer("field_id"))
                    .col(string_len("choice", 100))
                    .primary_key(
                        Index::create()
                            .col("ticket_id")
                            .col("field_id")
                            .col("choice"),
                    )
                    .foreign_key(&mut fk(
                        "ticket_field_choices",
                        "ticket_id",
                        "tickets",
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        "ticket_field_choices",
                        "field_id",
                        "custom_fields",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;
        create_indexes(
            manager,
            vec![
                index(
                    "ticket_field_choices",
                    &["field_id", "choice", "ticket_id"],
                    false,
                ),
                index("custom_fields", &["project_id"], false),
            ],
        )
        .await?;
        // Partial indexes read the same on both databases; sea-query has no builder for the `WHERE`.
        let db = manager.get_connection();
        for column in VALUE_COLUMNS {
            db.execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS idx_ticket_field_values_{column} \
                 ON ticket_field_values (field_id, {column}, ticket_id) WHERE {column} IS NOT NULL"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(
            manager,
            &[
                "ticket_field_choices",
                "ticket_field_values",
                "custom_fields",
            ],
        )
        .await
    }
}
