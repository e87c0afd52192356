//! Form posts that may carry files (`enctype="multipart/form-data"`, the new-ticket and comment forms), read
//! without JavaScript: text fields as a form, each chosen `file` part (at most
//! [`attachments::MAX_FILES_PER_POST`]) spooled as an upload. The CSRF token must
//! be the first part, and is checked before the rest of the body is read. And the attachments as pages show them.
use super::{Form, PageResult, PageUser};
use crate::error::AppError;
use crate::service::attachments::{self, Listed, Spooled};
use crate::state::AppState;
use axum::extract::multipart::Field;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header;
use http_body_util::BodyExt;
use std::collections::HashMap;

/// Largest text field of a multipart form (the comment and description limits are 64 KiB).
const MAX_TEXT_FIELD: usize = 128 * 1024;

/// A posted form and its files.
pub struct Posted {
    /// The text fields.
    pub form: Form,
    /// The chosen files' names and bytes, in the form's order; none when the file input was left empty.
    pub files: Vec<(String, Spooled)>,
}

impl PageUser {
    /// Read a form this user posted, urlencoded or multipart, refusing it (403) unless it carries the
    /// session's CSRF token.
    pub async fn posted(&self, state: &AppState, req: Request) -> PageResult<Posted> {
        let multipart = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
        if !multipart {
            let body = req
                .into_body()
                .collect()
                .await
                .map_err(|_| AppError::bad_request("could not read the request body"))?
                .to_bytes();
            return Ok(Posted {
                form: self.form(&body)?,
                files: Vec::new(),
            });
        }
        let mut parts = Multipart::from_request(req, state)
            .await
            .map_err(|_| AppError::bad_request("malformed multipart form"))?;
        // The token is checked before anything else of the body is read: the forms put it first (browsers
        // send parts in the form's order), so a forged post is refused before a byte of its file is spooled.
        let token = match parts.next_field().await.map_err(AppError::from)? {
            Some(field) if field.name() == Some(super::FORM_CSRF_FIELD) => {
                read_text(field, super::FORM_CSRF_FIELD).await?
            }
            _ => String::new(),
        };
        crate::web::session::check_csrf(Some(&token), &self.csrf)?;
        let mut fields: Vec<(String, String)> = Vec::new();
        let mut files = Vec::new();
        while let Some(field) = parts.next_field().await.map_err(AppError::from)? {
            let name = field.name().unwrap_or_default().to_string();
            if name == "file" {
                let filename = field.file_name().unwrap_or_default().to_string();
                // An empty file input still sends a part, without a name.
                if filename.is_empty() {
                    continue;
                }
                if files.len() == attachments::MAX_FILES_PER_POST {
                    return Err(AppError::field(
                        "file",
                        format!("at most {} files at once", attachments::MAX_FILES_PER_POST),
                    )
                    .into());
                }
                let spooled = attachments::spool(field, state.config.max_upload_bytes).await?;
                files.push((filename, spooled));
                continue;
            }
            let text = read_text(field, &name).await?;
            fields.push((name, text));
        }
        Ok(Posted {
            form: Form(fields),
            files,
        })
    }
}

/// A text part of a multipart form, at most [`MAX_TEXT_FIELD`] bytes.
async fn read_text(mut field: Field<'_>, name: &str) -> Result<String, AppError> {
    let mut text = Vec::new();
    while let Some(piece) = field.chunk().await.map_err(AppError::from)? {
        text.extend_from_slice(&piece);
        if text.len() > MAX_TEXT_FIELD {
            return Err(AppError::PayloadTooLarge(format!(
                "the field {name} is too long"
            )));
        }
    }
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// An attachment as a page shows it.
pub struct AttachmentView {
    /// File name.
    pub name: String,
    /// Signed link for the viewer.
    pub url: String,
    /// Shown inline as an image.
    pub is_image: bool,
    /// `12 KB`.
    pub size: String,
}

/// The views of `listed`'s attachments, by the comment they hang on (`None`: on the ticket itself).
pub fn views(
    state: &AppState,
    user: &PageUser,
    listed: &Listed,
) -> HashMap<Option<i32>, Vec<AttachmentView>> {
    let mut out: HashMap<Option<i32>, Vec<AttachmentView>> = HashMap::new();
    for a in &listed.attachments {
        out.entry(a.comment_id).or_default().push(AttachmentView {
            name: a.filename.clone(),
            url: state.url_key.link(a.id, user.actor.id()),
            is_image: a.content_type.starts_with("image/")
                && attachments::is_inline(&a.content_type),
            size: user.lang.size(a.size),
        });
    }
    out
}
