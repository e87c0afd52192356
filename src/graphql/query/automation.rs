//! `triggers`: the automation rules administrators manage.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{Macro, MacroPreview, Trigger};
use crate::service::automation::{macros, triggers};
use async_graphql::{Context, Object, Result, ID};

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

    /// The macros the viewer may apply: their own, their groups' and everyone's (administrators see every
    /// group's), at most 500. Team members only; FORBIDDEN otherwise.
    async fn macros(&self, ctx: &Context<'_>) -> Result<Vec<Macro>> {
        let (req, actor) = viewer(ctx)?;
        let list = macros::list(&req.state.db.conn, &actor).await?;
        Ok(list.into_iter().map(Macro).collect())
    }

    /// What applying a macro to a ticket would do, with every check applying makes; nothing is written.
    async fn preview_macro(
        &self,
        ctx: &Context<'_>,
        macro_id: ID,
        ticket_id: ID,
    ) -> Result<MacroPreview> {
        let (req, actor) = viewer(ctx)?;
        let macro_id = ids::decode(&macro_id, "Macro", "macroId")?;
        let ticket_id = ids::decode(&ticket_id, "Ticket", "ticketId")?;
        let preview = macros::preview(&req.state.db.conn, &actor, macro_id, ticket_id).await?;
        Ok(MacroPreview(preview))
    }
}
