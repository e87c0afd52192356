//! The web interface's comment endpoints (session + CSRF) and their JSON shapes.
use super::session::WebActor;
use super::shapes::{
    WebComment, WebCommentCreated, WebCommentCreatedItem, WebCommentEdited, WebCommentList,
    WebMessage,
};
use super::{WebJson, WebResult};
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::rest::fields::Fields;
use crate::service::{comments, tickets, users};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use entity::{comment, user};

/// Web dates: `Nov 25, 2026 14:05` (UTC).
pub fn web_date(at: &DateTime<Utc>) -> String {
    at.format("%b %d, %Y %H:%M").to_string()
}

/// The name the web interface shows: the full name, or the user name when there is none.
fn display_name(author: Option<&user::Model>) -> String {
    match author {
        Some(u) if !u.full_name.trim().is_empty() => u.full_name.clone(),
        Some(u) => u.username.clone(),
        None => "Deleted user".to_string(),
    }
}

/// The full web comment, including what the caller may do with it.
pub fn web_comment(actor: &Actor, c: &comment::Model, author: Option<&user::Model>) -> WebComment {
    WebComment {
        id: c.id,
        body: c.body.clone(),
        comment_type: c.comment_type.to_string(),
        // No author: an automation rule posted it.
        author: match c.author_id {
            None => crate::service::events::RULE_AUTHOR.to_string(),
            Some(_) => display_name(author),
        },
        author_username: author.map(|u| u.username.clone()),
        created_at: web_date(&c.created_at),
        updated_at: web_date(&c.updated_at),
        is_internal: c.comment_type == CommentType::Internal,
        is_edited: c.edited_at.is_some(),
        edited_at: c.edited_at.as_ref().map(web_date),
        can_edit: comments::can_modify(actor, c),
        can_delete: comments::can_modify(actor, c),
    }
}

fn comment_type(fields: &Fields<'_>) -> Result<Option<CommentType>, AppError> {
    fields
        .string_not_null("comment_type")?
        .map(|raw| CommentType::parse(&raw))
        .transpose()
        .map_err(AppError::from)
}

/// `GET /tickets/<id>/comments/`: the comments the caller may read, oldest first.
#[utoipa::path(get, path = "/tickets/{id}/comments/", tag = "web", operation_id = "webListComments",
    summary = "Comments of a ticket the caller may read (web shape).",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The comments", body = WebCommentList)),
    security(("session" = [])))]
pub async fn list(
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
    web: WebActor,
) -> WebResult<axum::Json<WebCommentList>> {
    let db = &state.db.conn;
    let actor = &web.actor;
    let t = tickets::get(db, actor, path_id(&ticket_id, "ticket")?).await?;
    let found = comments::list_visible(db, actor, &t).await?;
    let comments = found
        .comments
        .iter()
        .map(|c| web_comment(actor, c, c.author_id.and_then(|id| found.authors.get(&id))))
        .collect();
    Ok(axum::Json(WebCommentList {
        success: true,
        comments,
    }))
}

/// `POST /tickets/<id>/comments/add/` `{body, comment_type?}` → 201.
#[utoipa::path(post, path = "/tickets/{id}/comments/add/", tag = "web", operation_id = "webAddComment",
    summary = "Comment on a ticket (web).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = crate::rest::openapi::request_bodies::WebCommentInput,
    responses((status = 201, description = "Created", body = WebCommentCreated)),
    security(("session" = [], "csrf" = [])))]
pub async fn add(
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
    web: WebActor,
    WebJson(body): WebJson,
) -> WebResult<Response> {
    let ticket_id = path_id(&ticket_id, "ticket")?;
    let fields = Fields(&body);
    let text = fields
        .string_not_null("body")?
        .ok_or_else(|| AppError::field("body", "this field is required"))?;
    let input = comments::NewComment {
        body: text,
        comment_type: comment_type(&fields)?.unwrap_or(CommentType::Public),
    };
    let created = comments::create(
        state.write_deps(crate::domain::Channel::Web),
        &web.actor,
        ticket_id,
        input,
    )
    .await?;
    let json = WebCommentCreated {
        success: true,
        comment: WebCommentCreatedItem {
            id: created.id,
            is_internal: created.comment_type == CommentType::Internal,
            body: created.body,
            comment_type: created.comment_type.to_string(),
            author: display_name(Some(&web.actor.user)),
            created_at: web_date(&created.created_at),
        },
    };
    Ok((StatusCode::CREATED, axum::Json(json)).into_response())
}

/// `PATCH /tickets/comments/<id>/edit/` `{body?, comment_type?}` → the edited web comment.
#[utoipa::path(patch, path = "/tickets/comments/{comment_id}/edit/", tag = "web", operation_id = "webEditComment",
    summary = "Edit a comment (web); records an edit-history entry.",
    params(("comment_id" = i32, Path, description = "Comment id")),
    request_body = crate::rest::openapi::request_bodies::WebCommentInput,
    responses((status = 200, description = "Edited", body = WebCommentEdited)),
    security(("session" = [], "csrf" = [])))]
pub async fn edit(
    State(state): State<AppState>,
    Path(comment_id): Path<String>,
    web: WebActor,
    WebJson(body): WebJson,
) -> WebResult<axum::Json<WebCommentEdited>> {
    let comment_id = path_id(&comment_id, "comment")?;
    let fields = Fields(&body);
    let patch = comments::CommentPatch {
        body: fields.string_not_null("body")?,
        comment_type: comment_type(&fields)?,
    };
    let updated = comments::edit(
        state.write_deps(crate::domain::Channel::Web),
        &web.actor,
        comment_id,
        patch,
    )
    .await?;
    let people = users::people(&state.db.conn, &web.actor, updated.author_id).await?;
    let author = updated.author_id.and_then(|id| people.get(&id));
    let comment = web_comment(&web.actor, &updated, author);
    Ok(axum::Json(WebCommentEdited {
        success: true,
        comment,
    }))
}

/// `DELETE /tickets/comments/<id>/delete/`: soft delete.
#[utoipa::path(delete, path = "/tickets/comments/{comment_id}/delete/", tag = "web", operation_id = "webDeleteComment",
    summary = "Delete a comment (web; soft).",
    params(("comment_id" = i32, Path, description = "Comment id")),
    responses((status = 200, description = "Deleted", body = WebMessage)),
    security(("session" = [], "csrf" = [])))]
pub async fn delete(
    State(state): State<AppState>,
    Path(comment_id): Path<String>,
    web: WebActor,
) -> WebResult<axum::Json<WebMessage>> {
    let comment_id = path_id(&comment_id, "comment")?;
    comments::delete(
        state.write_deps(crate::domain::Channel::Web),
        &web.actor,
        comment_id,
    )
    .await?;
    Ok(axum::Json(WebMessage::new("Comment deleted")))
}
