//! Database migrations for deskgraph, in the order they apply. Each file owns one concern.

pub use sea_orm_migration::prelude::*;

mod helpers;
mod m20261125_000001_create_users_and_groups;
mod m20261125_000002_create_api_tokens;
mod m20261125_000003_create_projects;
mod m20261125_000004_create_tickets;
mod m20261125_000005_create_comments;
mod m20261125_000006_create_assets;
mod m20261125_000007_create_audit_events;
mod m20261125_000008_create_web_sessions;
mod m20261125_000013_create_outbox_and_webhooks;
mod m20261125_000019_ticket_counts_and_search;
mod m20261126_000020_create_sla;
mod m20261126_000021_create_attachments;
mod m20261127_000022_ticket_comment_counts;
mod m20261127_000023_blob_states;
mod m20261127_000024_sla_check_chain;
mod m20261127_000025_outbox_without_event_index;
mod m20261128_000026_comment_public_edit_count;
mod m20261128_000027_accounts;
mod m20261128_000028_create_idempotency_keys;
mod m20261128_000029_create_triggers;
mod m20261128_000030_create_macros;
mod m20261128_000031_create_time_rules;
mod m20261128_000032_create_bulk_jobs;
mod m20261128_000033_create_mail_messages;
mod m20261128_000034_create_tags;
mod m20261128_000035_create_ticket_links;
mod m20261128_000036_create_time_entries;
mod m20261128_000037_create_ticket_followers;
mod m20261128_000038_ticket_merges;
mod m20261129_000039_create_custom_fields;
mod m20261129_000040_create_chat_destinations;
mod m20261129_000041_create_mailboxes;
mod m20261129_000042_ticket_search;
mod m20261129_000043_ticket_metrics;
mod m20261129_000044_search_upkeep;
mod m20261130_000045_saved_views;
mod m20261130_000046_user_time_zone;
mod m20261130_000047_user_language;
mod m20261130_000048_first_response_business;
mod m20261206_000049_chat_delivery_index;
mod m20261207_000050_project_mail_rules;
mod m20261207_000051_chat_deliveries;
mod m20261207_000052_filter_rows_carry_created;
mod m20261207_000053_sla_target_waits;

/// The ordered list of migrations the service applies on start.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261125_000001_create_users_and_groups::Migration),
            Box::new(m20261125_000002_create_api_tokens::Migration),
            Box::new(m20261125_000003_create_projects::Migration),
            Box::new(m20261125_000004_create_tickets::Migration),
            Box::new(m20261125_000005_create_comments::Migration),
            Box::new(m20261125_000006_create_assets::Migration),
            Box::new(m20261125_000007_create_audit_events::Migration),
            Box::new(m20261125_000008_create_web_sessions::Migration),
            Box::new(m20261125_000013_create_outbox_and_webhooks::Migration),
            Box::new(m20261125_000019_ticket_counts_and_search::Migration),
            Box::new(m20261126_000020_create_sla::Migration),
            Box::new(m20261126_000021_create_attachments::Migration),
            Box::new(m20261127_000022_ticket_comment_counts::Migration),
            Box::new(m20261127_000023_blob_states::Migration),
            Box::new(m20261127_000024_sla_check_chain::Migration),
            Box::new(m20261127_000025_outbox_without_event_index::Migration),
            Box::new(m20261128_000026_comment_public_edit_count::Migration),
            Box::new(m20261128_000027_accounts::Migration),
            Box::new(m20261128_000028_create_idempotency_keys::Migration),
            Box::new(m20261128_000029_create_triggers::Migration),
            Box::new(m20261128_000030_create_macros::Migration),
            Box::new(m20261128_000031_create_time_rules::Migration),
            Box::new(m20261128_000032_create_bulk_jobs::Migration),
            Box::new(m20261128_000033_create_mail_messages::Migration),
            Box::new(m20261128_000034_create_tags::Migration),
            Box::new(m20261128_000035_create_ticket_links::Migration),
            Box::new(m20261128_000036_create_time_entries::Migration),
            Box::new(m20261128_000037_create_ticket_followers::Migration),
            Box::new(m20261128_000038_ticket_merges::Migration),
            Box::new(m20261129_000039_create_custom_fields::Migration),
            Box::new(m20261129_000040_create_chat_destinations::Migration),
            Box::new(m20261129_000041_create_mailboxes::Migration),
            Box::new(m20261129_000042_ticket_search::Migration),
            Box::new(m20261129_000043_ticket_metrics::Migration),
            Box::new(m20261129_000044_search_upkeep::Migration),
            Box::new(m20261130_000045_saved_views::Migration),
            Box::new(m20261130_000046_user_time_zone::Migration),
            Box::new(m20261130_000047_user_language::Migration),
            Box::new(m20261130_000048_first_response_business::Migration),
            Box::new(m20261206_000049_chat_delivery_index::Migration),
            Box::new(m20261207_000050_project_mail_rules::Migration),
            Box::new(m20261207_000051_chat_deliveries::Migration),
            Box::new(m20261207_000052_filter_rows_carry_created::Migration),
            Box::new(m20261207_000053_sla_target_waits::Migration),
        ]
    }
}
