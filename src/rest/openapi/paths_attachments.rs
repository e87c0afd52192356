//! Operations and shapes of attachments: `/api/tickets/{id}/attachments/` and `/api/attachments/{id}/…`.
//! Documentation only: the handlers live in `rest::attachments`.
#![allow(dead_code)]
use super::schemas::UserRef;
use serde::Serialize;
use utoipa::ToSchema;

/// A file on a ticket or on one of its comments.
#[derive(Serialize, ToSchema)]
pub struct Attachment {
    /// Attachment id.
    pub id: i32,
    /// The uploaded name without path parts or control characters, at most 200 bytes.
    pub filename: String,
    /// Detected from the bytes at upload (not taken from the client); `application/octet-stream` when
    /// unknown, `text/plain` for text.
    pub content_type: String,
    /// Bytes.
    pub size: i64,
    /// A signed download link for the caller, usable without credentials for 15 minutes
    /// (`/api/attachments/{id}/download/?user=…&expires=…&signature=…`).
    pub url: String,
    /// The uploader (null once the account is gone).
    #[schema(required = true)]
    pub uploaded_by: Option<UserRef>,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
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

/// Attach a file to a visible ticket (multipart/form-data; up to `DESKGRAPH_MAX_UPLOAD_BYTES`, 25 MiB by
/// default; the only requests exempt from the 1 MiB body limit).
#[utoipa::path(post, path = "/api/tickets/{id}/attachments/", tag = "attachments", operation_id = "createAttachment",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content = AttachmentUpload, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "Attached", body = Attachment),
        (status = 413, description = "The file is over the upload limit", body = super::schemas::Error),
    ),
    security(("bearer" = [])))]
pub fn create_attachment() {}

/// The attachments of a visible ticket the caller may see, oldest first.
#[utoipa::path(get, path = "/api/tickets/{id}/attachments/", tag = "attachments", operation_id = "listAttachments",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The attachments", body = Vec<Attachment>)),
    security(("bearer" = [])))]
pub fn list_attachments() {}

/// One attachment's metadata.
#[utoipa::path(get, path = "/api/attachments/{id}/", tag = "attachments", operation_id = "getAttachment",
    params(("id" = i32, Path, description = "Attachment id")),
    responses((status = 200, description = "The attachment", body = Attachment)),
    security(("bearer" = [])))]
pub fn get_attachment() {}

/// Delete an attachment (soft; its uploader, staff or admins).
#[utoipa::path(delete, path = "/api/attachments/{id}/", tag = "attachments", operation_id = "deleteAttachment",
    params(("id" = i32, Path, description = "Attachment id")),
    responses((status = 204, description = "Deleted")),
    security(("bearer" = [])))]
pub fn delete_attachment() {}

/// The bytes, streamed: with a bearer token, or without credentials through a signed `url`. Sent with
/// `Content-Disposition: attachment` (`inline` for raster images and PDF), `X-Content-Type-Options: nosniff`
/// and `Content-Security-Policy: default-src 'none'; sandbox`.
#[utoipa::path(get, path = "/api/attachments/{id}/download/", tag = "attachments", operation_id = "downloadAttachment",
    params(
        ("id" = i32, Path, description = "Attachment id"),
        ("user" = Option<i32>, Query, description = "Signed link: the user it was made for."),
        ("expires" = Option<i64>, Query, description = "Signed link: Unix time it expires at."),
        ("signature" = Option<String>, Query, description = "Signed link: its HMAC."),
    ),
    responses(
        (status = 200, description = "The bytes, with the type detected at upload", content_type = "*/*", body = Vec<u8>),
        (status = 401, description = "No bearer token and no signed link", body = super::schemas::Error),
        (status = 403, description = "A forged or expired signed link", body = super::schemas::Error),
    ),
    security(("bearer" = []), ()))]
pub fn download_attachment() {}
