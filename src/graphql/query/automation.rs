//! `triggers`: the automation rules administrators manage.
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{Macro, MacroPreview, TimeRule, TimeRuleDryRun, Trigger};
use crate::service::automation::{macros, time_rules, triggers};
use async_graphql::{Context, InputObject, Object, Result, ID};

/// A macro and the ticket to preview it on.
#[derive(InputObject)]
pub struct PreviewMacroInput {
    /// The macro.
    pub macro_id: ID,
    /// The ticket.
    pub ticket_id: ID,
}

/// What applying the macro to the ticket `input` names would do; nothing is written.
pub async fn preview_macro(ctx: &Context<'_>, input: PreviewMacroInput) -> Result<MacroPreview> {
    let (req, actor) = viewer(ctx)?;
    let macro_id = ids::decode(&input.macro_id, "Macro", "macroId")?;
    let ticket_id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
    let preview = macros::preview(&req.state.db.conn, &actor, macro_id, ticket_id).await?;
    Ok(MacroPreview(preview))
}

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

    /// Every time rule, active or not, oldest first (at most 100, the most there can be).
    /// Administrators only; FORBIDDEN otherwise.
    async fn time_rules(&self, ctx: &Context<'_>) -> Result<Vec<TimeRule>> {
        let (req, actor) = viewer(ctx)?;
        let list = time_rules::list(&req.state.db, &actor).await?;
        Ok(list.into_iter().map(TimeRule).collect())
    }

    /// How many open tickets a time rule would act on now (it has not acted on them from the same moment);
    /// nothing is changed. Administrators only.
    async fn dry_run_time_rule(&self, ctx: &Context<'_>, id: ID) -> Result<TimeRuleDryRun> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&id, "TimeRule", "id")?;
        let deps = req.state.write_deps(crate::domain::Channel::Graphql);
        Ok(time_rules::dry_run(deps, &actor, id).await?.into())
    }

    /// The macros the viewer may apply: their own, their groups' and everyone's (administrators see every
    /// group's), at most 500. Team members only; FORBIDDEN otherwise.
    async fn macros(&self, ctx: &Context<'_>) -> Result<Vec<Macro>> {
        let (req, actor) = viewer(ctx)?;
        let list = macros::list(&req.state.db.conn, &req.state.macros, &actor).await?;
        Ok(list.iter().cloned().map(Macro).collect())
    }

    /// What applying a macro to a ticket would do, with every check applying makes; nothing is written.
    /// Asked as the names list has it, `previewMacro(input: {macroId, ticketId})` (also a mutation of that
    /// name), or with the two ids as arguments; one form or the other, else BAD_USER_INPUT on `input`.
    async fn preview_macro(
        &self,
        ctx: &Context<'_>,
        input: Option<PreviewMacroInput>,
        macro_id: Option<ID>,
        ticket_id: Option<ID>,
    ) -> Result<MacroPreview> {
        let input = match (input, macro_id, ticket_id) {
            (Some(input), None, None) => input,
            (None, Some(macro_id), Some(ticket_id)) => PreviewMacroInput {
                macro_id,
                ticket_id,
            },
            _ => {
                return Err(AppError::field(
                    "input",
                    "give input: {macroId, ticketId}, or macroId and ticketId",
                )
                .into())
            }
        };
        preview_macro(ctx, input).await
    }
}
