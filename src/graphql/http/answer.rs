//! The HTTP answer of a GraphQL request: status code, media type, error codes and the response-size cap.
use crate::error::graphql_error_body;
use crate::state::AppState;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// The GraphQL-over-HTTP media type; a client that accepts it gets 400 for a request error.
const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

/// The HTTP answer of a GraphQL response: its status, media type and headers.
pub(super) fn render(
    state: &AppState,
    headers: &HeaderMap,
    mut response: async_graphql::Response,
) -> Response {
    for error in &mut response.errors {
        // Parse, validation and input-coercion errors come from async-graphql without a code.
        explain_limit(&mut error.message);
        let ext = error.extensions.get_or_insert_with(Default::default);
        if ext.get("code").is_none() {
            ext.set("code", "BAD_USER_INPUT");
        }
    }
    let request_failed = !response.errors.is_empty()
        && response.data == async_graphql::Value::Null
        && response.errors.iter().all(|e| e.path.is_empty());
    let graphql_response = accepts(headers, GRAPHQL_RESPONSE);
    let rate_limited = request_failed
        && response.errors.iter().any(|e| {
            e.extensions.as_ref().and_then(|x| x.get("code")) == Some(&"RATE_LIMITED".into())
        });
    // application/json clients always get 200; the newer media type reports request errors as 400. Over
    // the points budget is 429 for both, as the shared request budget answers.
    let status = if rate_limited {
        StatusCode::TOO_MANY_REQUESTS
    } else if graphql_response && request_failed {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let max = state.config.graphql.max_response_bytes;
    let body = if request_failed {
        // Nothing was executed: the GraphQL spec leaves the `data` entry out rather than sending null.
        serde_json::to_value(&response).map(|mut json| {
            if let Some(object) = json.as_object_mut() {
                object.remove("data");
            }
            Some(json.to_string().into_bytes())
        })
    } else {
        capped_json(&response, max)
    };
    let mut http = match body {
        Ok(Some(body)) => (
            status,
            [(header::CONTENT_TYPE, content_type(headers))],
            body,
        )
            .into_response(),
        Ok(None) => {
            let body = graphql_error_body(
                &format!("the response would be larger than {max} bytes; ask for less"),
                json!({"code": "RESPONSE_TOO_LARGE", "limit": max}),
            );
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, content_type(headers))],
                body.to_string(),
            )
                .into_response()
        }
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    http.headers_mut().extend(response.http_headers);
    http
}

/// `response` as JSON, or `None` when it is longer than `max` bytes. Written whole and measured after:
/// the value tree it comes from is already held and larger than its JSON (and bounded by the node limit),
/// while a writer that counts as it goes costs every response a slower path through serde_json.
fn capped_json(
    response: &async_graphql::Response,
    max: usize,
) -> serde_json::Result<Option<Vec<u8>>> {
    let bytes = serde_json::to_vec(response)?;
    Ok((bytes.len() <= max).then_some(bytes))
}

/// async-graphql's depth and complexity errors do not say what the limit is.
fn explain_limit(message: &mut String) {
    if message == "Query is nested too deep." {
        *message = format!(
            "query is nested too deep (at most {} levels)",
            crate::graphql::MAX_DEPTH
        );
    } else if message == "Query is too complex." {
        *message = format!(
            "query is too complex (at most {} fields)",
            crate::graphql::MAX_COMPLEXITY
        );
    }
}

/// Whether the request's `Accept` lists `media`.
pub(super) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|part| part.trim().starts_with(media)))
}

/// The media type to answer in: the GraphQL one when accepted, JSON otherwise.
fn content_type(headers: &HeaderMap) -> &'static str {
    if accepts(headers, GRAPHQL_RESPONSE) {
        GRAPHQL_RESPONSE
    } else {
        "application/json"
    }
}

/// A request refused before its document runs, as a GraphQL error body with `BAD_USER_INPUT`.
pub(super) fn request_error(headers: &HeaderMap, status: StatusCode, message: &str) -> Response {
    let body = graphql_error_body(message, json!({"code": "BAD_USER_INPUT"}));
    (
        status,
        [(header::CONTENT_TYPE, content_type(headers))],
        body.to_string(),
    )
        .into_response()
}
