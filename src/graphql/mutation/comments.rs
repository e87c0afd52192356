//! Comment mutations: add, edit and delete, over `service::comments`.
use crate::domain::CommentType;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::Comment;
use crate::service::{comments, tickets};
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};
use std::sync::Arc;

/// Comment mutations.
#[derive(Default)]
pub struct CommentMutation;

/// A new comment.
#[derive(InputObject)]
pub struct AddCommentInput {
    /// The ticket.
    ticket_id: ID,
    /// HTML, sanitised; at most 64 KiB.
    body: String,
    /// Default PUBLIC.
    comment_type: Option<CommentType>,
}

/// A change to a comment; give the body, the type, or both.
#[derive(InputObject)]
pub struct EditCommentInput {
    /// The comment.
    id: ID,
    /// New HTML body.
    body: Option<String>,
    /// New type.
    comment_type: Option<CommentType>,
}

/// Names one comment.
#[derive(InputObject)]
pub struct DeleteCommentInput {
    /// The comment.
    id: ID,
}

/// The new comment.
#[derive(SimpleObject)]
pub struct AddCommentPayload {
    /// The comment as stored.
    comment: Comment,
}

/// The edited comment.
#[derive(SimpleObject)]
pub struct EditCommentPayload {
    /// The comment after the edit.
    comment: Comment,
}

/// The deleted comment's id.
#[derive(SimpleObject)]
pub struct DeleteCommentPayload {
    /// Global id of the deleted comment.
    deleted_comment_id: ID,
}

#[Object]
impl CommentMutation {
    /// Comment on a ticket the viewer can see; internal comments only for those who may read them.
    async fn add_comment(
        &self,
        ctx: &Context<'_>,
        input: AddCommentInput,
    ) -> Result<AddCommentPayload> {
        let (req, actor) = viewer(ctx)?;
        let ticket_id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let new = comments::NewComment {
            body: input.body,
            comment_type: input.comment_type.unwrap_or(CommentType::Public),
        };
        let created = comments::create(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            ticket_id,
            new,
        )
        .await?;
        let t = tickets::get(&req.state.db.conn, &actor, created.ticket_id).await?;
        Ok(AddCommentPayload {
            comment: Comment::new(created, Arc::new(t)),
        })
    }

    /// Edit a comment (its author, or staff/admin); the previous text goes to its history.
    async fn edit_comment(
        &self,
        ctx: &Context<'_>,
        input: EditCommentInput,
    ) -> Result<EditCommentPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Comment", "id")?;
        let patch = comments::CommentPatch {
            body: input.body,
            comment_type: input.comment_type,
        };
        let updated = comments::edit(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
            patch,
        )
        .await?;
        let t = tickets::get(&req.state.db.conn, &actor, updated.ticket_id).await?;
        Ok(EditCommentPayload {
            comment: Comment::new(updated, Arc::new(t)),
        })
    }

    /// Delete a comment (its author, or staff/admin); it leaves every list and count.
    async fn delete_comment(
        &self,
        ctx: &Context<'_>,
        input: DeleteCommentInput,
    ) -> Result<DeleteCommentPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Comment", "id")?;
        comments::delete(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &actor,
            id,
        )
        .await?;
        Ok(DeleteCommentPayload {
            deleted_comment_id: ids::encode("Comment", id),
        })
    }
}
