//! Batched loads of comments and their earlier versions for the request's viewer, one query per kind
//! per request; the service applies the viewer's visibility inside each query.
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::loaders::viewer::ViewerLoader;
use crate::graphql::loaders::LoadError;
use crate::service::{comments, Take};
use entity::comment_edit;
use std::collections::HashMap;
use std::sync::Arc;

/// The comments of a ticket that the viewer may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketCommentsKey(pub i32);

/// The earlier versions of a comment that the viewer may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommentEditsKey(pub i32);

impl async_graphql::dataloader::Loader<TicketCommentsKey> for ViewerLoader {
    // Every readable comment of the ticket; pages are cut in the resolver, so one query serves any
    // `first`/`after` on every ticket of a page.
    type Value = Arc<comments::TicketComments>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TicketCommentsKey],
    ) -> Result<HashMap<TicketCommentsKey, Self::Value>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let by_ticket = comments::live_by_ticket(db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(by_ticket
            .into_iter()
            .map(|(id, found)| (TicketCommentsKey(id), Arc::new(found)))
            .collect())
    }
}

impl async_graphql::dataloader::Loader<CommentEditsKey> for ViewerLoader {
    type Value = Vec<comment_edit::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[CommentEditsKey],
    ) -> Result<HashMap<CommentEditsKey, Self::Value>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let by_comment = comments::readable_edits(db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(by_comment
            .into_iter()
            .map(|(id, list)| (CommentEditsKey(id), list))
            .collect())
    }
}
