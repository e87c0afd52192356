//! Tags, additive to the contract: a ticket's tags at `/api/tickets/{id}/tags/`, the tag list with counts at
//! `/api/tags/`, an admin's renames, merges and curated list, and whether free tags are allowed
//! (`/api/settings/tags/`). Thin handlers over `service::tags`; tags are the team's, so a requester gets 403.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::service::tags::{self, Edit, TagCount, TagUpdate};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route(
            "/api/tickets/{id}/tags/",
            get(ticket_tags)
                .put(replace_tags)
                .post(add_tags)
                .delete(remove_tags),
        )
        .route(
            "/api/tickets/{id}/tags/{name}/",
            axum::routing::delete(remove_tag),
        )
        .route("/api/tags/", get(list_tags).post(curate_tag))
        .route(
            "/api/tags/{name}/",
            get(get_tag).patch(update_tag).delete(delete_tag),
        )
        .route(
            "/api/settings/tags/",
            get(tag_settings).patch(update_tag_settings),
        )
}

/// A ticket's tags.
#[derive(Serialize, ToSchema)]
pub struct TicketTags {
    /// Normalised names, sorted.
    tags: Vec<String>,
}

/// A tag with its use.
#[derive(Serialize, ToSchema)]
pub struct Tag {
    /// Normalised name (lowercase, trimmed, at most 50 characters).
    name: String,
    /// On the curated list.
    curated: bool,
    /// Live tickets carrying it.
    tickets: i64,
}

impl Tag {
    fn of(t: TagCount) -> Self {
        Tag {
            name: t.name,
            curated: t.curated,
            tickets: t.tickets,
        }
    }
}

/// `{"tags": ["vpn", "urgent"]}`: up to 50 names.
#[derive(Serialize, ToSchema)]
pub struct TagNames {
    /// Names; they are normalised (trimmed, lowercase).
    tags: Vec<String>,
}

/// The tag settings.
#[derive(Serialize, ToSchema)]
pub struct TagSettings {
    /// Whether names off the curated list may be put on tickets.
    free_tags: bool,
}

/// A change to a tag across every ticket.
#[derive(Serialize, ToSchema)]
pub struct TagChange {
    /// A new name; naming another tag merges this one into it.
    name: Option<String>,
    /// On or off the curated list.
    curated: Option<bool>,
}

/// `{"tags": [...]}` from a body: a list of strings, 400 naming `tags` otherwise.
fn names(body: &serde_json::Map<String, Value>) -> AppResult<Vec<String>> {
    match body.get("tags") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| AppError::field("tags", "must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(AppError::field("tags", "must be a list of strings")),
        None => Err(AppError::field("tags", "this field is required")),
    }
}

async fn edit(
    state: &AppState,
    actor: &crate::auth::Actor,
    id: &str,
    edit: Edit,
) -> AppResult<axum::Json<TicketTags>> {
    let deps = state.write_deps(crate::domain::Channel::Rest);
    let tags = tags::change(deps, actor, path_id(id, "ticket")?, edit).await?;
    Ok(axum::Json(TicketTags { tags }))
}

/// `GET /api/tickets/{id}/tags/`.
#[utoipa::path(get, path = "/api/tickets/{id}/tags/", tag = "tags", operation_id = "getTicketTags",
    summary = "A ticket's tags (the team, its assignee and assigned group).",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The tags", body = TicketTags), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn ticket_tags(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<axum::Json<TicketTags>> {
    let tags = tags::of_ticket(&state.db.conn, &actor, path_id(&id, "ticket")?).await?;
    Ok(axum::Json(TicketTags { tags }))
}

/// `PUT /api/tickets/{id}/tags/`: exactly these tags.
#[utoipa::path(put, path = "/api/tickets/{id}/tags/", tag = "tags", operation_id = "replaceTicketTags",
    summary = "Set a ticket's tags to exactly these.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = TagNames,
    responses((status = 200, description = "The tags now", body = TicketTags), (status = 400, description = "A bad name, or one off the curated list while free tags are off", body = crate::error::bodies::Error), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn replace_tags(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<TicketTags>> {
    edit(&state, &actor, &id, Edit::Replace(names(&body)?)).await
}

/// `POST /api/tickets/{id}/tags/`: add these tags.
#[utoipa::path(post, path = "/api/tickets/{id}/tags/", tag = "tags", operation_id = "addTicketTags",
    summary = "Put tags on a ticket, keeping the others.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = TagNames,
    responses((status = 200, description = "The tags now", body = TicketTags), (status = 400, description = "A bad name, or one off the curated list while free tags are off", body = crate::error::bodies::Error), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn add_tags(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<TicketTags>> {
    edit(&state, &actor, &id, Edit::Add(names(&body)?)).await
}

/// `DELETE /api/tickets/{id}/tags/` with `{"tags": [...]}`: take these off.
#[utoipa::path(delete, path = "/api/tickets/{id}/tags/", tag = "tags", operation_id = "removeTicketTags",
    summary = "Take tags off a ticket.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = TagNames,
    responses((status = 200, description = "The tags now", body = TicketTags), (status = 400, description = "A bad name", body = crate::error::bodies::Error), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn remove_tags(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<TicketTags>> {
    edit(&state, &actor, &id, Edit::Remove(names(&body)?)).await
}

/// `DELETE /api/tickets/{id}/tags/{name}/`: take one tag off.
#[utoipa::path(delete, path = "/api/tickets/{id}/tags/{name}/", tag = "tags", operation_id = "removeTicketTag",
    summary = "Take one tag off a ticket.",
    params(("id" = i32, Path, description = "Ticket id"), ("name" = String, Path, description = "Tag name")),
    responses((status = 200, description = "The tags now", body = TicketTags), (status = 400, description = "A bad name", body = crate::error::bodies::Error), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn remove_tag(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path((id, name)): Path<(String, String)>,
) -> AppResult<axum::Json<TicketTags>> {
    edit(&state, &actor, &id, Edit::Remove(vec![name])).await
}

/// `GET /api/tags/?q=&limit=`.
#[utoipa::path(get, path = "/api/tags/", tag = "tags", operation_id = "listTags",
    summary = "Tags in use or curated, most used first (the team).",
    params(
        ("q" = Option<String>, Query, description = "Text in the name."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "At most this many (default 100)."),
    ),
    responses((status = 200, description = "The tags", body = Vec<Tag>), (status = 400, description = "A bad parameter", body = crate::error::bodies::Error), (status = 403, description = "Not the team", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_tags(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<axum::Json<Vec<Tag>>> {
    let mut query = None;
    let mut limit = 100;
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        match key.as_ref() {
            "q" => query = Some(value.into_owned()),
            "limit" if !value.trim().is_empty() => {
                limit = value
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=tags::MAX_LISTED).contains(n))
                    .ok_or_else(|| {
                        AppError::field(
                            "limit",
                            format!("must be a whole number from 1 to {}", tags::MAX_LISTED),
                        )
                    })?
            }
            _ => {}
        }
    }
    let found = tags::list(&state.db.conn, &actor, query.as_deref(), limit).await?;
    Ok(axum::Json(found.into_iter().map(Tag::of).collect()))
}

/// `GET /api/tags/{name}/`.
#[utoipa::path(get, path = "/api/tags/{name}/", tag = "tags", operation_id = "getTag",
    summary = "One tag with its use (the team).",
    params(("name" = String, Path, description = "Tag name")),
    responses((status = 200, description = "The tag", body = Tag), (status = 403, description = "Not the team", body = crate::error::bodies::Error), (status = 404, description = "No such tag", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_tag(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(name): Path<String>,
) -> AppResult<axum::Json<Tag>> {
    Ok(axum::Json(Tag::of(
        tags::get(&state.db.conn, &actor, &name).await?,
    )))
}

/// `POST /api/tags/` with `{"name": ...}`: put a name on the curated list (admins).
#[utoipa::path(post, path = "/api/tags/", tag = "tags", operation_id = "curateTag",
    summary = "Put a name on the curated list, making the tag if it is new (administrators).",
    request_body = TagChange,
    responses((status = 201, description = "Curated", body = Tag), (status = 400, description = "A bad name", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn curate_tag(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<Tag>)> {
    let name = Fields(&body)
        .string_not_null("name")?
        .ok_or_else(|| AppError::field("name", "this field is required"))?;
    let tag = tags::curate(&state.db, &actor, &name).await?;
    Ok((StatusCode::CREATED, axum::Json(Tag::of(tag))))
}

/// `PATCH /api/tags/{name}/`: rename, merge into another tag, or move on or off the curated list (admins).
#[utoipa::path(patch, path = "/api/tags/{name}/", tag = "tags", operation_id = "updateTag",
    summary = "Rename a tag on every ticket, merge it into another by naming that one, or curate it (administrators).",
    params(("name" = String, Path, description = "Tag name")),
    request_body = TagChange,
    responses((status = 200, description = "The tag now", body = Tag), (status = 400, description = "A bad name", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such tag", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_tag(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(name): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<Tag>> {
    let fields = Fields(&body);
    let change = TagUpdate {
        name: fields.string_not_null("name")?,
        curated: fields.boolean("curated")?,
    };
    let tag = tags::update(&state.db, &state.tags, &actor, &name, change).await?;
    Ok(axum::Json(Tag::of(tag)))
}

/// `DELETE /api/tags/{name}/`: off every ticket and out of the list (admins).
#[utoipa::path(delete, path = "/api/tags/{name}/", tag = "tags", operation_id = "deleteTag",
    summary = "Take a tag off every ticket and out of the list (administrators).",
    params(("name" = String, Path, description = "Tag name")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such tag", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_tag(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(name): Path<String>,
) -> AppResult<StatusCode> {
    tags::delete(&state.db, &state.tags, &actor, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/settings/tags/`.
#[utoipa::path(get, path = "/api/settings/tags/", tag = "tags", operation_id = "getTagSettings",
    summary = "Whether free tags are allowed (the team).",
    responses((status = 200, description = "The settings", body = TagSettings), (status = 403, description = "Not the team", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn tag_settings(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<axum::Json<TagSettings>> {
    let free_tags = tags::settings(&state.db.conn, &actor).await?;
    Ok(axum::Json(TagSettings { free_tags }))
}

/// `PATCH /api/settings/tags/` with `{"free_tags": bool}` (admins).
#[utoipa::path(patch, path = "/api/settings/tags/", tag = "tags", operation_id = "updateTagSettings",
    summary = "Allow or refuse names off the curated list (administrators); tags on tickets stay.",
    request_body = TagSettings,
    responses((status = 200, description = "The settings now", body = TagSettings), (status = 400, description = "Not a boolean", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_tag_settings(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<TagSettings>> {
    let free = Fields(&body)
        .boolean("free_tags")?
        .ok_or_else(|| AppError::field("free_tags", "this field is required"))?;
    let free_tags = tags::set_free_tags(&state.db, &actor, free).await?;
    Ok(axum::Json(TagSettings { free_tags }))
}
