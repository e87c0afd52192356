//! The `Idempotency-Key` request header of REST creates (`service::idempotency`).
use crate::error::{AppError, AppResult, FieldErrors};
use crate::service::idempotency::IdempotencyKey;
use crate::service::tickets::KEY_FIELD;
use axum::http::HeaderMap;

/// The header, as the REST errors name it.
pub const HEADER: &str = "Idempotency-Key";

/// The request's key: none without the header; a 400 naming the header when it is sent twice or is not
/// 1-255 visible ASCII characters.
pub fn key(headers: &HeaderMap) -> AppResult<Option<IdempotencyKey>> {
    let mut values = headers.get_all(HEADER).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AppError::field(HEADER, "send one key, not several"));
    }
    let raw = value.to_str().unwrap_or("\u{0}");
    IdempotencyKey::parse(raw, HEADER).map(Some)
}

/// `err` with the service's name for the key replaced by the header's.
pub fn name_header(err: AppError) -> AppError {
    let rename = |mut fields: FieldErrors| {
        if let Some(messages) = fields.remove(KEY_FIELD) {
            fields.insert(HEADER.to_string(), messages);
        }
        fields
    };
    match err {
        AppError::Conflict { message, fields } => AppError::Conflict {
            message,
            fields: rename(fields),
        },
        AppError::Validation { message, fields } => AppError::Validation {
            message: message.replace(KEY_FIELD, HEADER),
            fields: rename(fields),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn named(result: AppResult<Option<IdempotencyKey>>) -> bool {
        result.is_err_and(|e| e.details().get(HEADER).is_some())
    }

    #[test]
    fn the_header_is_optional_single_and_checked() {
        let mut headers = HeaderMap::new();
        assert!(matches!(key(&headers), Ok(None)));
        headers.insert(HEADER, HeaderValue::from_static("order-42"));
        assert!(matches!(key(&headers), Ok(Some(k)) if k.as_str() == "order-42"));
        headers.append(HEADER, HeaderValue::from_static("order-43"));
        assert!(named(key(&headers)), "sent twice");
        let mut latin = HeaderMap::new();
        if let Ok(value) = HeaderValue::from_bytes(b"caf\xe9") {
            latin.insert(HEADER, value);
        }
        assert!(named(key(&latin)), "not ASCII");
    }
}
