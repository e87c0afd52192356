//! Batched loads of comments and their edit histories, one query per kind per request.
use super::loaders::{DbLoader, LoadError};
use crate::service::comments;
use entity::comment_edit;
use std::collections::HashMap;
use std::sync::Arc;

/// The comments of a ticket a viewer may read: internal ones only when `with_internal`
/// (decided by `service::comments::can_read_internal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketCommentsKey {
    /// Ticket id.
    pub ticket_id: i32,
    /// Whether the viewer may read internal comments on this ticket.
    pub with_internal: bool,
}

/// The edit history of a comment (unfiltered; resolvers apply `comments::readable_edits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommentEditsKey(pub i32);

impl async_graphql::dataloader::Loader<TicketCommentsKey> for DbLoader {
    // Every readable comment of the ticket; pages are cut in the resolver, so one query serves any
    // `first`/`after` on every ticket of a page.
    type Value = Arc<comments::TicketComments>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TicketCommentsKey],
    ) -> Result<HashMap<TicketCommentsKey, Self::Value>, LoadError> {
        let ids = |internal: bool| -> Vec<i32> {
            keys.iter()
                .filter(|k| k.with_internal == internal)
                .map(|k| k.ticket_id)
                .collect()
        };
        let by_ticket = comments::live_by_ticket(self.conn(), &ids(false), &ids(true))
            .await
            .map_err(Arc::new)?;
        let mut by_ticket: HashMap<i32, Arc<comments::TicketComments>> = by_ticket
            .into_iter()
            .map(|(id, found)| (id, Arc::new(found)))
            .collect();
        Ok(keys
            .iter()
            .map(|k| {
                let found = by_ticket.entry(k.ticket_id).or_default().clone();
                (*k, found)
            })
            .collect())
    }
}

impl async_graphql::dataloader::Loader<CommentEditsKey> for DbLoader {
    type Value = Vec<comment_edit::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[CommentEditsKey],
    ) -> Result<HashMap<CommentEditsKey, Self::Value>, LoadError> {
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let by_comment = comments::edits_by_comment(self.conn(), &ids)
            .await
            .map_err(Arc::new)?;
        Ok(by_comment
            .into_iter()
            .map(|(id, list)| (CommentEditsKey(id), list))
            .collect())
    }
}
