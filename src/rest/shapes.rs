//! The legacy JSON shapes of the REST contract, in one place.
use crate::domain::TicketStatus;
use chrono::{DateTime, Utc};
use entity::{project, ticket, user};
use serde::Serialize;
use serde_json::{json, Value};

/// ISO 8601 UTC with a trailing Z, as REST clients expect.
pub fn timestamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// Like [`timestamp`], null when unset.
pub fn opt_timestamp(at: &Option<DateTime<Utc>>) -> serde_json::Value {
    at.as_ref()
        .map(|t| serde_json::Value::String(timestamp(t)))
        .unwrap_or(serde_json::Value::Null)
}

/// A project: `{id, name, description, ticket_count, created_at, updated_at}`.
pub fn project(p: &entity::project::Model, ticket_count: i64) -> serde_json::Value {
    serde_json::json!({
        "id": p.id,
        "name": p.name,
        "description": p.description,
        "ticket_count": ticket_count,
        "created_at": timestamp(&p.created_at),
        "updated_at": timestamp(&p.updated_at),
    })
}

/// An asset: `{id, name, type, status, location, owner, description, serial_number, created_at,
/// updated_at}`, with `owner` the owner's user name or null.
pub fn asset(a: &entity::asset::Model, owner: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "id": a.id,
        "name": a.name,
        "type": a.asset_type,
        "status": a.status,
        "location": a.location,
        "owner": owner,
        "description": a.description,
        "serial_number": a.serial_number,
        "created_at": timestamp(&a.created_at),
        "updated_at": timestamp(&a.updated_at),
    })
}

/// `{id, username, full_name}`, as the detail shows people.
pub fn user_ref(u: &user::Model) -> Value {
    json!({ "id": u.id, "username": u.username, "full_name": u.full_name })
}

/// A ticket as a list item: people as user names (null when unset or unknown). Serialised straight from the
/// rows (no intermediate `Value`): list pages are the busiest responses.
#[derive(Serialize)]
pub struct TicketListItem<'a> {
    id: i32,
    ticket_number: &'a str,
    title: &'a str,
    description: &'a str,
    status: &'a str,
    priority: &'a str,
    requester: Option<&'a str>,
    assigned_to: Option<&'a str>,
    created_at: String,
    updated_at: String,
}

/// The list item of `t`, naming people from `usernames` (by user id).
pub fn ticket_list_item<'a>(
    t: &'a ticket::Model,
    usernames: &'a crate::FastMap<i32, String>,
) -> TicketListItem<'a> {
    let name = |id: Option<i32>| id.and_then(|id| usernames.get(&id)).map(String::as_str);
    TicketListItem {
        id: t.id,
        ticket_number: &t.ticket_number,
        title: &t.title,
        description: &t.description,
        status: &t.status,
        priority: &t.priority,
        requester: name(Some(t.requester_id)),
        assigned_to: name(t.assignee_id),
        created_at: timestamp(&t.created_at),
        updated_at: timestamp(&t.updated_at),
    }
}

/// A page of a paginated list: `{count, next, previous, results}`.
#[derive(Serialize)]
pub struct Page<T> {
    /// Every matching item.
    pub count: u64,
    /// Link to the next page.
    pub next: Option<String>,
    /// Link to the previous page.
    pub previous: Option<String>,
    /// This page's items.
    pub results: Vec<T>,
}

/// What the ticket detail shows beside the ticket row itself.
pub struct TicketExtras<'a> {
    /// Requester and assignee, by id.
    pub people: &'a crate::FastMap<i32, user::Model>,
    /// The ticket's project, if any.
    pub project: Option<&'a project::Model>,
    /// Comments the caller may read.
    pub comments_count: u64,
    /// The SLA clock, when a policy ever applied.
    pub sla: Option<&'a crate::service::sla::SlaView>,
    /// The attachments the caller may see, as REST elements.
    pub attachments: Vec<Value>,
}

/// A user as the detail shows one.
#[derive(Serialize)]
pub struct UserRef<'a> {
    id: i32,
    username: &'a str,
    full_name: &'a str,
}

/// A project as the detail shows one.
#[derive(Serialize)]
pub struct ProjectRef<'a> {
    id: i32,
    name: &'a str,
}

/// The ticket detail: people and project as objects, due date as `YYYY-MM-DD`. Serialised straight from
/// the row, like the list items (building a `Value` first was 7 % of a detail's instructions).
#[derive(Serialize)]
pub struct TicketDetail<'a> {
    id: i32,
    ticket_number: &'a str,
    title: &'a str,
    description: &'a str,
    status: &'a str,
    status_category: Option<&'static str>,
    priority: &'a str,
    requester: Option<UserRef<'a>>,
    assigned_to: Option<UserRef<'a>>,
    project: Option<ProjectRef<'a>>,
    created_at: String,
    updated_at: String,
    due_date: Option<String>,
    comments_count: u64,
    attachments: &'a [Value],
    sla: Option<SlaRef<'a>>,
}

/// A ticket's SLA clock as the detail shows it.
#[derive(Serialize)]
pub struct SlaRef<'a> {
    /// `{id, name}`, like a project reference.
    policy: Option<ProjectRef<'a>>,
    first_response_due_at: Option<String>,
    resolution_due_at: Option<String>,
    first_response_breached: bool,
    resolution_breached: bool,
    paused: bool,
}

fn sla_ref(v: &crate::service::sla::SlaView) -> SlaRef<'_> {
    SlaRef {
        policy: v.policy.as_ref().map(|p| ProjectRef {
            id: p.id,
            name: &p.name,
        }),
        first_response_due_at: v.first_response_due_at.as_ref().map(timestamp),
        resolution_due_at: v.resolution_due_at.as_ref().map(timestamp),
        first_response_breached: v.first_response_breached_at.is_some(),
        resolution_breached: v.resolution_breached_at.is_some(),
        paused: v.paused_since.is_some(),
    }
}

/// The detail of `t` with what `extras` read beside it.
pub fn ticket_detail<'a>(t: &'a ticket::Model, extras: &'a TicketExtras<'a>) -> TicketDetail<'a> {
    let person = |id: Option<i32>| {
        id.and_then(|id| extras.people.get(&id)).map(|u| UserRef {
            id: u.id,
            username: &u.username,
            full_name: &u.full_name,
        })
    };
    TicketDetail {
        id: t.id,
        ticket_number: &t.ticket_number,
        title: &t.title,
        description: &t.description,
        status: &t.status,
        status_category: TicketStatus::parse(&t.status)
            .ok()
            .map(|s| s.category().as_str()),
        priority: &t.priority,
        requester: person(Some(t.requester_id)),
        assigned_to: person(t.assignee_id),
        project: extras.project.map(|p| ProjectRef {
            id: p.id,
            name: &p.name,
        }),
        created_at: timestamp(&t.created_at),
        updated_at: timestamp(&t.updated_at),
        due_date: t.due_date.map(|d| d.format("%Y-%m-%d").to_string()),
        comments_count: extras.comments_count,
        attachments: &extras.attachments,
        sla: extras.sla.map(sla_ref),
    }
}

/// The 201 body of a ticket create.
pub fn ticket_created(t: &ticket::Model) -> Value {
    json!({
        "id": t.id,
        "ticket_number": t.ticket_number,
        "title": t.title,
        "status": t.status,
        "priority": t.priority,
        "created_at": timestamp(&t.created_at),
    })
}

/// The 200 body of a ticket update.
pub fn ticket_updated(t: &ticket::Model) -> Value {
    json!({
        "id": t.id,
        "ticket_number": t.ticket_number,
        "title": t.title,
        "status": t.status,
        "priority": t.priority,
        "updated_at": timestamp(&t.updated_at),
    })
}

/// `{id, username, full_name}` of a user, null when the user is gone.
pub fn user_ref_or_null(user: Option<&entity::user::Model>) -> serde_json::Value {
    user.map(user_ref).unwrap_or(serde_json::Value::Null)
}

/// A comment in REST lists: the author as an object.
pub fn comment_item(
    c: &entity::comment::Model,
    author: Option<&entity::user::Model>,
) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "ticket": c.ticket_id,
        "author": user_ref_or_null(author),
        "content": c.body,
        "comment_type": c.comment_type,
        "created_at": timestamp(&c.created_at),
        "updated_at": timestamp(&c.updated_at),
        "edit_count": c.edit_count,
    })
}

/// The create response: the author as a user name.
pub fn comment_created(c: &entity::comment::Model, author_username: &str) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "ticket": c.ticket_id,
        "author": author_username,
        "content": c.body,
        "comment_type": c.comment_type,
        "created_at": timestamp(&c.created_at),
    })
}

/// The edit response, with the history oldest first; `edited_by` is the editor's user name.
pub fn comment_edited(
    c: &entity::comment::Model,
    history: &[entity::comment_edit::Model],
    people: &std::collections::HashMap<i32, entity::user::Model>,
) -> serde_json::Value {
    let history: Vec<serde_json::Value> = history
        .iter()
        .map(|e| {
            let editor = e
                .edited_by_id
                .and_then(|id| people.get(&id))
                .map(|u| u.username.clone());
            serde_json::json!({
                "edited_at": timestamp(&e.edited_at),
                "edited_by": editor,
                "previous_content": e.previous_body,
            })
        })
        .collect();
    serde_json::json!({
        "id": c.id,
        "content": c.body,
        "comment_type": c.comment_type,
        "updated_at": timestamp(&c.updated_at),
        "edit_count": c.edit_count,
        "edit_history": history,
    })
}
