//! Attachments: files on a ticket or on one of its comments. Who may read them is decided here once: an
//! attachment is seen by whoever sees its ticket, and one on a comment only by whoever may read that
//! comment (so one on an internal note is internal, [`comments::can_read`]). Every read takes the viewer.
//! Uploading lives in `upload`, the bytes' checks in `content`, signed download links in `signed`, the
//! blob rows that let instances collect unused bytes safely in `blobs`, and the batch reads of what a
//! viewer may see in `readable`.
mod blobs;
mod content;
mod lists;
mod signed;
mod upload;

pub use blobs::{collect, collect_forever, GRACE, RETENTION};
pub use content::{clean_filename, content_disposition, detect_type, is_inline};
pub use lists::{readable_by_comment, readable_by_ticket};
pub use signed::{open_signed, SignedQuery, UrlKey, LINK_SECONDS};
pub use upload::{
    check, create, insert, spool, spool_file, stage, too_large, NewAttachment, Spooled, Staged,
    MAX_FILES_PER_POST,
};

use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::{comments, tickets, users, Take};
use crate::storage::{BlobStore, ByteStream};
use chrono::Utc;
use entity::{attachment, comment, ticket, user};
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, IntoActiveModel, Set};
use serde_json::json;
use std::collections::HashMap;

/// Attachments with the people who uploaded them (as the viewer may see them).
#[derive(Debug, Default, Clone)]
pub struct Listed {
    /// Oldest first.
    pub attachments: Vec<attachment::Model>,
    /// Uploaders by id.
    pub uploaders: HashMap<i32, user::Model>,
}

impl Listed {
    /// The uploader of `a`, if still known.
    pub fn uploader(&self, a: &attachment::Model) -> Option<&user::Model> {
        a.uploaded_by_id.and_then(|id| self.uploaders.get(&id))
    }
}

/// Whether `actor` may see `a`, an attachment of `t`, hanging on `on_comment` when it names a comment.
pub fn can_read(
    actor: &Actor,
    t: &ticket::Model,
    a: &attachment::Model,
    on_comment: Option<&comment::Model>,
) -> bool {
    let comment_ok = match a.comment_id {
        None => true,
        Some(id) => on_comment.is_some_and(|c| {
            c.id == id && c.ticket_id == t.id && !c.is_deleted && comments::can_read(actor, t, c)
        }),
    };
    a.deleted_at.is_none()
        && a.ticket_id == t.id
        && t.archived_at.is_none()
        && tickets::rules::can_see(actor, t)
        && comment_ok
}

/// Whether `a` is internal: it hangs on an internal comment.
pub fn is_internal(on_comment: Option<&comment::Model>) -> bool {
    on_comment.is_some_and(|c| c.comment_type == crate::domain::CommentType::Internal)
}

/// Whether the actor may delete `a`: its uploader, or staff/admin.
pub fn can_delete(actor: &Actor, a: &attachment::Model) -> bool {
    a.uploaded_by_id == Some(actor.id()) || actor.is_staff_or_admin()
}

/// A live attachment the actor may see, with its ticket and comment; 404 for anything else.
pub async fn get_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i32,
) -> AppResult<(attachment::Model, ticket::Model, Option<comment::Model>)> {
    let missing = || AppError::not_found("attachment");
    let a = attachment::Entity::find_by_id(id)
        .one(db)
        .await?
        .filter(|a| a.deleted_at.is_none())
        .ok_or_else(missing)?;
    let t = tickets::get(db, actor, a.ticket_id)
        .await
        .map_err(|err| match err {
            AppError::NotFound(_) => missing(),
            other => other,
        })?;
    let c = match a.comment_id {
        Some(cid) => comment::Entity::find_by_id(cid).one(db).await?,
        None => None,
    };
    if !can_read(actor, &t, &a, c.as_ref()) {
        return Err(missing());
    }
    Ok((a, t, c))
}

/// [`get_visible`] with the uploader as the actor may see them.
pub async fn get_listed(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<Listed> {
    let (a, _, _) = get_visible(db, actor, id).await?;
    with_uploaders(db, actor, vec![a]).await
}

async fn with_uploaders(
    db: &impl ConnectionTrait,
    actor: &Actor,
    attachments: Vec<attachment::Model>,
) -> AppResult<Listed> {
    let ids: Vec<i32> = attachments
        .iter()
        .filter_map(|a| a.uploaded_by_id)
        .collect();
    let uploaders = if ids.is_empty() {
        HashMap::new()
    } else {
        users::people(db, actor, ids).await?
    };
    Ok(Listed {
        attachments,
        uploaders,
    })
}

/// The attachments of `t` the actor may see, oldest first; 404 when they cannot see `t`.
pub async fn list_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<Listed> {
    if t.archived_at.is_some() || !tickets::rules::can_see(actor, t) {
        return Err(AppError::not_found("ticket"));
    }
    let mut found = readable_by_ticket(db, actor, &[t.id], Take::All).await?;
    let list = found.remove(&t.id).unwrap_or_default();
    with_uploaders(db, actor, list).await
}

/// [`list_visible`] of a ticket read through `service::tickets` with `Joined::attachments`: no statement
/// when the read found none.
pub async fn list_visible_of(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
    read: &tickets::TicketPage,
) -> AppResult<Listed> {
    match &read.with_attachments {
        Some(with) if !with.contains(&t.id) => Ok(Listed::default()),
        _ => list_visible(db, actor, t).await,
    }
}

/// The bytes of an attachment the actor may see (404 otherwise), from `storage`, with its row.
pub async fn open(
    db: &Db,
    storage: &dyn BlobStore,
    actor: &Actor,
    id: i32,
) -> AppResult<(attachment::Model, ByteStream)> {
    let (a, _, _) = get_visible(&db.conn, actor, id).await?;
    let bytes = storage.get(&a.sha256).await.map_err(AppError::internal)?;
    Ok((a, bytes))
}

/// Soft-delete an attachment (its uploader, or staff/admin): it leaves every list and answers 404 from then
/// on; the bytes stay (other attachments may share them).
pub async fn delete(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    let txn = db.begin_write().await?;
    let (a, t, c) = get_visible(&txn, actor, id).await?;
    if !can_delete(actor, &a) {
        return Err(AppError::forbidden(
            "only the uploader or staff may delete this attachment",
        ));
    }
    let mut active = a.into_active_model();
    active.deleted_at = Set(Some(Utc::now()));
    let deleted = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "attachment", deleted.id, "delete")
            .ticket(t.id)
            .internal(is_internal(c.as_ref()))
            .changes(json!({ "filename": [deleted.filename, null] })),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}
