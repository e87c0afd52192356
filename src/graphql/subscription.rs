//! Root subscription fields, served over WebSocket at `/graphql/ws` (see `ws`).
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::TicketEvent;
use crate::graphql::ws::Credential;
use crate::service::ticket_events;
use async_graphql::{Context, Result, Subscription, ID};
use futures_util::{Stream, StreamExt};

/// Root of all subscriptions.
#[derive(Default)]
pub struct SubscriptionRoot;

/// Live changes, over WebSocket at `/graphql/ws`.
#[Subscription(name = "Subscription")]
impl SubscriptionRoot {
    /// Live changes (created, updated, status changed, comment added) to one ticket, or to every
    /// ticket when `ticketId` is absent, limited to what the subscriber may see when each event is
    /// delivered: the token is resolved again for every event, and every field of the event answers
    /// for the subscriber as they are then. NOT_FOUND when `ticketId` names a ticket the subscriber
    /// cannot see; ends with UNAUTHENTICATED once the token is revoked or expired or the account
    /// deactivated.
    async fn ticket_events(
        &self,
        ctx: &Context<'_>,
        ticket_id: Option<ID>,
    ) -> Result<impl Stream<Item = Result<TicketEvent>>> {
        let (req, actor) = viewer(ctx)?;
        let Credential(token) = ctx.data_opt::<Credential>().cloned().ok_or_else(|| {
            AppError::Unauthenticated("subscriptions are served over /graphql/ws".into())
        })?;
        let id = ids::decode_opt(ticket_id.as_ref(), "Ticket", "ticketId")?;
        let events = ticket_events::follow(
            &req.state.db,
            &req.state.live,
            &req.state.auth_cache,
            &req.state.jwt,
            &actor,
            ticket_events::SignedInWith::Bearer(token),
            id,
        )
        .await?;
        Ok(events.map(|event| Ok(TicketEvent(event?))))
    }
}
