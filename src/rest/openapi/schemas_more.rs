//! Schemas of comments, web bodies, projects, assets, tokens and operational endpoints.
#![allow(dead_code)]
use super::schemas::{AssetStatusValue, AssetTypeValue, CommentTypeValue, UserRef};
use serde::Serialize;
use utoipa::{PartialSchema, ToSchema};

/// A comment in REST lists.
#[derive(Serialize, ToSchema)]
pub struct Comment {
    /// Comment id.
    pub id: i32,
    /// Ticket id.
    pub ticket: i32,
    /// Author, or null when the user is gone.
    pub author: Option<UserRef>,
    /// Sanitised HTML.
    pub content: String,
    /// Kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Edits so far.
    pub edit_count: i32,
}

/// A new REST comment.
#[derive(Serialize, ToSchema)]
pub struct CommentCreate {
    /// HTML (sanitised; non-empty; at most 64 KiB).
    pub content: String,
    /// Default `public`; `internal` only for the team, the assignee and the assigned group.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: Option<String>,
}

/// The 201 body of a REST comment create: the author as a user name.
#[derive(Serialize, ToSchema)]
pub struct CommentCreated {
    /// Comment id.
    pub id: i32,
    /// Ticket id.
    pub ticket: i32,
    /// Author's user name.
    pub author: String,
    /// Sanitised HTML.
    pub content: String,
    /// Kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// A REST comment edit; at least one field.
#[derive(Serialize, ToSchema)]
pub struct CommentPatch {
    /// New HTML.
    pub content: Option<String>,
    /// New kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: Option<String>,
}

/// One earlier version of a comment.
#[derive(Serialize, ToSchema)]
pub struct CommentEdit {
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub edited_at: String,
    /// Editor's user name.
    pub edited_by: Option<String>,
    /// The text before this edit.
    pub previous_content: String,
}

/// The 200 body of a REST comment edit.
#[derive(Serialize, ToSchema)]
pub struct CommentEdited {
    /// Comment id.
    pub id: i32,
    /// Sanitised HTML.
    pub content: String,
    /// Kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Edits so far.
    pub edit_count: i32,
    /// Oldest first.
    pub edit_history: Vec<CommentEdit>,
}

/// A comment as the web interface shows it; dates like `Nov 25, 2026 14:05` (UTC).
#[derive(Serialize, ToSchema)]
pub struct WebComment {
    /// Comment id.
    pub id: i32,
    /// Sanitised HTML.
    pub body: String,
    /// Kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: String,
    /// Author's display name.
    pub author: String,
    /// Author's user name.
    pub author_username: Option<String>,
    /// `Mon D, YYYY HH:MM`.
    pub created_at: String,
    /// `Mon D, YYYY HH:MM`.
    pub updated_at: String,
    /// Whether it is internal.
    pub is_internal: bool,
    /// Whether it was edited.
    pub is_edited: bool,
    /// `Mon D, YYYY HH:MM`, or null.
    pub edited_at: Option<String>,
    /// Whether the caller may edit it.
    pub can_edit: bool,
    /// Whether the caller may delete it.
    pub can_delete: bool,
}

/// The comment in a web create response.
#[derive(Serialize, ToSchema)]
pub struct WebCommentCreatedItem {
    /// Comment id.
    pub id: i32,
    /// Sanitised HTML.
    pub body: String,
    /// Kind.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: String,
    /// Author's display name.
    pub author: String,
    /// `Mon D, YYYY HH:MM`.
    pub created_at: String,
    /// Whether it is internal.
    pub is_internal: bool,
}

/// `{success: true, comments}`.
#[derive(Serialize, ToSchema)]
pub struct WebCommentList {
    /// Always true.
    pub success: bool,
    /// Comments the caller may read, oldest first.
    pub comments: Vec<WebComment>,
}

/// `{success: true, comment}` after a create.
#[derive(Serialize, ToSchema)]
pub struct WebCommentCreated {
    /// Always true.
    pub success: bool,
    /// The new comment.
    pub comment: WebCommentCreatedItem,
}

/// `{success: true, comment}` after an edit.
#[derive(Serialize, ToSchema)]
pub struct WebCommentEdited {
    /// Always true.
    pub success: bool,
    /// The comment after the edit.
    pub comment: WebComment,
}

/// A web comment create or edit.
#[derive(Serialize, ToSchema)]
pub struct WebCommentInput {
    /// HTML (sanitised; non-empty).
    pub body: String,
    /// Default `public`.
    #[schema(schema_with = CommentTypeValue::schema)]
    pub comment_type: Option<String>,
}

/// `{success: true, message}`.
#[derive(Serialize, ToSchema)]
pub struct WebMessage {
    /// Always true.
    pub success: bool,
    /// What happened.
    pub message: String,
}

/// Credentials (JSON, or a form for the session login).
#[derive(Serialize, ToSchema)]
pub struct Credentials {
    /// Login name.
    pub username: String,
    /// Password.
    pub password: String,
}

/// The signed-in user in a session login response.
#[derive(Serialize, ToSchema)]
pub struct SessionUser {
    /// User id.
    pub id: i32,
    /// Login name.
    pub username: String,
    /// Display name.
    pub full_name: String,
    /// Email address.
    pub email: Option<String>,
    /// Staff flag.
    pub is_staff: bool,
}

/// Session login response; the cookies `sessionid` (HttpOnly) and `csrftoken` are set.
#[derive(Serialize, ToSchema)]
pub struct SessionStarted {
    /// Always true.
    pub success: bool,
    /// Who signed in.
    pub user: SessionUser,
}

/// A short-lived JWT access token.
#[derive(Serialize, ToSchema)]
pub struct AccessToken {
    /// Send as `Authorization: Bearer <token>`.
    pub token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// Who it was issued to.
    pub user: UserRef,
}

/// A project.
#[derive(Serialize, ToSchema)]
pub struct Project {
    /// Project id.
    pub id: i32,
    /// Unique name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Non-archived tickets in it.
    pub ticket_count: i64,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// Fields of a project; `name` is required on create.
#[derive(Serialize, ToSchema)]
pub struct ProjectInput {
    /// Unique, 1–200 characters.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

/// An inventory item.
#[derive(Serialize, ToSchema)]
pub struct Asset {
    /// Asset id.
    pub id: i32,
    /// Name.
    pub name: String,
    /// Kind.
    #[serde(rename = "type")]
    #[schema(schema_with = AssetTypeValue::schema)]
    pub asset_type: String,
    /// Status.
    #[schema(schema_with = AssetStatusValue::schema)]
    pub status: String,
    /// Where it is.
    pub location: String,
    /// Owner's user name.
    pub owner: Option<String>,
    /// Free text.
    pub description: String,
    /// Serial number.
    pub serial_number: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// Fields of an asset; `name` and `type` are required on create, `owner: null` clears the owner.
#[derive(Serialize, ToSchema)]
pub struct AssetInput {
    /// 1–200 characters.
    pub name: Option<String>,
    /// Kind.
    #[serde(rename = "type")]
    #[schema(schema_with = AssetTypeValue::schema)]
    pub asset_type: Option<String>,
    /// Default `in_stock`.
    #[schema(schema_with = AssetStatusValue::schema)]
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

/// `GET /api/version/`.
#[derive(Serialize, ToSchema)]
pub struct Version {
    /// Release.
    pub version: String,
    /// Interface release.
    pub api: String,
}

/// `GET /healthz`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// Readiness checks.
#[derive(Serialize, ToSchema)]
pub struct ReadyChecks {
    /// The database answers.
    pub database: bool,
    /// Every migration is applied.
    pub migrations: bool,
}

/// `GET /readyz` (200 when ready, 503 otherwise).
#[derive(Serialize, ToSchema)]
pub struct Ready {
    /// `ready` or `unavailable`.
    pub status: String,
    /// Individual checks.
    pub checks: ReadyChecks,
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
