//! Attachments: files on a ticket or on one of its comments. Who may read them is decided here once: an
//! attachment is seen by whoever sees its ticket, and one on a comment only by whoever may read that
//! comment (so one on an internal note is internal, [`comments::can_read`]). Every read takes the viewer.
//! Uploading lives in `upload`, the bytes' checks in `content`, signed download links in `signed`, the
//! blob rows that let instances collect unused bytes safely in `blobs`.
mod blobs;
mod content;
mod signed;
mod upload;

pub use blobs::{collect, collect_forever, GRACE, RETENTION};
pub use content::{clean_filename, content_disposition, detect_type, is_inline};
pub use signed::{open_signed, SignedQuery, UrlKey, LINK_SECONDS};
pub use upload::{
    check, create, insert, spool, spool_file, stage, too_large, NewAttachment, Spooled, Staged,
};

use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::{comments, tickets, users, Rank, Take};
use crate::storage::{BlobStore, ByteStream};
use chrono::Utc;
use entity::{attachment, comment, ticket, user};
use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef, Order};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, IntoActiveModel,
    JoinType, QueryFilter, QueryOrder, QuerySelect, RelationDef, Set,
};
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

/// The live attachments the actor may see of each of the tickets `ticket_ids`, oldest first, by ticket
/// id; tickets without any (or that the actor cannot see) are absent. Three statements at most; `take` may
/// cut each ticket's list.
pub async fn readable_by_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<attachment::Model>>> {
    let rows = readable_rows(
        db,
        actor,
        attachment::Column::TicketId.is_in(ticket_ids.iter().copied()),
        (take, attachment::Column::TicketId),
    )
    .await?;
    let mut out: HashMap<i32, Vec<attachment::Model>> = HashMap::new();
    for a in rows {
        out.entry(a.ticket_id).or_default().push(a);
    }
    Ok(out)
}

/// The live attachments the actor may see of each of the comments `comment_ids`, oldest first, by
/// comment id. Three statements at most; `take` may cut each comment's list.
pub async fn readable_by_comment(
    db: &impl ConnectionTrait,
    actor: &Actor,
    comment_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<attachment::Model>>> {
    let rows = readable_rows(
        db,
        actor,
        attachment::Column::CommentId.is_in(comment_ids.iter().copied()),
        (take, attachment::Column::CommentId),
    )
    .await?;
    let mut out: HashMap<i32, Vec<attachment::Model>> = HashMap::new();
    for a in rows {
        if let Some(cid) = a.comment_id {
            out.entry(cid).or_default().push(a);
        }
    }
    Ok(out)
}

/// The live attachments matching `filter` that [`can_read`] lets the actor see, oldest first, judged with
/// their tickets and comments as they are now; `take` cuts the list of each `parent`, counting only what
/// the actor may see ([`readable_in_sql`]).
async fn readable_rows(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: sea_orm::sea_query::SimpleExpr,
    (take, parent): (Take, attachment::Column),
) -> AppResult<Vec<attachment::Model>> {
    let select = attachment::Entity::find()
        .filter(filter)
        .filter(attachment::Column::DeletedAt.is_null());
    let rank = Rank {
        key: vec![(attachment::Entity, attachment::Column::Id).into_column_ref()],
        parent: (attachment::Entity, parent).into_column_ref(),
        order: vec![(
            (attachment::Entity, attachment::Column::Id).into_column_ref(),
            Order::Asc,
        )],
    };
    let rows = take
        .per_parent(select, rank, |all| readable_in_sql(all, actor))
        .order_by_asc(attachment::Column::Id)
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(rows);
    }
    let tickets: HashMap<i32, ticket::Model> = ticket::Entity::find()
        .filter(ticket::Column::Id.is_in(rows.iter().map(|a| a.ticket_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let comment_ids: Vec<i32> = rows.iter().filter_map(|a| a.comment_id).collect();
    let comments: HashMap<i32, comment::Model> = if comment_ids.is_empty() {
        HashMap::new()
    } else {
        comment::Entity::find()
            .filter(comment::Column::Id.is_in(comment_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|c| (c.id, c))
            .collect()
    };
    Ok(rows
        .into_iter()
        .filter(|a| {
            let c = a.comment_id.and_then(|id| comments.get(&id));
            tickets
                .get(&a.ticket_id)
                .is_some_and(|t| can_read(actor, t, a, c))
        })
        .collect())
}

/// `select` joined with the attachments' tickets and comments and restricted to what [`can_read`] lets the
/// actor see, for cutting lists in SQL; the rows are judged again by [`can_read`] once read.
fn readable_in_sql(
    select: sea_orm::Select<attachment::Entity>,
    actor: &Actor,
) -> sea_orm::Select<attachment::Entity> {
    let on_ticket: RelationDef = attachment::Entity::belongs_to(ticket::Entity)
        .from(attachment::Column::TicketId)
        .to(ticket::Column::Id)
        .into();
    let on_comment: RelationDef = attachment::Entity::belongs_to(comment::Entity)
        .from(attachment::Column::CommentId)
        .to(comment::Column::Id)
        .into();
    let comment_ok = Condition::any()
        .add(attachment::Column::CommentId.is_null())
        .add(
            Condition::all()
                .add(
                    Expr::col((comment::Entity, comment::Column::TicketId))
                        .equals((attachment::Entity, attachment::Column::TicketId)),
                )
                .add(comments::readable_by(actor)),
        );
    select
        .join(JoinType::InnerJoin, on_ticket)
        .join(JoinType::LeftJoin, on_comment)
        .filter(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .filter(tickets::rules::visible_to(actor))
        .filter(comment_ok)
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
