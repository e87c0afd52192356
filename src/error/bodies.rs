//! Schemas of the error bodies that `error::AppError` renders (`{error, code, details}` for REST,
//! `{success: false, error}` for the web). The renderer builds them from the error's variant, so these
//! types exist for the document only; `tests/api/ops/openapi_shapes.rs` checks real failures against them.
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// The REST error body.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": "invalid fields: title", "code": "validation_error", "details": {"title": ["this field may not be blank"]}}))]
pub struct Error {
    /// Human-readable message.
    pub error: String,
    /// Stable snake_case code, e.g. `validation_error`, `not_found`, `rate_limited`, `invalid_transition`.
    pub code: String,
    /// Messages per field (may be empty).
    pub details: BTreeMap<String, Vec<String>>,
}

/// The REST error body of a 429: `details` says how long to wait.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": "rate limit exceeded", "code": "rate_limited", "details": {"retry_after": 42}}))]
pub struct RateLimitError {
    /// Human-readable message.
    pub error: String,
    /// Always `rate_limited`.
    pub code: String,
    /// When to try again.
    pub details: RetryDetails,
}

/// The `details` of a 429.
#[derive(Serialize, ToSchema)]
pub struct RetryDetails {
    /// Seconds to wait, the same figure as the `Retry-After` header.
    pub retry_after: u64,
}

/// The web interface's failure body.
#[derive(Serialize, ToSchema)]
pub struct WebFailure {
    /// Always false.
    pub success: bool,
    /// Human-readable message.
    pub error: String,
}
