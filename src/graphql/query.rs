//! Root query fields.
use super::context::request;
use async_graphql::{Context, Object, Result};

/// Root of all queries.
pub struct QueryRoot;

#[Object]
impl QueryRoot {
    /// The signed-in user's name.
    async fn me(&self, ctx: &Context<'_>) -> Result<String> {
        let actor = request(ctx)?.actor()?;
        Ok(actor.user.username.clone())
    }
}
