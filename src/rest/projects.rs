//! `/api/projects/`: list, read, create, change and archive projects.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::path::PathId;
use crate::rest::shapes;
use crate::service::projects::{self, NewProject, ProjectPatch};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;

/// `GET /api/projects/`: every non-archived project, by name, with ticket counts.
#[utoipa::path(get, path = "/api/projects/", tag = "projects", operation_id = "listProjects",
    summary = "Non-archived projects, by name.",
    responses((status = 200, description = "The projects", body = Vec<shapes::Project>)),
    security(("bearer" = [])))]
pub async fn list(
    State(state): State<AppState>,
    CurrentActor(_actor): CurrentActor,
) -> AppResult<Json<Vec<shapes::Project>>> {
    let found = projects::list(&state.db.conn).await?;
    let ids: Vec<i32> = found.iter().map(|p| p.id).collect();
    let counts = projects::ticket_counts(&state.db.conn, &ids).await?;
    Ok(Json(
        found
            .iter()
            .map(|p| shapes::project(p, counts.get(&p.id).copied().unwrap_or(0)))
            .collect(),
    ))
}

async fn with_count(state: &AppState, p: &entity::project::Model) -> AppResult<shapes::Project> {
    let counts = projects::ticket_counts(&state.db.conn, &[p.id]).await?;
    Ok(shapes::project(p, counts.get(&p.id).copied().unwrap_or(0)))
}

/// `GET /api/projects/{id}/`.
#[utoipa::path(get, path = "/api/projects/{id}/", tag = "projects", operation_id = "getProject",
    summary = "One project.",
    params(("id" = i32, Path, description = "Project id")),
    responses((status = 200, description = "The project", body = shapes::Project)),
    security(("bearer" = [])))]
pub async fn get(
    State(state): State<AppState>,
    CurrentActor(_actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<Json<shapes::Project>> {
    let p = projects::get(&state.db.conn, id).await?;
    Ok(Json(with_count(&state, &p).await?))
}

/// `POST /api/projects/` `{name, description?}` → 201.
#[utoipa::path(post, path = "/api/projects/", tag = "projects", operation_id = "createProject",
    summary = "Create a project (team members only).",
    request_body = crate::rest::openapi::request_bodies::ProjectInput,
    responses((status = 201, description = "Created", body = shapes::Project)),
    security(("bearer" = [])))]
pub async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<shapes::Project>)> {
    let fields = Fields(&body);
    let name = fields
        .string_not_null("name")?
        .ok_or_else(|| AppError::field("name", "this field is required"))?;
    let input = NewProject {
        name,
        description: fields.string("description")?,
    };
    let created = projects::create(&state.db, &actor, input).await?;
    Ok((StatusCode::CREATED, Json(shapes::project(&created, 0))))
}

/// `PATCH /api/projects/{id}/` with any of `name`, `description` (null clears the description).
#[utoipa::path(patch, path = "/api/projects/{id}/", tag = "projects", operation_id = "updateProject",
    summary = "Change a project (team members only).",
    params(("id" = i32, Path, description = "Project id")),
    request_body = crate::rest::openapi::request_bodies::ProjectInput,
    responses((status = 200, description = "Updated", body = shapes::Project)),
    security(("bearer" = [])))]
pub async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<Json<shapes::Project>> {
    let fields = Fields(&body);
    let patch = ProjectPatch {
        name: fields.string_not_null("name")?,
        description: if fields.has("description") {
            Some(fields.string("description")?.unwrap_or_default())
        } else {
            None
        },
    };
    let saved = projects::update(&state.db, &actor, id, patch).await?;
    Ok(Json(with_count(&state, &saved).await?))
}

/// `DELETE /api/projects/{id}/` → 204; the project is archived.
#[utoipa::path(delete, path = "/api/projects/{id}/", tag = "projects", operation_id = "archiveProject",
    summary = "Archive a project (team members only); its tickets keep it.",
    params(("id" = i32, Path, description = "Project id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
pub async fn archive(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    projects::archive(&state.db, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
