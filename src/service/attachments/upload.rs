//! Uploading: the bytes are spooled to an unnamed temporary file while they are counted and hashed (memory
//! holds one piece at a time), stored once per content, then the row, its audit record and its outbox rows
//! commit in one transaction.
use super::content::{clean_filename, detect_type, HEAD_BYTES};
use super::{blobs, is_internal};
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::events;
use crate::service::{audit, comments, tickets, WriteDeps};
use crate::storage::BlobStore;
use bytes::Bytes;
use chrono::Utc;
use entity::{attachment, comment, ticket};
use futures_util::{Stream, StreamExt};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::io::{Seek, Write};

/// Most files one post may carry (a GraphQL multipart request, a web form): together they are bounded by
/// the upload limit too, since the request body is.
pub const MAX_FILES_PER_POST: usize = 10;

/// An upload's bytes, spooled and measured.
#[derive(Debug)]
pub struct Spooled {
    pub(super) file: std::fs::File,
    /// Lowercase hex SHA-256 of the bytes.
    pub sha256: String,
    /// Length in bytes.
    pub size: u64,
    head: Vec<u8>,
}

/// Read an upload's bytes to a temporary file, refusing more than `max` bytes with 413. `E` is the
/// transport's error (a broken or oversized request body).
pub async fn spool<S, E>(mut bytes: S, max: u64) -> AppResult<Spooled>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: Into<AppError>,
{
    let mut file = tempfile::tempfile().map_err(AppError::internal)?;
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut head = Vec::new();
    while let Some(piece) = bytes.next().await {
        let piece = piece.map_err(Into::into)?;
        size += piece.len() as u64;
        if size > max {
            return Err(too_large(max));
        }
        if head.len() < HEAD_BYTES {
            let take = (HEAD_BYTES - head.len()).min(piece.len());
            head.extend_from_slice(&piece[..take]);
        }
        hasher.update(&piece);
        // Small pieces go straight to the page cache; a blocking thread per piece would cost more.
        file.write_all(&piece).map_err(AppError::internal)?;
    }
    Ok(Spooled {
        file,
        sha256: hex::encode(hasher.finalize()),
        size,
        head,
    })
}

/// Measure and hash an upload another layer has already written to `file` (GraphQL multipart requests),
/// keeping that file rather than copying it; more than `max` bytes is a 413.
pub async fn spool_file(file: std::fs::File, max: u64) -> AppResult<Spooled> {
    let measured = tokio::task::spawn_blocking(move || -> std::io::Result<AppResult<Spooled>> {
        use std::io::Read;
        let mut file = file;
        file.rewind()?;
        let mut hasher = Sha256::new();
        let mut size: u64 = 0;
        let mut head = Vec::new();
        let mut buf = vec![0u8; crate::storage::CHUNK_BYTES];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            if size > max {
                return Ok(Err(too_large(max)));
            }
            if head.len() < HEAD_BYTES {
                let take = (HEAD_BYTES - head.len()).min(n);
                head.extend_from_slice(&buf[..take]);
            }
            hasher.update(&buf[..n]);
        }
        Ok(Ok(Spooled {
            file,
            sha256: hex::encode(hasher.finalize()),
            size,
            head,
        }))
    })
    .await
    .map_err(AppError::internal)?;
    measured.map_err(AppError::internal)?
}

/// The 413 of an upload over the limit.
pub fn too_large(max: u64) -> AppError {
    AppError::PayloadTooLarge(format!("the file exceeds the upload limit of {max} bytes"))
}

/// Where a new attachment goes, and the name the client gave it.
#[derive(Debug, Clone)]
pub struct NewAttachment {
    /// The ticket.
    pub ticket_id: i32,
    /// One of its comments, which the actor wrote (or any, for staff).
    pub comment_id: Option<i32>,
    /// The client's file name; cleaned here.
    pub filename: String,
}

/// The cleaned name of an upload, or the 400 on `file` that [`create`] would answer: a name with nothing left
/// once cleaned, or an empty file (for forms that check before they create what the file hangs on).
pub fn check(filename: &str, upload: &Spooled) -> AppResult<String> {
    let filename = clean_filename(filename)?;
    if upload.size == 0 {
        return Err(AppError::field("file", "the file is empty"));
    }
    Ok(filename)
}

/// Attach `upload` to a ticket the actor can see (404 otherwise), or to one of its comments that they may
/// read and modify. An empty file or a name with nothing left once cleaned is a 400 on `file`. The bytes go
/// to `storage`.
pub async fn create(
    deps: WriteDeps<'_>,
    storage: &dyn BlobStore,
    actor: &Actor,
    input: NewAttachment,
    upload: Spooled,
) -> AppResult<attachment::Model> {
    // Bad input is a 400 before anything is looked up.
    check(&input.filename, &upload)?;
    let db = &deps.db.conn;
    let t = tickets::get(db, actor, input.ticket_id).await?;
    let on_comment = match input.comment_id {
        None => None,
        Some(id) => {
            let (c, _) = comments::get_visible(db, actor, id).await?;
            if c.ticket_id != t.id {
                return Err(AppError::field("comment", "not a comment of this ticket"));
            }
            if !comments::can_modify(actor, &c) {
                return Err(AppError::forbidden(
                    "only the comment's author or staff may attach files to it",
                ));
            }
            Some(c)
        }
    };
    let staged = stage(deps.db, storage, input.filename, upload).await?;
    let txn = deps.db.begin_write().await?;
    let created = insert(&txn, actor, &t, on_comment.as_ref(), staged).await?;
    events::attachment_added(&txn, deps.config, actor, &t, &created, on_comment.as_ref()).await?;
    txn.commit().await?;
    Ok(created)
}

/// An upload whose name is checked and whose bytes are stored: what a transaction names with
/// [`insert`].
#[derive(Debug)]
pub struct Staged {
    filename: String,
    content_type: String,
    upload: Spooled,
}

/// Check an upload's name and size ([`check`]) and store its bytes, before the transaction that names
/// them in `storage`.
pub async fn stage(
    db: &Db,
    storage: &dyn BlobStore,
    filename: String,
    upload: Spooled,
) -> AppResult<Staged> {
    let filename = check(&filename, &upload)?;
    let content_type = detect_type(&upload.head);
    blobs::store(db, storage, &upload).await?;
    Ok(Staged {
        filename,
        content_type,
        upload,
    })
}

/// In `txn`: the row of `staged` on `t` (on `on_comment`, already checked to be one of its comments that
/// the actor may modify) and its audit record. Its events are the caller's: [`create`] announces it alone,
/// a comment posted with files announces them with the comment.
pub async fn insert(
    txn: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    on_comment: Option<&comment::Model>,
    staged: Staged,
) -> AppResult<attachment::Model> {
    blobs::still_stored(txn, &staged.upload.sha256).await?;
    let created = attachment::ActiveModel {
        ticket_id: Set(t.id),
        comment_id: Set(on_comment.map(|c| c.id)),
        filename: Set(staged.filename),
        content_type: Set(staged.content_type),
        size: Set(staged.upload.size as i64),
        sha256: Set(staged.upload.sha256.clone()),
        uploaded_by_id: Set(Some(actor.id())),
        created_at: Set(Utc::now()),
        deleted_at: Set(None),
        ..Default::default()
    }
    .insert(txn)
    .await?;
    audit::record(
        txn,
        audit::Entry::new(Some(actor.id()), "attachment", created.id, "create")
            .ticket(t.id)
            .internal(is_internal(on_comment))
            .changes(json!({
                "filename": [null, created.filename],
                "size": [null, created.size],
            })),
    )
    .await?;
    Ok(created)
}
