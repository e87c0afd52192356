//! Operability: health and readiness, Prometheus metrics, request ids, security headers and CORS.
use crate::db_test;
use crate::support::graphql::simple_ticket;
use crate::support::helpers::TestApp;
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::config::Config;
use entity::outbox;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;

async fn health_and_readiness(app: &TestApp) {
    let health = app.get("/healthz", None).await;
    assert_eq!(health.status, 200);
    assert_eq!(health.json["status"], "ok");
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status, 200, "{}", ready.text);
    assert_eq!(
        ready.json["checks"],
        json!({"database": true, "migrations": true})
    );
    // The database goes away: not ready (but still alive), once the last answer (a second) is old.
    app.state.db.conn.clone().close().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let unready = app.get("/readyz", None).await;
    assert_eq!(
        unready.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        unready.text
    );
    assert_eq!(unready.json["status"], "unavailable");
    assert_eq!(unready.json["checks"]["database"], false);
    assert_eq!(app.get("/healthz", None).await.status, 200);
}
db_test!(health_and_readiness);

/// The pool hands out a connection used within the last second untested (`Db::connect`): when the
/// database ends the service's sessions (a restart, a failover, an administrator), ticket lists and details
/// are read again on a live connection rather than failing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_ride_out_sessions_the_database_ended() {
    let Some(app) = TestApp::postgres().await else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let alice = app.user("alice").await;
    let created = simple_ticket(&app, &alice, "Printer").await;
    let detail = format!("/api/tickets/{}/", created.id);
    let query = "{ tickets(first: 5) { nodes { title requester { username } } } }";
    for round in 0..3 {
        if round > 0 {
            assert!(app.end_database_sessions().await > 0);
        }
        let list = app.get("/api/tickets/", Some(&alice.token)).await;
        assert_eq!(list.status, 200, "round {round}: {}", list.text);
        assert_eq!(list.json["count"], 1);
        let one = app.get(&detail, Some(&alice.token)).await;
        assert_eq!(one.status, 200, "round {round}: {}", one.text);
        assert_eq!(one.json["title"], "Printer");
        let answer = app.graphql(Some(&alice.token), query, json!({})).await;
        assert_eq!(
            answer["data"]["tickets"]["nodes"][0],
            json!({"title": "Printer", "requester": {"username": "alice"}}),
            "round {round}: {answer}"
        );
    }
    app.cleanup().await;
}

fn get(path: &str) -> Request<Body> {
    Request::builder().uri(path).body(Body::empty()).unwrap()
}

fn with_webhook(config: &mut Config) {
    config.webhook_url = Some("http://127.0.0.1:9/hook".into());
    config.webhook_secret = "s3cret".into();
}

/// The value of an unlabelled sample in Prometheus text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(&format!("{name} ")))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

async fn metrics_count_routes_operations_and_backlog(app: &TestApp) {
    let alice = app.user("alice").await;
    let created = app
        .post(
            "/api/tickets/",
            Some(&alice.token),
            json!({"title": "Printer", "description": "jammed"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    app.get("/api/tickets/", Some(&alice.token)).await;
    let body = json!({"query": "query MetricsProbeOperation { me { username } }"});
    app.request(Method::POST, "/graphql", Some(&alice.token), Some(body))
        .await;
    // Clients choose operation names: one that is not a GraphQL name gets no label of its own.
    let odd = json!({"query": "{ me { username } }", "operationName": "x\" } evil{"});
    app.request(Method::POST, "/graphql", Some(&alice.token), Some(odd))
        .await;
    let metrics = app.send_from("127.0.0.1:40000", get("/metrics")).await;
    assert_eq!(metrics.status, 200, "{}", metrics.text);
    let text = &metrics.text;
    let requests = text.lines().find(|l| {
        l.starts_with("http_requests_total{")
            && l.contains("route=\"/api/tickets/\"")
            && l.contains("status=\"201\"")
    });
    assert!(requests.is_some(), "{text}");
    assert!(
        text.contains("http_request_duration_seconds_bucket{"),
        "{text}"
    );
    assert!(
        text.contains("operation=\"MetricsProbeOperation\""),
        "{text}"
    );
    assert!(text.contains("operation=\"invalid\""), "{text}");
    assert!(!text.contains("evil"), "{text}");
    assert!(text.contains("db_pool_connections"), "{text}");
    let pending = outbox::Entity::find()
        .filter(outbox::Column::Status.eq("pending"))
        .count(&app.state.db.conn)
        .await
        .unwrap();
    let scheduled = sample(text, "outbox_scheduled_messages");
    assert!(scheduled.is_some(), "{text}");
    assert!(
        pending >= 1,
        "creating a ticket with a webhook queues a delivery"
    );
    assert_eq!(
        sample(text, "outbox_pending_messages"),
        Some(pending as f64),
        "{text}"
    );
}
db_test!(metrics_count_routes_operations_and_backlog, with_webhook);

async fn request_ids_and_security_headers(app: &TestApp) {
    let fresh = app.get("/api/tickets/", None).await;
    let id = fresh.headers.get("x-request-id").unwrap().to_str().unwrap();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    let other = app.get("/api/tickets/", None).await;
    assert_ne!(other.headers["x-request-id"], fresh.headers["x-request-id"]);
    let request = Request::builder()
        .uri("/healthz")
        .header("x-request-id", "trace-from-the-proxy-42")
        .body(Body::empty())
        .unwrap();
    let kept = app.send(request).await;
    assert_eq!(kept.headers["x-request-id"], "trace-from-the-proxy-42");
    for resp in [&fresh, &kept] {
        assert_eq!(resp.headers["x-content-type-options"], "nosniff");
        assert_eq!(resp.headers["x-frame-options"], "DENY");
        assert_eq!(
            resp.headers["referrer-policy"],
            "strict-origin-when-cross-origin"
        );
        assert_eq!(
            resp.headers[header::CONTENT_SECURITY_POLICY],
            "default-src 'none'; frame-ancestors 'none'"
        );
    }
    // No CORS headers unless origins are configured.
    let request = Request::builder()
        .uri("/api/tickets/")
        .header(header::ORIGIN, "https://app.example.com")
        .body(Body::empty())
        .unwrap();
    let resp = app.send(request).await;
    assert!(!resp
        .headers
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
}
db_test!(request_ids_and_security_headers);

fn with_cors(config: &mut Config) {
    config.cors_origins = vec!["https://app.example.com".into()];
}

fn preflight(origin: &str) -> Request<Body> {
    Request::builder()
        .method(Method::OPTIONS)
        .uri("/api/tickets/")
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "authorization, content-type",
        )
        .body(Body::empty())
        .unwrap()
}

async fn cors_for_configured_origins(app: &TestApp) {
    let allowed = app.send(preflight("https://app.example.com")).await;
    assert!(allowed.status.is_success(), "{}", allowed.status);
    assert_eq!(
        allowed.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        "https://app.example.com"
    );
    let methods = allowed.headers[header::ACCESS_CONTROL_ALLOW_METHODS]
        .to_str()
        .unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let headers = allowed.headers[header::ACCESS_CONTROL_ALLOW_HEADERS]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(headers.contains("authorization"), "{headers}");
    let other = app.send(preflight("https://evil.example.net")).await;
    assert!(!other
        .headers
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN));
    // Actual requests from the origin carry the header too.
    let alice = app.user("alice").await;
    let request = Request::builder()
        .uri("/api/tickets/")
        .header(header::ORIGIN, "https://app.example.com")
        .header(header::AUTHORIZATION, format!("Bearer {}", alice.token))
        .body(Body::empty())
        .unwrap();
    let resp = app.send(request).await;
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.headers[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        "https://app.example.com"
    );
}
db_test!(cors_for_configured_origins, with_cors);
