//! `GET /tickets/<id>/`: the ticket page (fields, status buttons for the allowed moves, the comment
//! thread and its form), and `POST /tickets/<id>/status/`.
use super::thread::{thread, CommentView};
use super::upload::{self, AttachmentView};
use super::{display_name, html, label, Layout, PageResult, PageUser};
use crate::domain::{Priority, TicketStatus};
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::sanitize::sanitize_html;
use crate::service::attachments;
use crate::service::comments::can_read_internal;
use crate::service::tickets::{self, rules, Joined, TicketPatch};
use crate::service::{audit, sla, users};
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

/// An option of a select in the edit form.
struct Choice {
    value: String,
    label: String,
    selected: bool,
}

/// The SLA badges of the page.
struct SlaBadges {
    policy: String,
    first_response: Option<String>,
    resolution: Option<String>,
    first_response_breached: bool,
    resolution_breached: bool,
    at_risk: bool,
    paused: bool,
}

/// One line of the ticket's history.
struct HistoryLine {
    at: String,
    who: String,
    action: String,
    changes: String,
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
    /// Files on the ticket itself.
    attachments: Vec<AttachmentView>,
    can_internal: bool,
    draft: CommentDraft,
    /// Team, assignee or group: every field.
    can_edit_all: bool,
    /// The requester's own fields (title, description, priority).
    can_edit_own: bool,
    assigned_to_me: bool,
    viewer_id: i32,
    description_raw: String,
    priorities: Vec<Choice>,
    projects: Vec<Choice>,
    people: Vec<Choice>,
    groups: Vec<Choice>,
    sla: Option<SlaBadges>,
    history: Vec<HistoryLine>,
}

fn choice(value: String, label: String, selected: bool) -> Choice {
    Choice {
        value,
        label,
        selected,
    }
}

/// "in 2h 05m" or "3h 10m ago", from now.
fn due_in(at: chrono::DateTime<chrono::Utc>) -> String {
    let delta = at - chrono::Utc::now();
    let minutes = delta.num_minutes().abs();
    let text = if minutes >= 24 * 60 {
        format!("{}d {}h", minutes / (24 * 60), minutes % (24 * 60) / 60)
    } else {
        format!("{}h {:02}m", minutes / 60, minutes % 60)
    };
    if delta.num_seconds() >= 0 {
        format!("due in {text} ({})", web_date(&at))
    } else {
        format!("overdue by {text} ({})", web_date(&at))
    }
}

/// The choices of the edit form: every project; people and groups when the viewer may assign.
async fn edit_choices(
    state: &AppState,
    actor: &crate::auth::Actor,
    t: &entity::ticket::Model,
    can_edit_all: bool,
) -> PageResult<(Vec<Choice>, Vec<Choice>, Vec<Choice>)> {
    let db = &state.db.conn;
    if !can_edit_all {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    let none = |selected: bool| choice(String::new(), "None".to_string(), selected);
    let mut projects = vec![none(t.project_id.is_none())];
    projects.extend(
        crate::service::projects::list(db)
            .await?
            .into_iter()
            .map(|p| choice(p.id.to_string(), p.name, t.project_id == Some(p.id))),
    );
    let mut people = vec![none(t.assignee_id.is_none())];
    // Team members list people; an assignee outside the team can still take the ticket themselves.
    let listed = if actor.is_team() {
        users::search(db, actor, None, 0, 200).await?.0
    } else {
        Vec::new()
    };
    let mut ids: Vec<i32> = listed.iter().map(|u| u.id).collect();
    people.extend(listed.iter().map(|u| {
        choice(
            u.id.to_string(),
            display_name(u),
            t.assignee_id == Some(u.id),
        )
    }));
    if !ids.contains(&actor.id()) {
        ids.push(actor.id());
        people.push(choice(
            actor.id().to_string(),
            display_name(&actor.user),
            t.assignee_id == Some(actor.id()),
        ));
    }
    let mut groups = vec![none(t.assigned_group_id.is_none())];
    groups.extend(
        users::list_groups(db, crate::service::Take::All)
            .await?
            .into_iter()
            .map(|g| choice(g.id.to_string(), g.name, t.assigned_group_id == Some(g.id))),
    );
    Ok((projects, people, groups))
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
    let (t, found) = state
        .ticket_reads
        .one(&state.db, actor, id, Joined::REFS)
        .await?;
    let people = found.people;
    let project = t.project_id.and_then(|id| found.projects.get(&id));
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
    let can_edit_all = rules::can_update_all(actor, &t);
    let (projects, people_choices, groups) = edit_choices(state, actor, &t, can_edit_all).await?;
    let priorities = Priority::ALL
        .iter()
        .map(|p| {
            choice(
                p.as_str().to_string(),
                label(p.as_str()),
                p.as_str() == t.priority,
            )
        })
        .collect();
    let sla = sla::view(db, &t).await?.map(|v| SlaBadges {
        policy: v
            .policy
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_default(),
        first_response: v.first_response_due_at.map(due_in),
        resolution: v.resolution_due_at.map(due_in),
        first_response_breached: v.first_response_breached_at.is_some(),
        resolution_breached: v.resolution_breached_at.is_some(),
        at_risk: v.at_risk,
        paused: v.paused_since.is_some(),
    });
    let events = audit::ticket_history(db, actor, &t, 0, 200).await?;
    let authors: Vec<i32> = events.iter().filter_map(|e| e.actor_id).collect();
    let who = users::people(db, actor, authors).await?;
    let history = events
        .into_iter()
        .map(|e| HistoryLine {
            at: web_date(&e.created_at),
            who: e
                .actor_id
                .and_then(|id| who.get(&id))
                .map(display_name)
                .unwrap_or_else(|| "The service".to_string()),
            // Comment texts stay in the thread, where deleting one removes it.
            action: if e.entity_type == "ticket" {
                label(&e.action)
            } else {
                label(&format!("{} {}", e.entity_type, e.action))
            },
            changes: if e.entity_type == "ticket" {
                history_text(&e.changes)
            } else {
                String::new()
            },
        })
        .collect();
    let listed = attachments::list_visible(db, actor, &t).await?;
    let mut files = upload::views(state, user, &listed);
    let mut comments = thread(state, user, &t).await?;
    for c in &mut comments {
        c.attachments = files.remove(&Some(c.id)).unwrap_or_default();
    }
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
        project: project.map(|p| p.name.clone()).unwrap_or_default(),
        due: t.due_date.map(|d| d.to_string()).unwrap_or_default(),
        created: web_date(&t.created_at),
        updated: web_date(&t.updated_at),
        moves,
        comments,
        attachments: files.remove(&None).unwrap_or_default(),
        can_internal: can_read_internal(actor, &t),
        draft,
        can_edit_all,
        can_edit_own: rules::can_update(actor, &t),
        assigned_to_me: t.assignee_id == Some(actor.id()),
        viewer_id: actor.id(),
        description_raw: t.description.clone(),
        priorities,
        projects,
        people: people_choices,
        groups,
        sla,
        history,
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

/// `field: old → new` lines of an audit record, for the history tab.
fn history_text(changes: &serde_json::Value) -> String {
    let Some(map) = changes.as_object() else {
        return String::new();
    };
    let show = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "none".to_string(),
        serde_json::Value::String(s) => {
            let mut s = s.clone();
            if s.chars().count() > 80 {
                s = s.chars().take(80).collect::<String>() + "…";
            }
            s
        }
        other => other.to_string(),
    };
    map.iter()
        .map(|(field, pair)| match pair.as_array().map(Vec::as_slice) {
            Some([old, new]) => format!("{}: {} → {}", label(field), show(old), show(new)),
            _ => format!("{}: {}", label(field), show(pair)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A form field as a change: `None` when the form left it out or it equals `current`.
fn changed<T: PartialEq>(value: Option<T>, current: &T) -> Option<T> {
    value.filter(|v| v != current)
}

fn optional_id(field: &str, text: &str) -> PageResult<Option<i32>> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    text.trim()
        .parse()
        .map(Some)
        .map_err(|_| AppError::field(field, "choose one of the listed values").into())
}

/// `POST /tickets/<id>/edit/` (form): change what the form sends — title, description, priority, due date,
/// project, assignee, group, any subset (the "assign to me" button sends only the assignee). Only fields that
/// differ from the ticket go to the service, which decides what this viewer may change.
pub async fn edit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let t = tickets::get(&state.db.conn, &user.actor, id).await?;
    let due = match form.opt("due_date").map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(text) => Some(Some(
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|_| AppError::field("due_date", "must be a date formatted YYYY-MM-DD"))?,
        )),
    };
    let id_field = |name: &str, field: &str| -> PageResult<Option<Option<i32>>> {
        form.opt(name).map(|v| optional_id(field, v)).transpose()
    };
    let patch = TicketPatch {
        title: changed(form.opt("title").map(str::to_string), &t.title),
        description: changed(form.opt("description").map(str::to_string), &t.description),
        priority: changed(
            form.opt("priority").map(Priority::parse).transpose()?,
            &Priority::parse(&t.priority)?,
        ),
        status: None,
        project_id: changed(id_field("project", "project")?, &t.project_id),
        assignee_id: changed(id_field("assigned_to", "assigned_to")?, &t.assignee_id),
        assigned_group_id: changed(
            id_field("assigned_group", "assigned_group")?,
            &t.assigned_group_id,
        ),
        due_date: changed(due, &t.due_date),
    };
    if !patch.fields().is_empty() {
        tickets::update(&state, &user.actor, id, patch).await?;
    }
    Ok(Redirect::to(&format!("/tickets/{id}/")).into_response())
}
