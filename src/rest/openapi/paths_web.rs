//! Operations of the web interface (session + CSRF), token issue, version, health, metrics, GraphQL and
//! this document (documentation only; handlers in `web`, `rest`, `http` and `graphql`).
#![allow(dead_code)]
use super::schemas::{Error, WebFailure};
use super::schemas_comments::*;
use super::schemas_more::*;

/// Start a web session.
#[utoipa::path(post, path = "/accounts/login/", tag = "web", operation_id = "sessionLogin",
    request_body(content(
        (Credentials = "application/json"),
        (Credentials = "application/x-www-form-urlencoded"),
    )),
    responses(
        (status = 200, description = "Signed in; sets the `sessionid` (HttpOnly) and `csrftoken` cookies",
            body = SessionStarted, headers(("Set-Cookie" = String, description = "`sessionid` and `csrftoken`"))),
        (status = 401, description = "Wrong credentials (a form post gets the sign-in page again)",
            content((WebFailure = "application/json"), (String = "text/html"))),
        (status = 403, description = "A form post without the pre-session CSRF token, or a JSON post that a \
            browser labels as sent by another site (`Sec-Fetch-Site` other than `same-origin`, or an `Origin` \
            that is not this host nor in `DESKGRAPH_CORS_ORIGINS`)",
            content((WebFailure = "application/json"), (String = "text/html"))),
        (status = 415, description = "A body that is neither `application/json` nor a form", body = WebFailure),
        (status = 429, description = "Too many failed sign-ins for this account or from this address (or over \
            the rate limit), whatever the password; retry after `Retry-After` seconds",
            content((WebFailure = "application/json"), (String = "text/html")),
            headers(("Retry-After" = u64, description = "Seconds until sign-ins are accepted again"))),
    ))]
pub fn session_login() {}

/// End the web session server-side.
#[utoipa::path(post, path = "/accounts/logout/", tag = "web", operation_id = "sessionLogout",
    responses((status = 200, description = "Signed out; clears both cookies", body = WebMessage)),
    security(("session" = [], "csrf" = [])))]
pub fn session_logout() {}

/// Comments of a ticket the caller may read (web shape).
#[utoipa::path(get, path = "/tickets/{id}/comments/", tag = "web", operation_id = "webListComments",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The comments", body = WebCommentList)),
    security(("session" = [])))]
pub fn web_list_comments() {}

/// Comment on a ticket (web).
#[utoipa::path(post, path = "/tickets/{id}/comments/add/", tag = "web", operation_id = "webAddComment",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = WebCommentInput,
    responses((status = 201, description = "Created", body = WebCommentCreated)),
    security(("session" = [], "csrf" = [])))]
pub fn web_add_comment() {}

/// Edit a comment (web); records an edit-history entry.
#[utoipa::path(patch, path = "/tickets/comments/{comment_id}/edit/", tag = "web", operation_id = "webEditComment",
    params(("comment_id" = i32, Path, description = "Comment id")),
    request_body = WebCommentInput,
    responses((status = 200, description = "Edited", body = WebCommentEdited)),
    security(("session" = [], "csrf" = [])))]
pub fn web_edit_comment() {}

/// Delete a comment (web; soft).
#[utoipa::path(delete, path = "/tickets/comments/{comment_id}/delete/", tag = "web", operation_id = "webDeleteComment",
    params(("comment_id" = i32, Path, description = "Comment id")),
    responses((status = 200, description = "Deleted", body = WebMessage)),
    security(("session" = [], "csrf" = [])))]
pub fn web_delete_comment() {}

/// Trade a username and password for a short-lived JWT.
#[utoipa::path(post, path = "/api/auth/token/", tag = "auth", operation_id = "issueToken",
    request_body = Credentials,
    responses(
        (status = 200, description = "Issued", body = AccessToken),
        (status = 401, description = "Wrong credentials", body = super::schemas::Error),
        (status = 429, description = "Too many failed sign-ins for this account or from this address (or over \
            the rate limit), whatever the password; retry after `Retry-After` seconds",
            body = super::schemas::RateLimitError,
            headers(("Retry-After" = u64, description = "Seconds until sign-ins are accepted again"))),
    ))]
pub fn issue_token() {}

/// Interface release.
#[utoipa::path(get, path = "/api/version/", tag = "meta", operation_id = "version",
    responses((status = 200, description = "The release", body = Version)))]
pub fn version() {}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", operation_id = "openapiDocument",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json", body = serde_json::Value)))]
pub fn openapi_json() {}

/// A browsable page that renders this document (no external assets).
#[utoipa::path(get, path = "/api/docs", tag = "meta", operation_id = "apiDocs",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)))]
pub fn api_docs() {}

/// Liveness.
#[utoipa::path(get, path = "/healthz", tag = "meta", operation_id = "healthz",
    responses((status = 200, description = "Alive", body = Health)))]
pub fn healthz() {}

/// Readiness: the database answers and every migration is applied (checked at most once a second).
#[utoipa::path(get, path = "/readyz", tag = "meta", operation_id = "readyz",
    responses(
        (status = 200, description = "Ready", body = Ready),
        (status = 503, description = "Not ready", body = Ready),
    ))]
pub fn readyz() {}

/// Prometheus metrics: for clients on this host, or with `DESKGRAPH_METRICS_TOKEN` as a bearer token.
#[utoipa::path(get, path = "/metrics", tag = "meta", operation_id = "metrics",
    responses(
        (status = 200, description = "Prometheus text format", content_type = "text/plain", body = String),
        (status = 403, description = "Another host, without the metrics token", body = Error),
    ))]
pub fn metrics() {}

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
