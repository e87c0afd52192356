//! Trigger administration: create, update, reorder, delete (administrators only). Conditions and actions
//! are the rule language's JSON (docs/automation.md); a mistake in them is a VALIDATION error whose
//! `field` is the JSON path that holds it.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::query::automation::PreviewMacroInput;
use crate::graphql::types::{Macro, MacroPreview, MacroScope, Ticket, TimeRule, Trigger};
use crate::service::automation::macros::{self, MacroPatch, NewMacro, Scope};
use crate::service::automation::time_rules::{self, NewTimeRule, TimeRulePatch};
use crate::service::automation::{triggers, NewTrigger, TriggerPatch};
use async_graphql::{Context, InputObject, Json, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Automation mutations.
#[derive(Default)]
pub struct AutomationMutation;

/// A new trigger.
#[derive(InputObject)]
pub struct CreateTriggerInput {
    /// 1-200 characters.
    name: String,
    /// Only tickets of this project.
    project_id: Option<ID>,
    /// Where it goes in the order (0-1000000); after the others when absent.
    position: Option<i32>,
    /// Whether it runs (default true).
    active: Option<bool>,
    /// `{"all": [condition…], "any": [condition…]}`.
    conditions: Json<serde_json::Value>,
    /// `[action…]`, 1 to 20.
    actions: Json<serde_json::Value>,
}

/// The created trigger.
#[derive(SimpleObject)]
pub struct CreateTriggerPayload {
    /// The trigger.
    trigger: Trigger,
}

/// A change to a trigger; absent fields stay as they are.
#[derive(InputObject)]
pub struct UpdateTriggerInput {
    /// Global id of the trigger.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New project; null: every ticket.
    project_id: MaybeUndefined<ID>,
    /// New position.
    position: Option<i32>,
    /// Switch on or off.
    active: Option<bool>,
    /// New conditions.
    conditions: Option<Json<serde_json::Value>>,
    /// New actions.
    actions: Option<Json<serde_json::Value>>,
}

/// The changed trigger.
#[derive(SimpleObject)]
pub struct UpdateTriggerPayload {
    /// The trigger.
    trigger: Trigger,
}

/// A new order.
#[derive(InputObject)]
pub struct ReorderTriggersInput {
    /// Triggers to put first, in this order; the others follow in the order they had.
    ids: Vec<ID>,
}

/// Every trigger in its new order.
#[derive(SimpleObject)]
pub struct ReorderTriggersPayload {
    /// Every trigger, in evaluation order.
    triggers: Vec<Trigger>,
}

/// Which trigger to delete.
#[derive(InputObject)]
pub struct DeleteTriggerInput {
    /// Global id of the trigger.
    id: ID,
}

/// The deleted trigger's id.
#[derive(SimpleObject)]
pub struct DeleteTriggerPayload {
    /// Global id of the deleted trigger.
    deleted_trigger_id: ID,
}

/// A new time rule.
#[derive(InputObject)]
pub struct CreateTimeRuleInput {
    /// 1-200 characters.
    name: String,
    /// Only tickets of this project.
    project_id: Option<ID>,
    /// Whether it runs (default true).
    active: Option<bool>,
    /// `{"since": "created" | "updated" | "status_changed" | "resolved", "hours": 1-8784,
    /// "business_hours": bool}`, or `{"before": "first_response_due" | "resolution_due", "hours": 1-8784}`:
    /// that long before a pending SLA target is due.
    wait: Json<serde_json::Value>,
    /// `{"all": [condition…], "any": [condition…]}` on the ticket's fields (`ticket.*`).
    conditions: Json<serde_json::Value>,
    /// `[action…]`, 1 to 20.
    actions: Json<serde_json::Value>,
}

/// The created time rule.
#[derive(SimpleObject)]
pub struct CreateTimeRulePayload {
    /// The time rule.
    time_rule: TimeRule,
}

/// A change to a time rule; absent fields stay as they are.
#[derive(InputObject)]
pub struct UpdateTimeRuleInput {
    /// Global id of the time rule.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New project; null: every ticket.
    project_id: MaybeUndefined<ID>,
    /// Switch on or off.
    active: Option<bool>,
    /// New wait.
    wait: Option<Json<serde_json::Value>>,
    /// New conditions.
    conditions: Option<Json<serde_json::Value>>,
    /// New actions.
    actions: Option<Json<serde_json::Value>>,
}

/// The changed time rule.
#[derive(SimpleObject)]
pub struct UpdateTimeRulePayload {
    /// The time rule.
    time_rule: TimeRule,
}

/// Which time rule to delete.
#[derive(InputObject)]
pub struct DeleteTimeRuleInput {
    /// Global id of the time rule.
    id: ID,
}

/// The deleted time rule's id.
#[derive(SimpleObject)]
pub struct DeleteTimeRulePayload {
    /// Global id of the deleted time rule.
    deleted_time_rule_id: ID,
}

/// A new macro.
#[derive(InputObject)]
pub struct CreateMacroInput {
    /// 1-200 characters.
    name: String,
    /// Who it is for (default PERSONAL); GROUP and EVERYONE are for administrators.
    scope: Option<MacroScope>,
    /// The group, for scope GROUP.
    group_id: Option<ID>,
    /// `[action…]`, 1 to 20.
    actions: Json<serde_json::Value>,
}

/// The created macro.
#[derive(SimpleObject)]
pub struct CreateMacroPayload {
    /// The macro.
    r#macro: Macro,
}

/// A change to a macro; absent fields stay.
#[derive(InputObject)]
pub struct UpdateMacroInput {
    /// Global id of the macro.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New actions.
    actions: Option<Json<serde_json::Value>>,
}

/// The changed macro.
#[derive(SimpleObject)]
pub struct UpdateMacroPayload {
    /// The macro.
    r#macro: Macro,
}

/// Which macro to delete.
#[derive(InputObject)]
pub struct DeleteMacroInput {
    /// Global id of the macro.
    id: ID,
}

/// The deleted macro's id.
#[derive(SimpleObject)]
pub struct DeleteMacroPayload {
    /// Global id of the deleted macro.
    deleted_macro_id: ID,
}

/// A macro and the tickets to apply it to.
#[derive(InputObject)]
pub struct ApplyMacroInput {
    /// Global id of the macro.
    macro_id: ID,
    /// 1 to 100 tickets; each gets the checks a change by hand would.
    ticket_ids: Vec<ID>,
}

/// A ticket the macro could not be applied to.
#[derive(SimpleObject)]
pub struct MacroFailure {
    /// Global id of the ticket.
    ticket_id: ID,
    /// The error code (`FORBIDDEN`, `NOT_FOUND`, `INVALID_TRANSITION`, …).
    code: String,
    /// Why.
    message: String,
}

/// What applying a macro did, ticket by ticket.
#[derive(SimpleObject)]
pub struct ApplyMacroPayload {
    /// The tickets it changed, as they are now.
    tickets: Vec<Ticket>,
    /// The tickets it could not change, and why.
    failures: Vec<MacroFailure>,
}

fn project_id(id: &ID) -> Result<i32> {
    Ok(ids::decode(id, "Project", "projectId")?)
}

#[Object]
impl AutomationMutation {
    /// Add a trigger.
    async fn create_trigger(
        &self,
        ctx: &Context<'_>,
        input: CreateTriggerInput,
    ) -> Result<CreateTriggerPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewTrigger {
            name: input.name,
            project_id: input.project_id.as_ref().map(project_id).transpose()?,
            position: input.position,
            active: input.active,
            conditions: input.conditions.0,
            actions: input.actions.0,
        };
        let trigger = triggers::create(&req.state.db, &req.state.triggers, &actor, new).await?;
        Ok(CreateTriggerPayload {
            trigger: Trigger(trigger),
        })
    }

    /// Change a trigger.
    async fn update_trigger(
        &self,
        ctx: &Context<'_>,
        input: UpdateTriggerInput,
    ) -> Result<UpdateTriggerPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Trigger", "id")?;
        let patch = TriggerPatch {
            name: input.name,
            project_id: match &input.project_id {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(v) => Some(Some(project_id(v)?)),
            },
            position: input.position,
            active: input.active,
            conditions: input.conditions.map(|c| c.0),
            actions: input.actions.map(|a| a.0),
        };
        let trigger =
            triggers::update(&req.state.db, &req.state.triggers, &actor, id, patch).await?;
        Ok(UpdateTriggerPayload {
            trigger: Trigger(trigger),
        })
    }

    /// Change the order triggers run in.
    async fn reorder_triggers(
        &self,
        ctx: &Context<'_>,
        input: ReorderTriggersInput,
    ) -> Result<ReorderTriggersPayload> {
        let (req, actor) = viewer(ctx)?;
        let order = input
            .ids
            .iter()
            .map(|id| ids::decode(id, "Trigger", "ids"))
            .collect::<Result<Vec<i32>, _>>()?;
        let list = triggers::reorder(&req.state.db, &req.state.triggers, &actor, &order).await?;
        Ok(ReorderTriggersPayload {
            triggers: list.into_iter().map(Trigger).collect(),
        })
    }

    /// Remove a trigger; what it did stays in the tickets' history.
    async fn delete_trigger(
        &self,
        ctx: &Context<'_>,
        input: DeleteTriggerInput,
    ) -> Result<DeleteTriggerPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Trigger", "id")?;
        triggers::delete(&req.state.db, &req.state.triggers, &actor, id).await?;
        Ok(DeleteTriggerPayload {
            deleted_trigger_id: ids::encode("Trigger", id),
        })
    }

    /// Add a time rule; it first runs at once.
    async fn create_time_rule(
        &self,
        ctx: &Context<'_>,
        input: CreateTimeRuleInput,
    ) -> Result<CreateTimeRulePayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewTimeRule {
            name: input.name,
            project_id: input.project_id.as_ref().map(project_id).transpose()?,
            active: input.active,
            wait: input.wait.0,
            conditions: input.conditions.0,
            actions: input.actions.0,
        };
        let saved = time_rules::create(&req.state.db, &actor, new).await?;
        Ok(CreateTimeRulePayload {
            time_rule: TimeRule(saved),
        })
    }

    /// Change a time rule; it runs again at once with what it says now.
    async fn update_time_rule(
        &self,
        ctx: &Context<'_>,
        input: UpdateTimeRuleInput,
    ) -> Result<UpdateTimeRulePayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "TimeRule", "id")?;
        let patch = TimeRulePatch {
            name: input.name,
            project_id: match &input.project_id {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(v) => Some(Some(project_id(v)?)),
            },
            active: input.active,
            wait: input.wait.map(|w| w.0),
            conditions: input.conditions.map(|c| c.0),
            actions: input.actions.map(|a| a.0),
        };
        let saved = time_rules::update(&req.state.db, &actor, id, patch).await?;
        Ok(UpdateTimeRulePayload {
            time_rule: TimeRule(saved),
        })
    }

    /// Remove a time rule; what it did stays in the tickets' history.
    async fn delete_time_rule(
        &self,
        ctx: &Context<'_>,
        input: DeleteTimeRuleInput,
    ) -> Result<DeleteTimeRulePayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "TimeRule", "id")?;
        time_rules::delete(&req.state.db, &actor, id).await?;
        Ok(DeleteTimeRulePayload {
            deleted_time_rule_id: ids::encode("TimeRule", id),
        })
    }

    /// Save a macro.
    async fn create_macro(
        &self,
        ctx: &Context<'_>,
        input: CreateMacroInput,
    ) -> Result<CreateMacroPayload> {
        let (req, actor) = viewer(ctx)?;
        let scope = match (input.scope.unwrap_or(MacroScope::Personal), &input.group_id) {
            (MacroScope::Group, Some(g)) => Scope::Group(ids::decode(g, "Group", "groupId")?),
            (MacroScope::Group, None) => {
                return Err(crate::error::AppError::field(
                    "groupId",
                    "a GROUP macro names its group",
                )
                .into())
            }
            (MacroScope::Personal, _) => Scope::Personal,
            (MacroScope::Everyone, _) => Scope::Everyone,
        };
        let new = NewMacro {
            name: input.name,
            scope,
            actions: input.actions.0,
        };
        let created = macros::create(&req.state.db, &req.state.macros, &actor, new).await?;
        Ok(CreateMacroPayload {
            r#macro: Macro(created),
        })
    }

    /// Change a macro (its owner, or an administrator for a shared one).
    async fn update_macro(
        &self,
        ctx: &Context<'_>,
        input: UpdateMacroInput,
    ) -> Result<UpdateMacroPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Macro", "id")?;
        let patch = MacroPatch {
            name: input.name,
            actions: input.actions.map(|a| a.0),
        };
        let saved = macros::update(&req.state.db, &req.state.macros, &actor, id, patch).await?;
        Ok(UpdateMacroPayload {
            r#macro: Macro(saved),
        })
    }

    /// Remove a macro (its owner, or an administrator for a shared one).
    async fn delete_macro(
        &self,
        ctx: &Context<'_>,
        input: DeleteMacroInput,
    ) -> Result<DeleteMacroPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Macro", "id")?;
        macros::delete(&req.state.db, &req.state.macros, &actor, id).await?;
        Ok(DeleteMacroPayload {
            deleted_macro_id: ids::encode("Macro", id),
        })
    }

    /// What applying a macro to a ticket would do, as the query `previewMacro` answers; nothing is written.
    async fn preview_macro(
        &self,
        ctx: &Context<'_>,
        input: PreviewMacroInput,
    ) -> Result<MacroPreview> {
        crate::graphql::query::automation::preview_macro(ctx, input).await
    }

    /// Apply a macro to tickets, each on its own: one refused ticket does not stop the others.
    async fn apply_macro(
        &self,
        ctx: &Context<'_>,
        input: ApplyMacroInput,
    ) -> Result<ApplyMacroPayload> {
        let (req, actor) = viewer(ctx)?;
        let macro_id = ids::decode(&input.macro_id, "Macro", "macroId")?;
        if input.ticket_ids.len() > macros::MAX_TICKETS {
            return Err(crate::error::AppError::field(
                "ticketIds",
                format!("name 1 to {} tickets", macros::MAX_TICKETS),
            )
            .into());
        }
        let ticket_ids = input
            .ticket_ids
            .iter()
            .map(|id| ids::decode(id, "Ticket", "ticketIds"))
            .collect::<Result<Vec<i32>, _>>()?;
        let deps = req.state.write_deps(crate::domain::Channel::Graphql);
        let outcomes = macros::apply(deps, &actor, macro_id, &ticket_ids).await?;
        let mut payload = ApplyMacroPayload {
            tickets: Vec::new(),
            failures: Vec::new(),
        };
        for (id, outcome) in outcomes {
            match outcome {
                Ok(t) => payload.tickets.push(Ticket(t)),
                Err(err) => payload.failures.push(MacroFailure {
                    ticket_id: ids::encode("Ticket", id),
                    code: err.graphql_code().to_string(),
                    message: err.public_message(),
                }),
            }
        }
        Ok(payload)
    }
}
