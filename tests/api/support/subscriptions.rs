//! A real socket for subscription tests: the router served on 127.0.0.1 and a small
//! `graphql-transport-ws` client.
#![allow(dead_code)]
use deskgraph::state::AppState;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Longest wait for something that should arrive.
pub const ARRIVES: Duration = Duration::from_secs(10);
/// How long to wait to be confident that nothing arrives.
pub const NOTHING: Duration = Duration::from_millis(700);

/// Serve the whole router of `state` on a random local port; returns the WebSocket URL.
pub async fn serve(state: AppState) -> String {
    let router = deskgraph::app::router(state).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .ok();
    });
    format!("ws://{addr}/graphql/ws")
}

/// Wait until `state` has at least `n` live subscribers, so a change made next is seen.
pub async fn wait_for_subscribers(state: &AppState, n: usize) {
    let deadline = tokio::time::Instant::now() + ARRIVES;
    while state.live.subscriber_count() < n {
        assert!(
            tokio::time::Instant::now() < deadline,
            "subscription never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// How a connection attempt ended.
#[derive(Debug)]
pub enum Init {
    /// `connection_ack` received.
    Acked(Box<WsClient>),
    /// The server closed the connection (code, reason) or sent an error.
    Refused(String),
}

/// A `graphql-transport-ws` client.
pub struct WsClient {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl std::fmt::Debug for WsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WsClient")
    }
}

impl WsClient {
    /// Connect, and say nothing yet.
    pub async fn open(url: &str) -> WsClient {
        let mut request = url.into_client_request().unwrap();
        request.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            HeaderValue::from_static("graphql-transport-ws"),
        );
        let (socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        WsClient { socket }
    }

    /// Connect and send `connection_init` with `payload`.
    pub async fn init(url: &str, payload: Value) -> Init {
        let mut client = WsClient::open(url).await;
        let init = json!({"type": "connection_init", "payload": payload});
        client
            .socket
            .send(Message::text(init.to_string()))
            .await
            .unwrap();
        match client.receive(ARRIVES).await {
            Some(Ok(msg)) if msg["type"] == "connection_ack" => Init::Acked(Box::new(client)),
            Some(Ok(other)) => Init::Refused(other.to_string()),
            Some(Err(closed)) => Init::Refused(closed),
            None => panic!("no answer to connection_init"),
        }
    }

    /// Connect with a bearer token; panics when refused.
    pub async fn connect(url: &str, token: &str) -> WsClient {
        match WsClient::init(url, json!({"Authorization": format!("Bearer {token}")})).await {
            Init::Acked(client) => *client,
            Init::Refused(why) => panic!("connection refused: {why}"),
        }
    }

    /// Start `ticketEvents` (for one ticket or all) under subscription id `id`.
    pub async fn subscribe(&mut self, id: &str, ticket_id: Option<&str>) {
        let query = "subscription($t: ID) { ticketEvents(ticketId: $t) { kind at commentId ticket { id title status } } }";
        let msg = json!({
            "id": id,
            "type": "subscribe",
            "payload": {"query": query, "variables": {"t": ticket_id}},
        });
        self.socket
            .send(Message::text(msg.to_string()))
            .await
            .unwrap();
    }

    /// Start any subscription document with `variables` under subscription id `id`.
    pub async fn subscribe_to(&mut self, id: &str, query: &str, variables: Value) {
        let msg = json!({
            "id": id,
            "type": "subscribe",
            "payload": {"query": query, "variables": variables},
        });
        self.socket
            .send(Message::text(msg.to_string()))
            .await
            .unwrap();
    }

    /// The error that ends subscription `id`: its last `next` carries errors and no data, then
    /// `complete` follows. Returns that last payload.
    pub async fn expect_end(&mut self, id: &str) -> Value {
        let last = match self.receive(ARRIVES).await {
            Some(Ok(msg)) if msg["type"] == "next" && msg["id"] == id => msg["payload"].clone(),
            other => panic!("expected the subscription's last message, got {other:?}"),
        };
        assert!(last["errors"].is_array(), "{last}");
        match self.receive(ARRIVES).await {
            Some(Ok(msg)) if msg["type"] == "complete" && msg["id"] == id => {}
            other => panic!("expected the subscription to complete, got {other:?}"),
        }
        last
    }

    /// Send any operation under subscription id `id`.
    pub async fn send_operation(&mut self, id: &str, query: &str) {
        let msg = json!({"id": id, "type": "subscribe", "payload": {"query": query}});
        self.socket
            .send(Message::text(msg.to_string()))
            .await
            .unwrap();
    }

    /// The next protocol message within `wait`: `Ok(json)`, `Err(reason)` when closed, `None` on timeout.
    pub async fn receive(&mut self, wait: Duration) -> Option<Result<Value, String>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let msg = match tokio::time::timeout(left, self.socket.next()).await {
                Err(_) => return None,
                Ok(None) => return Some(Err("connection ended".into())),
                Ok(Some(Err(err))) => return Some(Err(err.to_string())),
                Ok(Some(Ok(msg))) => msg,
            };
            match msg {
                Message::Text(text) => {
                    let value: Value = serde_json::from_str(text.as_str()).unwrap();
                    if value["type"] == "ping" {
                        let pong = json!({"type": "pong"}).to_string();
                        self.socket.send(Message::text(pong)).await.ok();
                        continue;
                    }
                    return Some(Ok(value));
                }
                Message::Close(frame) => {
                    let why = frame
                        .map(|f| format!("closed {}: {}", u16::from(f.code), f.reason))
                        .unwrap_or_else(|| "closed".into());
                    return Some(Err(why));
                }
                _ => continue,
            }
        }
    }

    /// The payload of the next `next` message within `wait` (panics on errors and closes).
    pub async fn next_event(&mut self, wait: Duration) -> Option<Value> {
        match self.receive(wait).await? {
            Ok(msg) if msg["type"] == "next" => Some(msg["payload"].clone()),
            Ok(other) => panic!("expected an event, got {other}"),
            Err(closed) => panic!("connection closed: {closed}"),
        }
    }

    /// The `ticketEvents` object of the next event; panics when none arrives in time.
    pub async fn expect_event(&mut self) -> Value {
        let payload = self
            .next_event(ARRIVES)
            .await
            .expect("an event should have arrived");
        assert!(payload["errors"].is_null(), "{payload}");
        payload["data"]["ticketEvents"].clone()
    }

    /// Assert that no message arrives for a while.
    pub async fn expect_silence(&mut self) {
        if let Some(msg) = self.receive(NOTHING).await {
            panic!("expected nothing, got {msg:?}");
        }
    }
}
