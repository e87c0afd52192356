//! A ticket's value of one custom field: one typed column is set, by the field's kind (multiple choices are
//! kept in `ticket_field_choice`).
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "ticket_field_values")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub ticket_id: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub field_id: i32,
    /// Text and single-choice values.
    pub text_value: Option<String>,
    /// Long text values (not indexed).
    pub long_value: Option<String>,
    pub number_value: Option<f64>,
    pub date_value: Option<Date>,
    pub time_value: Option<DateTimeUtc>,
    pub bool_value: Option<bool>,
    /// User and asset ids.
    pub ref_id: Option<i32>,
    /// The ticket's creation time (it never changes), so that a filtered list walks these rows in its order.
    pub ticket_created_at: DateTimeUtc,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
