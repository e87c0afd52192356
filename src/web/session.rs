//! Session login and logout, and the extractor that authenticates web requests by session cookie and
//! checks the CSRF token on unsafe methods.
use super::{WebError, WebResult};
use crate::auth::middleware::WebSession;
use crate::auth::session::{self, CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE};
use crate::auth::tokens::constant_time_eq;
use crate::auth::{load_actor, Actor};
use crate::error::AppError;
use crate::service::auth::check_credentials;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use axum::response::{AppendHeaders, IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

/// The signed-in user of a web request, with a valid session (and CSRF token, for unsafe methods).
pub struct WebActor {
    /// Who is calling.
    pub actor: Arc<Actor>,
    /// The session cookie's secret.
    pub secret: String,
}

pub use crate::auth::session::cookie;

impl FromRequestParts<AppState> for WebActor {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> WebResult<Self> {
        let unauthenticated = || WebError(AppError::Unauthenticated("login required".into()));
        let secret = cookie(&parts.headers, SESSION_COOKIE).ok_or_else(unauthenticated)?;
        // The auth middleware has usually resolved the session already; the CSRF check below still applies.
        let resolved = parts
            .extensions
            .get::<WebSession>()
            .filter(|s| s.secret == secret)
            .cloned();
        let (found, actor) = match resolved {
            Some(web) => (web.record, web.actor),
            None => {
                let found = session::lookup(&state.db.conn, &secret)
                    .await?
                    .ok_or_else(unauthenticated)?;
                let actor = load_actor(&state.db.conn, found.user_id)
                    .await?
                    .ok_or_else(unauthenticated)?;
                (found, Arc::new(actor))
            }
        };
        if !parts.method.is_safe() {
            let sent = parts
                .headers
                .get(CSRF_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            if !constant_time_eq(sent, &found.csrf_token) {
                return Err(WebError(AppError::forbidden(
                    "CSRF token missing or incorrect",
                )));
            }
        }
        Ok(WebActor { actor, secret })
    }
}

/// `{username, password}` from a JSON or form-urlencoded body.
fn credentials(headers: &HeaderMap, body: &Bytes) -> WebResult<(String, String)> {
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let missing = || WebError(AppError::bad_request("username and password are required"));
    let (username, password) = if is_form {
        let mut username = None;
        let mut password = None;
        for (k, v) in url::form_urlencoded::parse(body) {
            match k.as_ref() {
                "username" => username = Some(v.into_owned()),
                "password" => password = Some(v.into_owned()),
                _ => {}
            }
        }
        (username, password)
    } else {
        let value: Value = serde_json::from_slice(body)
            .map_err(|_| WebError(AppError::bad_request("request body must be a JSON object")))?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        (text("username"), text("password"))
    };
    Ok((username.ok_or_else(missing)?, password.ok_or_else(missing)?))
}

fn set_cookie(name: &str, value: &str, max_age: i64, http_only: bool) -> String {
    let http_only = if http_only { "; HttpOnly" } else { "" };
    format!("{name}={value}; Max-Age={max_age}; Path=/; SameSite=Lax{http_only}")
}

/// `POST /accounts/login/`: start a session (HttpOnly cookie) and hand out its CSRF token (readable
/// cookie). A session cookie already sent is ended first, so a login never keeps an old session alive.
pub async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> WebResult<Response> {
    let (username, password) = credentials(&headers, &body)?;
    let user = check_credentials(&state, &username, &password).await?;
    if let Some(old) = cookie(&headers, SESSION_COOKIE) {
        session::delete(&state.db.conn, &old).await?;
    }
    let ttl_hours = state.config.session_ttl_hours;
    let started = session::create(&state.db.conn, user.id, ttl_hours).await?;
    let max_age = ttl_hours * 3600;
    let cookies = AppendHeaders([
        (
            header::SET_COOKIE,
            set_cookie(SESSION_COOKIE, &started.secret, max_age, true),
        ),
        (
            header::SET_COOKIE,
            set_cookie(CSRF_COOKIE, &started.record.csrf_token, max_age, false),
        ),
    ]);
    let body = json!({
        "success": true,
        "user": {
            "id": user.id,
            "username": user.username,
            "full_name": user.full_name,
            "email": user.email,
            "is_staff": user.is_staff,
        },
    });
    Ok((cookies, axum::Json(body)).into_response())
}

/// `POST /accounts/logout/`: end the session server-side and clear both cookies.
pub async fn logout(State(state): State<AppState>, web: WebActor) -> WebResult<Response> {
    session::delete(&state.db.conn, &web.secret).await?;
    let cookies = AppendHeaders([
        (header::SET_COOKIE, set_cookie(SESSION_COOKIE, "", 0, true)),
        (header::SET_COOKIE, set_cookie(CSRF_COOKIE, "", 0, false)),
    ]);
    let body = json!({ "success": true, "message": "Logged out" });
    Ok((cookies, axum::Json(body)).into_response())
}
