//! Operations of the GraphQL endpoint (documentation only: the handlers live in `graphql::http` and
//! `graphql::ws`; the schema itself is `schema.graphql`).
#![allow(dead_code)]
use super::request_bodies::GraphqlRequest;

/// Run a GraphQL query (or serve GraphiQL to browsers); see `schema.graphql`.
#[utoipa::path(get, path = "/graphql", tag = "graphql", operation_id = "graphqlGet",
    params(
        ("query" = Option<String>, Query, description = "The document (queries only)."),
        ("variables" = Option<String>, Query, description = "Variables as JSON."),
        ("operationName" = Option<String>, Query, description = "Operation to run."),
    ),
    responses(
        (status = 200, description = "GraphQL response (errors inside), or GraphiQL for `Accept: text/html`", body = serde_json::Value),
        (status = 400, description = "A request that is not valid GraphQL over HTTP (bad variables, or a parse/validation failure under `application/graphql-response+json`)", body = serde_json::Value),
        (status = 405, description = "A mutation over GET", body = serde_json::Value),
        (status = 429, description = "Over the viewer's hourly GraphQL points (docs/graphql.md): `RATE_LIMITED` with `resetAt` and `retryAfter`, and `Retry-After`", body = serde_json::Value),
    ),
    security((), ("bearer" = [])))]
pub fn graphql_get() {}

/// Run a GraphQL operation; see `schema.graphql`.
#[utoipa::path(post, path = "/graphql", tag = "graphql", operation_id = "graphqlPost",
    request_body = GraphqlRequest,
    responses(
        (status = 200, description = "GraphQL response (errors inside)", body = serde_json::Value),
        (status = 400, description = "A body that is not a GraphQL request, or a parse/validation failure under `application/graphql-response+json`", body = serde_json::Value),
        (status = 415, description = "A body that is not `application/json`", body = serde_json::Value),
        (status = 429, description = "Over the viewer's hourly GraphQL points (docs/graphql.md): `RATE_LIMITED` with `resetAt` and `retryAfter`, and `Retry-After`", body = serde_json::Value),
    ),
    security((), ("bearer" = [])))]
pub fn graphql_post() {}

/// GraphQL subscriptions over WebSocket (`graphql-transport-ws`); the token goes in `connection_init`.
#[utoipa::path(get, path = "/graphql/ws", tag = "graphql", operation_id = "graphqlWebSocket",
    responses(
        (status = 101, description = "Switching protocols"),
        (status = 400, description = "Not a WebSocket upgrade request"),
    ))]
pub fn graphql_ws() {}
