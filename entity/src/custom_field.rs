//! A custom field an admin defined, for every ticket or for one project's.
use crate::values::{FieldKind, StatusCategory};
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "custom_fields")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    /// The name clients use: lowercase letters, digits and `_`, starting with a letter.
    #[sea_orm(unique)]
    pub key: String,
    pub label: String,
    pub kind: FieldKind,
    /// The project whose tickets carry it; none: every ticket.
    pub project_id: Option<i32>,
    /// The allowed values of choice fields, a JSON array of strings.
    pub choices: String,
    /// From which status category on a value is required; none: never.
    pub required_from: Option<StatusCategory>,
    /// Seen and set by the team only.
    pub team_only: bool,
    pub position: i32,
    /// Archived fields are hidden and their values kept.
    pub archived_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
