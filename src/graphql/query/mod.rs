//! Root query fields, split by noun.
pub mod assets;
pub mod audit;
pub mod automation;
pub mod bulk;
pub mod chat;
pub mod custom_fields;
pub mod mailboxes;
pub mod projects;
pub mod rate;
pub mod reports;
pub mod search;
pub mod sla;
pub mod tags;
pub(crate) mod ticket_inputs;
pub mod tickets;
pub mod time_spent;
pub mod viewer;
pub mod webhooks;

use crate::error::AppError;
use crate::graphql::context::RequestContext;
use async_graphql::registry::Registry;
use async_graphql::{
    ContainerType, Context, ContextSelectionSet, MergedObject, ObjectType, OutputType, Positioned,
    ServerResult, Value,
};
use std::borrow::Cow;

/// Root of all queries: [`QueryFields`], whose fields one request resolves one at a time.
///
/// async-graphql resolves a query's root fields all at once, and each that reads takes a pooled
/// connection: forty-nine aliased counts in one request would hold forty-nine connections, whatever share
/// of the pool its viewer is held to (`crate::db::viewer_gate`). In turn, one request uses one connection
/// at a time. The selections under one root field still resolve together, batched by the loaders.
///
/// A root field whose turn comes after the request's time limit fails with the timeout instead of starting:
/// a query sent with POST runs on after its client left (`crate::http::admitted`), and must not read on
/// for much longer than a request may take.
#[derive(Default)]
pub struct QueryRoot(QueryFields);

impl OutputType for QueryRoot {
    fn type_name() -> Cow<'static, str> {
        QueryFields::type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        QueryFields::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        _field: &Positioned<async_graphql::parser::types::Field>,
    ) -> ServerResult<Value> {
        async_graphql::resolver_utils::resolve_container(ctx, self).await
    }
}

impl ContainerType for QueryRoot {
    async fn resolve_field(&self, ctx: &Context<'_>) -> ServerResult<Option<Value>> {
        // Held while the field and everything under it resolves: `resolve_field` returns its whole value.
        let _turn = match ctx.data_opt::<RequestContext>() {
            Some(req) => {
                let turn = req.root_fields.lock().await;
                if req.past_deadline() {
                    let late = async_graphql::Error::from(AppError::Timeout);
                    return Err(late.into_server_error(ctx.item.pos));
                }
                Some(turn)
            }
            None => None,
        };
        self.0.resolve_field(ctx).await
    }
}

impl ObjectType for QueryRoot {}

/// Root of all queries.
#[derive(MergedObject, Default)]
#[graphql(name = "Query")]
pub struct QueryFields(
    viewer::ViewerQuery,
    tickets::TicketQuery,
    webhooks::WebhookQuery,
    chat::ChatQuery,
    mailboxes::MailboxQuery,
    sla::SlaQuery,
    audit::AuditQuery,
    projects::ProjectQuery,
    assets::AssetQuery,
    rate::RateLimitQuery,
    search::SearchQuery,
    reports::ReportQuery,
    automation::AutomationQuery,
    bulk::BulkQuery,
    tags::TagQuery,
    custom_fields::CustomFieldQuery,
    time_spent::TimeQuery,
);
