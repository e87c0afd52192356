//! `/api/automation/time-rules/` (administrators only), additive to the contract: thin handlers over
//! `service::automation::time_rules`. A mistake in the wait, conditions or actions is a 400 whose field is
//! the JSON path that holds it.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::automation::active;
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::path::PathId;
use crate::rest::shapes::timestamp;
use crate::service::automation::time_rules::{self, NewTimeRule, TimeRulePatch};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use entity::time_rule;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route(
            "/api/automation/time-rules/",
            get(list_time_rules).post(create_time_rule),
        )
        .route(
            "/api/automation/time-rules/{id}/",
            get(get_time_rule)
                .patch(update_time_rule)
                .delete(delete_time_rule),
        )
        .route(
            "/api/automation/time-rules/{id}/dry-run/",
            post(dry_run_time_rule),
        )
}

/// A time rule as REST shows it.
#[derive(Serialize, ToSchema)]
pub struct TimeRule {
    /// Time rule id (what `via.rule` names, with `via.kind` `time_rule`).
    id: i32,
    /// Name.
    name: String,
    /// The project whose tickets it acts on, or null for every ticket.
    #[schema(required = true)]
    project: Option<i32>,
    /// Whether it runs.
    active: bool,
    /// `{"since": "created" | "updated" | "status_changed" | "resolved", "hours": n, "business_hours": bool}`, or
    /// `{"before": "first_response_due" | "resolution_due", "hours": n}` (that long before a pending SLA target).
    wait: Value,
    /// `{"all": [condition…], "any": [condition…]}` on the ticket's fields.
    conditions: Value,
    /// `[action…]`, as a trigger's.
    actions: Value,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

impl TimeRule {
    fn of(t: time_rule::Model) -> Self {
        TimeRule {
            created_at: timestamp(&t.created_at),
            updated_at: timestamp(&t.updated_at),
            id: t.id,
            name: t.name,
            project: t.project_id,
            active: t.active,
            wait: t.wait,
            conditions: t.conditions,
            actions: t.actions,
        }
    }
}

/// Fields of a time rule: `name`, `wait` and `actions` are required on create; `conditions` default to none.
#[derive(Serialize, ToSchema)]
pub struct TimeRuleInput {
    /// 1–200 characters.
    name: Option<String>,
    /// Project id, or null.
    project: Option<i32>,
    /// Default true.
    active: Option<bool>,
    /// `{"since": …, "hours": 1–8784, "business_hours": bool}`.
    wait: Option<Value>,
    /// `{"all": [...], "any": [...]}` on `ticket.*` fields.
    conditions: Option<Value>,
    /// 1 to 20 actions.
    actions: Option<Value>,
}

/// What a time rule would act on now.
#[derive(Serialize, ToSchema)]
pub struct DryRun {
    /// Open tickets it would act on now.
    matching: u64,
    /// Tickets looked at.
    examined: u64,
    /// Whether counting stopped at 10,000 tickets.
    capped: bool,
}

/// `GET /api/automation/time-rules/`: every time rule, oldest first (administrators only).
#[utoipa::path(get, path = "/api/automation/time-rules/", tag = "automation", operation_id = "listTimeRules",
    summary = "Every time rule, active or not, oldest first (administrators).",
    responses((status = 200, description = "The time rules", body = Vec<TimeRule>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_time_rules(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<axum::Json<Vec<TimeRule>>> {
    let list = time_rules::list(&state.db, &actor).await?;
    Ok(axum::Json(list.into_iter().map(TimeRule::of).collect()))
}

/// `POST /api/automation/time-rules/` → 201 (administrators only).
#[utoipa::path(post, path = "/api/automation/time-rules/", tag = "automation", operation_id = "createTimeRule",
    summary = "Add a time rule (administrators); it first runs at once. What does not fit is a 400 naming its JSON path.",
    request_body = TimeRuleInput,
    responses((status = 201, description = "Created", body = TimeRule), (status = 400, description = "Invalid", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create_time_rule(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<TimeRule>)> {
    let fields = Fields(&body);
    let input = NewTimeRule {
        name: fields
            .string_not_null("name")?
            .ok_or_else(|| AppError::field("name", "this field is required"))?,
        project_id: fields.nullable_id("project")?.flatten(),
        active: active(&fields)?,
        wait: fields.required_value("wait")?,
        conditions: fields
            .value("conditions")
            .unwrap_or_else(|| serde_json::json!({})),
        actions: fields.required_value("actions")?,
    };
    let created = time_rules::create(&state.db, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(TimeRule::of(created))))
}

/// `GET /api/automation/time-rules/{id}/` (administrators only).
#[utoipa::path(get, path = "/api/automation/time-rules/{id}/", tag = "automation", operation_id = "getTimeRule",
    summary = "One time rule (administrators).",
    params(("id" = i32, Path, description = "Time rule id")),
    responses((status = 200, description = "The time rule", body = TimeRule), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such time rule", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_time_rule(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<TimeRule>> {
    Ok(axum::Json(TimeRule::of(
        time_rules::get(&state.db, &actor, id).await?,
    )))
}

/// `PATCH /api/automation/time-rules/{id}/` with any field of a time rule (administrators only).
#[utoipa::path(patch, path = "/api/automation/time-rules/{id}/", tag = "automation", operation_id = "updateTimeRule",
    summary = "Change a time rule (administrators); absent fields stay. It runs again at once.",
    params(("id" = i32, Path, description = "Time rule id")),
    request_body = TimeRuleInput,
    responses((status = 200, description = "Updated", body = TimeRule), (status = 400, description = "Invalid", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such time rule", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_time_rule(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<TimeRule>> {
    let fields = Fields(&body);
    let patch = TimeRulePatch {
        name: fields.string_not_null("name")?,
        project_id: fields.nullable_id("project")?,
        active: active(&fields)?,
        wait: fields.value("wait"),
        conditions: fields.value("conditions"),
        actions: fields.value("actions"),
    };
    let saved = time_rules::update(&state.db, &actor, id, patch).await?;
    Ok(axum::Json(TimeRule::of(saved)))
}

/// `DELETE /api/automation/time-rules/{id}/` → 204 (administrators only).
#[utoipa::path(delete, path = "/api/automation/time-rules/{id}/", tag = "automation", operation_id = "deleteTimeRule",
    summary = "Remove a time rule (administrators); what it did stays in the tickets' history.",
    params(("id" = i32, Path, description = "Time rule id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such time rule", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_time_rule(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    time_rules::delete(&state.db, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/automation/time-rules/{id}/dry-run/`: how many open tickets it would act on now; nothing changes.
#[utoipa::path(post, path = "/api/automation/time-rules/{id}/dry-run/", tag = "automation", operation_id = "dryRunTimeRule",
    summary = "Count the open tickets a time rule would act on now, changing nothing (administrators).",
    params(("id" = i32, Path, description = "Time rule id")),
    responses((status = 200, description = "The count", body = DryRun), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such time rule", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn dry_run_time_rule(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<DryRun>> {
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let found = time_rules::dry_run(deps, &actor, id).await?;
    Ok(axum::Json(DryRun {
        matching: found.matching,
        examined: found.examined,
        capped: found.capped,
    }))
}
