//! Root query fields, split by noun.
pub mod assets;
pub mod audit;
pub mod projects;
pub mod rate;
pub mod sla;
mod ticket_inputs;
pub mod tickets;
pub mod viewer;
pub mod webhooks;

use async_graphql::MergedObject;

/// Root of all queries.
#[derive(MergedObject, Default)]
#[graphql(name = "Query")]
pub struct QueryRoot(
    viewer::ViewerQuery,
    tickets::TicketQuery,
    webhooks::WebhookQuery,
    sla::SlaQuery,
    audit::AuditQuery,
    projects::ProjectQuery,
    assets::AssetQuery,
    rate::RateLimitQuery,
);
