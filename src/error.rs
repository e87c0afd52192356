//! The one error type: every failure maps to a REST body `{error, code, details}` and a GraphQL
//! `extensions.code`. Internal causes are logged by the caller's layer and never shown.
use async_graphql::ErrorExtensions;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sea_orm::{DbErr, RuntimeErr, SqlErr};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Field name → messages, as in the REST body's `details`.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

/// Result alias used throughout the service.
pub type AppResult<T> = Result<T, AppError>;

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No or invalid credentials.
    #[error("{0}")]
    Unauthenticated(String),
    /// Authenticated, but not allowed.
    #[error("{0}")]
    Forbidden(String),
    /// The record does not exist or the caller may not know it exists.
    #[error("{0}")]
    NotFound(String),
    /// Bad input, with per-field messages.
    #[error("{message}")]
    Validation {
        /// Human summary.
        message: String,
        /// Field → messages.
        fields: FieldErrors,
    },
    /// A status move the workflow refuses.
    #[error("{message}")]
    InvalidTransition {
        /// Human summary.
        message: String,
        /// Statuses that would be allowed.
        allowed: Vec<String>,
    },
    /// A unique constraint or concurrent change clash.
    #[error("{message}")]
    Conflict {
        /// Human summary.
        message: String,
        /// Field → messages.
        fields: FieldErrors,
    },
    /// The body is larger than allowed.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// Over the rate limit; retry after this many seconds.
    #[error("rate limit exceeded")]
    RateLimited {
        /// Seconds until the window resets.
        retry_after: u64,
    },
    /// Anything else; the cause is logged, the client sees a generic message.
    /// The path exists but not with this method (405).
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The request took longer than the configured timeout (503).
    #[error("the request took too long and was abandoned")]
    Timeout,
    /// The database refuses writes for now (disk full, read-only, I/O error): 503, try again later.
    /// Nothing of the request was stored; the cause is logged.
    #[error("the service cannot store changes right now; try again later")]
    Unavailable(#[source] anyhow::Error),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl AppError {
    /// A validation error on one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        let mut fields = FieldErrors::new();
        fields.insert(field.to_string(), vec![message.clone()]);
        AppError::Validation {
            message: format!("{field}: {message}"),
            fields,
        }
    }

    /// A validation error without a specific field.
    pub fn bad_request(message: impl Into<String>) -> Self {
        AppError::Validation {
            message: message.into(),
            fields: FieldErrors::new(),
        }
    }

    /// A not-found error naming the kind of record.
    pub fn not_found(what: &str) -> Self {
        AppError::NotFound(format!("{what} not found"))
    }

    /// A forbidden error.
    pub fn forbidden(message: impl Into<String>) -> Self {
        AppError::Forbidden(message.into())
    }

    /// Wrap any internal failure.
    pub fn internal(err: impl Into<anyhow::Error>) -> Self {
        AppError::Internal(err.into())
    }

    /// HTTP status for REST and web responses.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Validation { .. } | AppError::InvalidTransition { .. } => {
                StatusCode::BAD_REQUEST
            }
            AppError::Conflict { .. } => StatusCode::CONFLICT,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Timeout | AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Stable snake_case code for REST bodies.
    pub fn code(&self) -> &'static str {
        match self {
            AppError::Unauthenticated(_) => "unauthenticated",
            AppError::Forbidden(_) => "forbidden",
            AppError::NotFound(_) => "not_found",
            AppError::Validation { .. } => "validation_error",
            AppError::InvalidTransition { .. } => "invalid_transition",
            AppError::Conflict { .. } => "conflict",
            AppError::PayloadTooLarge(_) => "payload_too_large",
            AppError::RateLimited { .. } => "rate_limited",
            AppError::Timeout => "timeout",
            AppError::Unavailable(_) => "unavailable",
            AppError::MethodNotAllowed(_) => "method_not_allowed",
            AppError::Internal(_) => "internal_error",
        }
    }

    /// Stable UPPER_CASE code for GraphQL `extensions.code`.
    pub fn graphql_code(&self) -> &'static str {
        match self {
            AppError::Unauthenticated(_) => "UNAUTHENTICATED",
            AppError::Forbidden(_) => "FORBIDDEN",
            AppError::NotFound(_) => "NOT_FOUND",
            AppError::Validation { .. }
            | AppError::Conflict { .. }
            | AppError::PayloadTooLarge(_)
            | AppError::MethodNotAllowed(_) => "BAD_USER_INPUT",
            AppError::InvalidTransition { .. } => "INVALID_TRANSITION",
            AppError::RateLimited { .. } => "RATE_LIMITED",
            AppError::Timeout | AppError::Unavailable(_) | AppError::Internal(_) => "INTERNAL",
        }
    }

    /// The message a client may see.
    pub fn public_message(&self) -> String {
        self.to_string()
    }

    /// The `details` object of the REST body.
    pub fn details(&self) -> Value {
        match self {
            AppError::Validation { fields, .. } | AppError::Conflict { fields, .. } => {
                fields_json(fields)
            }
            AppError::InvalidTransition { allowed, .. } => json!({ "allowed": allowed }),
            AppError::RateLimited { retry_after } => json!({ "retry_after": retry_after }),
            _ => Value::Object(Map::new()),
        }
    }

    /// The REST error body.
    pub fn body(&self) -> Value {
        json!({ "error": self.public_message(), "code": self.code(), "details": self.details() })
    }
}

/// A service field name as the GraphQL input that carries it is spelled, so that a front end can put
/// the message beside the right form field: references travel as `…Id` there, everything in camelCase.
fn graphql_field_name(field: &str) -> String {
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

fn fields_json(fields: &FieldErrors) -> Value {
    Value::Object(fields.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
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
        if let AppError::RateLimited { retry_after } = &self {
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
        if let AppError::RateLimited { retry_after } = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(*retry_after),
            );
        }
    }
}

/// A client's value outside a stored enum's set is a 400 naming the field and the allowed values.
impl From<crate::domain::UnknownValue> for AppError {
    fn from(err: crate::domain::UnknownValue) -> Self {
        AppError::field(err.field, err.message)
    }
}

impl From<DbErr> for AppError {
    fn from(err: DbErr) -> Self {
        if storage_refuses(&err) {
            AppError::Unavailable(err.into())
        } else {
            AppError::Internal(err.into())
        }
    }
}

/// Whether the database refused a statement because of its storage or could not be reached, rather than
/// because of the statement: SQLite's FULL, READONLY, IOERR and CANTOPEN (extended codes carry the primary
/// one in their low byte); PostgreSQL's class 53 (disk full, out of memory), 25006 (read-only transaction,
/// e.g. a standby) and 58030 (I/O error); and a server that is gone, shutting down or starting (no
/// connection within the acquire timeout, a connection cut, class 08, 57P01-57P03). These pass when space,
/// write access or the server returns, so the client may retry.
fn storage_refuses(err: &DbErr) -> bool {
    if matches!(err, DbErr::ConnectionAcquire(_)) {
        return true;
    }
    let (DbErr::Exec(RuntimeErr::SqlxError(e))
    | DbErr::Query(RuntimeErr::SqlxError(e))
    | DbErr::Conn(RuntimeErr::SqlxError(e))) = err
    else {
        return false;
    };
    use sea_orm::sqlx::Error as Sqlx;
    let db = match e.as_ref() {
        Sqlx::Database(db) => db,
        Sqlx::Io(_) | Sqlx::PoolTimedOut | Sqlx::PoolClosed | Sqlx::WorkerCrashed => return true,
        _ => return false,
    };
    let Some(code) = db.code() else {
        return false;
    };
    if db
        .try_downcast_ref::<sea_orm::sqlx::sqlite::SqliteError>()
        .is_some()
    {
        code.parse::<i64>()
            .is_ok_and(|n| matches!(n & 0xff, 8 | 10 | 13 | 14))
    } else {
        code.starts_with("53")
            || code.starts_with("08")
            || matches!(
                code.as_ref(),
                "25006" | "58030" | "57P01" | "57P02" | "57P03"
            )
    }
}

/// Turns unique-constraint violations into a field error, decided from the database, race-free.
pub trait OnConstraint<T> {
    /// Map a unique violation to a conflict on `field`.
    fn on_unique(self, field: &str, message: &str) -> AppResult<T>;
}

impl<T> OnConstraint<T> for Result<T, DbErr> {
    fn on_unique(self, field: &str, message: &str) -> AppResult<T> {
        self.map_err(|err| match err.sql_err() {
            Some(SqlErr::UniqueConstraintViolation(_)) => {
                let mut fields = FieldErrors::new();
                fields.insert(field.to_string(), vec![message.to_string()]);
                AppError::Validation {
                    message: format!("{field}: {message}"),
                    fields,
                }
            }
            _ => AppError::from(err),
        })
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
            if let AppError::Validation { fields, .. } | AppError::Conflict { fields, .. } = &err {
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
            if let AppError::RateLimited { retry_after } = &err {
                ext.set("retryAfter", *retry_after);
            }
        });
        gql
    }
}

impl From<axum::extract::multipart::MultipartError> for AppError {
    fn from(err: axum::extract::multipart::MultipartError) -> Self {
        if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::PayloadTooLarge("the request body exceeds the upload limit".into())
        } else {
            AppError::bad_request(format!("malformed multipart body: {}", err.body_text()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{graphql_field_name, AppError};
    use sea_orm::{ConnAcquireErr, DbErr, RuntimeErr};
    use std::sync::Arc;

    #[test]
    fn a_database_out_of_reach_is_unavailable_not_an_internal_error() {
        let sqlx = |e: sea_orm::sqlx::Error| DbErr::Query(RuntimeErr::SqlxError(Arc::new(e)));
        let cut = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        for err in [
            DbErr::ConnectionAcquire(ConnAcquireErr::Timeout),
            sqlx(sea_orm::sqlx::Error::PoolTimedOut),
            sqlx(sea_orm::sqlx::Error::Io(cut)),
        ] {
            let text = err.to_string();
            assert!(
                matches!(AppError::from(err), AppError::Unavailable(_)),
                "{text}"
            );
        }
        let other = sqlx(sea_orm::sqlx::Error::RowNotFound);
        assert!(matches!(AppError::from(other), AppError::Internal(_)));
    }

    #[test]
    fn graphql_names_fields_as_its_inputs_do() {
        assert_eq!(graphql_field_name("assigned_to"), "assigneeId");
        assert_eq!(graphql_field_name("assigned_group"), "assignedGroupId");
        assert_eq!(graphql_field_name("project"), "projectId");
        assert_eq!(graphql_field_name("serial_number"), "serialNumber");
        assert_eq!(graphql_field_name("due_date"), "dueDate");
        assert_eq!(graphql_field_name("title"), "title");
    }
}
