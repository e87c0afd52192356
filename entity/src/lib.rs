//! SeaORM entities: one module per table, no behaviour beyond the mapping.

pub mod api_token;
pub mod asset;
pub mod attachment;
pub mod audit_event;
pub mod blob;
pub mod blob_chunk;
pub mod comment;
pub mod comment_edit;
pub mod counter;
pub mod group;
pub mod idempotency_key;
pub mod outbox;
pub mod password_reset;
pub mod project;
pub mod setting;
pub mod sla_event;
pub mod sla_policy;
pub mod ticket;
pub mod ticket_asset;
pub mod ticket_sla;
pub mod user;
pub mod user_group;
pub mod values;
pub mod web_session;
pub mod webhook;
pub mod webhook_delivery;
