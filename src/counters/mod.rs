//! Counters in fixed time windows (and sliding counts over two of them), shared by every instance when Redis is configured: the request budgets,
//! failed logins and anything else that must be counted across instances.
//!
//! Redis is a shared store the service can live without: every Redis call has a short deadline, and the
//! first call that misses it (or fails) opens a circuit. While it is open, counting goes on in this
//! instance's memory with no Redis call on the request's path, and a background probe asks Redis every
//! second; the first answer closes the circuit. Each switch is logged and counted
//! (`shared_store_switches_total`, `shared_store_degraded`).
mod memory;
mod redis;

use memory::Memory;
use std::net::IpAddr;
use std::time::Duration;

/// A fixed window of counting: its length in seconds (windows are aligned to multiples of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Window(pub u64);

impl Window {
    /// One hour: the request and GraphQL budgets.
    pub const HOUR: Window = Window(3600);

    /// The index of the window holding `now` (epoch seconds).
    fn index(self, now: u64) -> u64 {
        now / self.0.max(1)
    }

    /// Epoch seconds when the window holding `now` ends.
    pub fn reset(self, now: u64) -> u64 {
        (self.index(now) + 1) * self.0.max(1)
    }

    /// The count over the last window's length up to `now`, from the counts of the window holding `now`
    /// and of the one before: the earlier window's count is taken in the share of it still inside that
    /// span (rounded up, so a failure a second before a boundary still counts whole after it).
    fn sliding(self, current: u64, previous: u64, now: u64) -> u64 {
        let length = self.0.max(1);
        let inside = length - now % length;
        current.saturating_add((previous.saturating_mul(inside)).div_ceil(length))
    }
}

/// The verdict of counting against a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The budget.
    pub limit: u64,
    /// What is left after this use.
    pub remaining: u64,
    /// Epoch seconds when the window resets.
    pub reset: u64,
    /// Whether the use fits in the budget.
    pub allowed: bool,
}

impl Decision {
    fn of(count: u64, limit: u64, reset: u64) -> Decision {
        Decision {
            limit,
            remaining: limit.saturating_sub(count),
            reset,
            allowed: count <= limit,
        }
    }
}

/// Counters kept in memory, or in Redis (with this instance's memory standing in while Redis is away).
#[derive(Debug)]
pub struct Counters {
    memory: Memory,
    redis: Option<redis::Shared>,
}

/// Longest a Redis call may take before the circuit opens.
pub const DEFAULT_REDIS_DEADLINE: Duration = Duration::from_millis(100);

impl Counters {
    /// Counters in this process only.
    pub fn memory() -> Self {
        Counters {
            memory: Memory::new(),
            redis: None,
        }
    }

    /// Counters in the Redis at `url` under keys starting with `prefix`. A URL that does not parse is an
    /// error; a Redis that does not answer is not: the service starts counting in memory and switches to
    /// Redis when it answers.
    pub fn redis(url: &str, prefix: &str, deadline: Duration) -> anyhow::Result<Self> {
        Ok(Counters {
            memory: Memory::new(),
            redis: Some(redis::Shared::new(url, prefix, deadline)?),
        })
    }

    /// Whether counts are shared with other instances right now (Redis configured and answering).
    pub fn shared(&self) -> bool {
        self.redis.as_ref().is_some_and(redis::Shared::available)
    }

    /// Add `amount` to `key`'s count in the window holding `now` (epoch seconds) and judge the new count
    /// against `limit`.
    pub async fn take(
        &self,
        key: &str,
        amount: u64,
        limit: u64,
        window: Window,
        now: u64,
    ) -> Decision {
        let count = self.add(key, amount, window, now).await;
        Decision::of(count, limit, window.reset(now))
    }

    /// Like [`Counters::take`], judged on the sliding count (the window's length up to `now`), so that
    /// uses just before a boundary are not forgotten just after it.
    pub async fn take_sliding(
        &self,
        key: &str,
        amount: u64,
        limit: u64,
        window: Window,
        now: u64,
    ) -> Decision {
        let current = self.add(key, amount, window, now).await;
        let previous = self.previous(key, window, now).await;
        Decision::of(
            window.sliding(current, previous, now),
            limit,
            window.reset(now),
        )
    }

    /// `key`'s sliding count: over the window's length up to `now`.
    pub async fn count_sliding(&self, key: &str, window: Window, now: u64) -> u64 {
        let current = self.count(key, window, now).await;
        let previous = self.previous(key, window, now).await;
        window.sliding(current, previous, now)
    }

    /// `key`'s count in the window before the one holding `now`.
    async fn previous(&self, key: &str, window: Window, now: u64) -> u64 {
        match now.checked_sub(window.0.max(1)) {
            Some(then) => self.count(key, window, then).await,
            None => 0,
        }
    }

    async fn add(&self, key: &str, amount: u64, window: Window, now: u64) -> u64 {
        if let Some(shared) = &self.redis {
            if let Some(count) = shared.add(key, amount, window, now).await {
                return count;
            }
        }
        self.memory.add(key, amount, window, now)
    }

    /// `key`'s count in the window holding `now`, without adding to it.
    pub async fn count(&self, key: &str, window: Window, now: u64) -> u64 {
        match &self.redis {
            Some(shared) => match shared.get(key, window, now).await {
                Some(count) => count,
                None => self.memory.get(key, window, now),
            },
            None => self.memory.get(key, window, now),
        }
    }

    /// Give back `amount` of what [`Counters::take`] added to `key` in the window holding `now` (the
    /// `now` of that take: nothing is given back to a later window).
    pub async fn give_back(&self, key: &str, amount: u64, window: Window, now: u64) {
        if let Some(shared) = &self.redis {
            if shared.subtract(key, amount, window, now).await.is_some() {
                return;
            }
        }
        self.memory.subtract(key, amount, window, now);
    }

    /// Forget `key`'s count in the window holding `now` and in the one before.
    pub async fn reset(&self, key: &str, window: Window, now: u64) {
        if let Some(shared) = &self.redis {
            shared.delete(key, window, now).await;
        }
        // Also here: counts taken while Redis was away must not outlive a reset either.
        self.memory.delete(key);
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    chrono::Utc::now().timestamp().max(0) as u64
}

/// The key an address is counted under: IPv4 addresses alone, IPv6 addresses by their /64 network, which
/// one subscriber usually holds whole (counting each address would hand a client 2^64 budgets).
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_window_counts_and_resets() {
        let store = Counters::memory();
        let now = 7200 + 10;
        let first = store.take("k", 1, 2, Window::HOUR, now).await;
        assert_eq!(
            (first.allowed, first.remaining, first.reset),
            (true, 1, 10800)
        );
        assert!(store.take("k", 1, 2, Window::HOUR, now).await.allowed);
        let third = store.take("k", 1, 2, Window::HOUR, now).await;
        assert_eq!((third.allowed, third.remaining), (false, 0));
        assert!(store.take("other", 1, 2, Window::HOUR, now).await.allowed);
        assert!(
            store
                .take("k", 1, 2, Window::HOUR, now + 3600)
                .await
                .allowed
        );
        assert_eq!(store.count("k", Window::HOUR, now + 3600).await, 1);
        store.reset("k", Window::HOUR, now + 3600).await;
        assert_eq!(store.count("k", Window::HOUR, now + 3600).await, 0);
    }

    #[tokio::test]
    async fn amounts_and_windows_of_their_own() {
        let store = Counters::memory();
        let d = store.take("points", 40, 100, Window::HOUR, 10).await;
        assert_eq!((d.remaining, d.allowed), (60, true));
        let d = store.take("points", 61, 100, Window::HOUR, 10).await;
        assert_eq!((d.remaining, d.allowed), (0, false));
        let quarter = Window(900);
        store.take("login", 1, 5, quarter, 100).await;
        assert_eq!(store.count("login", quarter, 899).await, 1);
        assert_eq!(store.count("login", quarter, 900).await, 0);
        assert_eq!(quarter.reset(100), 900);
    }

    #[tokio::test]
    async fn sliding_counts_carry_the_previous_window_in_the_share_still_inside() {
        let store = Counters::memory();
        let quarter = Window(900);
        for _ in 0..3 {
            store.take_sliding("k", 1, 5, quarter, 899).await;
        }
        // A second past the boundary the three still count whole; the fixed count has forgotten them.
        assert_eq!(store.count("k", quarter, 901).await, 0);
        assert_eq!(store.count_sliding("k", quarter, 901).await, 3);
        store.take_sliding("k", 1, 5, quarter, 901).await;
        let fifth = store.take_sliding("k", 1, 5, quarter, 902).await;
        assert_eq!((fifth.allowed, fifth.remaining), (true, 0));
        assert!(!store.take_sliding("k", 1, 5, quarter, 903).await.allowed);
        // Half-way through the next window, half of the earlier three (rounded up) and the three since.
        assert_eq!(store.count_sliding("k", quarter, 1350).await, 2 + 3);
        // Two windows on, nothing.
        assert_eq!(store.count_sliding("k", quarter, 2700).await, 0);
        store.take_sliding("k", 1, 5, quarter, 1000).await;
        store.reset("k", quarter, 1800).await;
        assert_eq!(store.count_sliding("k", quarter, 1800).await, 0);
    }

    #[tokio::test]
    async fn an_unreachable_redis_counts_in_memory_at_once() {
        // Nothing listens on port 1: the first call fails fast and opens the circuit.
        let store = Counters::redis("redis://127.0.0.1:1", "t", DEFAULT_REDIS_DEADLINE)
            .unwrap_or_else(|_| Counters::memory());
        let started = std::time::Instant::now();
        for _ in 0..50 {
            store.take("k", 1, 1000, Window::HOUR, 10).await;
        }
        assert_eq!(store.count("k", Window::HOUR, 10).await, 50);
        assert!(!store.shared());
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_bad_redis_url_is_an_error() {
        assert!(Counters::redis("not a url", "t", DEFAULT_REDIS_DEADLINE).is_err());
    }

    #[test]
    fn ipv6_clients_are_counted_by_network() {
        let key = |s: &str| address_key(s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0])));
        assert_eq!(key("203.0.113.9"), "203.0.113.9");
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::2"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:203.0.113.9"), "203.0.113.9");
    }
}
