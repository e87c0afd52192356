//! A short-lived, in-process cache of resolved credentials, so that an authenticated request does not pay
//! for its token and its user's groups in SQL every time.
//!
//! What may change a cached answer invalidates it: revoking a token clears this instance's cache at once
//! and, on PostgreSQL, every other instance's through `NOTIFY` on [`CHANNEL`] (heard by `db::listen`). Changes
//! made outside the service (SQL by hand, the CLI against SQLite while a server runs) are seen within
//! the configured lifetime (`DESKGRAPH_AUTH_CACHE_SECONDS`, default 10; 0 turns the cache off).
use super::Actor;
use crate::db::generation::Generation;
use crate::db::listen::{Heard, Listener};
use crate::db::Db;
use chrono::{DateTime, Utc};
use entity::api_token;
use moka::sync::Cache;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that credentials changed.
pub const CHANNEL: &str = "deskgraph_auth";

/// A notice on [`CHANNEL`] about one user only (`user:<id>`); any other notice clears everything.
const USER_PREFIX: &str = "user:";

/// Most credentials kept: far above the active tokens of a busy instance, and a bound on memory.
const CAPACITY: u64 = 10_000;

/// What an API token resolved to.
#[derive(Clone, Debug)]
pub struct CachedToken {
    /// The token's id.
    pub id: i32,
    /// Its owner.
    pub user_id: i32,
    /// When it stops working, if ever.
    pub expires_at: Option<DateTime<Utc>>,
    /// Its last recorded use (the record is touched at most once a minute); shared by the entry's readers so
    /// that recording a use does not store the entry again (which would restart its lifetime).
    pub last_used_at: Arc<Mutex<Option<DateTime<Utc>>>>,
}

impl CachedToken {
    /// Record a use of the token, at most once a minute so that authenticated reads stay reads.
    pub(super) async fn touch(
        &self,
        db: &impl ConnectionTrait,
        now: DateTime<Utc>,
    ) -> Result<(), DbErr> {
        let stale = {
            // Claim the write under the lock, so concurrent requests with one token do not all write.
            let Ok(mut last) = self.last_used_at.lock() else {
                return Ok(());
            };
            let stale = last.is_none_or(|at| now - at > chrono::Duration::seconds(60));
            if stale {
                *last = Some(now);
            }
            stale
        };
        if stale {
            api_token::Entity::update_many()
                .col_expr(api_token::Column::LastUsedAt, Expr::value(now))
                .filter(api_token::Column::Id.eq(self.id))
                .exec(db)
                .await?;
        }
        Ok(())
    }
}

/// Tokens by the hash of their secret, and actors by user id. Cheap to clone; clones share the entries.
///
/// A reader that looked something up in the database while credentials changed must not store what it read
/// after the change cleared the cache: [`AuthCache::generation`] is taken before the lookup and the put methods
/// drop (or take back) an entry read in an older generation.
#[derive(Clone, Debug)]
pub struct AuthCache {
    tokens: Option<Cache<String, CachedToken>>,
    actors: Option<Cache<i32, Arc<Actor>>>,
    generation: Generation,
    ttl: Duration,
    /// Ticks on every [`AuthCache::clear`], so that long-lived holders of a credential (subscriptions)
    /// check it again at once rather than at their next timer.
    cleared: Arc<tokio::sync::watch::Sender<u64>>,
}

impl AuthCache {
    /// What to do on [`CHANNEL`]: another instance changed credentials, or the connection dropped and such a
    /// change may have been missed. Either way, forget everything.
    pub fn listener(&self) -> Listener {
        let cache = self.clone();
        Listener {
            channel: CHANNEL,
            on_heard: Arc::new(move |heard: Heard<'_>| match heard {
                Heard::Notification(said) => match said.strip_prefix(USER_PREFIX).map(str::parse) {
                    Some(Ok(user_id)) => cache.forget_actor(user_id),
                    _ => cache.clear(),
                },
                Heard::Lost => cache.clear(),
            }),
        }
    }

    /// A cache whose entries live `ttl` at most; a zero `ttl` caches nothing.
    pub fn new(ttl: Duration) -> Self {
        let cleared = Arc::new(tokio::sync::watch::Sender::new(0));
        if ttl.is_zero() {
            return AuthCache {
                tokens: None,
                actors: None,
                generation: Generation::default(),
                ttl,
                cleared,
            };
        }
        AuthCache {
            tokens: Some(
                Cache::builder()
                    .max_capacity(CAPACITY)
                    .time_to_live(ttl)
                    .build(),
            ),
            actors: Some(
                Cache::builder()
                    .max_capacity(CAPACITY)
                    .time_to_live(ttl)
                    .build(),
            ),
            generation: Generation::default(),
            ttl,
            cleared,
        }
    }

    /// A receiver that sees a change each time credentials change on any instance (as this one hears it).
    pub fn watch_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.cleared.subscribe()
    }

    /// How long an entry lives at most (`DESKGRAPH_AUTH_CACHE_SECONDS`).
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The current generation: take it before reading credentials from the database.
    pub fn generation(&self) -> u64 {
        self.generation.now()
    }

    /// The token stored under this secret hash, if cached.
    pub fn token(&self, hash: &str) -> Option<CachedToken> {
        self.tokens.as_ref()?.get(hash)
    }

    /// Remember what a token hash resolved to, as read in generation `seen`.
    pub fn put_token(&self, seen: u64, hash: String, token: CachedToken) {
        if let Some(tokens) = &self.tokens {
            self.generation.put(tokens, seen, hash, token);
        }
    }

    /// The active user with this id and their groups, if cached.
    pub fn actor(&self, user_id: i32) -> Option<Arc<Actor>> {
        self.actors.as_ref()?.get(&user_id)
    }

    /// Remember an actor, as loaded in generation `seen`.
    pub fn put_actor(&self, seen: u64, actor: Arc<Actor>) {
        if let Some(actors) = &self.actors {
            self.generation.put(actors, seen, actor.id(), actor);
        }
    }

    /// Forget everything on this instance (credentials changed; such changes are rare).
    pub fn clear(&self) {
        self.generation.advance();
        if let Some(tokens) = &self.tokens {
            tokens.invalidate_all();
        }
        if let Some(actors) = &self.actors {
            actors.invalidate_all();
            // Last: whoever wakes up reads the cleared caches.
            self.cleared.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Credentials changed in `db`: forget them here and, on PostgreSQL, tell the other instances.
    /// Call after the change committed. Never fails the caller: the entries' lifetime bounds a lost notice.
    pub async fn changed(&self, db: &Db) {
        self.clear();
        crate::db::listen::notify(db, CHANNEL, "", "credential change").await;
    }

    /// Forget one user's record on this instance (a reader who loaded it before now does not keep it).
    fn forget_actor(&self, user_id: i32) {
        self.generation.advance();
        if let Some(actors) = &self.actors {
            actors.invalidate(&user_id);
        }
    }

    /// Something only that user's pages read changed on their account (language, time zone): forget their
    /// record here and on the other instances, so that their next page reads it again, while everyone else's
    /// credentials and subscriptions stay as they are. Call after the change committed.
    pub async fn reread(&self, db: &Db, user_id: i32) {
        self.forget_actor(user_id);
        let said = format!("{USER_PREFIX}{user_id}");
        crate::db::listen::notify(db, CHANNEL, &said, "account change").await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> CachedToken {
        CachedToken {
            id: 1,
            user_id: 2,
            expires_at: None,
            last_used_at: Arc::new(Mutex::new(None)),
        }
    }

    #[test]
    fn what_was_read_before_a_change_is_not_kept_after_it() {
        let cache = AuthCache::new(Duration::from_secs(60));
        let before = cache.generation();
        // A revocation commits and clears while a reader is still looking the token up.
        cache.clear();
        cache.put_token(before, "hash".into(), token());
        assert!(cache.token("hash").is_none());

        let now = cache.generation();
        cache.put_token(now, "hash".into(), token());
        assert_eq!(cache.token("hash").map(|t| t.user_id), Some(2));
        cache.clear();
        assert!(cache.token("hash").is_none());
    }

    #[test]
    fn a_zero_lifetime_caches_nothing() {
        let cache = AuthCache::new(Duration::ZERO);
        cache.put_token(cache.generation(), "hash".into(), token());
        assert!(cache.token("hash").is_none());
    }
}
