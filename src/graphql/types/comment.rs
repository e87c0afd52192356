//! `Comment`, `CommentEdit` and the `Ticket.comments` connection.
use super::{Attachment, Ticket, User};
use crate::domain::CommentType;
use crate::error::AppError;
use crate::graphql::attachment_loader::CommentAttachmentsKey;
use crate::graphql::comment_loader::{CommentEditsKey, TicketCommentsKey};
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo, Window};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::cost::capped;
use crate::graphql::ids;
use crate::graphql::plain::{self, plain_output, Env, Plain};
use crate::graphql::prefetch;
use crate::service::comments;
use async_graphql::parser::types::Field;
use async_graphql::resolver_utils::enum_value;
use async_graphql::{Context, Object, Result, ScalarType, SimpleObject, Value, ID};
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
    fn fields(&self) -> CommentFields<'_> {
        CommentFields(self)
    }

    /// Global id (what the `Node` interface asks each of its types).
    pub async fn id(&self, _ctx: &Context<'_>) -> Result<ID> {
        Ok(ids::encode("Comment", self.comment.id))
    }
}

plain_output!(Comment, CommentFields);

impl Plain for Comment {
    const NAME: &'static str = "Comment";
    const INTERFACES: &'static [&'static str] = &["Node"];

    fn field(&self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let c = &self.comment;
        Some(match field.name.node.as_str() {
            "id" => Value::String(ids::encode("Comment", c.id).0),
            "databaseId" => Value::from(c.id),
            "ticket" => plain::object(
                &Ticket((*self.ticket).clone()),
                &field.selection_set.node,
                env,
            )?,
            "author" => plain::user(c.author_id, field, env)?,
            "body" => Value::String(c.body.clone()),
            "commentType" => enum_value(CommentType::from_db(&c.comment_type).ok()?),
            "isInternal" => Value::Boolean(c.comment_type == CommentType::Internal.as_str()),
            "isEdited" => Value::Boolean(c.edit_count > 0),
            "editCount" => Value::from(c.edit_count),
            "editedAt" => c.edited_at.map_or(Value::Null, |at| at.to_value()),
            "editedBy" => plain::user(c.edited_by_id, field, env)?,
            "createdAt" => c.created_at.to_value(),
            "updatedAt" => c.updated_at.to_value(),
            "viewerCanUpdate" | "viewerCanDelete" => {
                Value::Boolean(comments::can_modify(&env.actor, c))
            }
            _ => return None,
        })
    }
}

/// The resolvers of every `Comment` field, for selections that are not plain.
pub struct CommentFields<'a>(&'a Comment);

impl std::ops::Deref for CommentFields<'_> {
    type Target = Comment;

    fn deref(&self) -> &Comment {
        self.0
    }
}

async fn user(ctx: &Context<'_>, id: Option<i32>) -> Result<Option<User>> {
    let Some(id) = id else { return Ok(None) };
    let (req, _) = viewer(ctx)?;
    Ok(req.user(id).await?.map(User))
}

#[Object(name = "Comment")]
impl<'a> CommentFields<'a> {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Comment", self.comment.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.comment.id
    }

    /// The ticket it belongs to.
    async fn ticket(&self) -> Ticket {
        Ticket((*self.ticket).clone())
    }

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
        Ok(capped(found).map(Attachment).collect())
    }

    /// Who wrote it (null when the account is gone).
    async fn author(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.comment.author_id).await
    }

    /// Sanitised HTML.
    async fn body(&self) -> &str {
        &self.comment.body
    }

    /// Public or internal.
    async fn comment_type(&self) -> Result<CommentType> {
        Ok(CommentType::from_db(&self.comment.comment_type)?)
    }

    /// Whether only the team, the assignee and the assigned group may read it.
    async fn is_internal(&self) -> bool {
        self.comment.comment_type == CommentType::Internal.as_str()
    }

    /// Whether it was edited at least once.
    async fn is_edited(&self) -> bool {
        self.comment.edit_count > 0
    }

    /// How many times it was edited.
    async fn edit_count(&self) -> i32 {
        self.comment.edit_count
    }

    /// Last edit.
    async fn edited_at(&self) -> Option<DateTime<Utc>> {
        self.comment.edited_at
    }

    /// Who edited it last.
    async fn edited_by(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.comment.edited_by_id).await
    }

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
        Ok(capped(shown).map(CommentEdit).collect())
    }

    /// Creation time.
    async fn created_at(&self) -> DateTime<Utc> {
        self.comment.created_at
    }

    /// Last change.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.comment.updated_at
    }

    /// Whether the viewer may edit it (its author, or staff/admin).
    async fn viewer_can_update(&self, ctx: &Context<'_>) -> Result<bool> {
        let (_, actor) = viewer(ctx)?;
        Ok(comments::can_modify(&actor, &self.comment))
    }

    /// Whether the viewer may delete it (its author, or staff/admin).
    async fn viewer_can_delete(&self, ctx: &Context<'_>) -> Result<bool> {
        let (_, actor) = viewer(ctx)?;
        Ok(comments::can_modify(&actor, &self.comment))
    }
}

/// One earlier version of a comment.
pub struct CommentEdit(pub comment_edit::Model);

#[Object]
impl CommentEdit {
    /// When the edit was made.
    async fn edited_at(&self) -> DateTime<Utc> {
        self.0.edited_at
    }

    /// Who made it.
    async fn edited_by(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        user(ctx, self.0.edited_by_id).await
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
        req.feed_users(authors);
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
