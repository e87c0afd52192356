//! A comment on a ticket, public or internal; soft-deleted, never removed.
use crate::values::CommentType;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "comments")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub ticket_id: i32,
    pub author_id: Option<i32>,
    #[sea_orm(column_type = "Text")]
    pub body: String,
    pub comment_type: CommentType,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub edited_at: Option<DateTimeUtc>,
    pub edited_by_id: Option<i32>,
    pub edit_count: i32,
    /// Edits whose earlier version was public: what a viewer who may not read internal text is told of.
    pub public_edit_count: i32,
    pub is_deleted: bool,
    pub deleted_at: Option<DateTimeUtc>,
    pub deleted_by_id: Option<i32>,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
