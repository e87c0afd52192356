//! Database reads remembered per instance (SLA policies by priority, the active triggers, the custom field
//! definitions), so that a ticket write does not read them in statements of its own every time.
//!
//! As with credentials (`auth::cache`), a change invalidates: saving one forgets them on this instance at once
//! and, on PostgreSQL, on every other instance through `NOTIFY` on the cache's channel; a dropped connection,
//! which may have missed a notice, forgets them too. A change no notice announced (SQL by hand) waits at most
//! the entries' lifetime. A reader that read while a change happened does not store what it read
//! ([`Generation`]).
use crate::db::generation::Generation;
use crate::db::listen::{Heard, Listener};
use crate::db::Db;
use crate::error::AppResult;
use moka::sync::Cache;
use std::future::Future;
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

/// Values by key, read from the database and remembered. Cheap to clone; clones share the entries.
pub struct Remembered<K, V> {
    entries: Cache<K, Arc<V>>,
    generation: Generation,
    channel: &'static str,
}

impl<K, V> Clone for Remembered<K, V> {
    fn clone(&self) -> Self {
        Remembered {
            entries: self.entries.clone(),
            generation: self.generation.clone(),
            channel: self.channel,
        }
    }
}

impl<K, V> std::fmt::Debug for Remembered<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remembered")
            .field("channel", &self.channel)
            .finish_non_exhaustive()
    }
}

impl<K, V> Remembered<K, V>
where
    K: Hash + Eq + Send + Sync + Clone + 'static,
    V: Send + Sync + 'static,
{
    /// At most `capacity` entries, each kept at most `lifetime`; changes are told on `channel`.
    pub fn new(channel: &'static str, capacity: u64, lifetime: Duration) -> Self {
        Remembered {
            entries: Cache::builder()
                .max_capacity(capacity)
                .time_to_live(lifetime)
                .build(),
            generation: Generation::default(),
            channel,
        }
    }

    /// The value of `key`: remembered, or `read` and remembered.
    pub async fn get_or_read(
        &self,
        key: K,
        read: impl Future<Output = AppResult<V>>,
    ) -> AppResult<Arc<V>> {
        if let Some(known) = self.entries.get(&key) {
            return Ok(known);
        }
        let seen = self.generation.now();
        let value = Arc::new(read.await?);
        self.generation.put(&self.entries, seen, key, value.clone());
        Ok(value)
    }

    /// Forget every entry on this instance.
    pub fn clear(&self) {
        self.generation.advance();
        self.entries.invalidate_all();
    }

    /// What they hold changed in `db` (the change committed): forget them here and tell the other
    /// instances (`why` goes in the notice).
    pub async fn changed(&self, db: &Db, why: &str) {
        self.clear();
        crate::db::listen::notify(db, self.channel, "", why).await;
    }

    /// What to do on the channel: another instance changed them, or the connection dropped and such a change
    /// may have been missed. Either way, forget them.
    pub fn listener(&self) -> Listener {
        let known = self.clone();
        Listener {
            channel: self.channel,
            on_heard: Arc::new(move |_: Heard<'_>| known.clear()),
        }
    }
}
