//! Schemas of comments: the REST shapes and the web interface's shapes.
#![allow(dead_code)]
use super::schemas::{CommentTypeValue, UserRef};
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
    #[schema(required = true)]
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
    #[schema(required = true)]
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
    #[schema(required = true)]
    pub author_username: Option<String>,
    /// `Mon DD, YYYY HH:MM` (day zero-padded, e.g. `Nov 05, 2026 14:03`).
    pub created_at: String,
    /// `Mon DD, YYYY HH:MM` (day zero-padded, e.g. `Nov 05, 2026 14:03`).
    pub updated_at: String,
    /// Whether it is internal.
    pub is_internal: bool,
    /// Whether it was edited.
    pub is_edited: bool,
    /// `Mon DD, YYYY HH:MM` (day zero-padded, e.g. `Nov 05, 2026 14:03`), or null.
    #[schema(required = true)]
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
    /// `Mon DD, YYYY HH:MM` (day zero-padded, e.g. `Nov 05, 2026 14:03`).
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
