//! `ChatDestination`: a Slack or Teams channel that hears of tickets, for administrators. Its webhook URL and
//! bot token are write-only: either lets anyone post to the channel, so no field returns them.
use crate::domain::Priority;
use crate::graphql::ids;
use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};
use entity::chat_destination;
use entity::values::ChatKind;

/// A Slack or Microsoft Teams channel that hears of tickets.
pub struct ChatDestination(pub chat_destination::Model);

#[Object]
impl ChatDestination {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("ChatDestination", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// What administrators call it.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// Slack or Teams.
    async fn kind(&self) -> ChatKind {
        self.0.kind
    }

    /// Whether it posts through an incoming webhook (whose URL is never shown back).
    async fn has_webhook_url(&self) -> bool {
        self.0.url.is_some()
    }

    /// Whether it posts as a Slack bot (whose token is never shown back).
    async fn has_token(&self) -> bool {
        self.0.token.is_some()
    }

    /// The channel a Slack bot posts to.
    async fn channel(&self) -> Option<&str> {
        self.0.channel.as_deref()
    }

    /// Only this project's tickets; null: every ticket.
    async fn project_id(&self) -> Option<ID> {
        self.0.project_id.map(|id| ids::encode("Project", id))
    }

    /// The events it takes (`ticket.created`, …); empty: every chat event.
    async fn events(&self) -> Vec<String> {
        serde_json::from_value(self.0.events.clone()).unwrap_or_default()
    }

    /// The priorities it takes; empty: every priority.
    async fn priorities(&self) -> Vec<Priority> {
        let names: Vec<String> =
            serde_json::from_value(self.0.priorities.clone()).unwrap_or_default();
        names
            .iter()
            .filter_map(|n| Priority::parse(n).ok())
            .collect()
    }

    /// Whether internal notes go to it too (the channel is the team's own).
    async fn team_only(&self) -> bool {
        self.0.team_only
    }

    /// Whether messages are posted.
    async fn active(&self) -> bool {
        self.0.active
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
