//! `GET /tickets/<id>/`: the ticket page (fields, status buttons for the allowed moves, the comment
//! thread and its form), and `POST /tickets/<id>/status/`.
use super::thread::{thread, CommentView};
use super::{display_name, html, label, Layout, PageResult, PageUser};
use crate::domain::TicketStatus;
use crate::rest::comments::path_id;
use crate::sanitize::sanitize_html;
use crate::service::comments::can_read_internal;
use crate::service::tickets::{self, counts, rules};
use crate::state::AppState;
use crate::web::comments::web_date;
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};

/// What the add-comment form shows again after a refused post.
#[derive(Default)]
pub struct CommentDraft {
    /// The text as sent.
    pub body: String,
    /// Whether "internal note" was chosen.
    pub internal: bool,
    /// Why it was refused.
    pub error: Option<String>,
}

/// A status the viewer may move the ticket to.
struct Move {
    value: &'static str,
    label: String,
}

#[derive(Template)]
#[template(path = "ticket.html")]
struct TicketPage {
    layout: Layout,
    id: i32,
    number: String,
    title: String,
    description_html: String,
    status: String,
    status_label: String,
    priority: String,
    priority_label: String,
    requester: String,
    assignee: String,
    project: String,
    due: String,
    created: String,
    updated: String,
    moves: Vec<Move>,
    comments: Vec<CommentView>,
    can_internal: bool,
    draft: CommentDraft,
}

/// Render the page of ticket `id` for `user`, with the comment form showing `draft`.
pub async fn render_ticket(
    state: &AppState,
    user: &PageUser,
    id: i32,
    draft: CommentDraft,
    status: StatusCode,
) -> PageResult<Response> {
    let db = &state.db.conn;
    let actor = &user.actor;
    let t = tickets::get(db, actor, id).await?;
    let people = counts::people_of(db, actor, std::slice::from_ref(&t)).await?;
    let project = counts::project_of(db, &t).await?;
    let name = |id: Option<i32>| {
        id.and_then(|id| people.get(&id))
            .map(display_name)
            .unwrap_or_default()
    };
    // Staying put is allowed by the workflow but is no move worth a button.
    let moves = rules::allowed_transitions(actor, &t)
        .into_iter()
        .filter(|s| s.as_str() != t.status)
        .map(|s| Move {
            value: s.as_str(),
            label: label(s.as_str()),
        })
        .collect();
    let page = TicketPage {
        layout: Layout::for_user(user),
        id: t.id,
        number: t.ticket_number.clone(),
        title: t.title.clone(),
        description_html: sanitize_html(&t.description),
        status: t.status.clone(),
        status_label: label(&t.status),
        priority: t.priority.clone(),
        priority_label: label(&t.priority),
        requester: name(Some(t.requester_id)),
        assignee: name(t.assignee_id),
        project: project.map(|p| p.name).unwrap_or_default(),
        due: t.due_date.map(|d| d.to_string()).unwrap_or_default(),
        created: web_date(&t.created_at),
        updated: web_date(&t.updated_at),
        moves,
        comments: thread(state, user, &t).await?,
        can_internal: can_read_internal(actor, &t),
        draft,
    };
    Ok(html(status, &page))
}

/// The ticket page.
pub async fn page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    render_ticket(&state, &user, id, CommentDraft::default(), StatusCode::OK).await
}

/// `POST /tickets/<id>/status/` (form, `status=<value>`): move the ticket and show it again.
pub async fn change_status(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let status = TicketStatus::parse(form.get("status"))?;
    tickets::change_status(&state, &user.actor, id, status).await?;
    Ok(Redirect::to(&format!("/tickets/{id}/")).into_response())
}
