//! Counters in Redis behind a circuit breaker: a call that fails or misses its deadline switches this
//! instance to its own memory until a background probe finds Redis answering again.
use super::Window;
use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often the probe asks a Redis that went away.
const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Keys outlive the window after theirs (a sliding count reads the previous window) by this much, so that
/// clocks a little apart still find them.
const KEY_SLACK_SECONDS: u64 = 60;

/// The Redis side of [`super::Counters`]. Cheap to share: the probe holds a clone.
#[derive(Clone)]
pub struct Shared(Arc<Inner>);

struct Inner {
    manager: ConnectionManager,
    prefix: String,
    deadline: Duration,
    /// Whether calls go to Redis (the circuit is closed).
    up: AtomicBool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("prefix", &self.0.prefix)
            .field("up", &self.0.up.load(Ordering::Relaxed))
            .finish()
    }
}

impl Shared {
    /// A lazily connected manager for `url`; nothing is sent until the first call.
    pub fn new(url: &str, prefix: &str, deadline: Duration) -> anyhow::Result<Self> {
        let client = ::redis::Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(deadline))
            .set_response_timeout(Some(deadline))
            .set_number_of_retries(1);
        let manager = ConnectionManager::new_lazy_with_config(client, config)?;
        gauge(false);
        Ok(Shared(Arc::new(Inner {
            manager,
            prefix: prefix.to_string(),
            deadline,
            up: AtomicBool::new(true),
        })))
    }

    /// Whether calls go to Redis right now.
    pub fn available(&self) -> bool {
        self.0.up.load(Ordering::Relaxed)
    }

    fn key(&self, key: &str, window: Window, now: u64) -> String {
        format!("{}:rl:{key}:{}", self.0.prefix, window.index(now))
    }

    /// Add `amount`; the new count, or `None` when Redis is away.
    pub async fn add(&self, key: &str, amount: u64, window: Window, now: u64) -> Option<u64> {
        let redis_key = self.key(key, window, now);
        let mut conn = self.0.manager.clone();
        let ttl = (2 * window.0 + KEY_SLACK_SECONDS) as i64;
        let reply: Option<(u64,)> = self
            .call(async move {
                ::redis::pipe()
                    .atomic()
                    .incr(&redis_key, amount)
                    .expire(&redis_key, ttl)
                    .ignore()
                    .query_async(&mut conn)
                    .await
            })
            .await;
        reply.map(|(count,)| count)
    }

    /// Subtract `amount`, never below zero (a count taken in memory while Redis was away may not be
    /// there); the key names its window, so a later window is never touched. `None` when Redis is away.
    pub async fn subtract(&self, key: &str, amount: u64, window: Window, now: u64) -> Option<u64> {
        const SUBTRACT: &str = "local v = tonumber(redis.call('GET', KEYS[1]) or '0') \
            local n = math.max(v - tonumber(ARGV[1]), 0) \
            if v > 0 then redis.call('SET', KEYS[1], n, 'KEEPTTL') end \
            return n";
        let redis_key = self.key(key, window, now);
        let mut conn = self.0.manager.clone();
        self.call(async move {
            ::redis::cmd("EVAL")
                .arg(SUBTRACT)
                .arg(1)
                .arg(&redis_key)
                .arg(amount)
                .query_async(&mut conn)
                .await
        })
        .await
    }

    /// The count, or `None` when Redis is away.
    pub async fn get(&self, key: &str, window: Window, now: u64) -> Option<u64> {
        let redis_key = self.key(key, window, now);
        let mut conn = self.0.manager.clone();
        let reply: Option<Option<u64>> = self
            .call(async move {
                ::redis::cmd("GET")
                    .arg(&redis_key)
                    .query_async(&mut conn)
                    .await
            })
            .await;
        reply.map(Option::unwrap_or_default)
    }

    /// Delete the counts of the window holding `now` and of the one before (nothing when Redis is away).
    pub async fn delete(&self, key: &str, window: Window, now: u64) {
        let current = self.key(key, window, now);
        let previous = self.key(key, window, now.saturating_sub(window.0));
        let mut conn = self.0.manager.clone();
        let _: Option<u64> = self
            .call(async move {
                ::redis::cmd("DEL")
                    .arg(&current)
                    .arg(&previous)
                    .query_async(&mut conn)
                    .await
            })
            .await;
    }

    /// Run one call within the deadline while the circuit is closed; a failure opens it.
    async fn call<T>(&self, call: impl Future<Output = ::redis::RedisResult<T>>) -> Option<T> {
        if !self.available() {
            return None;
        }
        let error = match tokio::time::timeout(self.0.deadline, call).await {
            Ok(Ok(value)) => return Some(value),
            Ok(Err(err)) => err.to_string(),
            Err(_) => format!("no answer within {:?}", self.0.deadline),
        };
        self.trip(&error);
        None
    }

    /// Open the circuit (once, however many calls fail together) and start probing.
    fn trip(&self, error: &str) {
        if !self.0.up.swap(false, Ordering::SeqCst) {
            return;
        }
        tracing::warn!(
            error,
            "shared store (Redis) unavailable: counting per instance until it answers"
        );
        switched("memory");
        let probe = self.clone();
        tokio::spawn(async move { probe.probe().await });
    }

    /// Ask Redis every [`PROBE_EVERY`] until it answers, then close the circuit.
    async fn probe(self) {
        loop {
            tokio::time::sleep(PROBE_EVERY).await;
            let mut conn = self.0.manager.clone();
            let ping = tokio::time::timeout(
                self.0.deadline,
                ::redis::cmd("PING").query_async::<String>(&mut conn),
            )
            .await;
            if matches!(ping, Ok(Ok(_))) {
                self.0.up.store(true, Ordering::SeqCst);
                tracing::info!("shared store (Redis) answers again: counts are shared");
                switched("redis");
                return;
            }
        }
    }
}

fn switched(to: &'static str) {
    metrics::counter!("shared_store_switches_total", "store" => "redis", "to" => to).increment(1);
    gauge(to == "memory");
}

fn gauge(degraded: bool) {
    metrics::gauge!("shared_store_degraded", "store" => "redis").set(if degraded {
        1.0
    } else {
        0.0
    });
}
