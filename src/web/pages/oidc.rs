//! Single sign-on pages: `/accounts/oidc/login/` sends the browser to the provider with a fresh `state`,
//! `nonce` and PKCE challenge (their secrets stay in the HttpOnly flow cookie), and `/accounts/oidc/callback/`
//! checks what comes back, finds or provisions the account (`service::users::sso`) and starts the same web
//! session the password form starts. Any refusal shows the sign-in page with the reason and no session.
use super::login::{render, safe_next};
use crate::auth::oidc::flow::{FLOW_COOKIE, FLOW_COOKIE_PATH, FLOW_SECONDS};
use crate::auth::oidc::{Callback, Oidc};
use crate::error::AppError;
use crate::state::AppState;
use crate::web::session::{cookie, signed_in, start_session};
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

/// Longest `next` carried through the provider; a longer one leads to the queue.
const MAX_NEXT: usize = 1024;

/// The flow cookie's `Set-Cookie` value (`Max-Age=0` clears it). `SameSite=Lax`: the provider sends the
/// browser back with a top-level GET from its own site, which a `Strict` cookie would not follow.
fn flow_cookie(value: &str, max_age: i64) -> String {
    format!(
        "{FLOW_COOKIE}={value}; Max-Age={max_age}; Path={FLOW_COOKIE_PATH}; SameSite=Lax; HttpOnly"
    )
}

/// The first value of each of `keys` in a query string.
fn query_values<const N: usize>(raw: Option<&str>, keys: [&str; N]) -> [Option<String>; N] {
    let mut found: [Option<String>; N] = std::array::from_fn(|_| None);
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if let Some(i) = keys.iter().position(|k| *k == key) {
            found[i].get_or_insert_with(|| value.into_owned());
        }
    }
    found
}

/// The 404 page of a service with no provider configured.
fn not_configured() -> Response {
    super::PageError::from(AppError::not_found("single sign-on")).into_response()
}

fn refused(
    state: &AppState,
    headers: &HeaderMap,
    status: StatusCode,
    next: &str,
    error: String,
) -> Response {
    render(
        state.config.oidc.as_ref(),
        headers,
        status,
        "",
        next,
        Some(error),
    )
}

/// `GET /accounts/oidc/login/`: to the provider's authorization page, or straight on when signed in.
#[utoipa::path(get, path = "/accounts/oidc/login/", tag = "pages", operation_id = "pageOidcLogin",
    summary = "Start single sign-on: redirect to the OpenID Connect provider (sets the HttpOnly `oidc_flow` cookie).",
    params(("next" = Option<String>, Query, description = "Local path to return to after signing in")),
    responses(
        (status = 303, description = "To the provider's authorization endpoint (or to `next` when already signed in)",
            headers(("Set-Cookie" = String, description = "`oidc_flow`: the sign-in's state, nonce and PKCE verifier, signed, for ten minutes"))),
        (status = 404, description = "No provider is configured", content_type = "text/html", body = String),
        (status = 502, description = "The provider could not be reached: the sign-in page with the reason",
            content_type = "text/html", body = String),
    ))]
pub async fn start(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(oidc) = state.oidc.clone() else {
        return not_configured();
    };
    let [next] = query_values(raw.as_deref(), ["next"]);
    // The path rides in the flow cookie, which browsers drop past 4 KiB.
    let next = safe_next(
        next.as_deref()
            .filter(|n| n.len() <= MAX_NEXT)
            .unwrap_or(""),
    );
    if let Ok(Some(_)) = signed_in(&state, &headers).await {
        return Redirect::to(&next).into_response();
    }
    match oidc.begin(&next).await {
        Ok((url, sealed)) => {
            let mut response = Redirect::to(url.as_str()).into_response();
            if let Ok(value) = HeaderValue::from_str(&flow_cookie(&sealed, FLOW_SECONDS)) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Err(err) => {
            tracing::warn!(error = %err, "single sign-on could not start");
            let message = err.message(&oidc.settings().provider_name);
            refused(&state, &headers, err.status(), &next, message)
        }
    }
}

/// `GET /accounts/oidc/callback/`: where the provider sends the browser back.
#[utoipa::path(get, path = "/accounts/oidc/callback/", tag = "pages", operation_id = "pageOidcCallback",
    summary = "Finish single sign-on: verify the provider's answer, find or provision the account, start a web session.",
    params(
        ("code" = Option<String>, Query, description = "Authorization code"),
        ("state" = Option<String>, Query, description = "Must be the `state` of this browser's `oidc_flow` cookie"),
        ("error" = Option<String>, Query, description = "The provider's error code, instead of a code"),
    ),
    responses(
        (status = 303, description = "Signed in: to the `next` the sign-in started with; sets `sessionid` (HttpOnly) and `csrftoken`, clears `oidc_flow`"),
        (status = 400, description = "No flow cookie, an expired or forged one, or a `state` not its own: the sign-in page with the reason",
            content_type = "text/html", body = String),
        (status = 401, description = "Refused at the provider, or its code or ID token failed verification (signature, issuer, audience, expiry, nonce)",
            content_type = "text/html", body = String),
        (status = 403, description = "A deactivated account, or no usable email from the provider", content_type = "text/html", body = String),
        (status = 404, description = "No provider is configured", content_type = "text/html", body = String),
        (status = 502, description = "The provider could not be reached", content_type = "text/html", body = String),
    ))]
pub async fn callback(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(oidc) = state.oidc.clone() else {
        return not_configured();
    };
    let [code, sent_state, error] = query_values(raw.as_deref(), ["code", "state", "error"]);
    let answer = Callback {
        code,
        state: sent_state,
        error,
    };
    let mut response = finish(&state, &oidc, &headers, &answer).await;
    // One attempt per cookie, whatever its outcome.
    if let Ok(value) = HeaderValue::from_str(&flow_cookie("", 0)) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

async fn finish(state: &AppState, oidc: &Oidc, headers: &HeaderMap, answer: &Callback) -> Response {
    let provider = &oidc.settings().provider_name;
    let (identity, next) = match oidc
        .finish(cookie(headers, FLOW_COOKIE).as_deref(), answer)
        .await
    {
        Ok(found) => found,
        Err(err) => {
            tracing::warn!(error = %err, "single sign-on refused");

            return refused(state, headers, err.status(), "", err.message(provider));
        }
    };
    let deps = state.people_deps();
    let user = match crate::service::users::sso::sign_in(deps, oidc.settings(), &identity).await {
        Ok(user) => user,
        Err(AppError::Internal(cause)) => {
            return super::PageError::from(AppError::Internal(cause)).into_response();
        }
        Err(err) => {
            tracing::info!(subject = %identity.subject, reason = %err, "single sign-on account refused");
            return refused(state, headers, err.status(), &next, err.public_message());
        }
    };
    match start_session(state, headers, user.id).await {
        Ok(cookies) => (cookies, Redirect::to(&safe_next(&next))).into_response(),
        Err(err) => super::PageError::from(err).into_response(),
    }
}
