//! A Slack or Teams channel that hears of tickets, managed by administrators.
use crate::values::ChatKind;
use sea_orm::entity::prelude::*;

#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "chat_destinations")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i32,
    pub name: String,
    pub kind: ChatKind,
    /// The incoming webhook's URL; none for a Slack bot.
    pub url: Option<String>,
    /// A Slack bot's token (never shown back).
    pub token: Option<String>,
    /// A Slack bot's channel.
    pub channel: Option<String>,
    /// Only this project's tickets; none: every ticket.
    pub project_id: Option<i32>,
    /// The event names it takes, a JSON array; empty: every chat event.
    pub events: Json,
    /// The priorities it takes, a JSON array; empty: every priority.
    pub priorities: Json,
    /// Internal notes go to it too: the channel is the team's own.
    pub team_only: bool,
    pub active: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

/// Relations are resolved by the service, not through SeaORM joins.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
