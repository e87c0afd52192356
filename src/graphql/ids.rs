//! Global node ids: base64 of `Type:databaseId`, opaque to clients.
use crate::error::{AppError, AppResult};
use async_graphql::ID;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// The global id of the `kind` record `id`.
pub fn encode(kind: &str, id: i32) -> ID {
    ID(STANDARD.encode(format!("{kind}:{id}")))
}

/// Split a global id into its type name and database id; `None` when it is not one of ours.
pub fn decode_any(id: &str) -> Option<(String, i32)> {
    let bytes = STANDARD.decode(id.trim()).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (kind, raw) = text.split_once(':')?;
    Some((kind.to_string(), raw.parse().ok()?))
}

/// The database id inside a global id of type `kind`, or a field error on `field`.
pub fn decode(id: &ID, kind: &str, field: &str) -> AppResult<i32> {
    match decode_any(id) {
        Some((found, db_id)) if found == kind => Ok(db_id),
        _ => Err(AppError::field(field, format!("not a valid {kind} id"))),
    }
}

/// The global id of a `kind` record with a 64-bit id (webhook deliveries).
pub fn encode_i64(kind: &str, id: i64) -> ID {
    ID(STANDARD.encode(format!("{kind}:{id}")))
}

/// The 64-bit database id inside a global id of type `kind`, or a field error on `field`.
pub fn decode_i64(id: &ID, kind: &str, field: &str) -> AppResult<i64> {
    let parsed = STANDARD
        .decode(id.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|text| {
            let (found, raw) = text.split_once(':')?;
            (found == kind).then(|| raw.parse().ok())?
        });
    parsed.ok_or_else(|| AppError::field(field, format!("not a valid {kind} id")))
}

/// Like [`decode`] for an optional id.
pub fn decode_opt(id: Option<&ID>, kind: &str, field: &str) -> AppResult<Option<i32>> {
    id.map(|id| decode(id, kind, field)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_check_their_type() {
        let id = encode("Ticket", 42);
        assert_eq!(id.as_str(), "VGlja2V0OjQy");
        assert_eq!(decode(&id, "Ticket", "id").ok(), Some(42));
        assert!(decode(&id, "User", "id").is_err());
        assert!(decode(&ID("nonsense!".into()), "Ticket", "id").is_err());
    }
}
