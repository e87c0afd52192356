//! Root subscription fields, served over WebSocket at `/graphql/ws` (see `ws`).
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{BulkJob, TicketEvent};
use crate::graphql::ws::Credential;
use crate::service::ticket_events::{self, SignedInWith};
use crate::service::tickets::bulk;
use async_graphql::{Context, Result, Subscription, ID};
use futures_util::{Stream, StreamExt};

/// The token the WebSocket connection signed in with, resolved again as a subscription goes on.
fn bearer(ctx: &Context<'_>) -> Result<std::sync::Arc<str>> {
    let Credential(token) = ctx.data_opt::<Credential>().cloned().ok_or_else(|| {
        AppError::Unauthenticated("subscriptions are served over /graphql/ws".into())
    })?;
    Ok(token)
}

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
        let token = bearer(ctx)?;
        let id = ids::decode_opt(ticket_id.as_ref(), "Ticket", "ticketId")?;
        let subscriber = req.state.subscriber(SignedInWith::Bearer(token));
        let events = ticket_events::follow(&req.state.live, subscriber, &actor, id).await?;
        Ok(events.map(|event| Ok(TicketEvent(event?))))
    }

    /// A bulk change's progress, to whoever asked for it or an administrator: the job as it is now,
    /// then again whenever its status or counts move (read every second), ending once it is done.
    /// NOT_FOUND for a job the subscriber may not read; ends with UNAUTHENTICATED once the token is
    /// revoked or expired or the account deactivated.
    async fn bulk_job(
        &self,
        ctx: &Context<'_>,
        id: ID,
    ) -> Result<impl Stream<Item = Result<BulkJob>>> {
        let (req, actor) = viewer(ctx)?;
        let token = bearer(ctx)?;
        let id = ids::decode(&id, "BulkJob", "id")?;
        let subscriber = req.state.subscriber(SignedInWith::Bearer(token));
        let progress = bulk::follow(&req.state.live, subscriber, &actor, id).await?;
        Ok(progress.map(|job| Ok(BulkJob(job?))))
    }
}
