//! Live ticket events as one subscriber may see them. Each event is checked when it is delivered,
//! with the subscriber as they are at that moment: a ticket they cannot see (or no longer see) and
//! an internal comment they may not read never reach them.
use crate::auth::{load_actor, Actor};
use crate::error::{AppError, AppResult};
use crate::notify::live::LiveEvent;
use crate::service::comments::can_read;
use crate::service::tickets;
use crate::state::AppState;
use entity::{comment, ticket};
use futures_util::Stream;
use sea_orm::{ConnectionTrait, EntityTrait};
use tokio::sync::broadcast::{self, error::RecvError};

/// An event the subscriber may see, with the records as they are now.
#[derive(Debug, Clone)]
pub struct VisibleEvent {
    /// The event.
    pub event: LiveEvent,
    /// Its ticket.
    pub ticket: ticket::Model,
    /// Its comment, for comment events.
    pub comment: Option<comment::Model>,
}

/// `event` as `actor` may see it, or `None` when they may not see it at all.
pub async fn visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    event: &LiveEvent,
) -> AppResult<Option<VisibleEvent>> {
    let ticket = match tickets::get(db, actor, event.ticket_id).await {
        Ok(t) => t,
        Err(AppError::NotFound(_)) => return Ok(None),
        Err(other) => return Err(other),
    };
    let comment = match event.comment_id {
        None => None,
        Some(id) => {
            let readable = comment::Entity::find_by_id(id)
                .one(db)
                .await?
                .filter(|c| c.ticket_id == ticket.id && !c.is_deleted)
                .filter(|c| can_read(actor, &ticket, c));
            match readable {
                Some(c) => Some(c),
                None => return Ok(None),
            }
        }
    };
    Ok(Some(VisibleEvent {
        event: event.clone(),
        ticket,
        comment,
    }))
}

/// Start following events for `actor`, of one ticket (which must be visible: NOT_FOUND otherwise)
/// or of every ticket. The subscription is in place when this returns.
pub async fn follow(
    state: &AppState,
    actor: &Actor,
    ticket_id: Option<i32>,
) -> AppResult<impl Stream<Item = VisibleEvent> + Send + 'static> {
    if let Some(id) = ticket_id {
        tickets::get(&state.db.conn, actor, id).await?;
    }
    let receiver = state.live.subscribe();
    let follower = Follower {
        state: state.clone(),
        user_id: actor.id(),
        ticket_id,
        receiver,
    };
    Ok(futures_util::stream::unfold(follower, |mut f| async move {
        let next = f.next().await?;
        Some((next, f))
    }))
}

struct Follower {
    state: AppState,
    user_id: i32,
    ticket_id: Option<i32>,
    receiver: broadcast::Receiver<LiveEvent>,
}

impl Follower {
    /// The next event the subscriber may see; `None` ends the subscription (bus closed, or the
    /// subscriber was deactivated).
    async fn next(&mut self) -> Option<VisibleEvent> {
        loop {
            let event = match self.receiver.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "slow subscriber missed live events");
                    continue;
                }
                Err(RecvError::Closed) => return None,
            };
            if self.ticket_id.is_some_and(|id| id != event.ticket_id) {
                continue;
            }
            let db = &self.state.db.conn;
            // Reloaded per event, so a changed group membership or a deactivation counts at once.
            let actor = match load_actor(db, self.user_id).await {
                Ok(Some(actor)) => actor,
                Ok(None) => return None,
                Err(err) => {
                    tracing::warn!(error = %err, "live event dropped: subscriber not loaded");
                    continue;
                }
            };
            match visible(db, &actor, &event).await {
                Ok(Some(seen)) => return Some(seen),
                Ok(None) => continue,
                Err(err) => tracing::warn!(error = %err, "live event dropped: not checked"),
            }
        }
    }
}
