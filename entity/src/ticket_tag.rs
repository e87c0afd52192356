//! A tag on a ticket.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ticket_tags")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub tag_id: i32,
    pub created_at: DateTimeUtc,
    /// The ticket's creation time (it never changes), so that a filtered list walks these rows in its order.
    pub ticket_created_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
