//! Each viewer's hourly GraphQL points (docs/graphql.md): every request takes its cost (at least one point)
//! from the budget of its user, or of its client address when anonymous, counted in [`crate::counters`] so
//! that instances sharing Redis share the budget. REST keeps its own per-request budget.
use crate::counters::address_key;
use crate::counters::{now, Window};
use crate::graphql::context::RequestContext;
use crate::graphql::limits::cost::Price;
use async_graphql::{ErrorExtensionValues, ServerError, SimpleObject};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue};
use chrono::{DateTime, Utc};
use std::net::IpAddr;

/// The budget after a request took its points, as `rateLimit` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Points per hour.
    pub limit: u64,
    /// What this query costs (a dry run is charged one point, whatever it costs).
    pub cost: u64,
    /// Points left in this hour.
    pub remaining: u64,
    /// Points used in this hour.
    pub used: u64,
    /// Epoch seconds when the hour ends.
    pub reset: u64,
    /// The most nodes the query could return.
    pub node_count: u64,
    /// Whether the request fitted in the budget.
    pub allowed: bool,
    /// Whether the request is a dry run (`rateLimit(dryRun: true)`): priced, not run.
    pub dry_run: bool,
}

/// Take `amount` points from the budget of the request's viewer; `price`: the query's, if it has one.
pub async fn charge(
    ctx: &RequestContext,
    client: Option<IpAddr>,
    price: Option<Price>,
    amount: u64,
    dry_run: bool,
) -> RateLimit {
    let config = &ctx.state.config.graphql;
    let (key, limit) = match ctx.auth.actor() {
        Some(actor) => (
            format!("graphql:user:{}", actor.id()),
            config.points_authenticated,
        ),
        None => {
            let address = client.map_or_else(|| "unknown".to_string(), address_key);
            (format!("graphql:ip:{address}"), config.points_anonymous)
        }
    };
    let decision = ctx
        .state
        .counters
        .take(&key, amount, limit, Window::HOUR, now())
        .await;
    RateLimit {
        limit,
        cost: price.map_or(1, |p| p.cost),
        remaining: decision.remaining,
        used: limit - decision.remaining,
        reset: decision.reset,
        node_count: price.map_or(0, |p| p.node_count),
        allowed: decision.allowed,
        dry_run,
    }
}

/// Seconds until the budget of `rate` resets (at least one).
fn retry_after(rate: &RateLimit) -> u64 {
    rate.reset.saturating_sub(now()).max(1)
}

fn reset_at(rate: &RateLimit) -> DateTime<Utc> {
    DateTime::from_timestamp(i64::try_from(rate.reset).unwrap_or(i64::MAX), 0).unwrap_or_default()
}

/// The error of a request over its budget: `RATE_LIMITED` with `resetAt` and `retryAfter`.
pub fn refused(rate: &RateLimit) -> ServerError {
    crate::http::metrics::rate_limited();
    let mut error = ServerError::new(
        format!(
            "this query costs {} points, more than is left of the hourly budget of {} until {}",
            rate.cost,
            rate.limit,
            reset_at(rate).to_rfc3339()
        ),
        None,
    );
    let mut extensions = ErrorExtensionValues::default();
    extensions.set("code", "RATE_LIMITED");
    extensions.set("retryAfter", retry_after(rate));
    extensions.set("resetAt", reset_at(rate).to_rfc3339());
    extensions.set("limit", rate.limit);
    extensions.set("cost", rate.cost);
    extensions.set("remaining", rate.remaining);
    error.extensions = Some(extensions);
    error
}

/// The `X-RateLimit-*` headers in points (and `Retry-After` when refused).
pub fn set_headers(headers: &mut HeaderMap, rate: &RateLimit) {
    const LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
    const REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
    const RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
    const USED: HeaderName = HeaderName::from_static("x-ratelimit-used");
    const RESOURCE: HeaderName = HeaderName::from_static("x-ratelimit-resource");
    for (name, value) in [
        (LIMIT, rate.limit),
        (REMAINING, rate.remaining),
        (RESET, rate.reset),
        (USED, rate.used),
    ] {
        headers.insert(name, HeaderValue::from(value));
    }
    headers.insert(RESOURCE, HeaderValue::from_static("graphql"));
    if !rate.allowed {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(retry_after(rate)));
    }
}

/// `rateLimit`: the viewer's GraphQL budget after this request.
#[derive(SimpleObject)]
#[graphql(name = "RateLimit")]
pub struct RateLimitObject {
    /// Points per hour.
    limit: u64,
    /// Points this query costs: ⌈nodeCount / 100⌉, plus 1 per count and 5 per text-search scan, at least 1
    /// (a dry run is charged 1).
    cost: u64,
    /// Points left in this hour.
    remaining: u64,
    /// When the budget is full again.
    reset_at: DateTime<Utc>,
    /// The most nodes this query could return.
    node_count: u64,
    /// Points used in this hour.
    used: u64,
}

impl From<&RateLimit> for RateLimitObject {
    fn from(rate: &RateLimit) -> Self {
        RateLimitObject {
            limit: rate.limit,
            cost: rate.cost,
            remaining: rate.remaining,
            reset_at: reset_at(rate),
            node_count: rate.node_count,
            used: rate.used,
        }
    }
}
