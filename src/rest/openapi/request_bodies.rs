//! Schemas of the JSON request bodies. The handlers read these bodies field by field (`rest::fields`), to
//! tell a missing field from a null one and to answer each bad field with its own message, so no serde
//! type exists for them; these types are their one written description.
use super::values;
use serde::Serialize;
use utoipa::ToSchema;

/// Fields of a new ticket.
#[derive(Serialize, ToSchema)]
pub struct TicketCreate {
    /// 1–200 characters after trimming.
    pub title: String,
    /// HTML, sanitised.
    pub description: Option<String>,
    /// Default `medium`.
    #[schema(schema_with = values::priority)]
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
    #[schema(schema_with = values::priority)]
    pub priority: Option<String>,
    /// New status (workflow-checked; a refused move is 400 `invalid_transition`).
    #[schema(schema_with = values::ticket_status)]
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

/// A new REST comment.
#[derive(Serialize, ToSchema)]
pub struct CommentCreate {
    /// HTML (sanitised; non-empty; at most 64 KiB).
    pub content: String,
    /// Default `public`; `internal` only for the team, the assignee and the assigned group.
    #[schema(schema_with = values::comment_type)]
    pub comment_type: Option<String>,
}

/// A REST comment edit; at least one field.
#[derive(Serialize, ToSchema)]
pub struct CommentPatch {
    /// New HTML.
    pub content: Option<String>,
    /// New kind.
    #[schema(schema_with = values::comment_type)]
    pub comment_type: Option<String>,
}

/// A web comment create or edit.
#[derive(Serialize, ToSchema)]
pub struct WebCommentInput {
    /// HTML (sanitised; non-empty).
    pub body: String,
    /// Default `public`.
    #[schema(schema_with = values::comment_type)]
    pub comment_type: Option<String>,
}

/// Fields of a project; `name` is required on create.
#[derive(Serialize, ToSchema)]
pub struct ProjectInput {
    /// Unique, 1–200 characters.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

/// Fields of an asset; `name` and `type` are required on create, `owner: null` clears the owner.
#[derive(Serialize, ToSchema)]
pub struct AssetInput {
    /// 1–200 characters.
    pub name: Option<String>,
    /// Kind.
    #[serde(rename = "type")]
    #[schema(schema_with = values::asset_type)]
    pub asset_type: Option<String>,
    /// Default `in_stock`.
    #[schema(schema_with = values::asset_status)]
    pub status: Option<String>,
    /// At most 200 characters.
    pub location: Option<String>,
    /// Owner user id (an active user).
    pub owner: Option<i32>,
    /// Free text.
    pub description: Option<String>,
    /// At most 200 characters.
    pub serial_number: Option<String>,
}

/// The multipart/form-data body of an upload.
#[derive(Serialize, ToSchema)]
pub struct AttachmentUpload {
    /// The file (its part's `filename` names it; its `Content-Type` is ignored).
    #[schema(value_type = String, format = Binary)]
    pub file: String,
    /// Id of one of the ticket's comments to attach the file to (its author or staff only). A file on an
    /// internal comment is internal: only those who may read internal comments see it.
    pub comment: Option<i32>,
}

/// A GraphQL request.
#[derive(Serialize, ToSchema)]
pub struct GraphqlRequest {
    /// The document.
    pub query: String,
    /// Variables.
    pub variables: Option<serde_json::Value>,
    /// Operation to run.
    #[serde(rename = "operationName")]
    pub operation_name: Option<String>,
}
