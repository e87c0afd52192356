//! `/api/automation/triggers/` (administrators only, additive to the contract): thin handlers over
//! `service::automation::triggers`. Conditions and actions are the rule language's JSON
//! (docs/automation.md); a mistake in them is a 400 whose field is the JSON path that holds it.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::fields::Fields;
use crate::rest::json::{Json, JsonObject};
use crate::rest::path::PathId;
use crate::rest::shapes::timestamp;
use crate::service::automation::{triggers, NewTrigger, TriggerPatch};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use entity::trigger;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route(
            "/api/automation/triggers/",
            get(list_triggers).post(create_trigger),
        )
        .route(
            "/api/automation/triggers/{id}/",
            get(get_trigger)
                .patch(update_trigger)
                .delete(delete_trigger),
        )
        .route("/api/automation/triggers/order/", post(reorder_triggers))
}

/// A trigger as REST shows it.
#[derive(Serialize, ToSchema)]
pub struct Trigger {
    /// Trigger id (what `via.rule` names in audit records and webhooks).
    id: i32,
    /// Name.
    name: String,
    /// The project whose tickets it runs on, or null for every ticket.
    #[schema(required = true)]
    project: Option<i32>,
    /// Evaluation order, ascending (ties by id).
    position: i32,
    /// Whether it runs.
    active: bool,
    /// `{"all": [condition…], "any": [condition…]}`; a condition is `{"field", "operator", "value"}`.
    conditions: Value,
    /// `[action…]`: `{"set": field, "value": …}` or `{"comment": template, "internal": bool}`.
    actions: Value,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

impl Trigger {
    fn of(t: trigger::Model) -> Self {
        Trigger {
            created_at: timestamp(&t.created_at),
            updated_at: timestamp(&t.updated_at),
            id: t.id,
            name: t.name,
            project: t.project_id,
            position: t.position,
            active: t.active,
            conditions: t.conditions,
            actions: t.actions,
        }
    }
}

/// Fields of a trigger: `name`, `conditions` and `actions` are required on create; `project: null` makes it
/// run on every ticket.
#[derive(Serialize, ToSchema)]
pub struct TriggerInput {
    /// 1–200 characters.
    name: Option<String>,
    /// Project id, or null.
    project: Option<i32>,
    /// 0–1000000; after the others when absent on create.
    position: Option<i32>,
    /// Default true.
    active: Option<bool>,
    /// `{"all": [...], "any": [...]}`.
    conditions: Option<Value>,
    /// 1 to 20 actions.
    actions: Option<Value>,
}

/// A new order: these triggers first, in this order; the others after them as they were.
#[derive(Deserialize, ToSchema)]
pub struct TriggerOrder {
    /// Trigger ids.
    ids: Vec<i32>,
}

fn position(fields: &Fields<'_>) -> AppResult<Option<i32>> {
    match fields.0.get("position") {
        None => Ok(None),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| AppError::field("position", "must be an integer")),
    }
}

fn active(fields: &Fields<'_>) -> AppResult<Option<bool>> {
    match fields.0.get("active") {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| AppError::field("active", "must be true or false")),
    }
}

fn rule_part(fields: &Fields<'_>, key: &str) -> Option<Value> {
    fields.0.get(key).cloned()
}

/// `GET /api/automation/triggers/`: every trigger in evaluation order (administrators only).
#[utoipa::path(get, path = "/api/automation/triggers/", tag = "automation", operation_id = "listTriggers",
    summary = "Every trigger, active or not, in evaluation order (administrators).",
    responses((status = 200, description = "The triggers", body = Vec<Trigger>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_triggers(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<axum::Json<Vec<Trigger>>> {
    let list = triggers::list(&state.db, &actor).await?;
    Ok(axum::Json(list.into_iter().map(Trigger::of).collect()))
}

/// `POST /api/automation/triggers/` → 201 (administrators only).
#[utoipa::path(post, path = "/api/automation/triggers/", tag = "automation", operation_id = "createTrigger",
    summary = "Add a trigger (administrators). A condition or action that does not fit is a 400 naming its JSON path.",
    request_body = TriggerInput,
    responses((status = 201, description = "Created", body = Trigger), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create_trigger(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<Trigger>)> {
    let fields = Fields(&body);
    let required = |key: &str| {
        rule_part(&fields, key).ok_or_else(|| AppError::field(key, "this field is required"))
    };
    let input = NewTrigger {
        name: fields
            .string_not_null("name")?
            .ok_or_else(|| AppError::field("name", "this field is required"))?,
        project_id: fields.nullable_id("project")?.flatten(),
        position: position(&fields)?,
        active: active(&fields)?,
        conditions: required("conditions")?,
        actions: required("actions")?,
    };
    let created = triggers::create(&state.db, &state.triggers, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(Trigger::of(created))))
}

/// `GET /api/automation/triggers/{id}/` (administrators only).
#[utoipa::path(get, path = "/api/automation/triggers/{id}/", tag = "automation", operation_id = "getTrigger",
    summary = "One trigger (administrators).",
    params(("id" = i32, Path, description = "Trigger id")),
    responses((status = 200, description = "The trigger", body = Trigger), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_trigger(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<Trigger>> {
    Ok(axum::Json(Trigger::of(
        triggers::get(&state.db, &actor, id).await?,
    )))
}

/// `PATCH /api/automation/triggers/{id}/` with any field of a trigger (administrators only).
#[utoipa::path(patch, path = "/api/automation/triggers/{id}/", tag = "automation", operation_id = "updateTrigger",
    summary = "Change a trigger (administrators); absent fields stay.",
    params(("id" = i32, Path, description = "Trigger id")),
    request_body = TriggerInput,
    responses((status = 200, description = "Updated", body = Trigger), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_trigger(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<Trigger>> {
    let fields = Fields(&body);
    let patch = TriggerPatch {
        name: fields.string_not_null("name")?,
        project_id: fields.nullable_id("project")?,
        position: position(&fields)?,
        active: active(&fields)?,
        conditions: rule_part(&fields, "conditions"),
        actions: rule_part(&fields, "actions"),
    };
    let saved = triggers::update(&state.db, &state.triggers, &actor, id, patch).await?;
    Ok(axum::Json(Trigger::of(saved)))
}

/// `DELETE /api/automation/triggers/{id}/` → 204 (administrators only).
#[utoipa::path(delete, path = "/api/automation/triggers/{id}/", tag = "automation", operation_id = "deleteTrigger",
    summary = "Remove a trigger (administrators); what it did stays in the tickets' history.",
    params(("id" = i32, Path, description = "Trigger id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_trigger(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    triggers::delete(&state.db, &state.triggers, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/automation/triggers/order/` `{ids}`: the new evaluation order (administrators only).
#[utoipa::path(post, path = "/api/automation/triggers/order/", tag = "automation", operation_id = "reorderTriggers",
    summary = "Put the named triggers first, in that order; the others follow as they were (administrators).",
    request_body = TriggerOrder,
    responses((status = 200, description = "Every trigger in its new order", body = Vec<Trigger>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn reorder_triggers(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Json(body): Json<TriggerOrder>,
) -> AppResult<axum::Json<Vec<Trigger>>> {
    let list = triggers::reorder(&state.db, &state.triggers, &actor, &body.ids).await?;
    Ok(axum::Json(list.into_iter().map(Trigger::of).collect()))
}
