//! Mailboxes, additive to the contract: IMAP folders the help desk fetches mail from, at `/api/mailboxes/`,
//! administrators only. The secret (password or OAuth2 token) is write-only. Thin handlers over
//! `service::mailboxes`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::shapes::timestamp;
use crate::service::mailboxes::{self, MailboxPatch, NewMailbox};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Json;
use entity::mailbox;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/mailboxes/", get(list).post(create))
        .route(
            "/api/mailboxes/{id}/",
            get(detail).patch(update).delete(delete),
        )
}

/// A mailbox. Its secret is never shown back.
#[derive(Serialize, ToSchema)]
pub struct Mailbox {
    /// Id.
    id: i32,
    /// What administrators call it.
    name: String,
    /// `imaps://user@host/Folder`, without the secret.
    url: String,
    /// Where taken messages are moved; null: they are flagged seen where they are.
    #[schema(required = true)]
    done_folder: Option<String>,
    /// Where messages that cannot be taken in are moved.
    failed_folder: String,
    /// The project its new tickets open in; null: the default project.
    #[schema(required = true)]
    project: Option<i32>,
    /// Whether mail is fetched from it.
    active: bool,
    /// When it was last read without an error.
    #[schema(required = true)]
    checked_at: Option<String>,
    /// Why the last attempt to read it failed; null when it did not.
    #[schema(required = true)]
    last_error: Option<String>,
    /// When it was added.
    created_at: String,
    /// When it last changed.
    updated_at: String,
}

impl Mailbox {
    /// The body of `m`.
    pub fn of(m: &mailbox::Model) -> Self {
        Mailbox {
            id: m.id,
            name: m.name.clone(),
            url: m.url.clone(),
            done_folder: m.done_folder.clone(),
            failed_folder: m.failed_folder.clone(),
            project: m.project_id,
            active: m.active,
            checked_at: m.checked_at.as_ref().map(timestamp),
            last_error: m.last_error.clone(),
            created_at: timestamp(&m.created_at),
            updated_at: timestamp(&m.updated_at),
        }
    }
}

/// `GET /api/mailboxes/`.
#[utoipa::path(get, path = "/api/mailboxes/", tag = "mail", operation_id = "listMailboxes",
    summary = "Every mailbox, oldest first (administrators).",
    responses((status = 200, description = "The mailboxes", body = Vec<Mailbox>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<Json<Vec<Mailbox>>> {
    let found = mailboxes::list(&state.db, &actor).await?;
    Ok(Json(found.iter().map(Mailbox::of).collect()))
}

/// `GET /api/mailboxes/{id}/`.
#[utoipa::path(get, path = "/api/mailboxes/{id}/", tag = "mail", operation_id = "getMailbox",
    summary = "One mailbox, with how its last reading went (administrators).",
    params(("id" = i32, Path, description = "Mailbox id")),
    responses((status = 200, description = "The mailbox", body = Mailbox), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such mailbox", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn detail(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<Json<Mailbox>> {
    let id = path_id(&id, "mailbox")?;
    Ok(Json(Mailbox::of(
        &mailboxes::get(&state.db, &actor, id).await?,
    )))
}

/// The body of a create.
#[derive(Serialize, ToSchema)]
pub struct MailboxCreate {
    /// 1-100 characters.
    name: String,
    /// `imaps://user@host[:port]/Folder` (TLS), `imap://user@host/Folder` (STARTTLS), `?tls=none` for a
    /// server on the same host; `user;AUTH=XOAUTH2@` signs in with an OAuth2 bearer token. No password.
    url: String,
    /// The password, or the OAuth2 bearer token; never shown again.
    secret: String,
    /// Where taken messages are moved (made when missing); absent or null: flagged seen where they are.
    done_folder: Option<String>,
    /// Where messages that cannot be taken in are moved (default `failed`; made when missing).
    failed_folder: Option<String>,
    /// The project new tickets open in.
    project: Option<i32>,
    /// Default true.
    active: Option<bool>,
}

/// `POST /api/mailboxes/` (administrators).
#[utoipa::path(post, path = "/api/mailboxes/", tag = "mail", operation_id = "createMailbox",
    summary = "Add a mailbox to fetch mail from (administrators).",
    request_body = MailboxCreate,
    responses((status = 201, description = "Added", body = Mailbox), (status = 400, description = "A bad name, URL, secret or folder, or an unknown project", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<Mailbox>)> {
    let f = Fields(&body);
    let required = |key: &str| {
        f.string_not_null(key)?
            .ok_or_else(|| AppError::field(key, "this field is required"))
    };
    let input = NewMailbox {
        name: required("name")?,
        url: required("url")?,
        secret: required("secret")?,
        done_folder: f.string("done_folder")?,
        failed_folder: f.string_not_null("failed_folder")?,
        project_id: f.nullable_id("project")?.flatten(),
        active: f.boolean("active")?,
    };
    let created = mailboxes::create(&state.db, &actor, input).await?;
    Ok((StatusCode::CREATED, Json(Mailbox::of(&created))))
}

/// The body of a change; absent keys stay, null clears.
#[derive(Serialize, ToSchema)]
pub struct MailboxPatchBody {
    /// 1-100 characters.
    name: Option<String>,
    /// New URL.
    url: Option<String>,
    /// New secret.
    secret: Option<String>,
    /// New done folder (null: flag seen instead).
    done_folder: Option<String>,
    /// New failed folder.
    failed_folder: Option<String>,
    /// New project (null: the default project).
    project: Option<i32>,
    /// Fetch or not.
    active: Option<bool>,
}

/// `PATCH /api/mailboxes/{id}/` (administrators).
#[utoipa::path(patch, path = "/api/mailboxes/{id}/", tag = "mail", operation_id = "updateMailbox",
    summary = "Change a mailbox (administrators); the fetcher takes the change within half a minute.",
    params(("id" = i32, Path, description = "Mailbox id")),
    request_body = MailboxPatchBody,
    responses((status = 200, description = "The mailbox now", body = Mailbox), (status = 400, description = "A bad value", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such mailbox", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<Json<Mailbox>> {
    let id = path_id(&id, "mailbox")?;
    let f = Fields(&body);
    let patch = MailboxPatch {
        name: f.string_not_null("name")?,
        url: f.string_not_null("url")?,
        secret: f.string_not_null("secret")?,
        done_folder: f.nullable_string("done_folder")?,
        failed_folder: f.string_not_null("failed_folder")?,
        project_id: f.nullable_id("project")?,
        active: f.boolean("active")?,
    };
    let updated = mailboxes::update(&state.db, &actor, id, patch).await?;
    Ok(Json(Mailbox::of(&updated)))
}

/// `DELETE /api/mailboxes/{id}/` (administrators).
#[utoipa::path(delete, path = "/api/mailboxes/{id}/", tag = "mail", operation_id = "deleteMailbox",
    summary = "Stop fetching from a mailbox and forget it; its mail stays on the server (administrators).",
    params(("id" = i32, Path, description = "Mailbox id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such mailbox", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "mailbox")?;
    mailboxes::delete(&state.db, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
