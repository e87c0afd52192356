//! `ChatDestination`: a Slack or Teams channel that hears of tickets, for administrators. Its webhook URL and
//! bot token are write-only: either lets anyone post to the channel, so no field returns them.
use crate::domain::Priority;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::list_connection::{list_connection, page_by};
use crate::service::chat;
use async_graphql::{Context, Enum, Object, Result, ID};
use chrono::{DateTime, Utc};
use entity::values::{ChatKind, JobStatus};
use entity::{chat_delivery, chat_destination};

/// How a destination posts. SLACK and TEAMS are older names, taken in input only: SLACK is a webhook or a bot
/// by the fields given.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "ChatKind")]
pub enum ChatDestinationKind {
    /// Slack, through an incoming webhook (`webhookUrl`).
    SlackWebhook,
    /// Slack, as a bot posting to a channel (`token` and `channel`).
    SlackBot,
    /// Microsoft Teams, through an incoming webhook (Workflows) taking Adaptive Cards (`webhookUrl`).
    TeamsWebhook,
    /// Slack: a webhook or a bot, by the fields given.
    #[graphql(deprecation = "Use SLACK_WEBHOOK or SLACK_BOT.")]
    Slack,
    /// Microsoft Teams.
    #[graphql(deprecation = "Use TEAMS_WEBHOOK.")]
    Teams,
}

impl ChatDestinationKind {
    /// The service a destination of this kind posts to.
    pub fn service(self) -> ChatKind {
        match self {
            ChatDestinationKind::SlackWebhook
            | ChatDestinationKind::SlackBot
            | ChatDestinationKind::Slack => ChatKind::Slack,
            ChatDestinationKind::TeamsWebhook | ChatDestinationKind::Teams => ChatKind::Teams,
        }
    }

    /// What a destination is, by its service and whether it posts through a webhook.
    pub fn of(d: &chat_destination::Model) -> Self {
        match (d.kind, d.url.is_some()) {
            (ChatKind::Teams, _) => ChatDestinationKind::TeamsWebhook,
            (ChatKind::Slack, true) => ChatDestinationKind::SlackWebhook,
            (ChatKind::Slack, false) => ChatDestinationKind::SlackBot,
        }
    }
}

/// A Slack or Microsoft Teams channel that hears of tickets.
pub struct ChatDestination(pub chat_destination::Model);

/// A Slack or Microsoft Teams channel that hears of tickets.
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

    /// How it posts: SLACK_WEBHOOK, SLACK_BOT or TEAMS_WEBHOOK (a Slack destination changed from a webhook to
    /// a bot reads as the bot it now is).
    async fn kind(&self) -> ChatDestinationKind {
        ChatDestinationKind::of(&self.0)
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

    /// Its messages, newest first, and how each delivery went: why a channel hears nothing.
    async fn deliveries(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<ChatDeliveryConnection> {
        let (req, actor) = viewer(ctx)?;
        let db = &req.state.db;
        let page = page_by(first, after, |offset, limit| {
            chat::deliveries(db, &actor, self.0.id, offset, limit)
        })
        .await?;
        Ok(ChatDeliveryConnection::from_page(page))
    }

    /// Every try to post its messages, newest first: the answer each met and how long it took. A message that
    /// was retried has one try per attempt.
    async fn attempts(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<ChatAttemptConnection> {
        let (req, actor) = viewer(ctx)?;
        let db = &req.state.db;
        let page = page_by(first, after, |offset, limit| {
            chat::attempts(db, &actor, self.0.id, offset, limit)
        })
        .await?;
        Ok(ChatAttemptConnection::from_page(page))
    }
}

list_connection!(
    ChatAttemptConnection,
    ChatAttemptEdge,
    ChatAttempt,
    chat_delivery::Model
);

/// One try to post a message to a chat destination.
#[derive(Clone)]
pub struct ChatAttempt(pub chat_delivery::Model);

/// One try to post a message to a chat destination.
#[Object]
impl ChatAttempt {
    /// The message it tried to post (`ChatDelivery.databaseId`).
    async fn delivery_id(&self) -> i64 {
        self.0.outbox_id
    }

    /// What the message told of (`ticket.created`, …).
    async fn event(&self) -> &str {
        &self.0.event
    }

    /// Which try of that message it was, from 1.
    async fn attempt(&self) -> i32 {
        self.0.attempt
    }

    /// The HTTP status the destination answered, when it answered.
    async fn status_code(&self) -> Option<i32> {
        self.0.status_code
    }

    /// What went wrong (`Slack answered 429`, `Slack refused: channel_not_found`, a time-out); none when the
    /// message was delivered.
    async fn error(&self) -> Option<&str> {
        self.0.error.as_deref()
    }

    /// How long the try took, in milliseconds.
    async fn duration_ms(&self) -> i64 {
        self.0.duration_ms
    }

    /// When it was made.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }
}

list_connection!(
    ChatDeliveryConnection,
    ChatDeliveryEdge,
    ChatDelivery,
    chat::Delivery
);

/// Where a message to a chat destination stands.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChatDeliveryStatus {
    /// Not delivered yet: waiting for its first or its next try.
    Pending,
    /// Delivered.
    Delivered,
    /// Given up: the destination refused it in a way no retry can mend, or every try failed.
    Failed,
}

/// One message to a chat destination and how its delivery went (its text is not shown again).
#[derive(Clone)]
pub struct ChatDelivery(pub chat::Delivery);

/// One message to a chat destination and how its delivery went (its text is not shown again).
#[Object]
impl ChatDelivery {
    /// The integer id of the message.
    async fn database_id(&self) -> i64 {
        self.0.id
    }

    /// What it told of (`ticket.created`, …).
    async fn event(&self) -> &str {
        &self.0.event
    }

    /// Where it stands.
    async fn status(&self) -> ChatDeliveryStatus {
        match self.0.status {
            JobStatus::Pending => ChatDeliveryStatus::Pending,
            JobStatus::Delivered => ChatDeliveryStatus::Delivered,
            JobStatus::Failed => ChatDeliveryStatus::Failed,
        }
    }

    /// Tries made so far.
    async fn attempts(&self) -> i32 {
        self.0.attempts
    }

    /// What the last failed try met: the destination's answer (`channel_not_found`, `endpoint answered 500`), a
    /// refused address, a time-out.
    async fn last_error(&self) -> Option<&str> {
        self.0.last_error.as_deref()
    }

    /// When the change it tells of happened.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it was delivered.
    async fn delivered_at(&self) -> Option<DateTime<Utc>> {
        self.0.delivered_at
    }

    /// When a pending message is tried next.
    async fn next_attempt_at(&self) -> Option<DateTime<Utc>> {
        self.0.next_attempt_at
    }
}
