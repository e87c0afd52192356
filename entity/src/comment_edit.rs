//! One edit of a comment, keeping the text it replaced.
use crate::values::CommentType;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "comment_edits")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub comment_id: i32,
    pub edited_by_id: Option<i32>,
    #[sea_orm(column_type = "Text")]
    pub previous_body: String,
    pub previous_comment_type: CommentType,
    pub edited_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
