//! A short-lived, in-process cache of resolved credentials, so that an authenticated request does not pay
//! for its token and its user's groups in SQL every time.
//!
//! What may change a cached answer invalidates it: revoking a token clears this instance's cache at once
//! and, on PostgreSQL, every other instance's through `NOTIFY` on [`CHANNEL`] (see `notify::live`). Changes
//! made outside the service (SQL by hand, the CLI against SQLite while a server runs) are seen within
//! the configured lifetime (`DESKGRAPH_AUTH_CACHE_SECONDS`, default 10; 0 turns the cache off).
use super::Actor;
use crate::db::Db;
use chrono::{DateTime, Utc};
use moka::sync::Cache;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The PostgreSQL channel on which instances tell each other that credentials changed.
pub const CHANNEL: &str = "deskgraph_auth";

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

/// Tokens by the hash of their secret, and actors by user id. Cheap to clone; clones share the entries.
#[derive(Clone, Debug)]
pub struct AuthCache {
    tokens: Option<Cache<String, CachedToken>>,
    actors: Option<Cache<i32, Arc<Actor>>>,
}

impl AuthCache {
    /// A cache whose entries live `ttl` at most; a zero `ttl` caches nothing.
    pub fn new(ttl: Duration) -> Self {
        if ttl.is_zero() {
            return AuthCache {
                tokens: None,
                actors: None,
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
        }
    }

    /// The token stored under this secret hash, if cached.
    pub fn token(&self, hash: &str) -> Option<CachedToken> {
        self.tokens.as_ref()?.get(hash)
    }

    /// Remember what a token hash resolved to.
    pub fn put_token(&self, hash: String, token: CachedToken) {
        if let Some(tokens) = &self.tokens {
            tokens.insert(hash, token);
        }
    }

    /// The active user with this id and their groups, if cached.
    pub fn actor(&self, user_id: i32) -> Option<Arc<Actor>> {
        self.actors.as_ref()?.get(&user_id)
    }

    /// Remember a loaded actor.
    pub fn put_actor(&self, actor: Arc<Actor>) {
        if let Some(actors) = &self.actors {
            actors.insert(actor.id(), actor);
        }
    }

    /// Forget everything on this instance (credentials changed; such changes are rare).
    pub fn clear(&self) {
        if let Some(tokens) = &self.tokens {
            tokens.invalidate_all();
        }
        if let Some(actors) = &self.actors {
            actors.invalidate_all();
        }
    }

    /// Credentials changed in `db`: forget them here and, on PostgreSQL, tell the other instances.
    /// Call after the change committed. Never fails the caller: the entries' lifetime bounds a lost notice.
    pub async fn changed(&self, db: &Db) {
        self.clear();
        if db.backend() != DbBackend::Postgres {
            return;
        }
        let stmt = Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT pg_notify($1, '')",
            [CHANNEL.into()],
        );
        if let Err(err) = db.conn.execute_raw(stmt).await {
            tracing::warn!(error = %err, "credential change not sent to other instances");
        }
    }
}
