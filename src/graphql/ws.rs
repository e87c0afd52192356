//! GraphQL subscriptions over WebSocket (`graphql-transport-ws`, and the older `graphql-ws`).
//!
//! Browsers cannot set headers on a WebSocket, so the token travels in the `connection_init`
//! payload: `{"Authorization": "Bearer <token>"}` or `{"token": "<token>"}` (API token or JWT).
//! Without a valid one the connection is closed before any subscription starts.
use super::context::RequestContext;
use super::limits::Checked;
use crate::auth::middleware::Auth;
use crate::auth::{authenticate_bearer, Actor};
use crate::error::AppError;
use crate::state::AppState;
use async_graphql::http::ALL_WEBSOCKET_PROTOCOLS;
use async_graphql::Data;
use async_graphql_axum::{GraphQLProtocol, GraphQLWebSocket};
use axum::extract::{Extension, State, WebSocketUpgrade};
use axum::response::Response;
use serde_json::Value;
use std::sync::Arc;

/// `GET /graphql/ws`: upgrade to a GraphQL WebSocket.
pub async fn graphql_ws(
    Extension(schema): Extension<Checked>,
    State(state): State<AppState>,
    protocol: GraphQLProtocol,
    upgrade: WebSocketUpgrade,
) -> Response {
    upgrade
        .protocols(ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |socket| {
            GraphQLWebSocket::new(socket, schema, protocol)
                .on_connection_init(move |payload| connection_init(state, payload))
                .serve()
        })
}

/// Authenticate the connection from its `connection_init` payload.
async fn connection_init(state: AppState, payload: Value) -> async_graphql::Result<Data> {
    let actor = authenticate(&state, &payload).await?;
    let ctx = RequestContext::new(state, Auth::Actor(actor));
    // The connection lives for hours: cached records would go stale between events.
    ctx.loader.enable_all_cache(false);
    let mut data = Data::default();
    data.insert(ctx);
    Ok(data)
}

async fn authenticate(state: &AppState, payload: &Value) -> Result<Arc<Actor>, AppError> {
    let token = token_of(payload).ok_or_else(|| {
        AppError::Unauthenticated(
            "send a token in the connection_init payload: {\"Authorization\": \"Bearer <token>\"}"
                .into(),
        )
    })?;
    authenticate_bearer(state, token).await
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
