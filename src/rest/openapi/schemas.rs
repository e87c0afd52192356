//! Schemas of the REST and web JSON bodies, for the OpenAPI document only. The bodies themselves are built
//! in `rest::shapes` and `web`; these types mirror them field for field (the snapshot test locks both).
#![allow(dead_code)]
use crate::domain::{AssetStatus, AssetType, CommentType, Priority, StatusCategory, TicketStatus};
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// A string schema whose values are exactly those of a domain enum (one source of truth: `ALL`).
macro_rules! enum_schema {
    ($name:ident, $domain:ty, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some($doc))
                    .enum_values(Some(<$domain>::ALL.iter().map(|v| v.as_str())))
                    .into()
            }
        }

        impl ToSchema for $name {}
    };
}

enum_schema!(TicketStatusValue, TicketStatus, "Ticket status.");
enum_schema!(
    StatusCategoryValue,
    StatusCategory,
    "Category of a ticket status."
);
enum_schema!(PriorityValue, Priority, "Ticket priority.");
enum_schema!(CommentTypeValue, CommentType, "Who may read a comment.");
enum_schema!(AssetTypeValue, AssetType, "Kind of inventory item.");
enum_schema!(
    AssetStatusValue,
    AssetStatus,
    "Where an inventory item is in its life."
);

/// The REST error body.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": "invalid fields: title", "code": "validation_error", "details": {"title": ["this field may not be blank"]}}))]
pub struct Error {
    /// Human-readable message.
    pub error: String,
    /// Stable snake_case code, e.g. `validation_error`, `not_found`, `rate_limited`, `invalid_transition`.
    pub code: String,
    /// Messages per field (may be empty).
    pub details: BTreeMap<String, Vec<String>>,
}

/// The REST error body of a 429: `details` says how long to wait.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": "rate limit exceeded", "code": "rate_limited", "details": {"retry_after": 42}}))]
pub struct RateLimitError {
    /// Human-readable message.
    pub error: String,
    /// Always `rate_limited`.
    pub code: String,
    /// When to try again.
    pub details: RetryDetails,
}

/// The `details` of a 429.
#[derive(Serialize, ToSchema)]
pub struct RetryDetails {
    /// Seconds to wait, the same figure as the `Retry-After` header.
    pub retry_after: u64,
}

/// The web interface's failure body.
#[derive(Serialize, ToSchema)]
pub struct WebFailure {
    /// Always false.
    pub success: bool,
    /// Human-readable message.
    pub error: String,
}

/// A person as the ticket detail and comment lists show them.
#[derive(Serialize, ToSchema)]
pub struct UserRef {
    /// User id.
    pub id: i32,
    /// Login name.
    pub username: String,
    /// Display name.
    pub full_name: String,
}

/// An SLA policy reference inside a ticket's clock.
#[derive(Serialize, ToSchema)]
pub struct PolicyRef {
    /// Policy id.
    pub id: i32,
    /// Name.
    pub name: String,
}

/// A project reference inside a ticket detail.
#[derive(Serialize, ToSchema)]
pub struct ProjectRef {
    /// Project id.
    pub id: i32,
    /// Name.
    pub name: String,
}

/// A ticket in lists: people as user names.
#[derive(Serialize, ToSchema)]
pub struct TicketListItem {
    /// Ticket id.
    pub id: i32,
    /// `<PREFIX>-<NNN>`.
    pub ticket_number: String,
    /// Title.
    pub title: String,
    /// Description (sanitised HTML).
    pub description: String,
    /// Status.
    #[schema(schema_with = TicketStatusValue::schema)]
    pub status: String,
    /// Priority.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: String,
    /// Requester's user name.
    #[schema(required = true)]
    pub requester: Option<String>,
    /// Assignee's user name.
    #[schema(required = true)]
    pub assigned_to: Option<String>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// One page of tickets.
#[derive(Serialize, ToSchema)]
pub struct TicketPage {
    /// Matching tickets over all pages.
    pub count: u64,
    /// Relative path of the next page, or null.
    #[schema(required = true)]
    pub next: Option<String>,
    /// Relative path of the previous page, or null.
    #[schema(required = true)]
    pub previous: Option<String>,
    /// This page.
    pub results: Vec<TicketListItem>,
}

/// A ticket in detail: people and project as objects.
#[derive(Serialize, ToSchema)]
pub struct TicketDetail {
    /// Ticket id.
    pub id: i32,
    /// `<PREFIX>-<NNN>`.
    pub ticket_number: String,
    /// Title.
    pub title: String,
    /// Description (sanitised HTML).
    pub description: String,
    /// Status.
    #[schema(schema_with = TicketStatusValue::schema)]
    pub status: String,
    /// Category of the status.
    #[schema(schema_with = StatusCategoryValue::schema)]
    pub status_category: String,
    /// Priority.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: String,
    /// Requester.
    #[schema(required = true)]
    pub requester: Option<UserRef>,
    /// Assignee.
    #[schema(required = true)]
    pub assigned_to: Option<UserRef>,
    /// Project.
    #[schema(required = true)]
    pub project: Option<ProjectRef>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// `YYYY-MM-DD`.
    #[schema(format = Date)]
    #[schema(required = true)]
    pub due_date: Option<String>,
    /// Comments the caller may read.
    pub comments_count: u64,
    /// The attachments the caller may see, oldest first.
    pub attachments: Vec<super::paths_attachments::Attachment>,
    /// The service-level clock; null when no SLA policy ever applied to the ticket.
    #[schema(required = true)]
    pub sla: Option<TicketSla>,
}

/// A ticket's service-level clock (see docs/sla.md).
#[derive(Serialize, ToSchema)]
pub struct TicketSla {
    /// The policy that set the clock; null once deleted or when none matches any more.
    #[schema(required = true)]
    pub policy: Option<PolicyRef>,
    /// When the first response is due; null once responded, while paused, or resolved. ISO 8601 UTC.
    #[schema(format = DateTime)]
    #[schema(required = true)]
    pub first_response_due_at: Option<String>,
    /// When resolution is due; null while paused or once resolved. ISO 8601 UTC.
    #[schema(format = DateTime)]
    #[schema(required = true)]
    pub resolution_due_at: Option<String>,
    /// Whether the first-response target was breached.
    pub first_response_breached: bool,
    /// Whether the resolution target was breached.
    pub resolution_breached: bool,
    /// Whether the clock is stopped (a pause status, or resolved).
    pub paused: bool,
}

/// Fields of a new ticket.
#[derive(Serialize, ToSchema)]
pub struct TicketCreate {
    /// 1–200 characters after trimming.
    pub title: String,
    /// HTML, sanitised.
    pub description: Option<String>,
    /// Default `medium`.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: Option<String>,
    /// Project id.
    pub project: Option<i32>,
    /// Assignee user id.
    pub assigned_to: Option<i32>,
    /// Assigned group id.
    pub assigned_group: Option<i32>,
    /// `YYYY-MM-DD`.
    #[schema(format = Date)]
    pub due_date: Option<String>,
    /// Requester user id (team members only; default the caller).
    pub requester: Option<i32>,
}

/// A partial change to a ticket; `null` clears nullable fields.
#[derive(Serialize, ToSchema)]
pub struct TicketPatch {
    /// New title.
    pub title: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New priority.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: Option<String>,
    /// New status (workflow-checked; a refused move is 400 `invalid_transition`).
    #[schema(schema_with = TicketStatusValue::schema)]
    pub status: Option<String>,
    /// Project id or null.
    pub project: Option<i32>,
    /// Assignee user id or null.
    pub assigned_to: Option<i32>,
    /// Assigned group id or null.
    pub assigned_group: Option<i32>,
    /// `YYYY-MM-DD` or null.
    #[schema(format = Date)]
    pub due_date: Option<String>,
}

/// The 201 body of a ticket create.
#[derive(Serialize, ToSchema)]
pub struct TicketCreated {
    /// Ticket id.
    pub id: i32,
    /// `<PREFIX>-<NNN>`.
    pub ticket_number: String,
    /// Title.
    pub title: String,
    /// Status (`new`).
    #[schema(schema_with = TicketStatusValue::schema)]
    pub status: String,
    /// Priority.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// The 200 body of a ticket update.
#[derive(Serialize, ToSchema)]
pub struct TicketUpdated {
    /// Ticket id.
    pub id: i32,
    /// `<PREFIX>-<NNN>`.
    pub ticket_number: String,
    /// Title.
    pub title: String,
    /// Status.
    #[schema(schema_with = TicketStatusValue::schema)]
    pub status: String,
    /// Priority.
    #[schema(schema_with = PriorityValue::schema)]
    pub priority: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}
