//! Fixed-window rate limits (per hour): per user when authenticated, per client address otherwise.
//! Counted in [`crate::counters`]: in memory, or in Redis so that several instances share one budget.
use super::client_ip::client_ip;
use crate::auth::middleware::{Auth, WebSession};
use crate::counters::{address_key, now, Window};
use crate::error::AppError;
use crate::state::AppState;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::Response;

pub use crate::counters::Decision;

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

/// Paths outside the per-request budget: probes, and `/graphql`, which counts points instead
/// (`crate::graphql::limits::budget`); the OpenAPI document leaves their 429 out by this rule.
pub(crate) fn exempt(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics" | "/graphql")
}

/// Count a request against its [`budget`]: `None` for paths that are not limited. Part of
/// [`crate::http::layers::front`], which refuses with [`refused`] past the budget and adds [`set_headers`].
pub async fn check(state: &AppState, budget: Option<(String, u64)>) -> Option<Decision> {
    let (key, limit) = budget?;
    Some(
        state
            .counters
            .take(&key, 1, limit, Window::HOUR, now())
            .await,
    )
}

/// The counter key and budget of a request (`None`: not limited), read before anything awaits so that
/// the request is not held across it.
pub fn budget(state: &AppState, req: &Request) -> Option<(String, u64)> {
    if exempt(req.uri().path()) {
        return None;
    }
    let (key, signed_in) = viewer(state, req);
    let config = &state.config;
    let limit = if signed_in {
        config.rate_limit_authenticated
    } else {
        config.rate_limit_anonymous
    };
    Some((key, limit))
}

/// Who a request is counted as, and whether signed in: `user:<id>` once authenticated (a web session counts
/// as its user; it authenticates nothing else, see `WebSession`), otherwise `ip:<client address>`.
pub fn viewer(state: &AppState, req: &Request) -> (String, bool) {
    let user = req
        .extensions()
        .get::<Auth>()
        .and_then(Auth::actor)
        .or_else(|| {
            req.extensions()
                .get::<WebSession>()
                .map(|w| w.actor.clone())
        });
    match user {
        Some(actor) => (crate::db::viewer_gate::user_key(actor.id()), true),
        None => {
            let ip = client_ip(req, &state.config.trusted_proxies)
                .map(address_key)
                .unwrap_or_else(|| "unknown".into());
            (format!("ip:{ip}"), false)
        }
    }
}

/// The 429 for a request past its budget.
pub fn refused(door: crate::http::errors::Door, decision: &Decision) -> Response {
    crate::http::metrics::rate_limited();
    let retry_after = decision.reset.saturating_sub(now()).max(1);
    crate::http::errors::error_response(door, AppError::RateLimited { retry_after })
}
