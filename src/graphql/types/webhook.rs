//! `Webhook` endpoints and their delivery log, for administrators. The secret is write-only: no
//! field ever returns it.
use crate::graphql::connection::{cursor, page_info, slice, PageArgs, PageInfo};
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::service::webhooks;
use async_graphql::{Context, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc};
use entity::{webhook, webhook_delivery};

/// An endpoint that receives signed event deliveries.
pub struct Webhook(pub webhook::Model);

/// An endpoint that receives signed event deliveries.
#[Object]
impl Webhook {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Webhook", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Where deliveries are POSTed.
    async fn url(&self) -> &str {
        &self.0.url
    }

    /// Event names it receives (`ticket.created`, …); empty means every event.
    async fn events(&self) -> Vec<String> {
        serde_json::from_value(self.0.events.clone()).unwrap_or_default()
    }

    /// Whether deliveries are made.
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

    /// Delivery attempts, newest first.
    async fn deliveries(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<WebhookDeliveryConnection> {
        let (req, actor) = viewer(ctx)?;
        let args = PageArgs {
            first,
            after,
            ..Default::default()
        };
        let window = args.window()?;
        // Only `first`/`after` exist here, so the window is always forward.
        let page = slice(window, None);
        let (mut rows, total) = webhooks::deliveries_page(
            &req.state.db,
            &actor,
            self.0.id,
            page.offset,
            page.limit + 1,
        )
        .await?;
        let more = rows.len() as u64 > page.limit;
        rows.truncate(page.limit as usize);
        let info = page_info(page, rows.len(), more);
        let edges = rows
            .iter()
            .enumerate()
            .map(|(i, d)| WebhookDeliveryEdge {
                cursor: cursor(page.offset + i as u64),
                node: WebhookDelivery(d.clone()),
            })
            .collect();
        Ok(WebhookDeliveryConnection {
            edges,
            nodes: rows.into_iter().map(WebhookDelivery).collect(),
            page_info: info,
            total_count: total as i64,
        })
    }
}

/// An edge of a delivery log.
#[derive(SimpleObject)]
pub struct WebhookDeliveryEdge {
    /// Opaque cursor.
    cursor: String,
    /// The attempt.
    node: WebhookDelivery,
}

/// A page of a delivery log.
#[derive(SimpleObject)]
pub struct WebhookDeliveryConnection {
    /// Edges with cursors.
    edges: Vec<WebhookDeliveryEdge>,
    /// The attempts of this page.
    nodes: Vec<WebhookDelivery>,
    /// Paging state.
    page_info: PageInfo,
    /// Attempts in the whole log.
    total_count: i64,
}

/// One attempt to deliver an event to an endpoint.
pub struct WebhookDelivery(pub webhook_delivery::Model);

/// One attempt to deliver an event to an endpoint.
#[Object]
impl WebhookDelivery {
    /// Global id (pass it to `redeliverWebhook`).
    async fn id(&self) -> ID {
        ids::encode_i64("WebhookDelivery", self.0.id)
    }

    /// The integer id.
    async fn database_id(&self) -> i64 {
        self.0.id
    }

    /// The event's unique id, sent as `X-Webhook-Id` (the same on every attempt and redelivery).
    async fn event_id(&self) -> &str {
        &self.0.event_id
    }

    /// The event name, e.g. `ticket.created`.
    async fn event(&self) -> &str {
        &self.0.event
    }

    /// Attempt number, from 1.
    async fn attempt(&self) -> i32 {
        self.0.attempt
    }

    /// HTTP status answered, if any answer came.
    async fn status_code(&self) -> Option<i32> {
        self.0.status_code
    }

    /// Why the attempt failed, if it did.
    async fn error(&self) -> Option<&str> {
        self.0.error.as_deref()
    }

    /// How long the attempt took.
    async fn duration_ms(&self) -> i64 {
        self.0.duration_ms
    }

    /// When the attempt was made.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }
}
