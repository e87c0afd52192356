//! A macro: a saved set of ticket changes and replies an agent applies in one step.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "macros")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub name: String,
    pub owner_id: Option<i32>,
    pub group_id: Option<i32>,
    pub actions: Json,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
