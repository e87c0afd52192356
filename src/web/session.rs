//! Session login and logout, and the extractor that authenticates web requests by session cookie and
//! checks the CSRF token on unsafe methods.
use super::shapes::{SessionStarted, SessionUser, WebMessage};
use super::{login_csrf, WebError, WebResult};
use crate::auth::middleware::WebSession;
use crate::auth::session::{self, CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE};
use crate::auth::tokens::constant_time_eq;
use crate::auth::Actor;
use crate::error::bodies::WebFailure;
use crate::error::{web_error_body, AppError};
use crate::http::client_ip::ClientAddress;
use crate::service::sign_in::{check_credentials, Credentials};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{AppendHeaders, IntoResponse, Redirect, Response};
use entity::web_session;
use serde_json::Value;
use std::sync::Arc;

/// The signed-in user of a web request, with a valid session (and CSRF token, for unsafe methods).
pub struct WebActor {
    /// Who is calling.
    pub actor: Arc<Actor>,
    /// The session cookie's secret.
    pub secret: String,
}

pub use crate::auth::session::cookie;

/// The live session named by the request's session cookie, its user and its cookie secret.
pub async fn signed_in(
    state: &AppState,
    headers: &HeaderMap,
) -> WebResult<Option<(Arc<Actor>, web_session::Model, String)>> {
    let Some(secret) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    let found = session::signed_in(&state.db.conn, &state.auth_cache, &secret).await?;
    Ok(found.map(|(record, actor)| (actor, record, secret)))
}

/// Refuse a request whose CSRF token (header or form field) is not the session's.
pub fn check_csrf(sent: Option<&str>, expected: &str) -> WebResult<()> {
    if expected.is_empty() || !constant_time_eq(sent.unwrap_or(""), expected) {
        return Err(WebError(AppError::forbidden(
            "CSRF token missing or incorrect",
        )));
    }
    Ok(())
}

impl FromRequestParts<AppState> for WebActor {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> WebResult<Self> {
        // The auth middleware has usually resolved the session already; the CSRF check below still applies.
        let resolved = parts.extensions.get::<WebSession>().cloned();
        let (actor, found, secret) = match resolved {
            Some(web) => (web.actor, web.record, web.secret),
            None => signed_in(state, &parts.headers)
                .await?
                .ok_or_else(|| WebError(AppError::Unauthenticated("login required".into())))?,
        };
        if !parts.method.is_safe() {
            let sent = parts.headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
            check_csrf(sent, &found.csrf_token)?;
        }
        Ok(WebActor { actor, secret })
    }
}

/// Whether the body is an HTML form post (rather than JSON).
pub fn is_form(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"))
}

/// `{username, password}` from a JSON body.
fn credentials(body: &Bytes) -> WebResult<(String, String)> {
    let missing = || WebError(AppError::bad_request("username and password are required"));
    let value: Value = serde_json::from_slice(body)
        .map_err(|_| WebError(AppError::bad_request("request body must be a JSON object")))?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let (username, password) = (text("username"), text("password"));
    Ok((username.ok_or_else(missing)?, password.ok_or_else(missing)?))
}

/// A `Set-Cookie` value for the web cookies (`Max-Age=0` clears one).
pub fn set_cookie(name: &str, value: &str, max_age: i64, http_only: bool) -> String {
    let http_only = if http_only { "; HttpOnly" } else { "" };
    format!("{name}={value}; Max-Age={max_age}; Path=/; SameSite=Lax{http_only}")
}

/// `POST /accounts/login/`: start a session (HttpOnly cookie) and hand out its CSRF token (readable
/// cookie). A session cookie already sent is ended first, so a login never keeps an old session alive.
/// A form post is the sign-in page's; anything else must be JSON from this site (see [`login_csrf`]).
#[utoipa::path(post, path = "/accounts/login/", tag = "web", operation_id = "sessionLogin",
    summary = "Start a web session.",
    request_body(content(
        (crate::rest::auth::Credentials = "application/json"),
        (crate::rest::auth::Credentials = "application/x-www-form-urlencoded"),
    )),
    responses(
        (status = 200, description = "Signed in; sets the `sessionid` (HttpOnly) and `csrftoken` cookies",
            body = SessionStarted, headers(("Set-Cookie" = String, description = "`sessionid` and `csrftoken`"))),
        (status = 401, description = "Wrong credentials (a form post gets the sign-in page again)",
            content((WebFailure = "application/json"), (String = "text/html"))),
        (status = 403, description = "A form post without the pre-session CSRF token, or a JSON post that a \
            browser labels as sent by another site (`Sec-Fetch-Site` other than `same-origin`, or an `Origin` \
            that is not this host nor in `DESKGRAPH_CORS_ORIGINS`)",
            content((WebFailure = "application/json"), (String = "text/html"))),
        (status = 415, description = "A body that is neither `application/json` nor a form", body = WebFailure),
        (status = 429, description = "Too many failed sign-ins for this account or from this address (or over \
            the rate limit), whatever the password; retry after `Retry-After` seconds",
            content((WebFailure = "application/json"), (String = "text/html")),
            headers(("Retry-After" = u64, description = "Seconds until sign-ins are accepted again"))),
    ))]
pub async fn login(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> WebResult<Response> {
    if is_form(&headers) {
        return Ok(crate::web::pages::login::submit(&state, client, &headers, &body).await);
    }
    if !login_csrf::declares_json(&headers) {
        let message = "send the credentials as application/json or as a form";
        let body = web_error_body(message);
        return Ok((StatusCode::UNSUPPORTED_MEDIA_TYPE, axum::Json(body)).into_response());
    }
    if login_csrf::cross_site(&headers, &uri, &state.config) {
        return Err(WebError(AppError::forbidden(
            "sign-in from another site refused",
        )));
    }
    let (username, password) = credentials(&body)?;
    let attempt = Credentials {
        username: &username,
        password: &password,
        client,
    };
    let user = check_credentials(&state.db, &state.counters, &state.config, attempt).await?;
    let cookies = start_session(&state, &headers, user.id).await?;
    let body = SessionStarted {
        success: true,
        user: SessionUser {
            id: user.id,
            username: user.username,
            full_name: user.full_name,
            email: user.email,
            is_staff: user.is_staff,
        },
    };
    Ok((cookies, axum::Json(body)).into_response())
}

/// Start a session for `user_id`, ending the one the request still carries, and return the cookies
/// to set (HttpOnly session secret, readable CSRF token).
pub async fn start_session(
    state: &AppState,
    headers: &HeaderMap,
    user_id: i32,
) -> WebResult<AppendHeaders<[(header::HeaderName, String); 2]>> {
    if let Some(old) = cookie(headers, SESSION_COOKIE) {
        session::delete(&state.db.conn, &old).await?;
    }
    let ttl_hours = state.config.session_ttl_hours;
    let started = session::create(&state.db.conn, user_id, ttl_hours).await?;
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
    Ok(cookies)
}

/// `POST /accounts/logout/`: end the session server-side and clear both cookies. The sign-out form
/// sends its CSRF token as a field and is sent back to the sign-in page; JSON clients use the header.
#[utoipa::path(post, path = "/accounts/logout/", tag = "web", operation_id = "sessionLogout",
    summary = "End the web session server-side.",
    responses((status = 200, description = "Signed out; clears both cookies", body = WebMessage)),
    security(("session" = [], "csrf" = [])))]
pub async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> WebResult<Response> {
    let form = is_form(&headers);
    let (_, found, secret) = signed_in(&state, &headers)
        .await?
        .ok_or_else(|| WebError(AppError::Unauthenticated("login required".into())))?;
    let sent = if form {
        form_field(&body, FORM_CSRF_FIELD)
    } else {
        headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    check_csrf(sent.as_deref(), &found.csrf_token)?;
    session::delete(&state.db.conn, &secret).await?;
    let cookies = AppendHeaders([
        (header::SET_COOKIE, set_cookie(SESSION_COOKIE, "", 0, true)),
        (header::SET_COOKIE, set_cookie(CSRF_COOKIE, "", 0, false)),
    ]);
    if form {
        return Ok((cookies, Redirect::to("/accounts/login/")).into_response());
    }
    Ok((cookies, axum::Json(WebMessage::new("Logged out"))).into_response())
}

/// Name of the hidden form field carrying the CSRF token in HTML forms.
pub const FORM_CSRF_FIELD: &str = "csrfmiddlewaretoken";

/// The first value of `name` in a form-urlencoded body.
pub fn form_field(body: &[u8], name: &str) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}
