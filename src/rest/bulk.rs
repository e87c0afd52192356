//! `POST /api/tickets/bulk/` and `GET /api/jobs/{id}/`, additive to the contract: a bulk change is asked for
//! (202 with the job and its link) and followed until done, over `service::tickets::bulk`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::json::JsonObject;
use crate::rest::path::PathId;
use crate::rest::shapes::timestamp;
use crate::rest::tickets::query::ListParams;
use crate::service::tickets::bulk::{self, Target};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use entity::bulk_job;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/tickets/bulk/", post(start))
        .route("/api/jobs/{id}/", get(job))
}

/// A bulk change: its progress and the tickets it could not change.
#[derive(Serialize, ToSchema)]
pub struct BulkJob {
    /// Job id.
    id: i32,
    /// Where to follow it.
    url: String,
    /// `queued`, `running` or `done`.
    status: &'static str,
    /// The change, as asked for.
    changes: Value,
    /// Tickets it names.
    total: usize,
    /// Tickets tried so far.
    processed: i32,
    /// Tickets it could not change.
    failed: i32,
    /// Why, ticket by ticket (the first 1,000).
    failures: Vec<BulkFailure>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC, or null until done.
    #[schema(required = true)]
    finished_at: Option<String>,
}

/// A ticket a bulk change could not change.
#[derive(Serialize, ToSchema)]
pub struct BulkFailure {
    /// Ticket id.
    ticket_id: i32,
    /// The error code (`forbidden`, `not_found`, `invalid_transition`, …).
    code: String,
    /// Why.
    message: String,
}

impl BulkJob {
    fn of(job: bulk_job::Model) -> Self {
        BulkJob {
            url: format!("/api/jobs/{}/", job.id),
            status: job.status.as_str(),
            total: bulk::total(&job),
            failures: bulk::failures(&job)
                .into_iter()
                .map(|f| BulkFailure {
                    ticket_id: f.ticket_id,
                    code: f.code,
                    message: f.message,
                })
                .collect(),
            created_at: timestamp(&job.created_at),
            finished_at: job.finished_at.as_ref().map(timestamp),
            id: job.id,
            changes: job.changes,
            processed: job.processed,
            failed: job.failed,
        }
    }
}

/// `{"ids": [..]}` or `{"filter": {..}}`, and `"changes"`.
#[derive(Serialize, ToSchema)]
pub struct BulkInput {
    /// 1 to 10,000 ticket ids.
    ids: Option<Vec<i32>>,
    /// The list's filters as an object: `q`, `status`, `priority`, `assigned`, `tag`, `tag_any` (a value or a
    /// list).
    filter: Option<Value>,
    /// What to set: `status`, `priority`, `assigned_to`, `assigned_group`, `project`, `due_date`; and `add_tags`,
    /// `remove_tags` (lists of names).
    changes: Value,
}

/// The filter object as the list's query string, so it reads exactly as `GET /api/tickets/` reads it.
fn filter_of(raw: &Value) -> AppResult<ListParams> {
    let Some(map) = raw.as_object() else {
        return Err(AppError::field("filter", "must be an object"));
    };
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in map {
        if !["q", "status", "priority", "assigned", "tag", "tag_any"].contains(&key.as_str()) {
            return Err(AppError::field(
                &format!("filter.{key}"),
                "filters are q, status, priority, assigned, tag and tag_any",
            ));
        }
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Array(items) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| i.to_string())
                })
                .collect::<Vec<_>>()
                .join(","),
            _ => {
                return Err(AppError::field(
                    &format!("filter.{key}"),
                    "must be a string or a list",
                ))
            }
        };
        query.append_pair(key, &text);
    }
    ListParams::parse(Some(&query.finish()))
}

/// `POST /api/tickets/bulk/` → 202 with the queued job (team members).
#[utoipa::path(post, path = "/api/tickets/bulk/", tag = "tickets", operation_id = "bulkUpdateTickets",
    summary = "Change many tickets at once (team members): each ticket gets the checks a change by hand gets, in its own transaction. Answers 202 with the job to follow.",
    request_body = BulkInput,
    responses((status = 202, description = "Queued", body = BulkJob, headers(("Location" = String, description = "The job"))), (status = 400, description = "Invalid", body = crate::error::bodies::Error), (status = 403, description = "Not a team member", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn start(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<Response> {
    let target = match (body.get("ids"), body.get("filter")) {
        (Some(_), Some(_)) => return Err(AppError::field("ids", "give either ids or filter")),
        (Some(ids), None) => Target::Ids(
            ids.as_array()
                .ok_or_else(|| AppError::field("ids", "must be a list of ticket ids"))?
                .iter()
                .map(|v| {
                    v.as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .ok_or_else(|| AppError::field("ids", "must be a list of ticket ids"))
                })
                .collect::<AppResult<Vec<i32>>>()?,
        ),
        (None, Some(filter)) => {
            let mut params = filter_of(filter)?;
            params
                .resolve_fields(&state.db.conn, &state.custom_fields, &actor)
                .await?;
            Target::Filter(params.filter)
        }
        (None, None) => return Err(AppError::field("ids", "give ids or filter")),
    };
    let changes = body
        .get("changes")
        .ok_or_else(|| AppError::field("changes", "this field is required"))?;
    let job = bulk::start(
        &state.db,
        &state.ticket_reads,
        crate::domain::Channel::Rest,
        &actor,
        target,
        changes,
    )
    .await?;
    let shown = BulkJob::of(job);
    let location = shown.url.clone();
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        axum::Json(shown),
    )
        .into_response())
}

/// `GET /api/jobs/{id}/`: a bulk change's progress (whoever asked for it, or an administrator).
#[utoipa::path(get, path = "/api/jobs/{id}/", tag = "tickets", operation_id = "getBulkJob",
    summary = "A bulk change's progress and failures (whoever asked for it, or an administrator).",
    params(("id" = i32, Path, description = "Job id")),
    responses((status = 200, description = "The job", body = BulkJob), (status = 404, description = "No such job", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn job(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<BulkJob>> {
    Ok(axum::Json(BulkJob::of(
        bulk::get(&state.db.conn, &actor, id).await?,
    )))
}
