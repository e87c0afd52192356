//! The legacy JSON shapes of the REST contract, in one place.
use chrono::{DateTime, Utc};

/// ISO 8601 UTC with a trailing Z, as REST clients expect.
pub fn timestamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// Like [`timestamp`], null when unset.
pub fn opt_timestamp(at: &Option<DateTime<Utc>>) -> serde_json::Value {
    at.as_ref()
        .map(|t| serde_json::Value::String(timestamp(t)))
        .unwrap_or(serde_json::Value::Null)
}
