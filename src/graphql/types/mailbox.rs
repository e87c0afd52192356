//! `Mailbox`: an IMAP folder the help desk fetches mail from, for administrators. Its secret (a password
//! or an OAuth2 token) is write-only: no field returns it.
use crate::graphql::ids;
use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};
use entity::mailbox;

/// An IMAP mailbox the help desk fetches mail from.
pub struct Mailbox(pub mailbox::Model);

/// An IMAP mailbox the help desk fetches mail from.
#[Object]
impl Mailbox {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Mailbox", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// What administrators call it.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// `imaps://user@host/Folder`, without the secret.
    async fn url(&self) -> &str {
        &self.0.url
    }

    /// Where taken messages are moved; null: they are flagged seen where they are.
    async fn done_folder(&self) -> Option<&str> {
        self.0.done_folder.as_deref()
    }

    /// Where messages that cannot be taken in are moved.
    async fn failed_folder(&self) -> &str {
        &self.0.failed_folder
    }

    /// The project its new tickets open in; null: the default project.
    async fn project_id(&self) -> Option<ID> {
        self.0.project_id.map(|id| ids::encode("Project", id))
    }

    /// Whether mail is fetched from it.
    async fn active(&self) -> bool {
        self.0.active
    }

    /// When it was last read without an error.
    async fn checked_at(&self) -> Option<DateTime<Utc>> {
        self.0.checked_at
    }

    /// Why the last attempt to read it failed; null when it did not.
    async fn last_error(&self) -> Option<&str> {
        self.0.last_error.as_deref()
    }

    /// When it was added.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it last changed.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.0.updated_at
    }
}
