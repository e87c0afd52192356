//! A file on a ticket, or on one of its comments; soft-deleted, never removed. The bytes are the blob
//! named by `sha256`.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "attachments")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub ticket_id: i32,
    pub comment_id: Option<i32>,
    pub filename: String,
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
    pub uploaded_by_id: Option<i32>,
    pub created_at: DateTimeUtc,
    pub deleted_at: Option<DateTimeUtc>,
}

/// Relations are resolved by the service's batched reads, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
