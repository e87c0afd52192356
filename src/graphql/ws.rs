//! GraphQL subscriptions over WebSocket (`graphql-transport-ws`, and the older `graphql-ws`).
//!
//! Browsers cannot set headers on a WebSocket, so the token travels in the `connection_init`
//! payload: `{"Authorization": "Bearer <token>"}` or `{"token": "<token>"}` (API token or JWT).
//! Without a valid one the connection is closed before any subscription starts.
//!
//! A connection lives for hours, its credential does not: the token is resolved again (through the
//! credentials cache) for every operation sent on the connection and, by `service::ticket_events`,
//! for every subscription event, so a revoked or expired token or a deactivated account stops
//! working on an open connection as it does over HTTP.
use super::context::RequestContext;
use super::http::operation_type;
use super::limits::Checked;
use crate::auth::authenticate_bearer;
use crate::auth::middleware::Auth;
use crate::db::viewer_gate;
use crate::error::AppError;
use crate::graphql::engine::batches::Batches;
use crate::notify::live::{Held, Lasting};
use crate::state::AppState;
use async_graphql::futures_util::stream::{self, BoxStream, StreamExt};
use async_graphql::http::ALL_WEBSOCKET_PROTOCOLS;
use async_graphql::parser::types::OperationType;
use async_graphql::{Data, Executor, Request, Response, ServerError};
use async_graphql_axum::{GraphQLProtocol, GraphQLWebSocket};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::extract::{Extension, State, WebSocketUpgrade};
use axum::response::Response as HttpResponse;
use futures_util::SinkExt;
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The bearer token a WebSocket connection signed in with, in the data of each of its operations.
#[derive(Clone, Debug)]
pub struct Credential(pub Arc<str>);

/// `GET /graphql/ws`: upgrade to a GraphQL WebSocket.
#[utoipa::path(get, path = "/graphql/ws", tag = "graphql", operation_id = "graphqlWebSocket",
    summary = "GraphQL subscriptions over WebSocket (`graphql-transport-ws`); the token goes in `connection_init`.",
    responses(
        (status = 101, description = "Switching protocols"),
        (status = 400, description = "Not a WebSocket upgrade request"),
    ))]
pub async fn graphql_ws(
    Extension(schema): Extension<Checked>,
    State(state): State<AppState>,
    protocol: GraphQLProtocol,
    upgrade: WebSocketUpgrade,
) -> HttpResponse {
    upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| serve(socket, schema, state, protocol))
}

/// Serve one upgraded connection until either side closes it. A connection that has not signed in within the
/// header deadline (`DESKGRAPH_HEADER_TIMEOUT_SECONDS`) is closed with 4408, as `graphql-transport-ws` asks: an
/// upgraded socket has no other deadline, so silent sockets would otherwise hold connection places for ever.
async fn serve(socket: WebSocket, schema: Checked, state: AppState, protocol: GraphQLProtocol) {
    let credential = Arc::new(OnceLock::new());
    let place = Arc::new(OnceLock::new());
    let deadline = Duration::from_secs(state.config.connections.header_timeout_seconds);
    let opened = Instant::now();
    let (mut sink, stream) = socket.split();
    let signed_in_late = {
        let credential = credential.clone();
        async move {
            tokio::time::sleep(deadline).await;
            if credential.get().is_some() {
                std::future::pending::<()>().await;
            }
        }
    };
    let executor = Connection {
        schema,
        state: state.clone(),
        credential: credential.clone(),
    };
    let init = {
        let (credential, place) = (credential.clone(), place.clone());
        move |payload| connection_init(state, credential, place, payload)
    };
    GraphQLWebSocket::new_with_pair(
        &mut sink,
        stream.take_until(signed_in_late),
        executor,
        protocol,
    )
    .on_connection_init(init)
    .serve()
    .await;
    if credential.get().is_none() && opened.elapsed() >= deadline {
        let close = CloseFrame {
            code: 4408,
            reason: "Connection initialisation timeout".into(),
        };
        // The client may be gone already; there is nobody left to tell.
        let _ = sink.send(Message::Close(Some(close))).await;
    }
}

/// Authenticate the connection from its `connection_init` payload, keep its token, and take one of its user's
/// places for sockets (TOO_MANY_OPEN beyond them), given back when the connection ends.
async fn connection_init(
    state: AppState,
    credential: Arc<OnceLock<Arc<str>>>,
    place: Arc<OnceLock<Held>>,
    payload: Value,
) -> async_graphql::Result<Data> {
    let token = token_of(&payload).ok_or_else(|| {
        AppError::Unauthenticated(
            "send a token in the connection_init payload: {\"Authorization\": \"Bearer <token>\"}"
                .into(),
        )
    })?;
    let actor = authenticate_bearer(&state.db, &state.auth_cache, &state.jwt, token).await?;
    let _ = place.set(state.live.hold(actor.id(), Lasting::Socket)?);
    // A second `connection_init` closes the connection (protocol), so the first token stays.
    let _ = credential.set(token.into());
    Ok(Data::default())
}

/// The operations of one connection, each run as the viewer its token resolves to when it starts.
#[derive(Clone)]
struct Connection {
    schema: Checked,
    state: AppState,
    credential: Arc<OnceLock<Arc<str>>>,
}

impl Connection {
    /// `request` with this moment's viewer and the connection's credential, or why there is none; where
    /// that viewer's loaders run their batches; and the viewer's id.
    async fn signed_in(
        &self,
        request: Request,
    ) -> Result<(Request, Arc<Batches>, i32), ServerError> {
        let token = self.credential.get().cloned().ok_or_else(|| {
            unauthenticated(AppError::Unauthenticated(
                "connection not initialised".into(),
            ))
        })?;
        let actor = authenticate_bearer(
            &self.state.db,
            &self.state.auth_cache,
            &self.state.jwt,
            &token,
        )
        .await
        .map_err(unauthenticated)?;
        let id = actor.id();
        let ctx = RequestContext::new(self.state.clone(), Auth::Actor(actor));
        let batches = ctx.batches.clone();
        Ok((request.data(ctx).data(Credential(token)), batches, id))
    }
}

/// A request-level error carrying the error's code (no credentials, or no turn of the viewer's share).
fn unauthenticated(err: AppError) -> ServerError {
    let err = async_graphql::Error::from(err);
    ServerError {
        extensions: err.extensions,
        ..ServerError::new(err.message, None)
    }
}

impl Executor for Connection {
    async fn execute(&self, request: Request) -> Response {
        match self.signed_in(request).await {
            Ok((request, batches, _)) => batches.drive(self.schema.execute(request)).await,
            Err(error) => Response::from_errors(vec![error]),
        }
    }

    /// Every operation of the socket comes here. A query or mutation takes a turn of its viewer's share of
    /// the database until its answer, as one over HTTP does (`crate::db::viewer_gate`), so several at once
    /// on one socket get no more of the pool; a subscription, which lasts, takes none.
    fn execute_stream(
        &self,
        request: Request,
        session_data: Option<Arc<Data>>,
    ) -> BoxStream<'static, Response> {
        let this = self.clone();
        stream::once(async move {
            let refused = |error| stream::once(async move { Response::from_errors(vec![error]) });
            let (mut request, viewer) = match this.signed_in(request).await {
                Ok((request, _, viewer)) => (request, viewer),
                Err(error) => return refused(error).boxed(),
            };
            if let Err(error) = this.schema.parse(&mut request) {
                return refused(error).boxed();
            }
            let turn = if operation_type(&mut request) == Some(OperationType::Subscription) {
                None
            } else {
                let gate = &this.state.viewer_gate;
                match gate.turn(viewer_gate::user_key(viewer)).await {
                    Ok(turn) => Some(turn),
                    Err(err) => return refused(unauthenticated(err)).boxed(),
                }
            };
            // Each event's fields are read with their own loaders (`TicketEvent`), which drive theirs.
            this.schema
                .execute_stream(request, session_data)
                .map(move |answer| {
                    let _held = &turn;
                    answer
                })
                .boxed()
        })
        .flatten()
        .boxed()
    }
}

/// The token of a `connection_init` payload: `Authorization` (any case, `Bearer` optional), also
/// inside `headers`, or `token`.
fn token_of(payload: &Value) -> Option<&str> {
    let object = payload.as_object()?;
    fn find(map: &serde_json::Map<String, Value>) -> Option<&str> {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            .and_then(|(_, v)| v.as_str())
            .map(|v| {
                let v = v.trim();
                match v.split_once(' ') {
                    Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
                    _ => v,
                }
            })
    }
    find(object)
        .or_else(|| object.get("headers")?.as_object().and_then(find))
        .or_else(|| object.get("token")?.as_str().map(str::trim))
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::token_of;
    use serde_json::json;

    #[test]
    fn tokens_are_found_in_every_documented_place() {
        let cases = [
            json!({"Authorization": "Bearer abc"}),
            json!({"authorization": "bearer abc"}),
            json!({"headers": {"Authorization": "Bearer abc"}}),
            json!({"token": "abc"}),
        ];
        for case in cases {
            assert_eq!(token_of(&case), Some("abc"), "{case}");
        }
        assert_eq!(token_of(&json!({})), None);
        assert_eq!(token_of(&json!({"token": " "})), None);
        assert_eq!(token_of(&json!(null)), None);
    }
}
