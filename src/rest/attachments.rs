//! `/api/tickets/<id>/attachments/` and `/api/attachments/<id>/…` (Bearer auth; downloads also by signed
//! link), thin adapters over `service::attachments`.
use crate::auth::middleware::{Auth, CurrentActor};
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::shapes::Attachment;
use crate::service::attachments::{self, Listed, NewAttachment, SignedQuery, Spooled};
use crate::service::tickets;
use crate::state::AppState;
use crate::storage::ByteStream;
use axum::body::Body;
use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json};
use entity::attachment;

/// The attachment routes.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .uploads("/api/tickets/{id}/attachments/", get(list).post(create))
        .route("/api/attachments/{id}/", get(metadata).delete(delete))
        .route("/api/attachments/{id}/download/", get(download))
}

/// The REST element of each of `listed`, with download links for `actor`.
pub fn items(state: &AppState, actor: &Actor, listed: &Listed) -> Vec<Attachment> {
    listed
        .attachments
        .iter()
        .map(|a| item(state, actor, a, listed.uploader(a)))
        .collect()
}

fn item(
    state: &AppState,
    actor: &Actor,
    a: &attachment::Model,
    uploader: Option<&entity::user::Model>,
) -> Attachment {
    Attachment::of(a, state.url_key.link(a.id, actor.id()), uploader)
}

/// Read the part of a multipart body that `on_file` and `on_text` ask for; a text field holds a few bytes
/// at most, so a large one is refused rather than buffered.
async fn small_text(mut field: Field<'_>, name: &str) -> AppResult<String> {
    let mut text = Vec::new();
    while let Some(piece) = field.chunk().await? {
        text.extend_from_slice(&piece);
        if text.len() > 64 {
            return Err(AppError::field(name, "this value is too long"));
        }
    }
    String::from_utf8(text).map_err(|_| AppError::field(name, "this value is not text"))
}

/// `POST` multipart/form-data: `file` (required), `comment` (optional id of one of the ticket's
/// comments) → 201 with the element.
#[utoipa::path(post, path = "/api/tickets/{id}/attachments/", tag = "attachments", operation_id = "createAttachment",
    summary = "Attach a file to a visible ticket (multipart/form-data; up to `DESKGRAPH_MAX_UPLOAD_BYTES`, 25 MiB by \
        default; the only requests exempt from the 1 MiB body limit).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content = crate::rest::openapi::request_bodies::AttachmentUpload, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "Attached", body = Attachment),
        (status = 413, description = "The file is over the upload limit", body = crate::error::bodies::Error),
    ),
    security(("bearer" = [])))]
async fn create(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
    multipart: Result<Multipart, MultipartRejection>,
) -> AppResult<Response> {
    let ticket_id = path_id(&ticket_id, "ticket")?;
    // A ticket the caller cannot see is a 404 before any byte is read.
    tickets::get(&state.db.conn, &actor, ticket_id).await?;
    let mut multipart = multipart.map_err(|_| {
        AppError::bad_request("send multipart/form-data with the file in the field `file`")
    })?;
    let mut file: Option<(String, Spooled)> = None;
    let mut comment_id = None;
    while let Some(field) = multipart.next_field().await? {
        match field.name() {
            Some("file") if file.is_none() => {
                let name = field.file_name().unwrap_or_default().to_string();
                let spooled = attachments::spool(field, state.config.max_upload_bytes).await?;
                file = Some((name, spooled));
            }
            Some("file") => return Err(AppError::field("file", "send one file per request")),
            Some("comment") => {
                let raw = small_text(field, "comment").await?;
                let raw = raw.trim();
                if !raw.is_empty() {
                    comment_id = Some(
                        raw.parse::<i32>()
                            .map_err(|_| AppError::field("comment", "a comment id is a number"))?,
                    );
                }
            }
            _ => {}
        }
    }
    let (filename, spooled) =
        file.ok_or_else(|| AppError::field("file", "this field is required"))?;
    let input = NewAttachment {
        ticket_id,
        comment_id,
        filename,
    };
    let created = attachments::create(
        state.write_deps(crate::domain::Channel::Rest),
        &*state.storage,
        &actor,
        input,
        spooled,
    )
    .await?;
    let listed = attachments::get_listed(&state.db.conn, &actor, created.id).await?;
    let body = items(&state, &actor, &listed).pop();
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET`: the attachments of the ticket the caller may see, oldest first.
#[utoipa::path(get, path = "/api/tickets/{id}/attachments/", tag = "attachments", operation_id = "listAttachments",
    summary = "The attachments of a visible ticket the caller may see, oldest first.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The attachments", body = Vec<Attachment>)),
    security(("bearer" = [])))]
async fn list(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
) -> AppResult<Json<Vec<Attachment>>> {
    let db = &state.db.conn;
    let t = tickets::get(db, &actor, path_id(&ticket_id, "ticket")?).await?;
    let listed = attachments::list_visible(db, &actor, &t).await?;
    Ok(Json(items(&state, &actor, &listed)))
}

/// `GET`: one attachment's element.
#[utoipa::path(get, path = "/api/attachments/{id}/", tag = "attachments", operation_id = "getAttachment",
    summary = "One attachment's metadata.",
    params(("id" = i32, Path, description = "Attachment id")),
    responses((status = 200, description = "The attachment", body = Attachment)),
    security(("bearer" = [])))]
async fn metadata(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> AppResult<Json<Option<Attachment>>> {
    let id = path_id(&id, "attachment")?;
    let listed = attachments::get_listed(&state.db.conn, &actor, id).await?;
    let body = items(&state, &actor, &listed).pop();
    Ok(Json(body))
}

/// `DELETE` → 204 (soft delete; the uploader or staff).
#[utoipa::path(delete, path = "/api/attachments/{id}/", tag = "attachments", operation_id = "deleteAttachment",
    summary = "Delete an attachment (soft; its uploader, staff or admins).",
    params(("id" = i32, Path, description = "Attachment id")),
    responses((status = 204, description = "Deleted")),
    security(("bearer" = [])))]
async fn delete(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    attachments::delete(&state.db, &actor, path_id(&id, "attachment")?).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET`: the bytes, streamed. With a bearer token, as that caller; without one, by the signed link's
/// `user`, `expires` and `signature`.
#[utoipa::path(get, path = "/api/attachments/{id}/download/", tag = "attachments", operation_id = "downloadAttachment",
    summary = "The bytes, streamed: with a bearer token, or without credentials through a signed `url`. Sent with \
        `Content-Disposition: attachment` (`inline` for raster images and PDF), `X-Content-Type-Options: nosniff` \
        and `Content-Security-Policy: default-src 'none'; sandbox`.",
    params(
        ("id" = i32, Path, description = "Attachment id"),
        ("user" = Option<i32>, Query, description = "Signed link: the user it was made for."),
        ("expires" = Option<i64>, Query, description = "Signed link: Unix time it expires at."),
        ("signature" = Option<String>, Query, description = "Signed link: its HMAC."),
    ),
    responses(
        (status = 200, description = "The bytes, with the type detected at upload", content_type = "*/*", body = Vec<u8>),
        (status = 401, description = "No bearer token and no signed link", body = crate::error::bodies::Error),
        (status = 403, description = "A forged or expired signed link", body = crate::error::bodies::Error),
    ),
    security(("bearer" = []), ()))]
async fn download(
    auth: Option<Extension<Auth>>,
    State(state): State<AppState>,
    Path(id): Path<String>,
    link: Result<Query<SignedQuery>, QueryRejection>,
) -> AppResult<Response> {
    let id = path_id(&id, "attachment")?;
    let auth = auth.map_or(Auth::Anonymous, |Extension(auth)| auth);
    let (a, bytes) = match (&auth, link) {
        (Auth::Anonymous, Ok(Query(link))) => {
            attachments::open_signed(&state.db, &*state.storage, &state.url_key, id, &link).await?
        }
        _ => attachments::open(&state.db, &*state.storage, &*auth.require()?, id).await?,
    };
    Ok(serve(&a, bytes))
}

/// A download response: the stored type, `Content-Disposition` (inline only for images and PDF), no
/// sniffing, and a CSP that sandboxes whatever a browser opens.
pub fn serve(a: &attachment::Model, bytes: ByteStream) -> Response {
    let mut response = Body::from_stream(bytes).into_response();
    let headers = response.headers_mut();
    let content_type = HeaderValue::from_str(&a.content_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    headers.insert(header::CONTENT_TYPE, content_type);
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(a.size));
    if let Ok(value) = HeaderValue::from_str(&attachments::content_disposition(
        &a.filename,
        &a.content_type,
    )) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox; frame-ancestors 'none'"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    response
}
