//! Delivery in lanes: a destination that never answers holds back only its own rows, while the others
//! keep flowing, and `/metrics` shows each destination's backlog.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::jobs::worker;
use deskgraph::notify::outbox::{self as queue, Destination};
use deskgraph::service::tickets::NewTicket;
use deskgraph::state::AppState;
use std::time::{Duration, Instant};

/// 20 tickets filed by an agent for `requester`: 20 requester emails and 20 webhook rows.
async fn file_twenty(app: &TestApp, state: &AppState) {
    let ann = app.user("ann").await;
    let bob = actor(app, &app.agent("bob").await).await;
    for i in 0..20 {
        let input = NewTicket {
            title: format!("Printer {i}"),
            requester_id: Some(ann.id),
            ..Default::default()
        };
        create_ticket(state, &bob, input).await;
    }
}

/// A port that accepts connections and never says a word (an SMTP server or endpoint that hangs).
async fn silent_listener() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    port
}

/// Events to `hook` and emails to `smtp`, each attempt limited to a second, and a circuit that waits.
fn configured(app: &TestApp, hook: String, smtp: String) -> AppState {
    state_configured(app, |c| {
        c.webhook_url = Some(hook);
        c.webhook_secret = "s3cret".to_string();
        c.smtp_url = Some(smtp);
        c.delivery_timeout_ms = 1000;
        c.outbox_backoff_ms = 1000;
    })
}

async fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what} not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    started.elapsed()
}

db_test!(hanging_webhook_does_not_hold_back_email);
async fn hanging_webhook_does_not_hold_back_email(app: &TestApp) {
    let receiver = Receiver::start(Mode::Hang).await;
    let sink = SmtpSink::start().await;
    let state = configured(app, receiver.url.clone(), sink.url.clone());
    file_twenty(app, &state).await;
    let backlog = queue::backlog(&app.state.db.conn, queue::now_ms())
        .await
        .unwrap();
    let pending: Vec<(Destination, i64)> =
        backlog.iter().map(|b| (b.destination, b.pending)).collect();
    assert_eq!(
        pending,
        vec![(Destination::Email, 20), (Destination::Webhook(0), 20)]
    );

    let worker = worker::spawn(state.delivery_deps());
    let took = wait_for("20 emails", Duration::from_secs(5), || {
        sink.messages().len() == 20
    })
    .await;
    assert!(took < Duration::from_secs(3), "emails took {took:?}");
    // Long enough for the circuit to open (three timeouts in a row) and stay open a while.
    tokio::time::sleep(Duration::from_secs(5)).await;
    worker.abort();

    let rows = outbox_rows(app).await;
    let hooks: Vec<_> = rows.iter().filter(|r| r.kind == "webhook").collect();
    assert_eq!(hooks.len(), 20);
    assert!(hooks.iter().all(|r| r.status == "pending"));
    let tried: Vec<_> = hooks.iter().filter(|r| r.attempts > 0).collect();
    assert!(
        !tried.is_empty()
            && tried
                .iter()
                .all(|r| r.last_error.as_deref() == Some("timed out")),
        "{tried:?}"
    );
    // Not one row after another into the timeout: the circuit keeps the endpoint aside.
    let calls = receiver.hits().len();
    assert!((3..=6).contains(&calls), "{calls} calls to a dead endpoint");
    assert!(rows
        .iter()
        .filter(|r| r.kind == "email")
        .all(|r| r.status == "delivered"));
    let backlog = queue::backlog(&app.state.db.conn, queue::now_ms())
        .await
        .unwrap();
    assert_eq!(backlog.len(), 1);
    assert_eq!(
        (backlog[0].destination, backlog[0].pending),
        (Destination::Webhook(0), 20)
    );

    // Scraped from this host, as metrics are served.
    let scrape = axum::http::Request::builder()
        .uri("/metrics")
        .body(axum::body::Body::empty())
        .unwrap();
    let metrics = app.send_from("127.0.0.1:40000", scrape).await;
    for name in [
        "outbox_destination_pending{destination=\"webhook:configured\"}",
        "outbox_destination_oldest_age_seconds{destination=\"webhook:configured\"}",
    ] {
        assert!(metrics.text.contains(name), "{name} in {}", metrics.text);
    }
}

db_test!(hanging_smtp_server_does_not_hold_back_webhooks);
async fn hanging_smtp_server_does_not_hold_back_webhooks(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let smtp = format!("smtp://127.0.0.1:{}", silent_listener().await);
    let state = configured(app, receiver.url.clone(), smtp);
    file_twenty(app, &state).await;
    let worker = worker::spawn(state.delivery_deps());
    let took = wait_for("20 webhook calls", Duration::from_secs(5), || {
        receiver.hits().len() == 20
    })
    .await;
    worker.abort();
    assert!(took < Duration::from_secs(3), "webhooks took {took:?}");
    let rows = outbox_rows(app).await;
    assert!(rows
        .iter()
        .filter(|r| r.kind == "email")
        .all(|r| r.status == "pending"));
}
