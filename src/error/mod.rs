//! The one error type: every failure maps to a REST body `{error, code, details}` and a GraphQL
//! `extensions.code`. Internal causes are logged by the caller's layer and never shown.
use axum::http::StatusCode;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub mod bodies;
mod causes;
mod doors;
pub use causes::OnConstraint;
pub use doors::{graphql_error_body, web_error_body, LoggedCause};

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
    /// Authenticated, but not allowed; `fields` names the fields refused, when the refusal is about them.
    #[error("{message}")]
    Forbidden {
        /// Human summary.
        message: String,
        /// Field → messages (empty when the refusal is not about a field).
        fields: FieldErrors,
    },
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
    /// Too many of the viewer's requests are using the database at once (`crate::db::viewer_gate`): 429
    /// `rate_limited`, retry after this many seconds.
    #[error("too many of your requests are running at once; retry in a moment")]
    Busy {
        /// Seconds to wait before retrying.
        retry_after: u64,
    },
    /// The user already holds as many long-lived connections or subscriptions of a kind as one instance
    /// gives a user (`crate::notify::live::Lasting`): 429 `rate_limited`, retry after this many seconds.
    #[error("{message}")]
    TooManyOpen {
        /// What is open and how many may be.
        message: String,
        /// Seconds to wait before retrying.
        retry_after: u64,
    },
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
    /// Anything else; the cause is logged, the client sees a generic message.
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

    /// A clash with the record's current state (409), without a specific field.
    pub fn conflict(message: impl Into<String>) -> Self {
        AppError::Conflict {
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
        AppError::Forbidden {
            message: message.into(),
            fields: FieldErrors::new(),
        }
    }

    /// A forbidden error about one field the caller may not set.
    pub fn forbidden_field(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        AppError::forbidden_fields(format!("{field}: {message}"), &[field], &message)
    }

    /// A forbidden error naming the `fields` the caller may not set, each with `each`.
    pub fn forbidden_fields(message: impl Into<String>, fields: &[&str], each: &str) -> Self {
        AppError::Forbidden {
            message: message.into(),
            fields: fields
                .iter()
                .map(|field| (field.to_string(), vec![each.to_string()]))
                .collect(),
        }
    }

    /// Wrap any internal failure.
    pub fn internal(err: impl Into<anyhow::Error>) -> Self {
        AppError::Internal(err.into())
    }

    /// HTTP status for REST and web responses.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden { .. } => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Validation { .. } | AppError::InvalidTransition { .. } => {
                StatusCode::BAD_REQUEST
            }
            AppError::Conflict { .. } => StatusCode::CONFLICT,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::RateLimited { .. } | AppError::Busy { .. } | AppError::TooManyOpen { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            AppError::Timeout | AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Stable snake_case code for REST bodies.
    pub fn code(&self) -> &'static str {
        match self {
            AppError::Unauthenticated(_) => "unauthenticated",
            AppError::Forbidden { .. } => "forbidden",
            AppError::NotFound(_) => "not_found",
            AppError::Validation { .. } => "validation_error",
            AppError::InvalidTransition { .. } => "invalid_transition",
            AppError::Conflict { .. } => "conflict",
            AppError::PayloadTooLarge(_) => "payload_too_large",
            AppError::RateLimited { .. } | AppError::Busy { .. } | AppError::TooManyOpen { .. } => {
                "rate_limited"
            }
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
            AppError::Forbidden { .. } => "FORBIDDEN",
            AppError::NotFound(_) => "NOT_FOUND",
            AppError::Validation { .. }
            | AppError::Conflict { .. }
            | AppError::PayloadTooLarge(_)
            | AppError::MethodNotAllowed(_) => "BAD_USER_INPUT",
            AppError::InvalidTransition { .. } => "INVALID_TRANSITION",
            AppError::RateLimited { .. } | AppError::Busy { .. } | AppError::TooManyOpen { .. } => {
                "RATE_LIMITED"
            }
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
            AppError::Validation { fields, .. }
            | AppError::Conflict { fields, .. }
            | AppError::Forbidden { fields, .. } => fields_json(fields),
            AppError::InvalidTransition { allowed, .. } => json!({ "allowed": allowed }),
            _ => match self.retry_after() {
                Some(retry_after) => json!({ "retry_after": retry_after }),
                None => Value::Object(Map::new()),
            },
        }
    }

    /// Seconds the client should wait before trying again (`Retry-After`), for the refusals that have one.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::RateLimited { retry_after }
            | AppError::Busy { retry_after }
            | AppError::TooManyOpen { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    /// The REST error body.
    pub fn body(&self) -> Value {
        json!({ "error": self.public_message(), "code": self.code(), "details": self.details() })
    }
}

/// Field errors as a JSON object.
fn fields_json(fields: &FieldErrors) -> Value {
    Value::Object(fields.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::doors::graphql_field_name;
    use super::AppError;
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
