//! The comment thread of the ticket page: what each comment shows, and the form posts that add and
//! delete comments without JavaScript (the script uses the JSON endpoints instead).
use super::ticket::{render_ticket, CommentDraft};
use super::upload::{AttachmentView, Posted};
use super::{display_name, PageError, PageResult, PageUser};
use crate::domain::CommentType;
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::sanitize::sanitize_html;
use crate::service::{comments, users, Take};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Redirect, Response};
use entity::ticket;

/// One earlier version of a comment.
pub struct HistoryView {
    /// Who made the edit.
    pub editor: String,
    /// When.
    pub at: String,
    /// The text before the edit, sanitised.
    pub body_html: String,
}

/// A comment as the thread shows it.
pub struct CommentView {
    /// Comment id.
    pub id: i32,
    /// Author's display name.
    pub author: String,
    /// Creation time.
    pub created: String,
    /// Body, sanitised again on the way out.
    pub body_html: String,
    /// An internal note (team only).
    pub is_internal: bool,
    /// When it was last edited, if ever.
    pub edited_at: Option<String>,
    /// Whether the viewer may edit and delete it.
    pub can_modify: bool,
    /// Earlier versions, oldest first.
    pub history: Vec<HistoryView>,
    /// Its files the viewer may see.
    pub attachments: Vec<AttachmentView>,
}

/// The comments of `t` the viewer may read, ready to render.
pub async fn thread(
    state: &AppState,
    user: &PageUser,
    t: &ticket::Model,
) -> PageResult<Vec<CommentView>> {
    let db = &state.db.conn;
    let found = comments::list_visible(db, &user.actor, t).await?;
    let ids: Vec<i32> = found.comments.iter().map(|c| c.id).collect();
    let mut edits = comments::readable_edits(db, &user.actor, &ids, Take::All).await?;
    let editors = edits.values().flatten().filter_map(|e| e.edited_by_id);
    let mut people = users::people(db, &user.actor, editors.collect::<Vec<_>>()).await?;
    people.extend(found.authors);
    let name = |id: Option<i32>| match id {
        // No author: an automation rule posted it.
        None => user.lang.t("ticket-rule-author"),
        Some(id) => people
            .get(&id)
            .map(display_name)
            .unwrap_or_else(|| user.lang.t("ticket-deleted-user")),
    };
    Ok(found
        .comments
        .iter()
        .map(|c| CommentView {
            id: c.id,
            author: name(c.author_id),
            created: user.date(&c.created_at),
            body_html: sanitize_html(&c.body),
            is_internal: c.comment_type == CommentType::Internal,
            edited_at: c.edited_at.as_ref().map(|at| user.date(at)),
            can_modify: comments::can_modify(&user.actor, c),
            history: edits
                .remove(&c.id)
                .unwrap_or_default()
                .iter()
                .map(|e| HistoryView {
                    editor: name(e.edited_by_id),
                    at: user.date(&e.edited_at),
                    body_html: sanitize_html(&e.previous_body),
                })
                .collect(),
            attachments: Vec::new(),
        })
        .collect())
}

/// `POST /tickets/<id>/comments/new/` (form): add a comment and go back to it, or show the form again
/// with the reason next to the field.
#[utoipa::path(post, path = "/tickets/{id}/comments/new/", tag = "pages", operation_id = "pageAddComment",
    summary = "Add a comment from the ticket page without JavaScript.",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub async fn add(
    State(state): State<AppState>,
    Path(ticket_id): Path<String>,
    user: PageUser,
    req: Request,
) -> PageResult<Response> {
    let ticket_id = path_id(&ticket_id, "ticket")?;
    let Posted { form, files } = user.posted(&state, req).await?;
    let internal = form.get("comment_type") == CommentType::Internal.as_str();
    // Checked before the comment is made, so a bad number leaves nothing half done.
    let minutes = match form.opt("minutes").map(str::trim).filter(|m| !m.is_empty()) {
        None => None,
        Some(m) => Some(crate::service::time_spent::check_minutes(
            m.parse::<i64>().unwrap_or(0),
        )?),
    };
    if minutes.is_some() {
        let t = crate::service::tickets::get(&state.db.conn, &user.actor, ticket_id).await?;
        crate::service::time_spent::may_log(&user.actor, &t)?;
    }
    let input = comments::NewComment {
        body: crate::sanitize::text_to_html(form.get("body")),
        comment_type: if internal {
            CommentType::Internal
        } else {
            CommentType::Public
        },
    };
    let created = comments::create_with_files(
        state.write_deps(crate::domain::Channel::Web),
        &*state.storage,
        &user.actor,
        ticket_id,
        input,
        files,
        None,
    )
    .await;
    match created {
        Ok((created, _)) => {
            if let Some(minutes) = minutes {
                let entry = crate::service::time_spent::NewEntry {
                    minutes,
                    comment_id: Some(created.id),
                    ..Default::default()
                };
                // On the ticket the comment landed on (the target, when this one was merged).
                let on = created.ticket_id;
                crate::service::time_spent::log(&state.db, &user.actor, on, entry).await?;
            }
            let to = format!("/tickets/{ticket_id}/#comment-{}", created.id);
            Ok(Redirect::to(&to).into_response())
        }
        Err(err @ AppError::Validation { .. }) => {
            let draft = CommentDraft {
                body: form.get("body").to_string(),
                internal,
                error: Some(match &err {
                    AppError::Validation { fields, .. } if fields.contains_key("file") => {
                        field_message(&err, "file")
                    }
                    _ => field_message(&err, "body"),
                }),
            };
            render_ticket(&state, &user, ticket_id, draft, None, err.status(), None).await
        }
        Err(err) => Err(PageError::App(err)),
    }
}

/// The message for `field` of a validation error, or its summary.
pub fn field_message(err: &AppError, field: &str) -> String {
    match err {
        AppError::Validation { fields, .. } => fields
            .get(field)
            .and_then(|m| m.first())
            .cloned()
            .unwrap_or_else(|| err.public_message()),
        other => other.public_message(),
    }
}

/// `POST /tickets/comments/<id>/delete/` (form): soft delete, then back to the ticket.
#[utoipa::path(post, path = "/tickets/comments/{comment_id}/delete/", tag = "pages", operation_id = "pageDeleteComment",
    summary = "Delete a comment from the ticket page without JavaScript.",
    params(("comment_id" = i32, Path, description = "Comment id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the ticket page")),
    security(("session" = [], "csrf" = [])))]
pub async fn delete(
    State(state): State<AppState>,
    Path(comment_id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let comment_id = path_id(&comment_id, "comment")?;
    user.form(&body)?;
    let (_, t) = comments::get_visible(&state.db.conn, &user.actor, comment_id).await?;
    comments::delete(
        state.write_deps(crate::domain::Channel::Web),
        &user.actor,
        comment_id,
    )
    .await?;
    Ok(Redirect::to(&format!("/tickets/{}/#comments", t.id)).into_response())
}
