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

/// One kind of remembered read: what its entries are found by and hold, the channel its changes are told on,
/// how many entries it keeps and for how long.
pub trait Kind: 'static {
    /// What an entry is found by.
    type Key: Hash + Eq + Send + Sync + Clone + 'static;
    /// What an entry holds.
    type Value: Send + Sync + 'static;
    /// The PostgreSQL channel on which instances tell each other of a change.
    const CHANNEL: &'static str;
    /// Most entries kept.
    const CAPACITY: u64;
    /// How long an entry is kept at most: what a change that no notice announced (SQL by hand) waits.
    const LIFETIME: Duration = Duration::from_secs(10);
    /// What a change is called in its notice.
    const CHANGE: &'static str;
}

/// The remembered reads of kind `K`. Cheap to clone; clones share the entries.
pub struct Remembered<K: Kind> {
    entries: Cache<K::Key, Arc<K::Value>>,
    generation: Generation,
}

impl<K: Kind> Clone for Remembered<K> {
    fn clone(&self) -> Self {
        Remembered {
            entries: self.entries.clone(),
            generation: self.generation.clone(),
        }
    }
}

impl<K: Kind> std::fmt::Debug for Remembered<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remembered")
            .field("channel", &K::CHANNEL)
            .finish_non_exhaustive()
    }
}

impl<K: Kind> Default for Remembered<K> {
    fn default() -> Self {
        Remembered {
            entries: Cache::builder()
                .max_capacity(K::CAPACITY)
                .time_to_live(K::LIFETIME)
                .build(),
            generation: Generation::default(),
        }
    }
}

impl<K: Kind> Remembered<K> {
    /// The value of `key`: remembered, or `read` and remembered.
    pub async fn get_or_read(
        &self,
        key: K::Key,
        read: impl Future<Output = AppResult<K::Value>>,
    ) -> AppResult<Arc<K::Value>> {
        if let Some(known) = self.entries.get(&key) {
            return Ok(known);
        }
        let seen = self.generation.now();
        let value = Arc::new(read.await?);
        self.generation.put(&self.entries, seen, key, value.clone());
        Ok(value)
    }

    /// The value of `key` if it is remembered; nothing is read.
    pub fn known(&self, key: &K::Key) -> Option<Arc<K::Value>> {
        self.entries.get(key)
    }

    /// The generation to take before a read whose findings go to [`Remembered::remember`].
    pub fn seen(&self) -> u64 {
        self.generation.now()
    }

    /// Remember `value` under `key`, as read after [`Remembered::seen`] gave `seen`: nothing when a change
    /// came since.
    pub fn remember(&self, seen: u64, key: K::Key, value: K::Value) {
        self.generation
            .put(&self.entries, seen, key, Arc::new(value));
    }

    /// Forget every entry on this instance.
    pub fn clear(&self) {
        self.generation.advance();
        self.entries.invalidate_all();
    }

    /// What they hold changed in `db` (the change committed): forget them here and tell the other
    /// instances.
    pub async fn changed(&self, db: &Db) {
        self.clear();
        crate::db::listen::notify(db, K::CHANNEL, "", K::CHANGE).await;
    }

    /// What to do on [`Kind::CHANNEL`]: another instance changed them, or the connection dropped and such a
    /// change may have been missed. Either way, forget them.
    pub fn listener(&self) -> Listener {
        let known = self.clone();
        Listener {
            channel: K::CHANNEL,
            on_heard: Arc::new(move |_: Heard<'_>| known.clear()),
        }
    }
}
