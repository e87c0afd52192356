//! Business rules and permissions, written once. Every adapter (GraphQL, REST, web, CLI) calls these.
pub mod assets;
pub mod attachments;
pub mod audit;
pub mod automation;
pub mod chat;
pub mod comments;
pub mod custom_fields;
pub mod events;
pub mod followers;
pub mod idempotency;
pub mod links;
pub mod mail_in;
pub mod mailboxes;
pub mod project_mail;
pub mod projects;
pub mod reports;
pub mod saved_views;
pub mod search;
pub mod sign_in;
pub mod sla;
pub mod tags;
mod take;
pub mod text;
pub mod ticket_events;
pub mod tickets;
pub mod time_spent;
pub mod tokens;
pub mod users;
pub mod webhooks;

pub use take::{Rank, Take};

use crate::config::Config;
use crate::db::Db;
use crate::notify::live::LiveBus;

/// What a write needs besides its viewer and input when it tells others about itself: the database, the
/// configuration (ticket prefix, webhook targets) and the bus of live events. Each door builds one from
/// the application state; services see these handles and nothing else of it.
#[derive(Clone, Copy, Debug)]
pub struct WriteDeps<'a> {
    /// The database (its pool, and write transactions).
    pub db: &'a Db,
    /// The configuration.
    pub config: &'a Config,
    /// Where live events for subscriptions are published.
    pub live: &'a LiveBus,
    /// SLA policies by priority, remembered (the clocks of created and changed tickets).
    pub policies: &'a sla::policies::KnownPolicies,
    /// The active triggers, remembered (run on every ticket write).
    pub triggers: &'a automation::KnownTriggers,
    /// The active custom field definitions, remembered.
    pub fields: &'a custom_fields::KnownFields,
    /// The names of tags known to exist, remembered.
    pub tags: &'a tags::KnownTags,
    /// The door the write came through, as rules see it.
    pub channel: crate::domain::Channel,
}

/// An offset page of a list, and whether its total is wanted (it costs a count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageRequest {
    /// Rows to skip.
    pub offset: u64,
    /// Rows to return.
    pub limit: u64,
    /// Whether to count every matching row too.
    pub with_total: bool,
}

impl PageRequest {
    /// `select` restricted to this page, as one statement whose LIMIT and OFFSET are written into the SQL
    /// rather than bound as parameters.
    ///
    /// PostgreSQL plans a query with a bound LIMIT as if a tenth of the rows were wanted, so the cached
    /// generic plan never looks cheap enough to replace planning on every execution; for a list page
    /// with its joins that planning costs several times the query itself. With the numbers in the SQL,
    /// each page shape (most requests ask for the first page) gets one cached plan per connection.
    pub fn statement<E: sea_orm::EntityTrait>(
        &self,
        select: sea_orm::Select<E>,
        backend: sea_orm::DbBackend,
    ) -> sea_orm::Statement {
        let mut statement = sea_orm::QueryTrait::build(&select, backend);
        // Both are integers: nothing a caller sends can reach the SQL text through them.
        statement.sql = format!(
            "{} LIMIT {} OFFSET {}",
            statement.sql, self.limit, self.offset
        );
        statement
    }
}
