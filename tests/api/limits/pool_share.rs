//! Each viewer's share of the database pool: a viewer past its share waits, then gets 429; four agents
//! sending the most expensive requests they may cannot starve a fifth user's simple reads.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp, TestResponse, TestUser};
use crate::support::subscriptions::{serve, WsClient, ARRIVES};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use deskgraph::config::Config;
use deskgraph::db::viewer_gate::user_key;
use deskgraph::seed::{seed, SeedOptions};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn one_at_a_time(config: &mut Config) {
    config.viewer.concurrency = 1;
    config.viewer.queue_ms = 100;
}

fn get(path: &str, token: Option<&str>) -> Request<Body> {
    let mut request = Request::builder().method(Method::GET).uri(path);
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    request.body(Body::empty()).unwrap()
}

async fn a_viewer_past_its_share_waits_then_gets_429(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.user("bob").await;
    let gate = &app.state.viewer_gate;
    assert_eq!(gate.share(), 1);
    let held = gate.turn(user_key(ann.id)).await.unwrap();
    let started = Instant::now();
    let refused = app.send(get("/api/tickets/", Some(&ann.token))).await;
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "it waited for a turn first"
    );
    assert_error(&refused, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(refused.headers["retry-after"], "1");
    assert_eq!(refused.json["details"]["retry_after"], 1);
    let graphql = app
        .post(
            "/graphql",
            Some(&ann.token),
            json!({"query": "{ me { username } }"}),
        )
        .await;
    assert_eq!(
        graphql.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        graphql.text
    );
    assert_eq!(
        graphql.json["errors"][0]["extensions"]["code"],
        "RATE_LIMITED"
    );
    let others = app.send(get("/api/tickets/", Some(&bob.token))).await;
    assert_eq!(
        others.status,
        StatusCode::OK,
        "another account keeps its own share"
    );
    let anonymous_held = gate.turn("ip:203.0.113.7".into()).await.unwrap();
    let anonymous = app
        .send_from("203.0.113.7:4000", get("/api/version/", None))
        .await;
    assert_error(&anonymous, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    let neighbour = app
        .send_from("203.0.113.8:4000", get("/api/version/", None))
        .await;
    assert_eq!(neighbour.status, StatusCode::OK);
    let probe = app.send(get("/healthz", None)).await;
    assert_eq!(probe.status, StatusCode::OK, "probes are outside the share");
    drop((held, anonymous_held));
    let served = app.send(get("/api/tickets/", Some(&ann.token))).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(gate.viewers(), 0, "viewers without requests are forgotten");
}
db_test!(a_viewer_past_its_share_waits_then_gets_429, one_at_a_time);

/// 49 aliased counts of a text search no earlier request made (a count is remembered per filter).
/// The most searched counts one operation may ask for (`DESKGRAPH_GRAPHQL_MAX_COUNTS`, 20): the heaviest
/// document the cost model lets through.
fn counts_document(agent: usize, round: u64) -> String {
    let fields: Vec<String> = (0..20)
        .map(|i| {
            format!("a{i}: tickets(first: 0, filter: {{query: \"q{agent}x{round}y{i}\"}}) {{ totalCount }}")
        })
        .collect();
    format!("{{ {} }}", fields.join(" "))
}

async fn send(app: &TestApp, router: &Router, request: Request<Body>) -> TestResponse {
    app.send_to(router, request).await
}

fn graphql(token: &str, document: String) -> Request<Body> {
    Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({ "query": document }).to_string()))
        .unwrap()
}

/// `n` reads of one ticket as `user`, one after the other: their latencies, and the answers that were not 200.
async fn simple_reads(
    app: &TestApp,
    router: &Router,
    user: &TestUser,
    n: usize,
) -> (Vec<Duration>, Vec<String>) {
    let mut latencies = Vec::with_capacity(n);
    let mut failed = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let answer = send(app, router, get("/api/tickets/?limit=1", Some(&user.token))).await;
        latencies.push(started.elapsed());
        if answer.status != StatusCode::OK {
            failed.push(format!("{} {}", answer.status, answer.text));
        }
    }
    latencies.sort();
    (latencies, failed)
}

fn p99(sorted: &[Duration]) -> Duration {
    sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)]
}

async fn four_agents_cannot_starve_a_fifth_users_reads(app: &TestApp) {
    let options = SeedOptions {
        tickets: 20_000,
        users: 20,
        projects: 3,
        comments_per_ticket: 0,
        password: "seed-password".into(),
        random_seed: 11,
        open_share: None,
        sla_policies: false,
    };
    seed(&app.state, &options).await.unwrap();
    let mut agents = Vec::new();
    for i in 0..4 {
        agents.push(app.agent(&format!("heavy{i}")).await);
    }
    let eve = app.agent("eve").await;
    // Points are not what this measures: the budget would refuse the heavy requests first.
    let (state, router) = app
        .serving_instance_with(|c| c.graphql.points_authenticated = 1_000_000_000)
        .await;
    assert_eq!(
        state.viewer_gate.share(),
        1,
        "a pool of 5 leaves each viewer one connection"
    );
    let (warm, _) = simple_reads(app, &router, &eve, 10).await;
    drop(warm);
    let (unloaded, failed) = simple_reads(app, &router, &eve, 60).await;
    assert!(failed.is_empty(), "{failed:?}");

    let running = Arc::new(AtomicBool::new(true));
    let (served, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut load = Vec::new();
    for (n, agent) in agents.iter().enumerate() {
        // Two at once per agent: one more than its share.
        for lane in 0..2u64 {
            let (router, token) = (router.clone(), agent.token.clone());
            let (running, served, refused) = (running.clone(), served.clone(), refused.clone());
            load.push(tokio::spawn(async move {
                let mut round = lane * 1_000_000;
                while running.load(Ordering::Relaxed) {
                    round += 1;
                    let request = if round % 2 == 0 {
                        graphql(&token, counts_document(n, round))
                    } else {
                        get(&format!("/api/tickets/?q=zz{n}q{round}"), Some(&token))
                    };
                    let response = tower::ServiceExt::oneshot(router.clone(), request)
                        .await
                        .unwrap();
                    let status = response.status();
                    let _ = http_body_util::BodyExt::collect(response.into_body()).await;
                    match status {
                        // A statement past the statement timeout stops its request: also an answer.
                        StatusCode::OK | StatusCode::SERVICE_UNAVAILABLE => {
                            served.fetch_add(1, Ordering::Relaxed)
                        }
                        StatusCode::TOO_MANY_REQUESTS => refused.fetch_add(1, Ordering::Relaxed),
                        other => panic!("a heavy request answered {other}"),
                    };
                }
            }));
        }
    }
    // Let every agent take its share of the pool.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (loaded, failed) = simple_reads(app, &router, &eve, 100).await;
    running.store(false, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    let (before, during) = (p99(&unloaded), p99(&loaded));
    eprintln!(
        "unloaded p99 {before:?}, loaded p99 {during:?}, heavy requests served {}, refused {}",
        served.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed)
    );
    assert!(
        failed.is_empty(),
        "the fifth user's reads failed under load: {failed:?}"
    );
    assert!(
        refused.load(Ordering::Relaxed) > 0,
        "the agents asked for more than their share"
    );
    assert!(
        during <= before * 10 + Duration::from_millis(150),
        "loaded p99 {during:?} against unloaded {before:?}"
    );
}
db_test!(four_agents_cannot_starve_a_fifth_users_reads);

async fn a_query_over_the_socket_takes_a_turn_too(app: &TestApp) {
    let ann = app.user("ann").await;
    let url = serve(app.state.clone()).await;
    let mut client = WsClient::connect(&url, &ann.token).await;
    let held = app.state.viewer_gate.turn(user_key(ann.id)).await.unwrap();
    client.send_operation("first", "{ me { username } }").await;
    let refused = client.receive(ARRIVES).await.expect("an answer").unwrap();
    assert_eq!(refused["id"], "first", "{refused}");
    assert_eq!(
        refused["payload"]["errors"][0]["extensions"]["code"], "RATE_LIMITED",
        "{refused}"
    );
    drop(held);
    client.send_operation("second", "{ me { username } }").await;
    loop {
        let answer = client.receive(ARRIVES).await.expect("an answer").unwrap();
        if answer["id"] == "second" && answer["type"] == "next" {
            assert_eq!(
                answer["payload"]["data"]["me"]["username"], "ann",
                "{answer}"
            );
            break;
        }
    }
}
db_test!(a_query_over_the_socket_takes_a_turn_too, one_at_a_time);
