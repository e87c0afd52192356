//! `/api/projects/`: list, read, create, change and archive projects, and their rules for mail.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::path::PathId;
use crate::rest::shapes::{self, timestamp};
use crate::service::project_mail::{self, MailRules, MailRulesPatch};
use crate::service::projects::{self, NewProject, ProjectPatch};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use entity::values::{ResolvedReply, UnknownSenders};
use serde::Serialize;
use utoipa::ToSchema;

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

/// How mail to a project is taken in (docs/mail.md).
#[derive(Serialize, ToSchema)]
pub struct ProjectMailRules {
    /// The project.
    project: i32,
    /// `reopen`: a requester's reply to a resolved ticket reopens it; `follow_up`: it opens a new ticket
    /// related to the resolved one. A reply to a closed ticket always opens a follow-up.
    resolved_reply: &'static str,
    /// `create` (anyone), `known_domains` (only `sender_domains`), `refuse`; null: the service's setting
    /// (`DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS`).
    unknown_senders: Option<&'static str>,
    /// The domains `known_domains` takes mail from (and their subdomains), lowercase.
    sender_domains: Vec<String>,
    /// When an administrator last changed them; null: never (the defaults).
    #[schema(format = DateTime)]
    updated_at: Option<String>,
}

impl ProjectMailRules {
    fn of(rules: MailRules) -> Self {
        ProjectMailRules {
            project: rules.project_id,
            resolved_reply: rules.resolved_reply.as_str(),
            unknown_senders: rules.unknown_senders.map(UnknownSenders::as_str),
            sender_domains: rules.sender_domains,
            updated_at: rules.updated_at.as_ref().map(timestamp),
        }
    }
}

/// The body of a change to a project's mail rules; absent fields stay as they are.
#[derive(Serialize, ToSchema)]
pub struct ProjectMailRulesPatch {
    /// `reopen` or `follow_up`.
    resolved_reply: Option<String>,
    /// `create`, `known_domains` or `refuse`; null: the service's setting.
    unknown_senders: Option<String>,
    /// Replaces the list (at most 100).
    sender_domains: Option<Vec<String>>,
}

/// `GET /api/projects/{id}/mail/` (team members).
#[utoipa::path(get, path = "/api/projects/{id}/mail/", tag = "projects", operation_id = "getProjectMailRules",
    summary = "How mail to a project is taken in (team members).",
    params(("id" = i32, Path, description = "Project id")),
    responses((status = 200, description = "The rules", body = ProjectMailRules), (status = 403, description = "Not a team member", body = crate::error::bodies::Error), (status = 404, description = "No such project", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn mail_rules(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<Json<ProjectMailRules>> {
    let rules = project_mail::get(&state.db, &actor, id).await?;
    Ok(Json(ProjectMailRules::of(rules)))
}

/// `PATCH /api/projects/{id}/mail/` (administrators).
#[utoipa::path(patch, path = "/api/projects/{id}/mail/", tag = "projects", operation_id = "updateProjectMailRules",
    summary = "Change how mail to a project is taken in (administrators).",
    params(("id" = i32, Path, description = "Project id")),
    request_body = ProjectMailRulesPatch,
    responses((status = 200, description = "The rules now", body = ProjectMailRules), (status = 400, description = "A bad value", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such project", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_mail_rules(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<Json<ProjectMailRules>> {
    let f = Fields(&body);
    let resolved_reply = f
        .string_not_null("resolved_reply")?
        .map(|v| ResolvedReply::parse(&v).map_err(|e| AppError::field(e.field, e.message)))
        .transpose()?;
    let unknown_senders = f
        .nullable_string("unknown_senders")?
        .map(|v| {
            v.map(|v| UnknownSenders::parse(&v).map_err(|e| AppError::field(e.field, e.message)))
                .transpose()
        })
        .transpose()?;
    let patch = MailRulesPatch {
        resolved_reply,
        unknown_senders,
        sender_domains: f.strings("sender_domains")?,
    };
    let rules = project_mail::update(&state.db, &actor, id, patch).await?;
    Ok(Json(ProjectMailRules::of(rules)))
}
