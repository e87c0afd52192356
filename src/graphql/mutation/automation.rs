//! Trigger administration: create, update, reorder, delete (administrators only). Conditions and actions
//! are the rule language's JSON (docs/automation.md); a mistake in them is a VALIDATION error whose
//! `field` is the JSON path that holds it.
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::Trigger;
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
}
