//! `TicketEvent`: what a `ticketEvents` subscriber receives.
use super::{Comment, Ticket};
use crate::graphql::ids;
use crate::notify::live::LiveKind;
use crate::service::ticket_events::VisibleEvent;
use async_graphql::{Enum, Object, ID};
use chrono::{DateTime, Utc};
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
}

impl From<LiveKind> for TicketEventKind {
    fn from(kind: LiveKind) -> Self {
        match kind {
            LiveKind::Created => TicketEventKind::Created,
            LiveKind::Updated => TicketEventKind::Updated,
            LiveKind::StatusChanged => TicketEventKind::StatusChanged,
            LiveKind::CommentAdded => TicketEventKind::CommentAdded,
        }
    }
}

/// A live change to a ticket the subscriber may see.
pub struct TicketEvent(pub VisibleEvent);

#[Object]
impl TicketEvent {
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
