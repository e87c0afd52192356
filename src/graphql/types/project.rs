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

/// How mail to a project is taken in (team members read it, administrators change it).
#[derive(async_graphql::SimpleObject)]
pub struct ProjectMailRules {
    /// Global id of the project.
    pub project_id: ID,
    /// What a reply by mail to one of its resolved tickets does (a reply to a closed ticket always opens a
    /// follow-up related to it).
    pub resolved_reply: entity::values::ResolvedReply,
    /// Which senders without an account may open tickets in it; null: the service's setting
    /// (`DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS`).
    pub unknown_senders: Option<entity::values::UnknownSenders>,
    /// The domains `KNOWN_DOMAINS` takes mail from (and their subdomains), lowercase.
    pub sender_domains: Vec<String>,
    /// When an administrator last changed them; null: never (the defaults).
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<crate::service::project_mail::MailRules> for ProjectMailRules {
    fn from(rules: crate::service::project_mail::MailRules) -> Self {
        ProjectMailRules {
            project_id: ids::encode("Project", rules.project_id),
            resolved_reply: rules.resolved_reply,
            unknown_senders: rules.unknown_senders,
            sender_domains: rules.sender_domains,
            updated_at: rules.updated_at,
        }
    }
}
