//! One chosen value of a ticket's multiple-choice custom field.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ticket_field_choices")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub field_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub choice: String,
    /// The ticket's creation time (it never changes), so that a filtered list walks these rows in its order.
    pub ticket_created_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
