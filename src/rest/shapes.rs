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

/// A project: `{id, name, description, ticket_count, created_at, updated_at}`.
pub fn project(p: &entity::project::Model, ticket_count: i64) -> serde_json::Value {
    serde_json::json!({
        "id": p.id,
        "name": p.name,
        "description": p.description,
        "ticket_count": ticket_count,
        "created_at": timestamp(&p.created_at),
        "updated_at": timestamp(&p.updated_at),
    })
}

/// An asset: `{id, name, type, status, location, owner, description, serial_number, created_at,
/// updated_at}`, with `owner` the owner's user name or null.
pub fn asset(a: &entity::asset::Model, owner: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "id": a.id,
        "name": a.name,
        "type": a.asset_type,
        "status": a.status,
        "location": a.location,
        "owner": owner,
        "description": a.description,
        "serial_number": a.serial_number,
        "created_at": timestamp(&a.created_at),
        "updated_at": timestamp(&a.updated_at),
    })
}
