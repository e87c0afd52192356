//! Chat destination administration: create, update, delete (administrators only).
use crate::domain::Priority;
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{ChatDestination, ChatDestinationKind};
use crate::service::chat::{self, ChatPatch, NewChat};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Chat destination mutations.
#[derive(Default)]
pub struct ChatMutation;

/// A new chat destination: SLACK_WEBHOOK and TEAMS_WEBHOOK take `webhookUrl`; SLACK_BOT takes `token` and
/// `channel`.
#[derive(InputObject)]
pub struct CreateChatDestinationInput {
    /// What administrators call it (1-100 characters).
    name: String,
    /// How it posts; its service (Slack or Teams) is fixed once made.
    kind: ChatDestinationKind,
    /// The incoming webhook's URL; never shown again.
    webhook_url: Option<String>,
    /// A Slack bot token (`chat:write`); never shown again.
    token: Option<String>,
    /// The Slack channel a bot posts to (its id, or its name).
    channel: Option<String>,
    /// Only this project's tickets.
    project_id: Option<ID>,
    /// Events taken; empty or absent: every chat event.
    events: Option<Vec<String>>,
    /// Priorities taken; empty or absent: every priority.
    priorities: Option<Vec<Priority>>,
    /// Internal notes go to it too (default false): for a channel only the team reads.
    team_only: Option<bool>,
    /// Whether messages are posted (default true).
    active: Option<bool>,
}

/// The created destination.
#[derive(SimpleObject)]
pub struct CreateChatDestinationPayload {
    /// The destination.
    chat_destination: ChatDestination,
}

/// A change to a destination; absent fields stay as they are, null clears.
#[derive(InputObject)]
pub struct UpdateChatDestinationInput {
    /// Global id of the destination.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New webhook URL (null clears it).
    webhook_url: MaybeUndefined<String>,
    /// New bot token (null clears it).
    token: MaybeUndefined<String>,
    /// New bot channel (null clears it).
    channel: MaybeUndefined<String>,
    /// New project (null: every ticket).
    project_id: MaybeUndefined<ID>,
    /// New event list (empty: every chat event).
    events: Option<Vec<String>>,
    /// New priority list (empty: every priority).
    priorities: Option<Vec<Priority>>,
    /// Internal notes or not.
    team_only: Option<bool>,
    /// Enable or disable.
    active: Option<bool>,
}

/// The changed destination.
#[derive(SimpleObject)]
pub struct UpdateChatDestinationPayload {
    /// The destination.
    chat_destination: ChatDestination,
}

/// Which destination to delete.
#[derive(InputObject)]
pub struct DeleteChatDestinationInput {
    /// Global id of the destination.
    id: ID,
}

/// The deleted destination's id.
#[derive(SimpleObject)]
pub struct DeleteChatDestinationPayload {
    /// Global id of the deleted destination.
    deleted_chat_destination_id: ID,
}

/// `MaybeUndefined` as the service's patch spelling: absent `None`, null `Some(None)`.
pub(crate) fn patched<T>(value: MaybeUndefined<T>) -> Option<Option<T>> {
    match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(v) => Some(Some(v)),
    }
}

#[Object]
impl ChatMutation {
    /// Add a Slack or Teams destination.
    async fn create_chat_destination(
        &self,
        ctx: &Context<'_>,
        input: CreateChatDestinationInput,
    ) -> Result<CreateChatDestinationPayload> {
        let (req, actor) = viewer(ctx)?;
        // The way named needs its own fields; the service checks the rest (a bot's channel, no webhook beside
        // a token, Teams without a bot).
        match input.kind {
            ChatDestinationKind::SlackWebhook | ChatDestinationKind::TeamsWebhook
                if input.webhook_url.is_none() =>
            {
                return Err(AppError::field("webhookUrl", "is required for this kind").into());
            }
            ChatDestinationKind::SlackBot if input.token.is_none() => {
                return Err(AppError::field("token", "is required for SLACK_BOT").into());
            }
            ChatDestinationKind::SlackWebhook if input.token.is_some() => {
                return Err(
                    AppError::field("token", "a SLACK_WEBHOOK destination takes none").into(),
                );
            }
            ChatDestinationKind::SlackBot if input.webhook_url.is_some() => {
                return Err(
                    AppError::field("webhookUrl", "a SLACK_BOT destination takes none").into(),
                );
            }
            _ => {}
        }
        let new = NewChat {
            name: input.name,
            kind: input.kind.service(),
            url: input.webhook_url,
            token: input.token,
            channel: input.channel,
            project_id: ids::decode_opt(input.project_id.as_ref(), "Project", "projectId")?,
            events: input.events.unwrap_or_default(),
            priorities: input.priorities.unwrap_or_default(),
            team_only: input.team_only,
            active: input.active,
        };
        let created = chat::create(
            &req.state.db,
            req.state.config.webhook_allow_private,
            &actor,
            new,
        )
        .await?;
        Ok(CreateChatDestinationPayload {
            chat_destination: ChatDestination(created),
        })
    }

    /// Change a chat destination (its kind stays).
    async fn update_chat_destination(
        &self,
        ctx: &Context<'_>,
        input: UpdateChatDestinationInput,
    ) -> Result<UpdateChatDestinationPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "ChatDestination", "id")?;
        let project_id = match patched(input.project_id) {
            None => None,
            Some(None) => Some(None),
            Some(Some(p)) => Some(Some(ids::decode(&p, "Project", "projectId")?)),
        };
        let patch = ChatPatch {
            name: input.name,
            url: patched(input.webhook_url),
            token: patched(input.token),
            channel: patched(input.channel),
            project_id,
            events: input.events,
            priorities: input.priorities,
            team_only: input.team_only,
            active: input.active,
        };
        let updated = chat::update(
            &req.state.db,
            req.state.config.webhook_allow_private,
            &actor,
            id,
            patch,
        )
        .await?;
        Ok(UpdateChatDestinationPayload {
            chat_destination: ChatDestination(updated),
        })
    }

    /// Delete a chat destination; its messages not yet posted are dropped.
    async fn delete_chat_destination(
        &self,
        ctx: &Context<'_>,
        input: DeleteChatDestinationInput,
    ) -> Result<DeleteChatDestinationPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "ChatDestination", "id")?;
        chat::delete(&req.state.db, &actor, id).await?;
        Ok(DeleteChatDestinationPayload {
            deleted_chat_destination_id: ids::encode("ChatDestination", id),
        })
    }
}
