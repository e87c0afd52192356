//! Fixed-window rate limits (per hour): per user when authenticated, per client address otherwise.
//! Counters live in memory, or in Redis so that several instances share one budget.
use super::client_ip::client_ip;
use crate::auth::middleware::{Auth, WebSession};
use crate::error::AppError;
use crate::state::AppState;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::Response;
use std::collections::HashMap;
use std::sync::Mutex;

/// Length of one window, in seconds.
pub const WINDOW_SECONDS: u64 = 3600;

/// Where counters are kept.
pub enum RateStore {
    /// This process only.
    Memory(Mutex<HashMap<String, (u64, u64)>>),
    /// Shared by every instance using the same key prefix.
    Redis {
        /// The connection (reconnects on its own).
        manager: redis::aio::ConnectionManager,
        /// Prefix of every key.
        prefix: String,
    },
}

impl std::fmt::Debug for RateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RateStore::Memory(_) => "RateStore::Memory",
            RateStore::Redis { .. } => "RateStore::Redis",
        })
    }
}

/// The verdict for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The budget.
    pub limit: u64,
    /// What is left after this request.
    pub remaining: u64,
    /// Epoch seconds when the window resets.
    pub reset: u64,
    /// Whether the request may proceed.
    pub allowed: bool,
}

impl RateStore {
    /// In-memory counters.
    pub fn memory() -> Self {
        RateStore::Memory(Mutex::new(HashMap::new()))
    }

    /// Redis counters at `url`, under keys starting with `prefix`.
    pub async fn redis(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url)?;
        Ok(RateStore::Redis {
            manager: redis::aio::ConnectionManager::new(client).await?,
            prefix: prefix.to_string(),
        })
    }

    /// Count one request against `key` with budget `limit` at time `now` (epoch seconds).
    pub async fn hit(&self, key: &str, limit: u64, now: u64) -> Decision {
        let window = now / WINDOW_SECONDS;
        let reset = (window + 1) * WINDOW_SECONDS;
        let count = match self {
            RateStore::Memory(map) => {
                let mut map = match map.lock() {
                    Ok(guard) => guard,
                    Err(poisoned) => poisoned.into_inner(),
                };
                if map.len() > 100_000 {
                    map.retain(|_, (w, _)| *w == window);
                }
                // Looked up first: the key is copied only for a client's first request.
                let entry = match map.get_mut(key) {
                    Some(entry) => entry,
                    None => map.entry(key.to_string()).or_insert((window, 0)),
                };
                if entry.0 != window {
                    *entry = (window, 0);
                }
                entry.1 += 1;
                entry.1
            }
            RateStore::Redis { manager, prefix } => {
                let redis_key = format!("{prefix}:rl:{key}:{window}");
                let mut conn = manager.clone();
                let result: redis::RedisResult<(u64,)> = redis::pipe()
                    .atomic()
                    .incr(&redis_key, 1u64)
                    .expire(&redis_key, (WINDOW_SECONDS + 60) as i64)
                    .ignore()
                    .query_async(&mut conn)
                    .await;
                match result {
                    Ok((count,)) => count,
                    Err(err) => {
                        // Fail open: an unreachable Redis must not take the API down with it.
                        tracing::warn!(error = %err, "rate-limit store unavailable; request allowed");
                        return Decision {
                            limit,
                            remaining: limit,
                            reset,
                            allowed: true,
                        };
                    }
                }
            }
        };
        Decision {
            limit,
            remaining: limit.saturating_sub(count),
            reset,
            allowed: count <= limit,
        }
    }
}

/// The `X-RateLimit-*` headers of a counted request.
pub fn set_headers(headers: &mut HeaderMap, decision: &Decision) {
    // Names as constants: a `&str` name is parsed and checked again on every insert.
    const LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
    const REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
    const RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
    for (name, value) in [
        (LIMIT, decision.limit),
        (REMAINING, decision.remaining),
        (RESET, decision.reset),
    ] {
        headers.insert(name, HeaderValue::from(value));
    }
}

fn exempt(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
}

/// Count a request against its [`budget`]: `None` for paths that are not limited. Part of
/// [`crate::http::layers::front`], which refuses with [`refused`] past the budget and adds [`set_headers`].
pub async fn check(state: &AppState, budget: Option<(String, u64)>) -> Option<Decision> {
    let (key, limit) = budget?;
    Some(state.rate_limits.hit(&key, limit, now()).await)
}

/// The counter key and budget of a request (`None`: not limited), read before anything awaits so that
/// the request is not held across it.
pub fn budget(state: &AppState, req: &Request) -> Option<(String, u64)> {
    if exempt(req.uri().path()) {
        return None;
    }
    let config = &state.config;
    // A web session counts as its user; it authenticates nothing else (see `WebSession`).
    let user = req
        .extensions()
        .get::<Auth>()
        .and_then(Auth::actor)
        .or_else(|| {
            req.extensions()
                .get::<WebSession>()
                .map(|w| w.actor.clone())
        });
    let (key, limit) = match user {
        Some(actor) => (
            format!("user:{}", actor.id()),
            config.rate_limit_authenticated,
        ),
        None => {
            let ip = client_ip(req, &config.trusted_proxies)
                .map(|ip| ip.to_string())
                .unwrap_or_else(|| "unknown".into());
            (format!("ip:{ip}"), config.rate_limit_anonymous)
        }
    };
    Some((key, limit))
}

fn now() -> u64 {
    chrono::Utc::now().timestamp().max(0) as u64
}

/// The 429 for a request past its budget.
pub fn refused(path: &str, decision: &Decision) -> Response {
    crate::http::metrics::rate_limited();
    let retry_after = decision.reset.saturating_sub(now()).max(1);
    crate::http::errors::error_response(path, AppError::RateLimited { retry_after })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_window_counts_and_resets() {
        let store = RateStore::memory();
        let now = 7200 + 10;
        let first = store.hit("k", 2, now).await;
        assert_eq!(
            (first.allowed, first.remaining, first.reset),
            (true, 1, 10800)
        );
        assert!(store.hit("k", 2, now).await.allowed);
        let third = store.hit("k", 2, now).await;
        assert_eq!((third.allowed, third.remaining), (false, 0));
        assert!(store.hit("other", 2, now).await.allowed);
        assert!(store.hit("k", 2, now + 3600).await.allowed);
    }
}
