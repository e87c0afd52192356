//! Live ticket events as one subscriber may see them. Each event is checked when it is delivered,
//! with the subscriber as their credential resolves at that moment: a ticket they cannot see (or no
//! longer see) and an internal comment they may not read never reach them, and a revoked or expired
//! token or a deactivated account ends the subscription with UNAUTHENTICATED — between events too, as
//! the credential is also resolved again on a timer.
use crate::auth::cache::AuthCache;
use crate::auth::jwt::JwtKeys;
use crate::auth::{authenticate_bearer, session, Actor};
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::notify::live::{Held, Lasting, LiveBus, LiveEvent};
use crate::service::comments::can_read;
use crate::service::tickets;
use entity::{comment, ticket};
use futures_util::Stream;
use sea_orm::{ConnectionTrait, EntityTrait};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

/// What a subscriber signed in with, resolved again for every event and on a timer.
#[derive(Debug, Clone)]
pub enum SignedInWith {
    /// An API token or a JWT (GraphQL subscriptions).
    Bearer(Arc<str>),
    /// A web session's cookie secret (the queue's live feed): it ends with the session, at sign-out, at
    /// expiry, or when the account is deactivated.
    Session(Arc<str>),
}

impl SignedInWith {
    /// Who this credential is now: UNAUTHENTICATED once the token is revoked or expired, the session
    /// has ended, or the account is deactivated.
    pub async fn resolve(
        &self,
        db: &Db,
        auth_cache: &AuthCache,
        jwt: &JwtKeys,
    ) -> AppResult<Arc<Actor>> {
        match self {
            SignedInWith::Bearer(token) => authenticate_bearer(db, auth_cache, jwt, token).await,
            SignedInWith::Session(secret) => {
                let ended = || AppError::Unauthenticated("the session has ended".into());
                let (_, actor) = session::signed_in(&db.conn, auth_cache, secret)
                    .await?
                    .ok_or_else(ended)?;
                Ok(actor)
            }
        }
    }
}

/// Who follows a stream of events: the credential they signed in with, and what resolves it again (for every
/// event and on a timer), so that the stream ends with the credential.
#[derive(Clone)]
pub struct Subscriber {
    /// The database the credential is read from.
    pub db: Db,
    /// The credentials cache.
    pub auth_cache: AuthCache,
    /// The keys that check a JWT.
    pub jwt: JwtKeys,
    /// What they signed in with.
    pub credential: SignedInWith,
}

impl Subscriber {
    /// The subscriber as their credential resolves now.
    pub async fn resolve(&self) -> AppResult<Arc<Actor>> {
        self.credential
            .resolve(&self.db, &self.auth_cache, &self.jwt)
            .await
    }
}

/// An event the subscriber may see, with the records as they are now.
#[derive(Debug, Clone)]
pub struct VisibleEvent {
    /// The subscriber as their credential resolved for this event: whatever the event shows is
    /// shown to this viewer.
    pub viewer: Arc<Actor>,
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
    actor: Arc<Actor>,
    event: &LiveEvent,
) -> AppResult<Option<VisibleEvent>> {
    let ticket = match tickets::get(db, &actor, event.ticket_id).await {
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
                .filter(|c| can_read(&actor, &ticket, c));
            match readable {
                Some(c) => Some(c),
                None => return Ok(None),
            }
        }
    };
    Ok(Some(VisibleEvent {
        viewer: actor,
        event: event.clone(),
        ticket,
        comment,
    }))
}

/// Start following events for `actor`, the `subscriber`, of one ticket (which must be
/// visible: NOT_FOUND otherwise) or of every ticket. The subscription is in place when this returns. It takes one
/// of the user's places for its kind ([`Lasting::Subscription`] with a bearer, [`Lasting::QueueFeed`] with a
/// session; TOO_MANY_OPEN beyond them) until the stream is dropped.
/// The stream ends after an UNAUTHENTICATED error once the credential no longer resolves (a bearer checked as
/// [`authenticate_bearer`] does, with `auth_cache` and `jwt`; a session as the web pages check it).
pub async fn follow(
    live: &LiveBus,
    subscriber: Subscriber,
    actor: &Actor,
    ticket_id: Option<i32>,
) -> AppResult<impl Stream<Item = AppResult<VisibleEvent>> + Send + 'static> {
    if let Some(id) = ticket_id {
        tickets::get(&subscriber.db.conn, actor, id).await?;
    }
    let kind = match subscriber.credential {
        SignedInWith::Bearer(_) => Lasting::Subscription,
        SignedInWith::Session(_) => Lasting::QueueFeed,
    };
    let place = live.hold(actor.id(), kind)?;
    let receiver = live.subscribe();
    let period = recheck_period(subscriber.auth_cache.ttl().as_secs());
    let changes = subscriber.auth_cache.watch_changes();
    let follower = Follower {
        subscriber,
        ticket_id,
        receiver,
        recheck: tokio::time::interval_at(tokio::time::Instant::now() + period, period),
        changes,
        ended: false,
        _place: place,
    };
    Ok(futures_util::stream::unfold(follower, |mut f| async move {
        let next = f.next().await?;
        Some((next, f))
    }))
}

/// How often a quiet subscription resolves its credential again: the credentials-cache lifetime (a
/// check sooner would only meet the cache), at least a second and at most a minute.
fn recheck_period(auth_cache_seconds: u64) -> Duration {
    Duration::from_secs(auth_cache_seconds.clamp(1, 60))
}

/// The next moment to check the credential: the timer, or a change of credentials heard from any
/// instance. A closed change channel leaves the timer.
async fn recheck(
    timer: &mut tokio::time::Interval,
    changes: &mut tokio::sync::watch::Receiver<u64>,
) {
    tokio::select! {
        _ = timer.tick() => {}
        Ok(()) = changes.changed() => {}
    }
}

struct Follower {
    subscriber: Subscriber,
    ticket_id: Option<i32>,
    receiver: broadcast::Receiver<LiveEvent>,
    /// Ticks between events, so that a subscription nobody writes to still ends when its credential does.
    recheck: tokio::time::Interval,
    /// Credentials changed somewhere (a deactivation, a revoked token): check at once.
    changes: tokio::sync::watch::Receiver<u64>,
    ended: bool,
    /// The subscriber's place among the user's followers of this kind, given back when the stream is dropped.
    _place: Held,
}

impl Follower {
    /// The next event the subscriber may see, or the error that ends the subscription; `None` once
    /// it has ended (or the bus closed).
    async fn next(&mut self) -> Option<AppResult<VisibleEvent>> {
        if self.ended {
            return None;
        }
        loop {
            let received = tokio::select! {
                received = self.receiver.recv() => received,
                _ = recheck(&mut self.recheck, &mut self.changes) => {
                    match self.subscriber.resolve().await {
                        Err(err @ AppError::Unauthenticated(_)) => {
                            self.ended = true;
                            return Some(Err(err));
                        }
                        // Anything else (the database briefly away) is asked again at the next tick.
                        Ok(_) | Err(_) => continue,
                    }
                }
            };
            let event = match received {
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
            // Resolved again per event (through the credentials cache), so a revocation, an expiry,
            // a deactivation or a changed group membership counts from the next event on.
            let actor = match self.subscriber.resolve().await {
                Ok(actor) => actor,
                Err(err @ AppError::Unauthenticated(_)) => {
                    self.ended = true;
                    return Some(Err(err));
                }
                Err(err) => {
                    tracing::warn!(error = %err, "live event dropped: subscriber not resolved");
                    continue;
                }
            };
            match visible(&self.subscriber.db.conn, actor, &event).await {
                Ok(Some(seen)) => return Some(Ok(seen)),
                Ok(None) => continue,
                Err(err) => tracing::warn!(error = %err, "live event dropped: not checked"),
            }
        }
    }
}
