//! Who may read `/metrics`, and what a flood of `/readyz` costs (issue 16, item 14).
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use deskgraph::config::Config;

const TOKEN: &str = "scrape-token-0123456789";

fn configure(config: &mut Config) {
    config.metrics_token = Some(TOKEN.into());
    config.trusted_proxies = vec!["10.0.0.1/32".parse().unwrap()];
}

async fn scrape(app: &TestApp, peer: &str, headers: &[(&str, &str)]) -> TestResponse {
    let mut builder = Request::builder().uri("/metrics");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    app.send_from(peer, builder.body(Body::empty()).unwrap())
        .await
}

async fn metrics_are_for_this_host_or_the_token(app: &TestApp) {
    let refused = |resp: TestResponse| assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    // This host, over IPv4 and IPv6.
    for peer in ["127.0.0.1:40000", "[::1]:40000"] {
        let resp = scrape(app, peer, &[]).await;
        assert_eq!(resp.status, StatusCode::OK, "{peer}: {}", resp.text);
        assert!(resp.text.contains("db_statements_total"), "{}", resp.text);
    }
    // Anyone else, whatever they claim.
    refused(scrape(app, "203.0.113.7:5000", &[]).await);
    refused(scrape(app, "203.0.113.7:5000", &[("x-forwarded-for", "127.0.0.1")]).await);
    // A trusted proxy relaying a remote client that put loopback in its own header.
    refused(
        scrape(
            app,
            "10.0.0.1:5000",
            &[("x-forwarded-for", "127.0.0.1, 203.0.113.7")],
        )
        .await,
    );
    // A local proxy the service was not told about relays remote clients from loopback.
    refused(scrape(app, "127.0.0.1:5000", &[("x-forwarded-for", "203.0.113.7")]).await);
    refused(scrape(app, "127.0.0.1:5000", &[("forwarded", "for=203.0.113.7")]).await);
    // A request that came over no socket.
    refused(app.get("/metrics", None).await);
    // The token opens it from anywhere; a wrong one does not.
    let bearer = format!("Bearer {TOKEN}");
    let resp = scrape(
        app,
        "203.0.113.7:5000",
        &[(header::AUTHORIZATION.as_str(), &bearer)],
    )
    .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let wrong = format!("Bearer {TOKEN}x");
    refused(
        scrape(
            app,
            "203.0.113.7:5000",
            &[(header::AUTHORIZATION.as_str(), &wrong)],
        )
        .await,
    );
    // Health stays open to everyone.
    let health = app
        .send_from(
            "203.0.113.7:5000",
            Request::builder()
                .uri("/healthz")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(health.status, StatusCode::OK);
}
db_test!(metrics_are_for_this_host_or_the_token, configure);

async fn a_flood_of_readiness_probes_runs_sql_once(app: &TestApp) {
    // What one check costs, once the last answer is old.
    let first = app.get("/readyz", None).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let before = app.statements();
    assert_eq!(app.get("/readyz", None).await.status, StatusCode::OK);
    let one_check = app.statements() - before;
    assert!(one_check > 0, "a readiness check ran no SQL");

    let before = app.statements();
    let started = std::time::Instant::now();
    let probes = (0..100).map(|_| app.get("/readyz", None));
    for resp in futures_util::future::join_all(probes).await {
        assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
        assert_eq!(resp.json["checks"]["database"], true);
    }
    // At most one check per second begun: none while the answer is fresh.
    let seconds = started.elapsed().as_secs();
    assert!(
        app.statements() - before <= one_check * seconds,
        "{} statements for 100 probes in {seconds}s",
        app.statements() - before
    );
}
db_test!(a_flood_of_readiness_probes_runs_sql_once);
