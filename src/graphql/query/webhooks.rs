//! `webhooks`: the endpoints administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::types::Webhook;
use crate::service::{webhooks, Take};
use async_graphql::{Context, Object, Result};

/// Queries about webhook endpoints.
#[derive(Default)]
pub struct WebhookQuery;

#[Object]
impl WebhookQuery {
    /// Webhook endpoints, oldest first: the first 100 (a documented cap, docs/graphql.md).
    /// Administrators only; FORBIDDEN otherwise.
    async fn webhooks(&self, ctx: &Context<'_>) -> Result<Vec<Webhook>> {
        let (req, actor) = viewer(ctx)?;
        let list = webhooks::list(&req.state.db, &actor, Take::First(LIST_MAX)).await?;
        Ok(list.into_iter().map(Webhook).collect())
    }
}
