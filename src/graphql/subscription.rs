//! Root subscription fields, served over WebSocket at `/graphql/ws` (see `ws`).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::TicketEvent;
use crate::service::ticket_events;
use async_graphql::{Context, Result, Subscription, ID};
use futures_util::{Stream, StreamExt};

/// Root of all subscriptions.
#[derive(Default)]
pub struct SubscriptionRoot;

#[Subscription(name = "Subscription")]
impl SubscriptionRoot {
    /// Live changes (created, updated, status changed, comment added) to one ticket, or to every
    /// ticket when `ticketId` is absent, limited to what the subscriber may see when each event is
    /// delivered. NOT_FOUND when `ticketId` names a ticket the subscriber cannot see.
    async fn ticket_events(
        &self,
        ctx: &Context<'_>,
        ticket_id: Option<ID>,
    ) -> Result<impl Stream<Item = TicketEvent>> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode_opt(ticket_id.as_ref(), "Ticket", "ticketId")?;
        let events = ticket_events::follow(&req.state, &actor, id).await?;
        Ok(events.map(TicketEvent))
    }
}
