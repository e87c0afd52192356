//! An IMAP mailbox the help desk fetches mail from, managed by administrators.
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "mailboxes")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub name: String,
    /// `imaps://user@host:993/INBOX` (RFC 5092; `;AUTH=XOAUTH2` after the user for a bearer token), no password.
    pub url: String,
    /// The password, or the OAuth2 bearer token (never shown back).
    pub secret: String,
    /// Where a message taken in is moved; none: it is flagged `\Seen` where it is.
    pub done_folder: Option<String>,
    /// Where a message that cannot be taken in is moved.
    pub failed_folder: String,
    /// New tickets open in this project; none: the default project.
    pub project_id: Option<i32>,
    pub active: bool,
    /// The instance fetching from it, and until when, so one instance at a time does.
    pub lease_owner: Option<String>,
    pub leased_until: Option<DateTimeUtc>,
    /// When it was last read without an error.
    pub checked_at: Option<DateTimeUtc>,
    /// Why the last attempt to read it failed, if it did.
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
