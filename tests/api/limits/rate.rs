//! Rate limits: headers on every response, 429 with `Retry-After` in each door's error shape, per user, per
//! client address (through trusted proxies only), web sessions counted as their user, and one budget shared
//! by two instances through Redis.
use crate::db_test;
use crate::support::helpers::assert_web_error;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use crate::support::redis::redis_url;
use crate::support::world::{login, web};
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use deskgraph::config::Config;
use serde_json::json;
use tower::ServiceExt;

const USER_LIMIT: u64 = 5;
const ANON_LIMIT: u64 = 3;

fn small_limits(config: &mut Config) {
    config.rate_limit_authenticated = USER_LIMIT;
    config.rate_limit_anonymous = ANON_LIMIT;
    config.trusted_proxies = vec!["10.0.0.0/8".parse().unwrap()];
}

fn header_u64(resp: &TestResponse, name: &str) -> u64 {
    resp.headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header: {:?}", resp.headers))
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

fn get(path: &str) -> Request<Body> {
    Request::builder().uri(path).body(Body::empty()).unwrap()
}

fn get_via(path: &str, forwarded_for: &str) -> Request<Body> {
    Request::builder()
        .uri(path)
        .header("x-forwarded-for", forwarded_for)
        .body(Body::empty())
        .unwrap()
}

async fn users_have_their_own_budget(app: &TestApp) {
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let now = chrono::Utc::now().timestamp() as u64;
    for used in 1..=USER_LIMIT {
        let resp = app.get("/api/tickets/", Some(&alice.token)).await;
        assert_eq!(resp.status, 200, "{}", resp.text);
        assert_eq!(header_u64(&resp, "x-ratelimit-limit"), USER_LIMIT);
        assert_eq!(
            header_u64(&resp, "x-ratelimit-remaining"),
            USER_LIMIT - used
        );
        let reset = header_u64(&resp, "x-ratelimit-reset");
        assert!(
            reset > now && reset <= now + 3600,
            "reset {reset}, now {now}"
        );
    }
    let refused = app.get("/api/tickets/", Some(&alice.token)).await;
    assert_error(&refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    let retry_after = header_u64(&refused, "retry-after");
    assert!((1..=3600).contains(&retry_after), "{retry_after}");
    assert_eq!(refused.json["details"]["retry_after"], retry_after);
    assert_eq!(header_u64(&refused, "x-ratelimit-remaining"), 0);

    // GraphQL has a budget of its own, in points (graphql_cost.rs): a spent request budget leaves it.
    let body = json!({"query": "{ me { username } }"});
    let gql = app
        .request(
            Method::POST,
            "/graphql",
            Some(&alice.token),
            Some(body.clone()),
        )
        .await;
    assert_eq!(gql.status, StatusCode::OK, "{}", gql.text);
    assert_eq!(gql.json["data"]["me"]["username"], "alice");
    assert_eq!(header_u64(&gql, "x-ratelimit-limit"), 5000);
    assert_eq!(header_u64(&gql, "x-ratelimit-remaining"), 5000 - 1);

    // Someone else is not affected.
    let other = app.get("/api/tickets/", Some(&bob.token)).await;
    assert_eq!(other.status, 200, "{}", other.text);
    assert_eq!(header_u64(&other, "x-ratelimit-remaining"), USER_LIMIT - 1);
}
db_test!(users_have_their_own_budget, small_limits);

async fn anonymous_callers_are_counted_by_address(app: &TestApp) {
    for used in 1..=ANON_LIMIT {
        let resp = app
            .send_from("203.0.113.1:4000", get("/api/tickets/"))
            .await;
        assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");
        assert_eq!(header_u64(&resp, "x-ratelimit-limit"), ANON_LIMIT);
        assert_eq!(
            header_u64(&resp, "x-ratelimit-remaining"),
            ANON_LIMIT - used
        );
    }
    // Same address, another port and path: still the same budget. Unknown paths count too.
    let refused = app.send_from("203.0.113.1:4001", get("/nowhere")).await;
    assert_error(&refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    // Another address has its own.
    let other = app
        .send_from("203.0.113.2:4000", get("/api/tickets/"))
        .await;
    assert_eq!(header_u64(&other, "x-ratelimit-remaining"), ANON_LIMIT - 1);
    // A caller that is not a trusted proxy cannot pick its address with X-Forwarded-For.
    let spoofed = app
        .send_from("203.0.113.1:4000", get_via("/api/tickets/", "198.51.100.9"))
        .await;
    assert_eq!(
        spoofed.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        spoofed.text
    );
    // Behind a trusted proxy, the forwarded client is counted, each on its own.
    for client in ["198.51.100.7", "198.51.100.8"] {
        let proxied = app
            .send_from("10.1.2.3:443", get_via("/api/tickets/", client))
            .await;
        assert_eq!(
            header_u64(&proxied, "x-ratelimit-remaining"),
            ANON_LIMIT - 1
        );
    }
    // The health endpoints are not counted (probes must not spend a budget or be refused).
    let health = app.send_from("203.0.113.1:4000", get("/healthz")).await;
    assert_eq!(health.status, 200);
}
db_test!(anonymous_callers_are_counted_by_address, small_limits);

async fn web_sessions_count_as_their_user(app: &TestApp) {
    let owner = app.user("owner").await;
    let browser = login(app, &owner).await;
    let path = "/tickets/999999/comments/";
    let first = browser.get(app, path).await;
    assert_web_error(&first, StatusCode::NOT_FOUND);
    assert_eq!(header_u64(&first, "x-ratelimit-limit"), USER_LIMIT);
    // Bearer use and browser use are one budget: the user's.
    let api = app.get("/api/tickets/", Some(&owner.token)).await;
    assert_eq!(header_u64(&api, "x-ratelimit-remaining"), USER_LIMIT - 2);
    // The cookie still authenticates nothing outside the web endpoints (though the browser's use is still
    // its user's), and CSRF still applies.
    let rest = web(
        app,
        Method::GET,
        "/api/tickets/",
        Some(&browser.session),
        None,
        None,
    )
    .await;
    assert_error(&rest, StatusCode::UNAUTHORIZED, "unauthenticated");
    let no_csrf = web(
        app,
        Method::POST,
        "/tickets/999999/comments/add/",
        Some(&browser.session),
        None,
        Some(json!({"body": "hi"})),
    )
    .await;
    assert_web_error(&no_csrf, StatusCode::FORBIDDEN);
    assert_eq!(
        header_u64(&no_csrf, "x-ratelimit-remaining"),
        USER_LIMIT - 4
    );
    browser.get(app, path).await;
    // Past the budget, the web endpoints refuse in their own shape.
    let refused = browser.get(app, path).await;
    assert_web_error(&refused, StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers.contains_key("retry-after"));
}
db_test!(web_sessions_count_as_their_user, small_limits);

fn shared_redis(config: &mut Config) {
    small_limits(config);
    config.redis_url = Some(redis_url());
    // These tests are about sharing, not about a slow Redis: a loaded test machine must not trip the
    // fail-fast deadline (the fault suite covers that).
    config.redis_deadline_ms = 5_000;
    // A prefix of its own, so that parallel tests and earlier runs do not share this test's counters.
    config.redis_key_prefix = format!("deskgraph-test-{}", rand::random::<u64>());
}

async fn two_instances_share_one_budget_in_redis(app: &TestApp) {
    let alice = app.user("alice").await;
    let (_, second) = app.second_instance().await;
    let request = || {
        Request::builder()
            .uri("/api/tickets/")
            .header("authorization", format!("Bearer {}", alice.token))
            .body(Body::empty())
            .unwrap()
    };
    for _ in 0..3 {
        assert_eq!(app.send(request()).await.status, 200);
    }
    for expected in [1, 0] {
        let resp = second.clone().oneshot(request()).await.unwrap();
        assert_eq!(resp.status(), 200);
        let remaining = resp.headers()["x-ratelimit-remaining"]
            .to_str()
            .unwrap()
            .to_string();
        assert_eq!(remaining, expected.to_string());
    }
    let refused = app.send(request()).await;
    assert_error(&refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    let refused = second.clone().oneshot(request()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
}
/// Runs on both databases when Redis answers; without Redis it is skipped with a notice, unless `CI` is set
/// (`.ci/run` starts Redis, so there a missing Redis is a failure).
mod two_instances_share_one_budget_in_redis {
    use crate::support::redis::skip_without_redis as skip;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        if skip().await {
            return;
        }
        let app = crate::support::helpers::TestApp::sqlite_with(super::shared_redis).await;
        super::two_instances_share_one_budget_in_redis(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        if skip().await {
            return;
        }
        let Some(app) = crate::support::helpers::TestApp::postgres_with(super::shared_redis).await
        else {
            eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
            return;
        };
        super::two_instances_share_one_budget_in_redis(&app).await;
        app.cleanup().await;
    }
}

async fn instances_without_redis_count_alone(app: &TestApp) {
    let alice = app.user("alice").await;
    let (_, second) = app.second_instance().await;
    for _ in 0..USER_LIMIT {
        app.get("/api/tickets/", Some(&alice.token)).await;
    }
    let request = Request::builder()
        .uri("/api/tickets/")
        .header("authorization", format!("Bearer {}", alice.token))
        .body(Body::empty())
        .unwrap();
    let resp = second.oneshot(request).await.unwrap();
    assert_eq!(resp.status(), 200, "memory counters are per process");
}
db_test!(instances_without_redis_count_alone, small_limits);
