//! `chatDestinations`: the Slack and Teams channels administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::types::ChatDestination;
use crate::service::chat;
use async_graphql::{Context, Object, Result};

/// Queries about chat destinations.
#[derive(Default)]
pub struct ChatQuery;

#[Object]
impl ChatQuery {
    /// Chat destinations, oldest first. Administrators only; FORBIDDEN otherwise.
    async fn chat_destinations(&self, ctx: &Context<'_>) -> Result<Vec<ChatDestination>> {
        let (req, actor) = viewer(ctx)?;
        let list = chat::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(ChatDestination).collect())
    }
}
