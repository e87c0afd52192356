//! Chat destinations, additive to the contract: Slack and Teams channels at `/api/chat-destinations/`,
//! administrators only. The webhook URL and the bot token are write-only. Thin handlers over
//! `service::chat`.
use crate::auth::middleware::CurrentActor;
use crate::domain::Priority;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::shapes::timestamp;
use crate::service::chat::{self, ChatPatch, NewChat};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Json;
use entity::chat_destination;
use entity::values::ChatKind;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/chat-destinations/", get(list).post(create))
        .route(
            "/api/chat-destinations/{id}/",
            get(detail).patch(update).delete(delete),
        )
}

/// A Slack or Teams destination. Its webhook URL and bot token are never shown back.
#[derive(Serialize, ToSchema)]
pub struct ChatDestination {
    /// Id.
    id: i32,
    /// What administrators call it.
    name: String,
    /// `slack` or `teams`.
    kind: String,
    /// Whether it posts through an incoming webhook.
    has_webhook_url: bool,
    /// Whether it posts as a Slack bot.
    has_token: bool,
    /// The channel a Slack bot posts to.
    #[schema(required = true)]
    channel: Option<String>,
    /// Only this project's tickets; null: every ticket.
    #[schema(required = true)]
    project: Option<i32>,
    /// Events taken; empty: every chat event.
    events: Vec<String>,
    /// Priorities taken; empty: every priority.
    priorities: Vec<String>,
    /// Internal notes go to it too.
    team_only: bool,
    /// Whether messages are posted.
    active: bool,
    /// When it was added.
    created_at: String,
    /// When it last changed.
    updated_at: String,
}

impl ChatDestination {
    /// The body of `d`.
    pub fn of(d: &chat_destination::Model) -> Self {
        let list = |v: &serde_json::Value| serde_json::from_value(v.clone()).unwrap_or_default();
        ChatDestination {
            id: d.id,
            name: d.name.clone(),
            kind: d.kind.to_string(),
            has_webhook_url: d.url.is_some(),
            has_token: d.token.is_some(),
            channel: d.channel.clone(),
            project: d.project_id,
            events: list(&d.events),
            priorities: list(&d.priorities),
            team_only: d.team_only,
            active: d.active,
            created_at: timestamp(&d.created_at),
            updated_at: timestamp(&d.updated_at),
        }
    }
}

fn priorities(f: &Fields<'_>) -> AppResult<Option<Vec<Priority>>> {
    f.strings("priorities")?
        .map(|names| {
            names
                .iter()
                .map(|n| Priority::parse(n).map_err(|e| AppError::field("priorities", e.message)))
                .collect()
        })
        .transpose()
}

/// `GET /api/chat-destinations/`.
#[utoipa::path(get, path = "/api/chat-destinations/", tag = "chat", operation_id = "listChatDestinations",
    summary = "Every chat destination, oldest first (administrators).",
    responses((status = 200, description = "The destinations", body = Vec<ChatDestination>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<Json<Vec<ChatDestination>>> {
    let found = chat::list(&state.db, &actor).await?;
    Ok(Json(found.iter().map(ChatDestination::of).collect()))
}

/// `GET /api/chat-destinations/{id}/`.
#[utoipa::path(get, path = "/api/chat-destinations/{id}/", tag = "chat", operation_id = "getChatDestination",
    summary = "One chat destination (administrators).",
    params(("id" = i32, Path, description = "Destination id")),
    responses((status = 200, description = "The destination", body = ChatDestination), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such destination", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn detail(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<Json<ChatDestination>> {
    let id = path_id(&id, "chat destination")?;
    Ok(Json(ChatDestination::of(
        &chat::get(&state.db, &actor, id).await?,
    )))
}

/// The body of a create: `name` and `kind`, then `webhook_url` (Teams, or Slack's incoming webhook), or
/// `token` and `channel` (a Slack bot).
#[derive(Serialize, ToSchema)]
pub struct ChatDestinationCreate {
    /// 1-100 characters.
    name: String,
    /// `slack` or `teams`; fixed once made.
    kind: String,
    /// The incoming webhook's URL; never shown again.
    webhook_url: Option<String>,
    /// A Slack bot token (`chat:write`); never shown again.
    token: Option<String>,
    /// The Slack channel a bot posts to.
    channel: Option<String>,
    /// Only this project's tickets.
    project: Option<i32>,
    /// Of `ticket.created`, `ticket.assigned`, `ticket.status_changed`, `comment.created`,
    /// `ticket.sla_at_risk`, `ticket.sla_breached`; empty or absent: all.
    events: Option<Vec<String>>,
    /// Of `low`, `medium`, `high`, `urgent`; empty or absent: all.
    priorities: Option<Vec<String>>,
    /// Internal notes go to it too (default false).
    team_only: Option<bool>,
    /// Default true.
    active: Option<bool>,
}

/// `POST /api/chat-destinations/` (administrators).
#[utoipa::path(post, path = "/api/chat-destinations/", tag = "chat", operation_id = "createChatDestination",
    summary = "Add a Slack or Teams destination (administrators).",
    request_body = ChatDestinationCreate,
    responses((status = 201, description = "Added", body = ChatDestination), (status = 400, description = "A bad name, kind, URL, token, channel, event or priority, or an unknown project", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<ChatDestination>)> {
    let f = Fields(&body);
    let required = |key: &str| {
        f.string_not_null(key)?
            .ok_or_else(|| AppError::field(key, "this field is required"))
    };
    let kind =
        ChatKind::parse(&required("kind")?).map_err(|e| AppError::field("kind", e.message))?;
    let input = NewChat {
        name: required("name")?,
        kind,
        url: f.string("webhook_url")?,
        token: f.string("token")?,
        channel: f.string("channel")?,
        project_id: f.nullable_id("project")?.flatten(),
        events: f.strings("events")?.unwrap_or_default(),
        priorities: priorities(&f)?.unwrap_or_default(),
        team_only: f.boolean("team_only")?,
        active: f.boolean("active")?,
    };
    let created =
        chat::create(&state.db, state.config.webhook_allow_private, &actor, input).await?;
    Ok((StatusCode::CREATED, Json(ChatDestination::of(&created))))
}

/// The body of a change; absent keys stay, null clears.
#[derive(Serialize, ToSchema)]
pub struct ChatDestinationPatch {
    /// 1-100 characters.
    name: Option<String>,
    /// New webhook URL (null clears it).
    webhook_url: Option<String>,
    /// New bot token (null clears it).
    token: Option<String>,
    /// New bot channel (null clears it).
    channel: Option<String>,
    /// New project (null: every ticket).
    project: Option<i32>,
    /// New event list.
    events: Option<Vec<String>>,
    /// New priority list.
    priorities: Option<Vec<String>>,
    /// Internal notes or not.
    team_only: Option<bool>,
    /// Enable or disable.
    active: Option<bool>,
}

/// `PATCH /api/chat-destinations/{id}/` (administrators).
#[utoipa::path(patch, path = "/api/chat-destinations/{id}/", tag = "chat", operation_id = "updateChatDestination",
    summary = "Change a chat destination (administrators; its kind stays).",
    params(("id" = i32, Path, description = "Destination id")),
    request_body = ChatDestinationPatch,
    responses((status = 200, description = "The destination now", body = ChatDestination), (status = 400, description = "A bad value", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such destination", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<Json<ChatDestination>> {
    let id = path_id(&id, "chat destination")?;
    let f = Fields(&body);
    if f.has("kind") {
        return Err(AppError::field(
            "kind",
            "is fixed once the destination is made",
        ));
    }
    let patch = ChatPatch {
        name: f.string_not_null("name")?,
        url: f.nullable_string("webhook_url")?,
        token: f.nullable_string("token")?,
        channel: f.nullable_string("channel")?,
        project_id: f.nullable_id("project")?,
        events: f.strings("events")?,
        priorities: priorities(&f)?,
        team_only: f.boolean("team_only")?,
        active: f.boolean("active")?,
    };
    let updated = chat::update(
        &state.db,
        state.config.webhook_allow_private,
        &actor,
        id,
        patch,
    )
    .await?;
    Ok(Json(ChatDestination::of(&updated)))
}

/// `DELETE /api/chat-destinations/{id}/` (administrators).
#[utoipa::path(delete, path = "/api/chat-destinations/{id}/", tag = "chat", operation_id = "deleteChatDestination",
    summary = "Delete a chat destination; its messages not yet posted are dropped (administrators).",
    params(("id" = i32, Path, description = "Destination id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such destination", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "chat destination")?;
    chat::delete(&state.db, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
