//! `triggers`: the automation rules administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::types::Trigger;
use crate::service::automation::triggers;
use async_graphql::{Context, Object, Result};

/// Queries about automation.
#[derive(Default)]
pub struct AutomationQuery;

#[Object]
impl AutomationQuery {
    /// Every trigger, active or not, in evaluation order (at most 500, the most there can be).
    /// Administrators only; FORBIDDEN otherwise.
    async fn triggers(&self, ctx: &Context<'_>) -> Result<Vec<Trigger>> {
        let (req, actor) = viewer(ctx)?;
        let list = triggers::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(Trigger).collect())
    }
}
