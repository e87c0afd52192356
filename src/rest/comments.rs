//! `/api/tickets/<id>/comments/` and the alternative `/tickets/<pk>/comment/` paths (Bearer auth).
//! REST calls the body `content`; the service calls it `body`.
use crate::auth::middleware::CurrentActor;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::shapes;
use crate::service::{comments, tickets, users, Take};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A numeric path id; anything else cannot name a record, so it is a 404.
pub fn path_id(raw: &str, what: &str) -> AppResult<i32> {
    raw.parse::<i32>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| AppError::not_found(what))
}

/// The service's `body` field errors, renamed to REST's `content`.
fn as_content(err: AppError) -> AppError {
    match err {
        AppError::Validation { message, fields } => {
            let fields: FieldErrors = fields
                .into_iter()
                .map(|(k, v)| (if k == "body" { "content".into() } else { k }, v))
                .collect();
            let message = message
                .strip_prefix("body:")
                .map(|rest| format!("content:{rest}"))
                .unwrap_or(message);
            AppError::Validation { message, fields }
        }
        other => other,
    }
}

fn comment_type(fields: &Fields<'_>) -> AppResult<Option<CommentType>> {
    fields
        .string_not_null("comment_type")?
        .map(|raw| CommentType::parse(&raw))
        .transpose()
        .map_err(AppError::from)
}

/// `GET`: the comments the caller may read, oldest first.
#[utoipa::path(get, path = "/api/tickets/{id}/comments/", tag = "comments", operation_id = "listComments",
    summary = "Comments of a visible ticket the caller may read, oldest first.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The comments", body = Vec<shapes::Comment>)),
    security(("bearer" = [])))]
pub async fn list(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
) -> AppResult<axum::Json<Vec<shapes::Comment>>> {
    let db = &state.db.conn;
    let t = tickets::get(db, &actor, path_id(&ticket_id, "ticket")?).await?;
    let found = comments::list_visible(db, &actor, &t).await?;
    let body = found
        .comments
        .iter()
        .map(|c| shapes::comment_item(c, c.author_id.and_then(|id| found.authors.get(&id))))
        .collect();
    Ok(axum::Json(body))
}

/// `POST {content, comment_type?}` → 201.
#[utoipa::path(post, path = "/api/tickets/{id}/comments/", tag = "comments", operation_id = "createComment",
    summary = "Comment on a ticket.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = crate::rest::openapi::request_bodies::CommentCreate,
    responses((status = 201, description = "Created", body = shapes::CommentCreated)),
    security(("bearer" = [])))]
pub async fn create(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<Response> {
    let ticket_id = path_id(&ticket_id, "ticket")?;
    let fields = Fields(&body);
    let content = fields
        .string_not_null("content")?
        .ok_or_else(|| AppError::field("content", "this field is required"))?;
    let input = comments::NewComment {
        body: content,
        comment_type: comment_type(&fields)?.unwrap_or(CommentType::Public),
    };
    let created = comments::create(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        ticket_id,
        input,
    )
    .await
    .map_err(as_content)?;
    let json = shapes::comment_created(&created, &actor.user.username);
    Ok((StatusCode::CREATED, axum::Json(json)).into_response())
}

/// `PATCH {content?, comment_type?}` (not both absent) → 200 with the edit history.
#[utoipa::path(patch, path = "/api/tickets/{id}/comments/{comment_id}/", tag = "comments", operation_id = "editComment",
    summary = "Edit a comment (its author, staff or admins).",
    params(("id" = i32, Path, description = "Ticket id"), ("comment_id" = i32, Path, description = "Comment id")),
    request_body = crate::rest::openapi::request_bodies::CommentPatch,
    responses((status = 200, description = "Edited", body = shapes::CommentEdited)),
    security(("bearer" = [])))]
pub async fn update(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path((ticket_id, comment_id)): Path<(String, String)>,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<shapes::CommentEdited>> {
    let db = &state.db.conn;
    let ticket_id = path_id(&ticket_id, "comment")?;
    let comment_id = path_id(&comment_id, "comment")?;
    let fields = Fields(&body);
    let patch = comments::CommentPatch {
        body: fields.string_not_null("content")?,
        comment_type: comment_type(&fields)?,
    };
    if patch.body.is_none() && patch.comment_type.is_none() {
        return Err(AppError::bad_request("send content, comment_type, or both"));
    }
    let (_, t) = comments::get_visible_on(db, &actor, ticket_id, comment_id).await?;
    let updated = comments::edit(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        comment_id,
        patch,
    )
    .await
    .map_err(as_content)?;
    let updated = comments::seen_by(&actor, &t, updated);
    let history = comments::readable_edits(db, &actor, &[updated.id], Take::All)
        .await?
        .remove(&updated.id)
        .unwrap_or_default();
    let people = users::people(db, &actor, history.iter().filter_map(|e| e.edited_by_id)).await?;
    Ok(axum::Json(shapes::comment_edited(
        &updated, &history, &people,
    )))
}

/// `DELETE` → 204 (soft delete).
#[utoipa::path(delete, path = "/api/tickets/{id}/comments/{comment_id}/", tag = "comments", operation_id = "deleteComment",
    summary = "Delete a comment (soft; its author, staff or admins).",
    params(("id" = i32, Path, description = "Ticket id"), ("comment_id" = i32, Path, description = "Comment id")),
    responses((status = 204, description = "Deleted")),
    security(("bearer" = [])))]
pub async fn delete(
    CurrentActor(actor): CurrentActor,
    State(state): State<AppState>,
    Path((ticket_id, comment_id)): Path<(String, String)>,
) -> AppResult<StatusCode> {
    let ticket_id = path_id(&ticket_id, "comment")?;
    let comment_id = path_id(&comment_id, "comment")?;
    comments::get_visible_on(&state.db.conn, &actor, ticket_id, comment_id).await?;
    comments::delete(
        state.write_deps(crate::domain::Channel::Rest),
        &actor,
        comment_id,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
