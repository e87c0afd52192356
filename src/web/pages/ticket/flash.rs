//! The confirmation a ticket page shows once after an action ("Assigned to you", "Resolved"): carried by a
//! short-lived cookie on the redirect back, so the page's address stays the ticket's own.
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};

const COOKIE: &str = "flash";

fn cookie(id: i32, value: &str, max_age: i64) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Max-Age={max_age}; Path=/tickets/{id}/; SameSite=Lax; HttpOnly"
    ))
    .ok()
}

/// A 303 back to ticket `id` that shows `message` there once.
pub fn back(id: i32, message: &str) -> Response {
    let mut response = Redirect::to(&format!("/tickets/{id}/")).into_response();
    let encoded =
        percent_encoding::utf8_percent_encode(message, percent_encoding::NON_ALPHANUMERIC);
    if let Some(value) = cookie(id, &encoded.to_string(), 60) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// The message waiting for ticket `id`'s page, if any (at most 100 characters).
pub fn take(headers: &HeaderMap) -> Option<String> {
    let raw = crate::web::session::cookie(headers, COOKIE)?;
    let message = percent_encoding::percent_decode_str(&raw)
        .decode_utf8_lossy()
        .chars()
        .take(100)
        .collect::<String>();
    (!message.trim().is_empty()).then_some(message)
}

/// Forget the message once shown.
pub fn clear(response: &mut Response, id: i32) {
    if let Some(value) = cookie(id, "", 0) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}
