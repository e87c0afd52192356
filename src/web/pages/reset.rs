//! Forgotten passwords, for signed-out visitors: ask for a link by email, then choose a new password from
//! the link. Both forms carry the pre-session CSRF token of the sign-in form (double submit).
use super::login::{form_token_ok, with_form_token};
use super::{html, Form, Layout, PageResult};
use crate::error::AppError;
use crate::http::client_ip::ClientAddress;
use crate::service::users::passwords;
use crate::state::AppState;
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

#[derive(Template)]
#[template(path = "password_reset.html")]
struct ResetPage {
    layout: Layout,
    token: Option<String>,
    message: Option<String>,
    error: Option<String>,
    show_form: bool,
}

fn page(
    headers: &HeaderMap,
    status: StatusCode,
    token: Option<String>,
    message: Option<String>,
    error: Option<String>,
    show_form: bool,
) -> Response {
    with_form_token(headers, |csrf| {
        html(
            status,
            &ResetPage {
                layout: Layout::anonymous(csrf, super::page_lang(None, headers)),
                token,
                message,
                error,
                show_form,
            },
        )
    })
}

/// What a form that expired or came from elsewhere is answered with, in the visitor's language.
fn expired(headers: &HeaderMap) -> String {
    super::page_lang(None, headers).t("reset-expired")
}

/// `GET /accounts/password-reset/`: the form that asks for a link.
#[utoipa::path(get, path = "/accounts/password-reset/", tag = "pages", operation_id = "pagePasswordReset",
    summary = "Ask for a password-reset link by email.",
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)))]
pub async fn request_page(headers: HeaderMap) -> Response {
    page(&headers, StatusCode::OK, None, None, None, true)
}

/// `POST /accounts/password-reset/` (form: `email`): the same answer whatever the address.
#[utoipa::path(post, path = "/accounts/password-reset/", tag = "pages", operation_id = "pageRequestReset",
    summary = "Email a reset link to the active account with this address, if any (same answer either way).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 200, description = "The answer", content_type = "text/html", body = String), (status = 403, description = "The form again: it expired or did not come from this site", content_type = "text/html", body = String)))]
pub async fn request_link(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = Form::parse(&body);
    if !form_token_ok(&headers, &form) {
        return page(
            &headers,
            StatusCode::FORBIDDEN,
            None,
            None,
            Some(expired(&headers)),
            true,
        );
    }
    let asked = passwords::request_reset(
        state.people_deps(),
        &state.counters,
        state.config.login_throttle.window_seconds,
        form.get("email"),
        client,
    )
    .await;
    match asked {
        Ok(()) => page(
            &headers,
            StatusCode::OK,
            None,
            Some(super::page_lang(None, &headers).t("reset-link-sent")),
            None,
            false,
        ),
        Err(err) => page(
            &headers,
            err.status(),
            None,
            None,
            Some(err.public_message()),
            true,
        ),
    }
}

/// `GET /accounts/password-reset/<token>/`: the form that sets a new password.
#[utoipa::path(get, path = "/accounts/password-reset/{token}/", tag = "pages", operation_id = "pagePasswordResetToken",
    summary = "Choose a new password from a reset link.",
    params(("token" = String, Path, description = "The link's secret")),
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)))]
pub async fn token_page(headers: HeaderMap, Path(token): Path<String>) -> Response {
    page(&headers, StatusCode::OK, Some(token), None, None, true)
}

/// `POST /accounts/password-reset/<token>/` (form: `new_password`): on to the sign-in page.
#[utoipa::path(post, path = "/accounts/password-reset/{token}/", tag = "pages", operation_id = "pageResetPassword",
    summary = "Set a new password with a reset link (once, before it expires).",
    params(("token" = String, Path, description = "The link's secret")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Set: to the sign-in page"), (status = 400, description = "The form with the reason", content_type = "text/html", body = String), (status = 403, description = "The form again: it expired or did not come from this site", content_type = "text/html", body = String)))]
pub async fn set_password(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(token): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let form = Form::parse(&body);
    if !form_token_ok(&headers, &form) {
        return Ok(page(
            &headers,
            StatusCode::FORBIDDEN,
            Some(token),
            None,
            Some(expired(&headers)),
            true,
        ));
    }
    match passwords::reset(
        state.people_deps(),
        &token,
        form.get("new_password").to_string(),
    )
    .await
    {
        Ok(_) => Ok(Redirect::to("/accounts/login/?reset=done").into_response()),
        Err(AppError::Validation { fields, message }) => {
            let link_dead = fields.contains_key("token");
            let error = fields
                .values()
                .next()
                .and_then(|m| m.first().cloned())
                .unwrap_or(message);
            Ok(page(
                &headers,
                StatusCode::BAD_REQUEST,
                Some(token),
                None,
                Some(error),
                !link_dead,
            ))
        }
        Err(other) => Err(other.into()),
    }
}
