//! Batched loads of attachments for the request's viewer: one set of statements per kind per request, the
//! service deciding what the viewer may see.
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::loaders::viewer::ViewerLoader;
use crate::graphql::loaders::LoadError;
use crate::service::{attachments, Take};
use entity::attachment;
use std::collections::HashMap;
use std::sync::Arc;

/// The attachments of a ticket (on it or on its comments) that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketAttachmentsKey(pub i32);

/// The attachments of a comment that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommentAttachmentsKey(pub i32);

impl async_graphql::dataloader::Loader<TicketAttachmentsKey> for ViewerLoader {
    type Value = Vec<attachment::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TicketAttachmentsKey],
    ) -> Result<HashMap<TicketAttachmentsKey, Self::Value>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = attachments::readable_by_ticket(db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(found
            .into_iter()
            .map(|(id, list)| (TicketAttachmentsKey(id), list))
            .collect())
    }
}

impl async_graphql::dataloader::Loader<CommentAttachmentsKey> for ViewerLoader {
    type Value = Vec<attachment::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[CommentAttachmentsKey],
    ) -> Result<HashMap<CommentAttachmentsKey, Self::Value>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = attachments::readable_by_comment(db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(found
            .into_iter()
            .map(|(id, list)| (CommentAttachmentsKey(id), list))
            .collect())
    }
}
