//! `TicketEvent`: what a `ticketEvents` subscriber receives.
use super::{Comment, Ticket};
use crate::auth::middleware::Auth;
use crate::graphql::context::RequestContext;
use crate::graphql::ids;
use crate::notify::live::LiveKind;
use crate::service::ticket_events::VisibleEvent;
use async_graphql::parser::types::Field;
use async_graphql::registry::Registry;
use async_graphql::resolver_utils::resolve_container;
use async_graphql::{
    ContextSelectionSet, Data, Enum, Object, OutputType, Positioned, ServerResult, Value, ID,
};
use chrono::{DateTime, Utc};
use std::borrow::Cow;
use std::sync::Arc;

/// What happened to the ticket.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TicketEventKind {
    /// The ticket was created.
    Created,
    /// Fields other than the status changed.
    Updated,
    /// The status changed.
    StatusChanged,
    /// A comment was added (one the subscriber may read).
    CommentAdded,
    /// A service-level target became at risk or was breached (see `Ticket.sla`).
    SlaChanged,
}

impl From<LiveKind> for TicketEventKind {
    fn from(kind: LiveKind) -> Self {
        match kind {
            LiveKind::Created => TicketEventKind::Created,
            LiveKind::Updated => TicketEventKind::Updated,
            LiveKind::StatusChanged => TicketEventKind::StatusChanged,
            LiveKind::CommentAdded => TicketEventKind::CommentAdded,
            LiveKind::SlaChanged => TicketEventKind::SlaChanged,
        }
    }
}

/// A live change to a ticket the subscriber may see.
pub struct TicketEvent(pub VisibleEvent);

/// Every field below the event resolves with a request context of its own, built for the viewer
/// the event was checked for (fresh loaders included), instead of the context the subscription
/// started with: a subscription lives for hours and its subscriber's rights change meanwhile.
impl OutputType for TicketEvent {
    fn type_name() -> Cow<'static, str> {
        <TicketEventFields<'static> as OutputType>::type_name()
    }

    fn create_type_info(registry: &mut Registry) -> String {
        <TicketEventFields<'static> as OutputType>::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        _field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        let fields = TicketEventFields(&self.0);
        let Some(started) = ctx.data_opt::<RequestContext>() else {
            return resolve_container(ctx, &fields).await;
        };
        let mut data = Data::default();
        let event_ctx =
            RequestContext::new(started.state.clone(), Auth::Actor(self.0.viewer.clone()));
        let batches = event_ctx.batches.clone();
        data.insert(event_ctx);
        // Data of the execution comes first when a resolver asks for its `RequestContext`.
        let ctx =
            ctx.query_env
                .create_context(ctx.schema_env, ctx.path_node, ctx.item, Some(&data));
        batches.drive(resolve_container(&ctx, &fields)).await
    }
}

/// The fields of a [`TicketEvent`].
pub struct TicketEventFields<'a>(&'a VisibleEvent);

/// A live change to a ticket the subscriber may see.
#[Object(name = "TicketEvent")]
impl TicketEventFields<'_> {
    /// What happened.
    async fn kind(&self) -> TicketEventKind {
        self.0.event.kind.into()
    }

    /// The ticket, as it is when the event is delivered.
    async fn ticket(&self) -> Ticket {
        Ticket(self.0.ticket.clone())
    }

    /// Global id of the new comment, for `COMMENT_ADDED`.
    async fn comment_id(&self) -> Option<ID> {
        self.0
            .comment
            .as_ref()
            .map(|c| ids::encode("Comment", c.id))
    }

    /// The new comment, for `COMMENT_ADDED` (already checked: the subscriber may read it).
    async fn comment(&self) -> Option<Comment> {
        self.0
            .comment
            .clone()
            .map(|c| Comment::new(c, Arc::new(self.0.ticket.clone())))
    }

    /// When it happened.
    async fn at(&self) -> DateTime<Utc> {
        self.0.event.at
    }
}
