//! GraphQL cost (docs/graphql.md): queries priced before they run and refused over the node limit without
//! any SQL, each viewer's points budget (shared by instances through Redis), `rateLimit` and dry runs, the
//! root-field and one-login limits, Automatic Persisted Queries, allow-list mode and the response ceiling.
use crate::db_test;
use crate::support::graphql::{comment, simple_ticket};
use crate::support::helpers::{TestApp, TestResponse};
use crate::support::redis::redis_url;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use deskgraph::config::Config;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tower::ServiceExt;

const NESTED: &str = "{ tickets(first:100){ nodes{ project{ tickets(first:100){ nodes{ project{ \
                      tickets(first:100){ nodes{ title requester{ username } } } } } } } } } }";
const COMMENTS: &str = "{ rateLimit { cost nodeCount limit remaining used resetAt } \
                        tickets(first:100){ nodes{ title comments(first:20){ nodes{ author{ username } } } } } }";
/// Nodes of [`COMMENTS`]: 100 tickets, and 20 comments under each.
const COMMENTS_NODES: u64 = 100 + 100 * 20;

async fn post(app: &TestApp, token: Option<&str>, body: Value) -> TestResponse {
    app.post("/graphql", token, body).await
}

fn code(resp: &TestResponse) -> &str {
    resp.json["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code: {}", resp.text))
}

fn header_u64(resp: &TestResponse, name: &str) -> u64 {
    resp.headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", resp.headers))
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

async fn costly_queries_are_refused_before_any_sql(app: &TestApp) {
    let agent = app.agent("ava").await;
    simple_ticket(app, &agent, "one").await;
    // Resolve (and cache) the token first: the measure is of the query alone.
    let warm = post(app, Some(&agent.token), json!({"query": "{ me { id } }"})).await;
    assert_eq!(warm.status, StatusCode::OK, "{}", warm.text);

    let before = app.statements();
    let refused = post(app, Some(&agent.token), json!({"query": NESTED})).await;
    assert_eq!(app.statements(), before, "no SQL for a refused query");
    assert_eq!(code(&refused), "QUERY_TOO_COSTLY", "{}", refused.text);
    let ext = &refused.json["errors"][0]["extensions"];
    assert_eq!(ext["nodeCount"], 100 + 100 * 100 + 100 * 100 * 100);
    assert_eq!(ext["cost"], 10_101);
    assert_eq!(ext["limit"], 50_000);
    assert!(refused.json.get("data").is_none(), "{}", refused.text);

    // The same figures whether the page sizes are written or passed as variables.
    let with_variables = post(
        app,
        Some(&agent.token),
        json!({
            "query": "query($n: Int) { tickets(first: $n) { nodes { project { tickets(first: $n) { \
                      nodes { project { tickets(first: $n) { nodes { id } } } } } } } } }",
            "variables": {"n": 100},
        }),
    )
    .await;
    assert_eq!(code(&with_variables), "QUERY_TOO_COSTLY");
    let small = post(
        app,
        Some(&agent.token),
        json!({
            "query": "query($n: Int) { tickets(first: $n) { nodes { project { tickets(first: $n) { \
                      nodes { project { tickets(first: $n) { nodes { id } } } } } } } } }",
            "variables": {"n": 10},
        }),
    )
    .await;
    assert!(small.json["errors"].is_null(), "{}", small.text);
    assert_eq!(
        small.json["data"]["tickets"]["nodes"][0]["project"],
        Value::Null
    );
}
db_test!(costly_queries_are_refused_before_any_sql);

async fn a_page_of_tickets_with_comments_is_priced_by_the_formula(app: &TestApp) {
    let agent = app.agent("ava").await;
    let ticket = simple_ticket(app, &agent, "with comments").await;
    comment(app, ticket.id, agent.id, "public", false).await;
    let resp = post(app, Some(&agent.token), json!({"query": COMMENTS})).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.json["errors"].is_null(), "{}", resp.text);
    let rate = &resp.json["data"]["rateLimit"];
    assert_eq!(rate["nodeCount"], COMMENTS_NODES);
    // ⌈2,100 / 100⌉.
    assert_eq!(rate["cost"], 21);
    assert_eq!(rate["limit"], 5000);
    assert_eq!(rate["used"], 21);
    assert_eq!(rate["remaining"], 5000 - 21);
    assert!(rate["resetAt"]
        .as_str()
        .is_some_and(|s| s.ends_with("+00:00")));
    let nodes = resp.json["data"]["tickets"]["nodes"].as_array().unwrap();
    assert_eq!(
        nodes[0]["comments"]["nodes"][0]["author"]["username"],
        "ava"
    );
    assert_eq!(header_u64(&resp, "x-ratelimit-limit"), 5000);
    assert_eq!(header_u64(&resp, "x-ratelimit-remaining"), 5000 - 21);
    assert_eq!(header_u64(&resp, "x-ratelimit-used"), 21);

    // A small query costs one point; `rateLimit` alone too.
    let one = post(
        app,
        Some(&agent.token),
        json!({"query": "{ me { id } rateLimit { cost remaining } }"}),
    )
    .await;
    assert_eq!(one.json["data"]["rateLimit"]["cost"], 1);
    assert_eq!(one.json["data"]["rateLimit"]["remaining"], 5000 - 22);
    // REST keeps its own budget, in requests.
    let rest = app.get("/api/tickets/", Some(&agent.token)).await;
    assert_eq!(header_u64(&rest, "x-ratelimit-limit"), 1000);
}
db_test!(a_page_of_tickets_with_comments_is_priced_by_the_formula);

fn small_budget(config: &mut Config) {
    config.graphql.points_authenticated = 50;
    config.graphql.points_anonymous = 3;
}

async fn a_spent_budget_refuses_until_reset_and_only_its_viewer(app: &TestApp) {
    let ava = app.agent("ava").await;
    let bob = app.agent("bob").await;
    simple_ticket(app, &ava, "t").await;
    // A dry run prices without running: no SQL, one point.
    post(app, Some(&ava.token), json!({"query": "{ me { id } }"})).await;
    let before = app.statements();
    let dry = post(
        app,
        Some(&ava.token),
        json!({"query": COMMENTS.replace("rateLimit {", "rateLimit(dryRun: true) {")}),
    )
    .await;
    assert_eq!(app.statements(), before, "a dry run runs nothing");
    assert!(dry.json["errors"].is_null(), "{}", dry.text);
    assert_eq!(dry.json["data"]["rateLimit"]["cost"], 21);
    assert_eq!(dry.json["data"]["rateLimit"]["remaining"], 50 - 1 - 1);
    assert!(dry.json["data"].get("tickets").is_none(), "{}", dry.text);

    for remaining in [48 - 21, 48 - 42] {
        let resp = post(app, Some(&ava.token), json!({"query": COMMENTS})).await;
        assert!(resp.json["errors"].is_null(), "{}", resp.text);
        assert_eq!(header_u64(&resp, "x-ratelimit-remaining"), remaining);
    }
    let refused = post(app, Some(&ava.token), json!({"query": COMMENTS})).await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.text
    );
    assert_eq!(code(&refused), "RATE_LIMITED");
    let ext = &refused.json["errors"][0]["extensions"];
    let reset_at = chrono::DateTime::parse_from_rfc3339(ext["resetAt"].as_str().unwrap()).unwrap();
    assert!(reset_at > chrono::Utc::now());
    assert!(ext["retryAfter"].as_u64().unwrap() <= 3600);
    assert_eq!(header_u64(&refused, "x-ratelimit-remaining"), 0);
    assert!(refused.headers.contains_key(header::RETRY_AFTER));
    // Even a cheap query now waits for the reset.
    let cheap = post(app, Some(&ava.token), json!({"query": "{ me { id } }"})).await;
    assert_eq!(code(&cheap), "RATE_LIMITED");

    let other = post(app, Some(&bob.token), json!({"query": COMMENTS})).await;
    assert!(other.json["errors"].is_null(), "{}", other.text);
    assert_eq!(header_u64(&other, "x-ratelimit-remaining"), 50 - 21);

    // Anonymous callers share their address's smaller budget.
    let anon = || json!({"query": "{ __typename }"});
    for remaining in [2, 1, 0] {
        let resp = post(app, None, anon()).await;
        assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
        assert_eq!(header_u64(&resp, "x-ratelimit-remaining"), remaining);
    }
    assert_eq!(
        post(app, None, anon()).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}
db_test!(
    a_spent_budget_refuses_until_reset_and_only_its_viewer,
    small_budget
);

fn shared_points(config: &mut Config) {
    small_budget(config);
    config.redis_url = Some(redis_url());
    // These tests are about sharing, not about a slow Redis: a loaded test machine must not trip the
    // fail-fast deadline (the fault suite covers that).
    config.redis_deadline_ms = 5_000;
    config.redis_key_prefix = format!("deskgraph-test-{}", rand::random::<u64>());
}

async fn two_instances_share_the_points_in_redis(app: &TestApp) {
    let ava = app.agent("ava").await;
    let (_, second) = app.second_instance().await;
    let request = || {
        Request::post("/graphql")
            .header(header::AUTHORIZATION, format!("Bearer {}", ava.token))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(json!({"query": COMMENTS}).to_string()))
            .unwrap()
    };
    let first = app.send(request()).await;
    assert_eq!(header_u64(&first, "x-ratelimit-remaining"), 50 - 21);
    let resp = second.clone().oneshot(request()).await.unwrap();
    assert_eq!(resp.headers()["x-ratelimit-remaining"], "8");
    let refused = app.send(request()).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    let refused = second.oneshot(request()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
}

/// Runs on both databases when Redis answers (see `limits_rate::skip_without_redis`).
mod two_instances_share_the_points_in_redis {
    use crate::support::redis::skip_without_redis as skip;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        if skip().await {
            return;
        }
        let app = crate::support::helpers::TestApp::sqlite_with(super::shared_points).await;
        super::two_instances_share_the_points_in_redis(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        if skip().await {
            return;
        }
        let Some(app) = crate::support::helpers::TestApp::postgres_with(super::shared_points).await
        else {
            eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
            return;
        };
        super::two_instances_share_the_points_in_redis(&app).await;
        app.cleanup().await;
    }
}

async fn aliases_and_repeated_logins_are_refused_before_anything_runs(app: &TestApp) {
    let ava = app.agent("ava").await;
    post(app, Some(&ava.token), json!({"query": "{ me { id } }"})).await;
    let aliases = |n: usize| {
        let fields: Vec<String> = (0..n).map(|i| format!("a{i}: me {{ id }}")).collect();
        format!("{{ {} }}", fields.join(" "))
    };
    let before = app.statements();
    let refused = post(app, Some(&ava.token), json!({"query": aliases(51)})).await;
    assert_eq!(app.statements(), before);
    assert_eq!(code(&refused), "BAD_USER_INPUT", "{}", refused.text);
    assert_eq!(refused.json["errors"][0]["extensions"]["rootFields"], 51);
    assert_eq!(refused.json["errors"][0]["extensions"]["limit"], 50);
    let fifty = post(app, Some(&ava.token), json!({"query": aliases(50)})).await;
    assert!(fifty.json["errors"].is_null(), "{}", fifty.text);
    assert_eq!(
        fifty.json["data"]["a49"]["id"],
        fifty.json["data"]["a0"]["id"]
    );

    // Two logins, even through a fragment: refused before either runs (no SQL, no password hashed, no
    // failure counted).
    let logins = "mutation { a: login(input: {username: \"ava\", password: \"wrong\"}) { token } ...L } \
                  fragment L on Mutation { b: login(input: {username: \"ava\", password: \"wrong\"}) { token } }";
    let before = app.statements();
    let refused = post(app, None, json!({"query": logins})).await;
    assert_eq!(app.statements(), before);
    assert_eq!(code(&refused), "BAD_USER_INPUT", "{}", refused.text);
    assert!(refused.json.get("data").is_none());
    let token_twice = "mutation { login(input: {username: \"ava\", password: \"pw\"}) { token } \
                       createApiToken(input: {name: \"x\"}) { token } }";
    let refused = post(app, Some(&ava.token), json!({"query": token_twice})).await;
    assert_eq!(code(&refused), "BAD_USER_INPUT", "{}", refused.text);
    let tokens = post(
        app,
        Some(&ava.token),
        json!({"query": "{ apiTokens { id } }"}),
    )
    .await;
    let before_tokens = tokens.json["data"]["apiTokens"].as_array().unwrap().len();
    let refused = post(
        app,
        Some(&ava.token),
        json!({"query": "mutation { a: createApiToken(input: {name: \"x\"}) { token } b: createApiToken(input: {name: \"y\"}) { token } }"}),
    )
    .await;
    assert_eq!(code(&refused), "BAD_USER_INPUT");
    let tokens = post(
        app,
        Some(&ava.token),
        json!({"query": "{ apiTokens { id } }"}),
    )
    .await;
    assert_eq!(
        tokens.json["data"]["apiTokens"].as_array().unwrap().len(),
        before_tokens,
        "no token issued"
    );
}
db_test!(aliases_and_repeated_logins_are_refused_before_anything_runs);

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

async fn automatic_persisted_queries_round_trip(app: &TestApp) {
    let ava = app.agent("ava").await;
    let query = "{ me { username } }";
    let persisted = json!({"persistedQuery": {"version": 1, "sha256Hash": sha256(query)}});
    let unknown = post(app, Some(&ava.token), json!({"extensions": persisted})).await;
    assert_eq!(
        unknown.json["errors"][0]["message"],
        "PersistedQueryNotFound"
    );
    assert_eq!(code(&unknown), "PERSISTED_QUERY_NOT_FOUND");
    let registered = post(
        app,
        Some(&ava.token),
        json!({"query": query, "extensions": persisted}),
    )
    .await;
    assert_eq!(
        registered.json["data"]["me"]["username"], "ava",
        "{}",
        registered.text
    );
    let by_hash = post(app, Some(&ava.token), json!({"extensions": persisted})).await;
    assert_eq!(
        by_hash.json["data"]["me"]["username"], "ava",
        "{}",
        by_hash.text
    );
    // Over GET too, as Apollo clients send hashed queries.
    let extensions = urlencoding(&persisted.to_string());
    let get = app
        .get(
            &format!("/graphql?extensions={extensions}"),
            Some(&ava.token),
        )
        .await;
    assert_eq!(get.json["data"]["me"]["username"], "ava", "{}", get.text);
    let mismatch = post(
        app,
        Some(&ava.token),
        json!({"query": "{ me { id } }", "extensions": persisted}),
    )
    .await;
    assert_eq!(code(&mismatch), "BAD_USER_INPUT");
}
db_test!(automatic_persisted_queries_round_trip);

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

const TRUSTED: &str = "query Me { me { username } }\n";

fn allow_list(config: &mut Config) {
    let dir = tempfile::tempdir().unwrap().keep();
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(dir.join("nested").join("me.graphql"), TRUSTED).unwrap();
    std::fs::write(dir.join("notes.txt"), "{ tickets { nodes { id } } }").unwrap();
    config.graphql.trusted_documents = Some(dir);
}

async fn allow_list_mode_runs_only_registered_documents(app: &TestApp) {
    let ava = app.agent("ava").await;
    let registered = post(app, Some(&ava.token), json!({"query": TRUSTED})).await;
    assert_eq!(
        registered.json["data"]["me"]["username"], "ava",
        "{}",
        registered.text
    );
    let persisted = json!({"persistedQuery": {"version": 1, "sha256Hash": sha256(TRUSTED)}});
    let by_hash = post(app, Some(&ava.token), json!({"extensions": persisted})).await;
    assert_eq!(
        by_hash.json["data"]["me"]["username"], "ava",
        "{}",
        by_hash.text
    );

    for other in ["{ me { username } }", "{ tickets { nodes { id } } }"] {
        let before = app.statements();
        let refused = post(app, Some(&ava.token), json!({"query": other})).await;
        assert_eq!(app.statements(), before);
        assert_eq!(code(&refused), "DOCUMENT_NOT_ALLOWED", "{}", refused.text);
    }
    // APQ cannot register a new document in this mode.
    let other = "{ me { id } }";
    let persisted = json!({"persistedQuery": {"version": 1, "sha256Hash": sha256(other)}});
    let refused = post(
        app,
        Some(&ava.token),
        json!({"query": other, "extensions": persisted}),
    )
    .await;
    assert_eq!(code(&refused), "DOCUMENT_NOT_ALLOWED");
    let unknown = post(app, Some(&ava.token), json!({"extensions": persisted})).await;
    assert_eq!(code(&unknown), "PERSISTED_QUERY_NOT_FOUND");
}
db_test!(allow_list_mode_runs_only_registered_documents, allow_list);

fn small_responses(config: &mut Config) {
    config.graphql.max_response_bytes = 2048;
}

async fn responses_over_the_ceiling_are_refused(app: &TestApp) {
    let ava = app.agent("ava").await;
    for i in 0..20 {
        simple_ticket(app, &ava, &format!("a ticket with a title long enough {i}")).await;
    }
    let small = post(
        app,
        Some(&ava.token),
        json!({"query": "{ tickets(first: 2) { nodes { id } } }"}),
    )
    .await;
    assert!(small.json["errors"].is_null(), "{}", small.text);
    let big = post(
        app,
        Some(&ava.token),
        json!({"query": "{ tickets(first: 20) { nodes { id title description ticketNumber createdAt } } }"}),
    )
    .await;
    assert_eq!(big.status, StatusCode::OK);
    assert_eq!(code(&big), "RESPONSE_TOO_LARGE", "{}", big.text);
    assert_eq!(big.json["errors"][0]["extensions"]["limit"], 2048);
    assert!(big.text.len() < 2048);
}
db_test!(responses_over_the_ceiling_are_refused, small_responses);

/// Serving connections carry the statement timeout as PostgreSQL's `statement_timeout`: a statement runs no
/// longer than that, whether or not its request is still waiting (SQLite's interrupt:
/// `statement_timeout.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stops_statements_at_the_statement_timeout() {
    use sea_orm::ConnectionTrait;
    let Some(app) = TestApp::postgres().await else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let timeout = std::time::Duration::from_secs(1);
    let db = deskgraph::db::Db::connect_with(&app.state.config.database_url, 1, Some(timeout))
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let stopped = db.conn.execute_unprepared("SELECT pg_sleep(10)").await;
    let err = stopped.expect_err("stopped by statement_timeout");
    assert!(err.to_string().contains("statement timeout"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    db.conn.close().await.unwrap();
    app.cleanup().await;
}
