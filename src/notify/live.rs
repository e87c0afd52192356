//! Live ticket events for GraphQL subscriptions: an in-process broadcast bus, and on PostgreSQL
//! LISTEN/NOTIFY so an event published by one instance reaches subscribers on every instance.
//!
//! Events carry ids only. What a subscriber receives is decided when the event is delivered, with
//! the subscriber's own permissions (`service::ticket_events`), so nothing here can leak.
use crate::db::listen::{self, Heard, Listener, Listening};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// The PostgreSQL channel shared by all instances.
pub const CHANNEL: &str = "deskgraph_events";

/// Events kept for a slow subscriber before it starts missing some.
const CAPACITY: usize = 1024;

/// The kinds of long-lived thing a user holds places for on one instance, each bounded on its own: a user cannot
/// make the instance keep thousands of sockets open or check every event for thousands of followers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lasting {
    /// The web queue's live feed (`GET /tickets/live/`), one per open queue tab.
    QueueFeed,
    /// A signed-in GraphQL WebSocket connection (`/graphql/ws`).
    Socket,
    /// A GraphQL subscription, on any of the user's sockets.
    Subscription,
}

impl Lasting {
    /// How many of this kind one user may hold at once on one instance.
    pub const fn most(self) -> usize {
        match self {
            Lasting::QueueFeed => 8,
            Lasting::Socket => 16,
            Lasting::Subscription => 64,
        }
    }

    /// The refusal beyond [`Lasting::most`].
    fn refusal(self) -> AppError {
        let what = match self {
            Lasting::QueueFeed => "live queue feeds",
            Lasting::Socket => "GraphQL WebSocket connections",
            Lasting::Subscription => "subscriptions",
        };
        AppError::TooManyOpen {
            message: format!(
                "at most {} {what} may be open at once per user; close one first",
                self.most()
            ),
            retry_after: 60,
        }
    }
}

/// What happened to a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveKind {
    /// A ticket was created.
    Created,
    /// Fields other than the status changed.
    Updated,
    /// The status changed.
    StatusChanged,
    /// A comment was added.
    CommentAdded,
    /// A service-level target became at risk or was breached.
    SlaChanged,
}

/// One occurrence, by id; subscribers load the current records themselves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveEvent {
    /// What happened.
    pub kind: LiveKind,
    /// The ticket concerned.
    pub ticket_id: i32,
    /// The new comment, for `CommentAdded`.
    pub comment_id: Option<i32>,
    /// When it happened.
    pub at: DateTime<Utc>,
}

impl LiveEvent {
    /// An event about `ticket_id` happening now.
    pub fn new(kind: LiveKind, ticket_id: i32) -> Self {
        LiveEvent {
            kind,
            ticket_id,
            comment_id: None,
            at: Utc::now(),
        }
    }

    /// A new comment on `ticket_id`.
    pub fn comment(ticket_id: i32, comment_id: i32) -> Self {
        LiveEvent {
            comment_id: Some(comment_id),
            ..LiveEvent::new(LiveKind::CommentAdded, ticket_id)
        }
    }
}

/// The wire form of a NOTIFY payload: the event and the instance that sent it, so an instance
/// skips its own (it already delivered them locally).
#[derive(Debug, Serialize, Deserialize)]
struct Wire {
    origin: String,
    event: LiveEvent,
}

/// Publishes and subscribes to live events. Cheap to clone; every clone shares one bus.
#[derive(Clone, Debug)]
pub struct LiveBus {
    sender: Arc<broadcast::Sender<LiveEvent>>,
    origin: Arc<str>,
    /// The instance's LISTEN connection (PostgreSQL), kept as long as the bus.
    listening: Option<Listening>,
    /// Places held per user and kind on this instance (see [`LiveBus::hold`]).
    held: Arc<Mutex<HashMap<(i32, Lasting), usize>>>,
}

/// One user's place among an instance's long-lived things of a kind, given back when dropped.
#[derive(Debug)]
pub struct Held {
    held: Arc<Mutex<HashMap<(i32, Lasting), usize>>>,
    key: (i32, Lasting),
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = held.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl LiveBus {
    /// A bus for this process only (SQLite, tests).
    pub fn local() -> Self {
        let (sender, _) = broadcast::channel(CAPACITY);
        LiveBus {
            sender: Arc::new(sender),
            origin: uuid::Uuid::new_v4().to_string().into(),
            listening: None,
            held: Arc::default(),
        }
    }

    /// Take one of the [`Lasting::most`] places of `user_id` for a `kind` on this instance, or TOO_MANY_OPEN
    /// when they are all taken. The place is given back when the hold is dropped.
    pub fn hold(&self, user_id: i32, kind: Lasting) -> AppResult<Held> {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = held.entry((user_id, kind)).or_default();
        if *count >= kind.most() {
            return Err(kind.refusal());
        }
        *count += 1;
        Ok(Held {
            held: self.held.clone(),
            key: (user_id, kind),
        })
    }

    /// The bus for `db`: on PostgreSQL it also listens on [`CHANNEL`], beside the channels of `also`, with
    /// the instance's one LISTEN connection to `url`. Returns once the connection listens, so events
    /// published from then on arrive.
    pub async fn start(db: &Db, url: &str, also: Vec<Listener>) -> anyhow::Result<Self> {
        let mut bus = LiveBus::local();
        if db.backend() == DbBackend::Postgres {
            let mut listeners = also;
            listeners.push(bus.listener());
            bus.listening = Some(listen::start(url, listeners).await?);
        }
        Ok(bus)
    }

    /// Events from other instances, forwarded to this instance's subscribers (while the bus lives: the
    /// callback holds it weakly).
    fn listener(&self) -> Listener {
        let sender = Arc::downgrade(&self.sender);
        let origin = self.origin.clone();
        Listener {
            channel: CHANNEL,
            on_heard: Arc::new(move |heard: Heard<'_>| {
                let Heard::Notification(payload) = heard else {
                    return;
                };
                let Some(sender) = sender.upgrade() else {
                    return;
                };
                match serde_json::from_str::<Wire>(payload) {
                    Ok(wire) if *wire.origin != *origin => {
                        let _ = sender.send(wire.event);
                    }
                    Ok(_) => {}
                    Err(err) => tracing::warn!(error = %err, "unreadable live event ignored"),
                }
            }),
        }
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.sender.subscribe()
    }

    /// How many receivers are listening on this instance (tests wait for a subscription with it).
    pub fn subscriber_count(&self) -> usize {
        self.sender.receiver_count()
    }

    /// Deliver `event` to this instance's subscribers and, on PostgreSQL, to the other instances.
    /// Call after the change committed. Never fails the caller: a lost live event is logged.
    pub async fn publish(&self, db: &Db, event: LiveEvent) {
        // No receivers is not an error: nobody is subscribed right now.
        let _ = self.sender.send(event.clone());
        if db.backend() != DbBackend::Postgres {
            return;
        }
        let wire = Wire {
            origin: self.origin.to_string(),
            event,
        };
        let payload = match serde_json::to_string(&wire) {
            Ok(payload) => payload,
            Err(err) => {
                tracing::warn!(error = %err, "live event not serialised");
                return;
            }
        };
        let stmt = Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT pg_notify($1, $2)",
            [CHANNEL.into(), payload.into()],
        );
        if let Err(err) = db.conn.execute_raw(stmt).await {
            tracing::warn!(error = %err, "live event not sent to other instances");
        }
    }
}
