//! Stored content, named by its SHA-256. Its bytes are complete in the storage backend while `state` is
//! `stored`; `writing` while an upload writes them, `collecting` while the collector deletes them.
use crate::values::BlobState;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "blobs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub sha256: String,
    pub size: i64,
    pub created_at: DateTimeUtc,
    pub state: BlobState,
    /// Last written or reused by an upload; the collector leaves recently touched blobs alone.
    pub touched_at: Option<DateTimeUtc>,
}

/// No relations.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
