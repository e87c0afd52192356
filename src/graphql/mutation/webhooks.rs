//! Webhook endpoint administration: create, update, delete, redeliver (administrators only).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::Webhook;
use crate::service::webhooks::{self, NewWebhook, WebhookPatch};
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};

/// Webhook mutations.
#[derive(Default)]
pub struct WebhookMutation;

/// A new endpoint.
#[derive(InputObject)]
pub struct CreateWebhookInput {
    /// `http://` or `https://` URL.
    url: String,
    /// HMAC key for the signatures (1-200 characters); never shown again.
    secret: String,
    /// Event names wanted; empty or absent means every event.
    events: Option<Vec<String>>,
    /// Whether deliveries are made (default true).
    active: Option<bool>,
}

/// The created endpoint.
#[derive(SimpleObject)]
pub struct CreateWebhookPayload {
    /// The endpoint.
    webhook: Webhook,
}

/// A change to an endpoint; absent fields stay as they are.
#[derive(InputObject)]
pub struct UpdateWebhookInput {
    /// Global id of the endpoint.
    id: ID,
    /// New URL.
    url: Option<String>,
    /// New secret.
    secret: Option<String>,
    /// New event list (empty: every event).
    events: Option<Vec<String>>,
    /// Enable or disable.
    active: Option<bool>,
}

/// The changed endpoint.
#[derive(SimpleObject)]
pub struct UpdateWebhookPayload {
    /// The endpoint.
    webhook: Webhook,
}

/// Which endpoint to delete.
#[derive(InputObject)]
pub struct DeleteWebhookInput {
    /// Global id of the endpoint.
    id: ID,
}

/// The deleted endpoint's id.
#[derive(SimpleObject)]
pub struct DeleteWebhookPayload {
    /// Global id of the deleted endpoint.
    deleted_webhook_id: ID,
}

/// Which delivery to send again.
#[derive(InputObject)]
pub struct RedeliverWebhookInput {
    /// Global id of a `WebhookDelivery`.
    delivery_id: ID,
}

/// The queued redelivery.
#[derive(SimpleObject)]
pub struct RedeliverWebhookPayload {
    /// The event id, unchanged, so receivers can deduplicate.
    event_id: String,
    /// The event name.
    event: String,
}

#[Object]
impl WebhookMutation {
    /// Add a webhook endpoint.
    async fn create_webhook(
        &self,
        ctx: &Context<'_>,
        input: CreateWebhookInput,
    ) -> Result<CreateWebhookPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewWebhook {
            url: input.url,
            secret: input.secret,
            events: input.events.unwrap_or_default(),
            active: input.active,
        };
        let webhook = webhooks::create(
            &req.state.db,
            req.state.config.webhook_allow_private,
            &actor,
            new,
        )
        .await?;
        Ok(CreateWebhookPayload {
            webhook: Webhook(webhook),
        })
    }

    /// Change a webhook endpoint.
    async fn update_webhook(
        &self,
        ctx: &Context<'_>,
        input: UpdateWebhookInput,
    ) -> Result<UpdateWebhookPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Webhook", "id")?;
        let patch = WebhookPatch {
            url: input.url,
            secret: input.secret,
            events: input.events,
            active: input.active,
        };
        let webhook = webhooks::update(
            &req.state.db,
            req.state.config.webhook_allow_private,
            &actor,
            id,
            patch,
        )
        .await?;
        Ok(UpdateWebhookPayload {
            webhook: Webhook(webhook),
        })
    }

    /// Delete a webhook endpoint with its pending deliveries and its log.
    async fn delete_webhook(
        &self,
        ctx: &Context<'_>,
        input: DeleteWebhookInput,
    ) -> Result<DeleteWebhookPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Webhook", "id")?;
        webhooks::delete(&req.state.db, &actor, id).await?;
        Ok(DeleteWebhookPayload {
            deleted_webhook_id: ids::encode("Webhook", id),
        })
    }

    /// Send a delivered (or failed) event again, with the same event id and body.
    async fn redeliver_webhook(
        &self,
        ctx: &Context<'_>,
        input: RedeliverWebhookInput,
    ) -> Result<RedeliverWebhookPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode_i64(&input.delivery_id, "WebhookDelivery", "deliveryId")?;
        let row = webhooks::redeliver(&req.state.db, &actor, id).await?;
        Ok(RedeliverWebhookPayload {
            event_id: row.event_id,
            event: row.event,
        })
    }
}
