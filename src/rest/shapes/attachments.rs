//! An attachment as REST shows it, alone and inside the ticket detail.
use super::{timestamp, UserRef};
use entity::{attachment, user};
use serde::Serialize;
use utoipa::ToSchema;

/// A file on a ticket or on one of its comments.
#[derive(Serialize, ToSchema)]
pub struct Attachment {
    /// Attachment id.
    id: i32,
    /// The uploaded name without path parts or control characters, at most 200 bytes.
    filename: String,
    /// Detected from the bytes at upload (not taken from the client); `application/octet-stream` when
    /// unknown, `text/plain` for text.
    content_type: String,
    /// Bytes.
    size: i64,
    /// A signed download link for the caller, usable without credentials for 15 minutes
    /// (`/api/attachments/{id}/download/?user=…&expires=…&signature=…`).
    url: String,
    /// The uploader (null once the account is gone).
    #[schema(required = true)]
    uploaded_by: Option<UserRef>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
}

impl Attachment {
    /// The element of `a`, with `url` its signed download link.
    pub fn of(a: &attachment::Model, url: String, uploader: Option<&user::Model>) -> Self {
        Attachment {
            id: a.id,
            filename: a.filename.clone(),
            content_type: a.content_type.clone(),
            size: a.size,
            url,
            uploaded_by: uploader.map(UserRef::of),
            created_at: timestamp(&a.created_at),
        }
    }
}
