//! `/api/automation/triggers/` (administrators only) and `/api/automation/macros/` (team members), additive
//! to the contract: thin handlers over `service::automation`. Conditions and actions are the rule language's JSON
//! (docs/automation.md); a mistake in them is a 400 whose field is the JSON path that holds it.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::fields::Fields;
use crate::rest::json::{Json, JsonObject};
use crate::rest::path::PathId;
use crate::rest::shapes::timestamp;
use crate::service::automation::macros::{self, MacroPatch, NewMacro, Scope};
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
        .merge(macro_router())
        .merge(crate::rest::time_rules::router())
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

pub(super) fn active(fields: &Fields<'_>) -> AppResult<Option<bool>> {
    match fields.0.get("active") {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| AppError::field("active", "must be true or false")),
    }
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
    let input = NewTrigger {
        name: fields
            .string_not_null("name")?
            .ok_or_else(|| AppError::field("name", "this field is required"))?,
        project_id: fields.nullable_id("project")?.flatten(),
        position: position(&fields)?,
        active: active(&fields)?,
        conditions: fields.required_value("conditions")?,
        actions: fields.required_value("actions")?,
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
        conditions: fields.value("conditions"),
        actions: fields.value("actions"),
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

/// A macro as REST shows it.
#[derive(Serialize, ToSchema)]
pub struct Macro {
    /// Macro id.
    id: i32,
    /// Name.
    name: String,
    /// `personal`, `group` or `everyone`.
    scope: &'static str,
    /// The owner of a personal macro, or null.
    #[schema(required = true)]
    owner: Option<i32>,
    /// The group of a group's macro, or null.
    #[schema(required = true)]
    group: Option<i32>,
    /// `[action…]`: `{"set": field, "value": …}` or `{"comment": template, "internal": bool}`.
    actions: Value,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

impl Macro {
    fn of(m: entity::ticket_macro::Model) -> Self {
        Macro {
            scope: match macros::scope_of(&m) {
                Scope::Personal => "personal",
                Scope::Group(_) => "group",
                Scope::Everyone => "everyone",
            },
            created_at: timestamp(&m.created_at),
            updated_at: timestamp(&m.updated_at),
            id: m.id,
            name: m.name,
            owner: m.owner_id,
            group: m.group_id,
            actions: m.actions,
        }
    }
}

/// Fields of a macro: `name` and `actions` are required on create; `scope` (`personal`, the default, `group`
/// with `group`, or `everyone`) is set on create only.
#[derive(Serialize, ToSchema)]
pub struct MacroInput {
    /// 1–200 characters.
    name: Option<String>,
    /// `personal`, `group` or `everyone` (the last two for administrators).
    scope: Option<String>,
    /// Group id, for scope `group`.
    group: Option<i32>,
    /// 1 to 20 actions.
    actions: Option<Value>,
}

/// The tickets to apply a macro to.
#[derive(Deserialize, ToSchema)]
pub struct MacroTargets {
    /// 1 to 100 ticket ids.
    tickets: Vec<i32>,
}

/// A ticket an action on many (a macro, resolving children) could not be applied to.
#[derive(Serialize, ToSchema)]
pub struct TicketFailure {
    /// Ticket id.
    ticket: i32,
    /// The error code, as in error bodies.
    code: &'static str,
    /// Why.
    error: String,
}

impl TicketFailure {
    /// Ticket `ticket`'s failure `err`, as error bodies name it.
    pub fn of(ticket: i32, err: &crate::error::AppError) -> Self {
        TicketFailure {
            ticket,
            code: err.code(),
            error: err.public_message(),
        }
    }
}

/// What applying a macro did, ticket by ticket.
#[derive(Serialize, ToSchema)]
pub struct MacroApplied {
    /// The tickets it changed, as they are now.
    tickets: Vec<crate::rest::shapes::TicketUpdated>,
    /// The tickets it could not change.
    failures: Vec<TicketFailure>,
}

/// A reply a macro would post.
#[derive(Serialize, ToSchema)]
pub struct MacroReply {
    /// HTML.
    body: String,
    /// An internal note.
    internal: bool,
}

/// What applying a macro would do; nothing is written.
#[derive(Serialize, ToSchema)]
pub struct MacroPreview {
    /// Ticket id.
    ticket: i32,
    /// `{field: [old, new]}` of the fields it would change.
    changes: Value,
    /// The replies it would post.
    replies: Vec<MacroReply>,
}

/// The macro routes.
pub fn macro_router() -> Routes {
    Routes::new(Door::Rest)
        .route(
            "/api/automation/macros/",
            get(list_macros).post(create_macro),
        )
        .route(
            "/api/automation/macros/{id}/",
            get(get_macro).patch(update_macro).delete(delete_macro),
        )
        .route("/api/automation/macros/{id}/preview/", get(preview_macro))
        .route("/api/automation/macros/{id}/apply/", post(apply_macro))
}

/// `GET /api/automation/macros/`: the macros the caller may apply (team members).
#[utoipa::path(get, path = "/api/automation/macros/", tag = "automation", operation_id = "listMacros",
    summary = "The caller's macros, their groups' and everyone's (team members).",
    responses((status = 200, description = "The macros", body = Vec<Macro>), (status = 403, description = "Not a team member", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_macros(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<axum::Json<Vec<Macro>>> {
    let list = macros::list(&state.db.conn, &state.macros, &actor).await?;
    Ok(axum::Json(list.iter().cloned().map(Macro::of).collect()))
}

/// `POST /api/automation/macros/` → 201.
#[utoipa::path(post, path = "/api/automation/macros/", tag = "automation", operation_id = "createMacro",
    summary = "Save a macro: a personal one (team members) or a shared one (administrators).",
    request_body = MacroInput,
    responses((status = 201, description = "Created", body = Macro), (status = 403, description = "Not a team member, or sharing without being an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<Macro>)> {
    let fields = Fields(&body);
    let scope = match fields.string("scope")?.as_deref().map(str::trim) {
        None | Some("personal") => Scope::Personal,
        Some("everyone") => Scope::Everyone,
        Some("group") => Scope::Group(
            fields
                .nullable_id("group")?
                .flatten()
                .ok_or_else(|| AppError::field("group", "a group macro names its group"))?,
        ),
        Some(_) => {
            return Err(AppError::field(
                "scope",
                "must be one of: personal, group, everyone",
            ))
        }
    };
    let input = NewMacro {
        name: fields
            .string_not_null("name")?
            .ok_or_else(|| AppError::field("name", "this field is required"))?,
        scope,
        actions: fields.required_value("actions")?,
    };
    let created = macros::create(&state.db, &state.macros, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(Macro::of(created))))
}

/// `GET /api/automation/macros/{id}/`.
#[utoipa::path(get, path = "/api/automation/macros/{id}/", tag = "automation", operation_id = "getMacro",
    summary = "One macro the caller may apply.",
    params(("id" = i32, Path, description = "Macro id")),
    responses((status = 200, description = "The macro", body = Macro), (status = 403, description = "Not a team member", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<Macro>> {
    Ok(axum::Json(Macro::of(
        macros::get(&state.db.conn, &actor, id).await?,
    )))
}

/// `PATCH /api/automation/macros/{id}/` with `name` and/or `actions`.
#[utoipa::path(patch, path = "/api/automation/macros/{id}/", tag = "automation", operation_id = "updateMacro",
    summary = "Change a macro (its owner, or an administrator for a shared one).",
    params(("id" = i32, Path, description = "Macro id")),
    request_body = MacroInput,
    responses((status = 200, description = "Updated", body = Macro), (status = 403, description = "Not the owner, or a shared macro and not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<Macro>> {
    let fields = Fields(&body);
    let patch = MacroPatch {
        name: fields.string_not_null("name")?,
        actions: fields.value("actions"),
    };
    let saved = macros::update(&state.db, &state.macros, &actor, id, patch).await?;
    Ok(axum::Json(Macro::of(saved)))
}

/// `DELETE /api/automation/macros/{id}/` → 204.
#[utoipa::path(delete, path = "/api/automation/macros/{id}/", tag = "automation", operation_id = "deleteMacro",
    summary = "Remove a macro (its owner, or an administrator for a shared one).",
    params(("id" = i32, Path, description = "Macro id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not the owner, or a shared macro and not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    macros::delete(&state.db, &state.macros, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/automation/macros/{id}/preview/?ticket=<id>`: what applying it would do; nothing is written.
#[utoipa::path(get, path = "/api/automation/macros/{id}/preview/", tag = "automation", operation_id = "previewMacro",
    summary = "What applying a macro to a ticket would do, with every check applying makes; nothing is written.",
    params(("id" = i32, Path, description = "Macro id"), ("ticket" = i32, Query, description = "Ticket id")),
    responses((status = 200, description = "The preview", body = MacroPreview), (status = 403, description = "Not allowed to make the change", body = crate::error::bodies::Error), (status = 409, description = "The workflow refuses the move", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn preview_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    axum::extract::RawQuery(raw): axum::extract::RawQuery,
) -> AppResult<axum::Json<MacroPreview>> {
    // Read by hand, so that a repeated or malformed parameter is the documented JSON 400, not the extractor's
    // plain-text one; the first `ticket` counts.
    let ticket = url::form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "ticket")
        .map(|(_, v)| crate::rest::fields::id_value("ticket", &Value::String(v.into_owned())))
        .transpose()?
        .ok_or_else(|| AppError::field("ticket", "this field is required"))?;
    let p = macros::preview(&state.db.conn, &actor, id, ticket).await?;
    let changes = p.changes();
    Ok(axum::Json(MacroPreview {
        ticket,
        changes,
        replies: p
            .replies
            .into_iter()
            .map(|r| MacroReply {
                body: r.body,
                internal: r.internal,
            })
            .collect(),
    }))
}

/// `POST /api/automation/macros/{id}/apply/` `{tickets}`: apply a macro to 1 to 100 tickets, each on its own.
#[utoipa::path(post, path = "/api/automation/macros/{id}/apply/", tag = "automation", operation_id = "applyMacro",
    summary = "Apply a macro to tickets, each on its own; the ones it could not change are listed with why.",
    params(("id" = i32, Path, description = "Macro id")),
    request_body = MacroTargets,
    responses((status = 200, description = "Ticket by ticket", body = MacroApplied), (status = 403, description = "Not a team member", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn apply_macro(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    Json(body): Json<MacroTargets>,
) -> AppResult<axum::Json<MacroApplied>> {
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let outcomes = macros::apply(deps, &actor, id, &body.tickets).await?;
    let mut applied = MacroApplied {
        tickets: Vec::new(),
        failures: Vec::new(),
    };
    for (ticket, outcome) in outcomes {
        match outcome {
            Ok(t) => applied
                .tickets
                .push(crate::rest::shapes::ticket_updated(&t)),
            Err(err) => applied.failures.push(TicketFailure::of(ticket, &err)),
        }
    }
    Ok(axum::Json(applied))
}
