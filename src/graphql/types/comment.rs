//! `Comment` (each field once, [`fields!`]), `CommentEdit` and the `Ticket.comments` connection.
use super::{Attachment, Ticket, User};
use crate::domain::CommentType;
use crate::error::AppError;
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo, Window};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::engine::one_pass::{fields, plain_output, Answer, Nested, UserOf};
use crate::graphql::engine::prefetch;
use crate::graphql::ids;
use crate::graphql::loaders::attachments::CommentAttachmentsKey;
use crate::graphql::loaders::comments::{CommentEditsKey, TicketCommentsKey};
use crate::service::comments;
use async_graphql::{Context, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::{comment, comment_edit, ticket};
use std::sync::Arc;

/// A comment on a ticket, public or internal. Only ever built for a viewer who may read it.
pub struct Comment {
    /// The comment row.
    pub comment: comment::Model,
    /// Its ticket, which the viewer can see.
    pub ticket: Arc<ticket::Model>,
}

impl Comment {
    /// Wrap a comment the viewer may read, with its ticket.
    pub fn new(comment: comment::Model, ticket: Arc<ticket::Model>) -> Self {
        Comment { comment, ticket }
    }
}

impl Comment {
    /// Whether `actor` may see any of its edits ([`comments::seen_by`]).
    fn edits_seen(&self, actor: &crate::auth::Actor) -> bool {
        comments::visible_edit_count(actor, &self.ticket, &self.comment) > 0
    }

    fn fields(&self) -> CommentFields<'_> {
        CommentFields(self)
    }

    /// Global id (what the `Node` interface asks each of its types).
    pub async fn id(&self, _ctx: &Context<'_>) -> Result<ID> {
        Ok(ids::encode("Comment", self.comment.id))
    }
}

plain_output!(Comment, CommentFields);

/// The resolvers of every `Comment` field, for selections that are not plain.
pub struct CommentFields<'a>(&'a Comment);

impl std::borrow::Borrow<Comment> for CommentFields<'_> {
    fn borrow(&self) -> &Comment {
        self.0
    }
}

impl std::ops::Deref for CommentFields<'_> {
    type Target = Comment;

    fn deref(&self) -> &Comment {
        self.0
    }
}

fields! {
    /// A comment on a ticket, public or internal; an internal one only reaches those who may read it.
    impl<'a> CommentFields<'a> as "Comment" for Comment, interfaces ["Node"];
    /// Global id.
    id: ID = |c| ids::encode("Comment", c.comment.id);
    /// The integer id used by REST.
    databaseId: i32 = |c| c.comment.id;
    /// The ticket it belongs to.
    ticket: Ticket = |c| Nested(Ticket((*c.ticket).clone()));
    /// The files on this comment that the viewer may see (those of an internal comment only for viewers
    /// who may read it), oldest first.
    async fn attachments(&self, ctx: &Context<'_>) -> Result<Vec<Attachment>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(CommentAttachmentsKey(self.comment.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(found.into_iter().map(Attachment).collect())
    }

    /// Who wrote it (null when the account is gone).
    author: Option<User> = |c| UserOf(c.comment.author_id);
    /// Sanitised HTML.
    body: String = |c| c.comment.body.clone();
    /// Public or internal.
    commentType: CommentType = |c| c.comment.comment_type;
    /// Whether only the team, the assignee and the assigned group may read it.
    isInternal: bool = |c| c.comment.comment_type == CommentType::Internal;
    /// Whether it was edited at least once, counting only the edits the viewer may see.
    isEdited: bool = |c, actor| comments::visible_edit_count(actor, &c.ticket, &c.comment) > 0;
    /// How many times it was edited: the versions the viewer may see (`edits`, uncut).
    editCount: i32 = |c, actor| comments::visible_edit_count(actor, &c.ticket, &c.comment);
    /// Last edit (null when the viewer may see none of its edits).
    editedAt: Option<DateTime<Utc>> = |c, actor| c.edits_seen(actor).then_some(c.comment.edited_at).flatten();
    /// Who edited it last (null when the viewer may see none of its edits).
    editedBy: Option<User> = |c, actor| UserOf(c.edits_seen(actor).then_some(c.comment.edited_by_id).flatten());
    /// Earlier versions, oldest first; versions that were internal are left out for viewers who
    /// may not read internal comments.
    async fn edits(&self, ctx: &Context<'_>) -> Result<Vec<CommentEdit>> {
        let (req, _) = viewer(ctx)?;
        let shown = req
            .visible
            .load_one(CommentEditsKey(self.comment.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(shown.into_iter().map(CommentEdit).collect())
    }

    /// Creation time.
    createdAt: DateTime<Utc> = |c| c.comment.created_at;
    /// Last change.
    updatedAt: DateTime<Utc> = |c| c.comment.updated_at;
    /// Whether the viewer may edit it (its author, or staff/admin).
    viewerCanUpdate: bool = |c, actor| comments::can_modify(actor, &c.comment);
    /// Whether the viewer may delete it (its author, or staff/admin).
    viewerCanDelete: bool = |c, actor| comments::can_modify(actor, &c.comment);
}

/// One earlier version of a comment.
pub struct CommentEdit(pub comment_edit::Model);

/// One earlier version of a comment.
#[Object]
impl CommentEdit {
    /// When the edit was made.
    async fn edited_at(&self) -> DateTime<Utc> {
        self.0.edited_at
    }

    /// Who made it.
    async fn edited_by(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        Answer::load(UserOf(self.0.edited_by_id), ctx).await
    }

    /// The text before the edit.
    async fn previous_body(&self) -> &str {
        &self.0.previous_body
    }
}

/// An edge of a comment list.
#[derive(SimpleObject)]
pub struct CommentEdge {
    /// Opaque cursor.
    cursor: String,
    /// The comment.
    node: Comment,
}

/// A page of the comments of a ticket, oldest first.
#[derive(SimpleObject)]
pub struct CommentConnection {
    /// Edges with cursors.
    edges: Vec<CommentEdge>,
    /// The comments of this page.
    nodes: Vec<Comment>,
    /// Paging state.
    page_info: PageInfo,
    /// Comments the viewer may read, over all pages.
    total_count: i64,
}

/// `Ticket.comments`: a forward page of the live comments of `t` the viewer may read.
pub async fn connection(
    ctx: &Context<'_>,
    t: &ticket::Model,
    first: Option<i32>,
    after: Option<String>,
) -> Result<CommentConnection> {
    let (req, _) = viewer(ctx)?;
    let window = PageArgs {
        first,
        after,
        ..Default::default()
    }
    .window()?;
    let Window::Forward { .. } = window else {
        return Err(AppError::bad_request("comments are paged forward only").into());
    };
    let page = slice(window, None);
    let found = req
        .visible
        .load_one(TicketCommentsKey(t.id))
        .await
        .map_err(load_error)?
        .unwrap_or_default();
    let all = &found.comments;
    let start = usize::try_from(page.offset)
        .unwrap_or(usize::MAX)
        .min(all.len());
    let end = start
        .saturating_add(usize::try_from(page.limit).unwrap_or(usize::MAX))
        .min(all.len());
    let ticket = Arc::new(t.clone());
    let rows = &all[start..end];
    if prefetch::connection_wants(&ctx.look_ahead(), "author") {
        // Read with the comments: kept for this request so `author` costs no statement of its own.
        let authors = rows
            .iter()
            .filter_map(|c| c.author_id)
            .filter_map(|id| found.authors.get(&id))
            .cloned();
        req.add_page_users(authors);
    }
    let edges = rows
        .iter()
        .enumerate()
        .map(|(i, c)| CommentEdge {
            cursor: cursor(page.offset + i as u64),
            node: Comment::new(c.clone(), ticket.clone()),
        })
        .collect();
    Ok(CommentConnection {
        edges,
        nodes: rows
            .iter()
            .map(|c| Comment::new(c.clone(), ticket.clone()))
            .collect(),
        page_info: page_info(page, rows.len(), end < all.len()),
        total_count: all.len() as i64,
    })
}
