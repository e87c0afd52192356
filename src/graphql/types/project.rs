//! `Project` (each field once, [`fields!`]): a group of tickets, with its batched ticket count and a connection of visible tickets.
use crate::graphql::connection::PageArgs;
use crate::graphql::engine::one_pass::{fields, TicketCountOf};
use crate::graphql::ids;
use crate::graphql::query::tickets::{ticket_connection, TicketConnection};
use crate::service::tickets::TicketFilter;
use async_graphql::{Context, Result, ID};
use chrono::{DateTime, Utc};
use entity::project;

/// A project that groups tickets.
#[derive(Clone)]
pub struct Project(pub project::Model);

fields! {
    /// A project that groups tickets.
    impl Project as "Project" for Project, interfaces ["Node"];
    /// Global id.
    id: ID = |p| ids::encode("Project", p.0.id);
    /// The integer id used by REST.
    databaseId: i32 = |p| p.0.id;
    /// Name (unique).
    name: String = |p| p.0.name.clone();
    /// Description.
    description: String = |p| p.0.description.clone();
    /// Non-archived tickets in the project (as REST's `ticket_count`).
    ticketCount: i64 = |p| TicketCountOf(p.0.id);
    /// When it was created.
    createdAt: DateTime<Utc> = |p| p.0.created_at;
    /// The project's tickets the viewer may see, newest first.
    async fn tickets(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<TicketConnection> {
        let filter = TicketFilter {
            project_id: Some(self.0.id),
            ..Default::default()
        };
        let args = PageArgs {
            first,
            after,
            ..Default::default()
        };
        ticket_connection(ctx, filter, Default::default(), args).await
    }
}
