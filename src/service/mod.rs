//! Business rules and permissions, written once. Every adapter (GraphQL, REST, web, CLI) calls these.
pub mod assets;
pub mod audit;
pub mod auth;
pub mod comments;
pub mod projects;
pub mod ticket_events;
pub mod tickets;
pub mod tokens;
pub mod users;
pub mod webhooks;

/// An offset page of a list, and whether its total is wanted (it costs a count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Rows to skip.
    pub offset: u64,
    /// Rows to return.
    pub limit: u64,
    /// Whether to count every matching row too.
    pub with_total: bool,
}
