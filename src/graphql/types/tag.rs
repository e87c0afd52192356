//! `Tag`: a tag name with its use.
use crate::service::tags::TagCount;
use async_graphql::SimpleObject;

/// A tag, normalised (lowercase, trimmed, at most 50 characters).
#[derive(SimpleObject)]
pub struct Tag {
    /// The name.
    pub name: String,
    /// On the curated list an administrator keeps.
    pub curated: bool,
    /// Live tickets carrying it.
    pub ticket_count: i64,
}

impl From<TagCount> for Tag {
    fn from(t: TagCount) -> Self {
        Tag {
            name: t.name,
            curated: t.curated,
            ticket_count: t.tickets,
        }
    }
}
