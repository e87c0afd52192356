//! The JSON bodies of the web interface's endpoints (`{success: true, …}`); dates like
//! `Nov 25, 2026 14:05` (UTC). Its failures are `{success: false, error}`, rendered in `error`.
use crate::rest::openapi::values;
use serde::Serialize;
use utoipa::ToSchema;

/// A comment as the web interface shows it; dates like `Nov 25, 2026 14:05` (UTC).
#[derive(Serialize, ToSchema)]
pub struct WebComment {
    /// Comment id.
    pub id: i32,
    /// Sanitised HTML.
    pub body: String,
    #[schema(schema_with = values::comment_type)]
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
    #[schema(schema_with = values::comment_type)]
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

/// `{success: true, message}`.
#[derive(Serialize, ToSchema)]
pub struct WebMessage {
    /// Always true.
    pub success: bool,
    /// What happened.
    pub message: &'static str,
}

impl WebMessage {
    /// A success with `message`.
    pub fn new(message: &'static str) -> Self {
        WebMessage {
            success: true,
            message,
        }
    }
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
    #[schema(required = true)]
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
