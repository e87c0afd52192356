//! A user's saved view of the queue: a name and the queue's query string (filters, view, order).
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "saved_views")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Whose view it is: only they read it.
    pub user_id: i32,
    /// As the user typed it.
    pub name: String,
    /// `name` in lowercase: unique per user.
    pub name_key: String,
    /// The queue's query string, as `service::saved_views::normalise` keeps it.
    pub query: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
