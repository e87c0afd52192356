//! `webhooks`: the endpoints administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::types::Webhook;
use crate::service::webhooks;
use async_graphql::{Context, Object, Result};

/// Queries about webhook endpoints.
#[derive(Default)]
pub struct WebhookQuery;

#[Object]
impl WebhookQuery {
    /// Every webhook endpoint, oldest first (administrators only; FORBIDDEN otherwise).
    async fn webhooks(&self, ctx: &Context<'_>) -> Result<Vec<Webhook>> {
        let (req, actor) = viewer(ctx)?;
        let list = webhooks::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(Webhook).collect())
    }
}
