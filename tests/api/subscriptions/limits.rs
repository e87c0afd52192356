//! What one client or one user can hold open on the GraphQL WebSocket: a socket that does not sign in within
//! the header deadline is closed with 4408 (an upgraded socket has no other deadline); a user's signed-in
//! sockets and subscriptions on an instance are bounded (`notify::live::Lasting`), the refusal says so, and a
//! place comes back when its socket or subscription ends. Another user is not affected.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::subscriptions::{serve, wait_for_subscribers, Init, WsClient, ARRIVES};
use deskgraph::config::Config;
use deskgraph::notify::live::Lasting;
use serde_json::json;
use std::time::Duration;

fn quick_sign_in(config: &mut Config) {
    config.connections.header_timeout_seconds = 1;
}

db_test!(
    a_socket_that_does_not_sign_in_in_time_is_closed,
    quick_sign_in
);
async fn a_socket_that_does_not_sign_in_in_time_is_closed(app: &TestApp) {
    let url = serve(app.state.clone()).await;
    let mut silent = WsClient::open(&url).await;
    match silent.receive(ARRIVES).await {
        Some(Err(why)) => assert!(why.starts_with("closed 4408"), "{why}"),
        other => panic!("expected the silent socket to be closed, got {other:?}"),
    }
    // One that signed in in time stays open past the deadline and is served.
    let carol = app.user("carol").await;
    let mut client = WsClient::connect(&url, &carol.token).await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    client.send_operation("q", "{ me { username } }").await;
    let answer = client.next_event(ARRIVES).await.unwrap();
    assert_eq!(answer["data"]["me"]["username"], "carol", "{answer}");
}

db_test!(a_user_holds_a_bounded_number_of_sockets);
async fn a_user_holds_a_bounded_number_of_sockets(app: &TestApp) {
    let url = serve(app.state.clone()).await;
    let carol = app.user("carol").await;
    let dave = app.user("dave").await;
    let payload = json!({"Authorization": format!("Bearer {}", carol.token)});
    let mut sockets = Vec::new();
    for _ in 0..Lasting::Socket.most() {
        sockets.push(WsClient::connect(&url, &carol.token).await);
    }
    match WsClient::init(&url, payload.clone()).await {
        Init::Refused(why) => assert!(
            why.contains("at most 16 GraphQL WebSocket connections"),
            "{why}"
        ),
        Init::Acked(_) => panic!("a socket beyond the bound was accepted"),
    }
    // Someone else still gets in.
    WsClient::connect(&url, &dave.token).await;
    // A closed socket gives its place back (once the server has seen it close).
    drop(sockets.pop());
    let deadline = tokio::time::Instant::now() + ARRIVES;
    loop {
        match WsClient::init(&url, payload.clone()).await {
            Init::Acked(_) => break,
            Init::Refused(why) => {
                assert!(tokio::time::Instant::now() < deadline, "{why}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

db_test!(a_user_holds_a_bounded_number_of_subscriptions);
async fn a_user_holds_a_bounded_number_of_subscriptions(app: &TestApp) {
    let url = serve(app.state.clone()).await;
    let carol = app.user("carol").await;
    let dave = app.user("dave").await;
    // Spread over two sockets: the bound is the user's, not the socket's.
    let mut first = WsClient::connect(&url, &carol.token).await;
    let mut second = WsClient::connect(&url, &carol.token).await;
    let most = Lasting::Subscription.most();
    for n in 0..most {
        let client = if n % 2 == 0 { &mut first } else { &mut second };
        client.subscribe(&format!("s{n}"), None).await;
    }
    wait_for_subscribers(&app.state, most).await;
    first.subscribe("over", None).await;
    let refusal = first.expect_end("over").await;
    assert_eq!(
        refusal["errors"][0]["extensions"]["code"], "RATE_LIMITED",
        "{refusal}"
    );
    assert!(
        refusal["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 64 subscriptions")),
        "{refusal}"
    );
    // Dave is not counted against Carol.
    let mut other = WsClient::connect(&url, &dave.token).await;
    other.subscribe("d", None).await;
    wait_for_subscribers(&app.state, most + 1).await;
    // Carol's first socket closed: its subscriptions give their places back.
    drop(first);
    let deadline = tokio::time::Instant::now() + ARRIVES;
    while app.state.live.subscriber_count() > most / 2 + 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "places not given back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    second.subscribe("again", None).await;
    wait_for_subscribers(&app.state, most / 2 + 2).await;
    second.expect_silence().await;
}
