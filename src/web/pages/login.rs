//! The sign-in page. Before there is a session, a readable `csrftoken` cookie and the same value in a
//! hidden field protect the form against login CSRF (double submit); signing in replaces the token
//! with the session's own.
use super::{html, Form, Layout, PageResult};
use crate::auth::session::CSRF_COOKIE;
use crate::auth::tokens::{constant_time_eq, new_secret};
use crate::service::auth::check_credentials;
use crate::state::AppState;
use crate::web::session::{cookie, set_cookie, signed_in, start_session, FORM_CSRF_FIELD};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

/// How long the pre-session CSRF cookie lives.
const FORM_TOKEN_SECONDS: i64 = 2 * 3600;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    layout: Layout,
    username: String,
    next: String,
    error: Option<String>,
}

/// Query of the sign-in page.
#[derive(Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
}

/// Only paths on this site are followed after signing in (no open redirect).
fn safe_next(next: &str) -> String {
    let local = next.starts_with('/') && !next.starts_with("//") && !next.contains('\\');
    if local {
        next.to_string()
    } else {
        "/tickets/".to_string()
    }
}

/// The CSRF token the browser already holds, if it looks like one of ours.
fn held_token(headers: &HeaderMap) -> Option<String> {
    cookie(headers, CSRF_COOKIE)
        .filter(|t| t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Render the form with `status`, handing out a CSRF cookie when the browser has none.
fn render(
    headers: &HeaderMap,
    status: StatusCode,
    username: &str,
    next: &str,
    error: Option<String>,
) -> Response {
    let (token, fresh) = match held_token(headers) {
        Some(token) => (token, false),
        None => (new_secret(""), true),
    };
    let page = LoginPage {
        layout: Layout::anonymous(token.clone()),
        username: username.to_string(),
        next: safe_next(next),
        error,
    };
    let mut response = html(status, &page);
    if fresh {
        let value = set_cookie(CSRF_COOKIE, &token, FORM_TOKEN_SECONDS, false);
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// `GET /accounts/login/`: the form, or straight on when already signed in.
pub async fn page(
    State(state): State<AppState>,
    Query(query): Query<LoginQuery>,
    headers: HeaderMap,
) -> PageResult<Response> {
    let next = query.next.unwrap_or_default();
    if signed_in(&state, &headers).await?.is_some() {
        return Ok(Redirect::to(&safe_next(&next)).into_response());
    }
    Ok(render(&headers, StatusCode::OK, "", &next, None))
}

/// `POST /accounts/login/` from the form: 303 to the queue (or `next`) with the session cookies, or
/// the form again with the reason.
pub async fn submit(state: &AppState, headers: &HeaderMap, body: &Bytes) -> Response {
    let form = Form::parse(body);
    let username = form.get("username").trim().to_string();
    let next = form.get("next").to_string();
    let sent = form.get(FORM_CSRF_FIELD);
    let token_ok = held_token(headers).is_some_and(|held| constant_time_eq(sent, &held));
    if !token_ok {
        let error = "The form expired or was not sent by this site. Please try again.";
        return render(
            headers,
            StatusCode::FORBIDDEN,
            &username,
            &next,
            Some(error.into()),
        );
    }
    if username.is_empty() || form.get("password").is_empty() {
        let error = "Enter your username and password.";
        return render(
            headers,
            StatusCode::BAD_REQUEST,
            &username,
            &next,
            Some(error.into()),
        );
    }
    let user = match check_credentials(state, &username, form.get("password")).await {
        Ok(user) => user,
        Err(err) => {
            let status = err.status();
            return render(
                headers,
                status,
                &username,
                &next,
                Some(err.public_message()),
            );
        }
    };
    match start_session(state, headers, user.id).await {
        Ok(cookies) => (cookies, Redirect::to(&safe_next(&next))).into_response(),
        Err(err) => super::PageError::from(err).into_response(),
    }
}
