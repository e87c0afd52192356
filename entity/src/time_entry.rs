//! Time someone spent on a ticket.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "time_entries")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub ticket_id: i32,
    /// The comment it was logged with, if any.
    pub comment_id: Option<i32>,
    /// Who spent it.
    pub user_id: i32,
    pub minutes: i32,
    /// The day it was spent.
    pub spent_on: Date,
    pub billable: bool,
    /// What kind of work (free text, e.g. `support`, `travel`).
    pub activity: String,
    pub created_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
