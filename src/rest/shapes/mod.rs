//! The legacy JSON shapes of the REST contract, in one place: typed, so the OpenAPI document is derived
//! from the same definitions (`ToSchema`). Tickets here; the other nouns in the submodules.
mod attachments;
mod comments;
mod inventory;
mod ticket_writes;

use crate::domain::Workflow;
use crate::rest::openapi::values;
pub use attachments::Attachment;
use chrono::{DateTime, Utc};
pub use comments::{
    comment_created, comment_edited, comment_item, Comment, CommentCreated, CommentEdited,
};
use entity::{project, ticket, user};
pub use inventory::{asset, project, Asset, Project};
use serde::Serialize;
pub use ticket_writes::{ticket_created, ticket_updated, TicketCreated, TicketUpdated};
use utoipa::ToSchema;

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

/// A ticket in lists: people as user names.
// Serialised straight from the rows (no intermediate `Value`): list pages are the busiest responses.
#[derive(Serialize, ToSchema)]
pub struct TicketListItem<'a> {
    /// Ticket id.
    id: i32,
    /// `<PREFIX>-<NNN>`.
    ticket_number: &'a str,
    /// Title.
    title: &'a str,
    /// Description (sanitised HTML).
    description: &'a str,
    #[schema(schema_with = values::ticket_status)]
    status: &'a str,
    #[schema(schema_with = values::priority)]
    priority: &'a str,
    /// Requester's user name.
    #[schema(required = true)]
    requester: Option<&'a str>,
    /// Assignee's user name.
    #[schema(required = true)]
    assigned_to: Option<&'a str>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
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
        status: t.status.as_str(),
        priority: t.priority.as_str(),
        requester: name(Some(t.requester_id)),
        assigned_to: name(t.assignee_id),
        created_at: timestamp(&t.created_at),
        updated_at: timestamp(&t.updated_at),
    }
}

/// One page of tickets.
#[derive(Serialize, ToSchema)]
#[schema(as = TicketPage)]
pub struct Page<'a> {
    /// Matching tickets over all pages.
    pub count: u64,
    /// Relative path of the next page, or null.
    #[schema(required = true)]
    pub next: Option<String>,
    /// Relative path of the previous page, or null.
    #[schema(required = true)]
    pub previous: Option<String>,
    /// This page.
    pub results: Vec<TicketListItem<'a>>,
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
    /// The attachments the caller may see.
    pub attachments: Vec<Attachment>,
    /// Where the ticket was merged into, when it was.
    pub merged_into: Option<crate::rest::merge::MergedRef>,
    /// The custom fields the caller may see, by key (none carried: the key is left out).
    pub custom_fields: serde_json::Map<String, serde_json::Value>,
}

/// A person as the ticket detail and comment lists show them.
#[derive(Serialize, ToSchema)]
pub struct UserRef {
    /// User id.
    id: i32,
    /// Login name.
    username: String,
    /// Display name.
    full_name: String,
}

impl UserRef {
    /// The reference to `u`.
    pub fn of(u: &user::Model) -> Self {
        UserRef {
            id: u.id,
            username: u.username.clone(),
            full_name: u.full_name.clone(),
        }
    }
}

/// A project reference inside a ticket detail.
#[derive(Serialize, ToSchema)]
pub struct ProjectRef<'a> {
    /// Project id.
    id: i32,
    /// Name.
    name: &'a str,
}

/// An SLA policy reference inside a ticket's clock.
#[derive(Serialize, ToSchema)]
pub struct PolicyRef<'a> {
    /// Policy id.
    id: i32,
    /// Name.
    name: &'a str,
}

/// A ticket in detail: people and project as objects.
// Serialised straight from the row, like the list items (building a `Value` first was 7 % of a detail's
// instructions).
#[derive(Serialize, ToSchema)]
pub struct TicketDetail<'a> {
    /// Ticket id.
    id: i32,
    /// `<PREFIX>-<NNN>`.
    ticket_number: &'a str,
    /// Title.
    title: &'a str,
    /// Description (sanitised HTML).
    description: &'a str,
    #[schema(schema_with = values::ticket_status)]
    status: &'a str,
    #[schema(schema_with = values::status_category, required = true)]
    status_category: Option<&'static str>,
    #[schema(schema_with = values::priority)]
    priority: &'a str,
    /// Requester.
    #[schema(required = true)]
    requester: Option<UserRef>,
    /// Assignee.
    #[schema(required = true)]
    assigned_to: Option<UserRef>,
    /// Project.
    #[schema(required = true)]
    project: Option<ProjectRef<'a>>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
    /// `YYYY-MM-DD`.
    #[schema(format = Date, required = true)]
    due_date: Option<String>,
    /// Comments the caller may read.
    comments_count: u64,
    /// The attachments the caller may see, oldest first.
    attachments: &'a [Attachment],
    /// The service-level clock; null when no SLA policy ever applied to the ticket.
    #[schema(required = true)]
    sla: Option<TicketSla<'a>>,
    /// Present only on a merged ticket: the ticket it went into (where its comments and replies go).
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_into: Option<&'a crate::rest::merge::MergedRef>,
    /// Present when the ticket carries custom fields the caller may see: each by key, null when unset
    /// (`/api/custom-fields/` defines them).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    #[schema(value_type = Option<Object>)]
    custom_fields: &'a serde_json::Map<String, serde_json::Value>,
}

/// A ticket's service-level clock (see docs/sla.md).
#[derive(Serialize, ToSchema)]
pub struct TicketSla<'a> {
    /// The policy that set the clock; null once deleted or when none matches any more.
    #[schema(required = true)]
    policy: Option<PolicyRef<'a>>,
    /// When the first response is due; null once responded, while paused, or resolved. ISO 8601 UTC.
    #[schema(format = DateTime, required = true)]
    first_response_due_at: Option<String>,
    /// When resolution is due; null while paused or once resolved. ISO 8601 UTC.
    #[schema(format = DateTime, required = true)]
    resolution_due_at: Option<String>,
    /// Whether the first-response target was breached.
    first_response_breached: bool,
    /// Whether the resolution target was breached.
    resolution_breached: bool,
    /// Whether the clock is stopped (a pause status, or resolved).
    paused: bool,
}

fn sla_ref(v: &crate::service::sla::SlaView) -> TicketSla<'_> {
    TicketSla {
        policy: v.policy.as_ref().map(|p| PolicyRef {
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
    let person = |id: Option<i32>| id.and_then(|id| extras.people.get(&id)).map(UserRef::of);
    TicketDetail {
        id: t.id,
        ticket_number: &t.ticket_number,
        title: &t.title,
        description: &t.description,
        status: t.status.as_str(),
        status_category: Some(t.status.category().as_str()),
        priority: t.priority.as_str(),
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
        merged_into: extras.merged_into.as_ref(),
        custom_fields: &extras.custom_fields,
    }
}
