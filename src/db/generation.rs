//! The guard that every in-process cache of database reads shares (credentials, SLA policies): a change
//! clears the cache, and a reader that read the database before that change must not store what it read
//! afterwards, or the old answer would outlive the change by the cache's whole lifetime.
use moka::sync::Cache;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A counter of the changes that cleared a cache. Cheap to clone; clones count together.
#[derive(Clone, Debug, Default)]
pub struct Generation(Arc<AtomicU64>);

impl Generation {
    /// The current generation: take it before reading from the database what [`Generation::put`] stores.
    pub fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// A change: call before clearing the caches it guards, so that a reader storing concurrently either
    /// sees the new generation or is taken back by [`Generation::put`].
    pub fn advance(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    /// Store `value` under `key` in `cache`, as read in generation `seen`: nothing when a change came since,
    /// and taken back when one comes while it is stored.
    pub fn put<K, V>(&self, cache: &Cache<K, V>, seen: u64, key: K, value: V)
    where
        K: Hash + Eq + Send + Sync + Clone + 'static,
        V: Clone + Send + Sync + 'static,
    {
        if self.now() != seen {
            return;
        }
        cache.insert(key.clone(), value);
        if self.now() != seen {
            cache.invalidate(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_from_before_a_change_is_not_kept() {
        let cache: Cache<u8, &str> = Cache::new(8);
        let generation = Generation::default();
        let seen = generation.now();
        generation.put(&cache, seen, 1, "current");
        assert_eq!(cache.get(&1), Some("current"));

        let before = generation.now();
        generation.advance();
        cache.invalidate_all();
        generation.put(&cache, before, 2, "stale");
        assert_eq!(cache.get(&2), None);
        generation.put(&cache, generation.now(), 2, "fresh");
        assert_eq!(cache.get(&2), Some("fresh"));
    }
}
