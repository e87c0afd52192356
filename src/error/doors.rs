//! How each door renders an [`AppError`]: the REST body and headers, the web interface's shape, GraphQL's
//! `extensions`, and the cause kept aside for the log.
use super::{fields_json, AppError, FieldErrors};
use async_graphql::ErrorExtensions;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// A service field name as the GraphQL input that carries it is spelled, so that a front end can put
/// the message beside the right form field: references travel as `…Id` there, everything in camelCase.
pub(super) fn graphql_field_name(field: &str) -> String {
    // A custom field's key is the admin's, spelled as defined; GraphQL names its values `fields`.
    if let Some(key) = field
        .strip_prefix("custom_fields.")
        .or_else(|| field.strip_prefix("field."))
    {
        return format!("fields.{key}");
    }
    let renamed = match field {
        "assigned_to" | "assignee" => "assigneeId",
        "assigned_group" => "assignedGroupId",
        "project" | "project_id" => "projectId",
        "requester" => "requesterId",
        "owner" | "owner_id" => "ownerId",
        "asset" => "assetId",
        "ticket" => "ticketId",
        other => other,
    };
    let mut camel = String::with_capacity(renamed.len());
    let mut upper = false;
    for c in renamed.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            camel.extend(c.to_uppercase());
            upper = false;
        } else {
            camel.push(c);
        }
    }
    camel
}

/// Carried in response extensions so one middleware layer logs internal causes.
#[derive(Clone, Debug)]
pub struct LoggedCause(pub String);

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), axum::Json(self.body())).into_response();
        self.mark(&mut response);
        if let AppError::Unauthenticated(_) = &self {
            // RFC 9110: a 401 names the scheme that would be accepted.
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer realm=\"deskgraph\""),
            );
        }
        response
    }
}

/// The web interface's failure body, `{"success": false, "error"}`.
pub fn web_error_body(message: &str) -> Value {
    json!({ "success": false, "error": message })
}

/// A GraphQL-over-HTTP failure body, `{"errors": [{message, extensions}]}`, for a request refused before a
/// document runs.
pub fn graphql_error_body(message: &str, extensions: Value) -> Value {
    json!({ "errors": [{ "message": message, "extensions": extensions }] })
}

impl AppError {
    /// The response in the web interface's failure shape ([`web_error_body`]).
    pub fn into_web_response(self) -> Response {
        let body = web_error_body(&self.public_message());
        let mut response = (self.status(), axum::Json(body)).into_response();
        self.mark(&mut response);
        response
    }

    /// The response GraphQL over HTTP gives when a shared layer (rate limit, body limit, timeout) refuses
    /// before a document runs: `{"errors": [{message, extensions: {code}}]}`.
    pub fn into_graphql_response(self) -> Response {
        let mut extensions = json!({ "code": self.graphql_code() });
        if let Some(retry_after) = self.retry_after() {
            extensions["retryAfter"] = json!(retry_after);
        }
        let body = graphql_error_body(&self.public_message(), extensions);
        let mut response = (self.status(), axum::Json(body)).into_response();
        self.mark(&mut response);
        response
    }

    /// What every door adds to its error response: the hidden cause for the log, `Retry-After` when rate
    /// limited.
    fn mark(&self, response: &mut Response) {
        if let AppError::Internal(cause) | AppError::Unavailable(cause) = self {
            response
                .extensions_mut()
                .insert(LoggedCause(format!("{cause:#}")));
        }
        if let Some(retry_after) = self.retry_after() {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(retry_after),
            );
        }
    }
}

impl From<AppError> for async_graphql::Error {
    fn from(err: AppError) -> Self {
        if let AppError::Internal(cause) | AppError::Unavailable(cause) = &err {
            tracing::error!(error = %format!("{cause:#}"), "internal error in GraphQL resolver");
        }
        let mut gql = async_graphql::Error::new(err.public_message());
        let code = err.graphql_code();
        gql = gql.extend_with(|_, ext| {
            ext.set("code", code);
            let named_fields = match &err {
                AppError::Validation { fields, .. } | AppError::Conflict { fields, .. } => {
                    Some(fields)
                }
                // A refusal names fields only when it is about them.
                AppError::Forbidden { fields, .. } if !fields.is_empty() => Some(fields),
                _ => None,
            };
            if let Some(fields) = named_fields {
                let named: FieldErrors = fields
                    .iter()
                    .map(|(field, messages)| (graphql_field_name(field), messages.clone()))
                    .collect();
                if let Ok(v) = async_graphql::Value::from_json(fields_json(&named)) {
                    ext.set("fields", v);
                }
            }
            if let AppError::InvalidTransition { allowed, .. } = &err {
                // Spelled as the `TicketStatus` enum values a GraphQL client sends back.
                let allowed: Vec<String> = allowed.iter().map(|s| s.to_ascii_uppercase()).collect();
                if let Ok(v) = async_graphql::Value::from_json(json!({ "allowed": allowed })) {
                    ext.set("details", v);
                }
            }
            if let Some(retry_after) = err.retry_after() {
                ext.set("retryAfter", retry_after);
            }
        });
        gql
    }
}
