//! `tags` and `tagSettings`: the tag list with its use, for the team.
use crate::graphql::context::viewer;
use crate::graphql::types::Tag;
use crate::service::tags;
use async_graphql::{Context, Object, Result};

/// Queries about tags.
#[derive(Default)]
pub struct TagQuery;

#[Object]
impl TagQuery {
    /// Tags in use or curated, most used first, whose name contains `query`; at most `first` (default and
    /// most 100, as lists are priced). The team's: FORBIDDEN otherwise.
    async fn tags(
        &self,
        ctx: &Context<'_>,
        query: Option<String>,
        #[graphql(validator(minimum = 1, maximum = 100))] first: Option<i32>,
    ) -> Result<Vec<Tag>> {
        let (req, actor) = viewer(ctx)?;
        let limit = u64::try_from(first.unwrap_or(100)).unwrap_or(100);
        let found = tags::list(&req.state.db.conn, &actor, query.as_deref(), limit).await?;
        Ok(found.into_iter().map(Tag::from).collect())
    }

    /// Whether names off the curated list may be put on tickets (the team's).
    async fn tag_settings(&self, ctx: &Context<'_>) -> Result<TagSettings> {
        let (req, actor) = viewer(ctx)?;
        Ok(TagSettings {
            free_tags: tags::settings(&req.state.db.conn, &actor).await?,
        })
    }
}

/// How tags may be used.
#[derive(async_graphql::SimpleObject)]
pub struct TagSettings {
    /// Whether names off the curated list may be put on tickets.
    pub free_tags: bool,
}
