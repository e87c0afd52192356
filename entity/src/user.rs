//! A person who signs in: requester, agent or administrator.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    #[sea_orm(unique)]
    pub username: String,
    pub full_name: String,
    pub email: Option<String>,
    pub password_hash: String,
    pub is_staff: bool,
    pub is_superuser: bool,
    pub is_active: bool,
    pub created_at: DateTimeUtc,
    /// The last successful sign-in (any door).
    pub last_login_at: Option<DateTimeUtc>,
    /// Access tokens (JWTs) issued before this are refused: set on deactivation and on a new password.
    pub credentials_changed_at: Option<DateTimeUtc>,
    /// The IANA time zone the web pages show dates in; none follows the browser's.
    pub time_zone: Option<String>,
    /// The language of the web pages and emails (`de`); none: pages follow the browser, emails are English.
    pub language: Option<String>,
}

/// Relations are resolved by the service's batched loaders, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
