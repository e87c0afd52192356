//! The sign-in page. Before there is a session, a readable `csrftoken` cookie and the same value in a
//! hidden field protect the form against login CSRF (double submit); signing in replaces the token
//! with the session's own.
use super::{html, Form, Layout, PageResult};
use crate::auth::session::CSRF_COOKIE;
use crate::auth::tokens::{constant_time_eq, new_secret};
use crate::config::OidcSettings;
use crate::error::AppError;
use crate::service::sign_in::{check_credentials, Credentials};
use crate::state::AppState;
use crate::web::session::{cookie, set_cookie, signed_in, start_session, FORM_CSRF_FIELD};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use std::net::IpAddr;

/// How long the pre-session CSRF cookie lives.
const FORM_TOKEN_SECONDS: i64 = 2 * 3600;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    layout: Layout,
    username: String,
    next: String,
    error: Option<String>,
    /// "Sign in with <name>" and where it leads, when a provider is configured.
    sso: Option<(String, String)>,
    /// Whether passwords are for the break-glass user alone.
    sso_only: bool,
}

/// Query of the sign-in page.
#[derive(Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
}

/// Where signing in leads when `next` is missing or not a path of this site: the queue.
const HOME: &str = "/tickets/";

/// Only paths on this site are followed after signing in (no open redirect); anything else leads
/// [`HOME`]. A path of this site is printable ASCII starting with exactly one `/`, and stays one once
/// percent-decoded: browsers drop tabs and line breaks from a `Location` (`/\t/evil.example` becomes
/// `//evil.example`, another site) and read `\` as `/`, so none of them may appear, encoded or not.
pub(super) fn safe_next(next: &str) -> String {
    let decoded = percent_encoding::percent_decode_str(next).decode_utf8_lossy();
    let local = |path: &str| {
        path.starts_with('/')
            && !path.starts_with("//")
            && !path.contains('\\')
            && !path.chars().any(|c| c.is_control() || c.is_whitespace())
    };
    if local(next) && local(&decoded) && next.bytes().all(|b| b.is_ascii_graphic()) {
        next.to_string()
    } else {
        HOME.to_string()
    }
}

/// The CSRF token the browser already holds, if it looks like one of ours.
pub(super) fn held_token(headers: &HeaderMap) -> Option<String> {
    cookie(headers, CSRF_COOKIE)
        .filter(|t| t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Render the form with `status`, handing out a CSRF cookie when the browser has none; with the single
/// sign-on button when `oidc` is configured.
pub(super) fn render(
    oidc: Option<&OidcSettings>,
    headers: &HeaderMap,
    status: StatusCode,
    username: &str,
    next: &str,
    error: Option<String>,
) -> Response {
    with_form_token(headers, |token| {
        let next = safe_next(next);
        let sso = oidc.map(|o| {
            let query: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("next", &next)
                .finish();
            (
                o.provider_name.clone(),
                format!("/accounts/oidc/login/?{query}"),
            )
        });
        let page = LoginPage {
            layout: Layout::anonymous(token, super::page_lang(None, headers)),
            username: username.to_string(),
            next,
            error,
            sso,
            sso_only: oidc.is_some_and(|o| o.sso_only),
        };
        html(status, &page)
    })
}

/// A page for a signed-out visitor with a form, rendered by `render` with the CSRF token the form carries:
/// the one the browser holds, or a fresh one handed out as the readable `csrftoken` cookie (double submit).
pub(super) fn with_form_token(
    headers: &HeaderMap,
    render: impl FnOnce(String) -> Response,
) -> Response {
    let (token, fresh) = match held_token(headers) {
        Some(token) => (token, false),
        None => (new_secret(""), true),
    };
    let mut response = render(token.clone());
    if fresh {
        let value = set_cookie(CSRF_COOKIE, &token, FORM_TOKEN_SECONDS, false);
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// Whether a signed-out visitor's form carries the token their browser holds.
pub(super) fn form_token_ok(headers: &HeaderMap, form: &Form) -> bool {
    let sent = form.get(FORM_CSRF_FIELD);
    held_token(headers).is_some_and(|held| constant_time_eq(sent, &held))
}

/// `GET /accounts/login/`: the form, or straight on when already signed in.
#[utoipa::path(get, path = "/accounts/login/", tag = "pages", operation_id = "pageLogin",
    summary = "Sign-in page (also sets the pre-session `csrftoken` cookie used by the form).",
    params(("next" = Option<String>, Query, description = "Local path to return to after signing in")),
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)))]
pub async fn page(
    State(state): State<AppState>,
    Query(query): Query<LoginQuery>,
    headers: HeaderMap,
) -> PageResult<Response> {
    let next = query.next.unwrap_or_default();
    if signed_in(&state, &headers).await?.is_some() {
        return Ok(Redirect::to(&safe_next(&next)).into_response());
    }
    Ok(render(
        state.config.oidc.as_ref(),
        &headers,
        StatusCode::OK,
        "",
        &next,
        None,
    ))
}

/// `POST /accounts/login/` from the form: 303 to the queue (or `next`) with the session cookies, or
/// the form again with the reason (429 with `Retry-After` while the account or address is locked out).
pub async fn submit(
    state: &AppState,
    client: Option<IpAddr>,
    headers: &HeaderMap,
    body: &Bytes,
) -> Response {
    let form = Form::parse(body);
    let username = form.get("username").trim().to_string();
    let next = form.get("next").to_string();
    let lang = super::page_lang(None, headers);
    if !form_token_ok(headers, &form) {
        let error = lang.t("login-error-expired");
        return render(
            state.config.oidc.as_ref(),
            headers,
            StatusCode::FORBIDDEN,
            &username,
            &next,
            Some(error),
        );
    }
    if username.is_empty() || form.get("password").is_empty() {
        let error = lang.t("login-error-missing");
        return render(
            state.config.oidc.as_ref(),
            headers,
            StatusCode::BAD_REQUEST,
            &username,
            &next,
            Some(error),
        );
    }
    let credentials = Credentials {
        username: &username,
        password: form.get("password"),
        client,
    };
    let user = match check_credentials(&state.db, &state.counters, &state.config, credentials).await
    {
        Ok(user) => user,
        Err(AppError::RateLimited { retry_after }) => {
            let minutes = retry_after.div_ceil(60);
            let error = lang.tn("login-error-too-many", "minutes", minutes);
            let status = StatusCode::TOO_MANY_REQUESTS;
            let mut page = render(
                state.config.oidc.as_ref(),
                headers,
                status,
                &username,
                &next,
                Some(error),
            );
            page.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            return page;
        }
        Err(err) => {
            let status = err.status();
            return render(
                state.config.oidc.as_ref(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_site_are_followed() {
        for good in [
            "/tickets/",
            "/tickets/?status=open&page=2",
            "/tickets/7/#c3",
            "/a%2Fb",
        ] {
            assert_eq!(safe_next(good), good);
        }
        for bad in [
            "",
            "tickets/",
            "https://evil.example/",
            "//evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/ /evil.example",
            "/%09/evil.example",
            "/%0a/evil.example",
            "/a%20b",
            "/%2F/evil.example",
            "/%5Cevil.example",
            "/\u{0}",
            "/\u{a0}/evil.example",
            "/\u{2028}/evil.example",
            "/caf\u{e9}",
            "javascript:alert(1)",
            "/%E2%80%A8/evil.example",
        ] {
            assert_eq!(safe_next(bad), HOME, "{bad:?}");
        }
    }
}
