//! `Attachment`: a file on a ticket or on one of its comments, only ever built for a viewer who may see it.
use super::{Comment, User};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::ids;
use crate::graphql::loaders::comments::TicketCommentsKey;
use crate::graphql::loaders::viewer::VisibleTicketKey;
use async_graphql::{Context, Object, Result, ID};
use chrono::{DateTime, Utc};
use entity::attachment;

/// A file on a ticket, or on one of its comments (internal when the comment is).
pub struct Attachment(pub attachment::Model);

/// A file on a ticket, or on one of its comments (internal when the comment is).
#[Object]
impl Attachment {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Attachment", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// The uploaded name, without path parts or control characters.
    async fn filename(&self) -> &str {
        &self.0.filename
    }

    /// Detected from the bytes at upload, not taken from the client.
    async fn content_type(&self) -> &str {
        &self.0.content_type
    }

    /// Bytes.
    async fn size(&self) -> i64 {
        self.0.size
    }

    /// A download link signed for the viewer, usable without credentials (`<img src>`) for 15 minutes,
    /// and only while the viewer may still see the file.
    async fn url(&self, ctx: &Context<'_>) -> Result<String> {
        let (req, actor) = viewer(ctx)?;
        Ok(req.state.url_key.link(self.0.id, actor.id()))
    }

    /// Who uploaded it (null when the account is gone).
    async fn uploaded_by(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        let Some(id) = self.0.uploaded_by_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        Ok(req.user(id).await?.map(User))
    }

    /// The comment it was posted with (null for a file on the ticket itself). Whoever sees the file may read
    /// the comment: a file shares its comment's visibility.
    async fn comment(&self, ctx: &Context<'_>) -> Result<Option<Comment>> {
        let Some(comment_id) = self.0.comment_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        // Both batched per request: every file of a page costs the same two reads.
        let ticket = req
            .visible
            .load_one(VisibleTicketKey(self.0.ticket_id))
            .await
            .map_err(load_error)?;
        let Some(ticket) = ticket else {
            return Ok(None);
        };
        let found = req
            .visible
            .load_one(TicketCommentsKey(self.0.ticket_id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(found
            .comments
            .iter()
            .find(|c| c.id == comment_id)
            .cloned()
            .map(|c| Comment::new(c, std::sync::Arc::new(ticket))))
    }

    /// When it was uploaded.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }
}
