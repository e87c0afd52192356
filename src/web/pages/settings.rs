//! `/settings/`, for every signed-in user: their profile, a password change (with the current one), and
//! their API tokens (created with the secret shown once, listed with their last use, revoked). Forms work
//! without JavaScript; every action goes through the same service calls as GraphQL and REST.
use super::{html, Lang, Layout, PageResult, PageUser};
use crate::error::AppError;
use crate::service::users::{self, passwords};
use crate::service::{tokens, Take};
use crate::state::AppState;
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

/// A token as the page lists it.
pub struct TokenRow {
    id: i32,
    name: String,
    created: String,
    last_used: String,
    expires: String,
    state: &'static str,
    active: bool,
}

/// Messages next to the password fields.
#[derive(Default)]
pub struct PasswordErrors {
    current: String,
    new: String,
}

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    layout: Layout,
    flash: Option<String>,
    username: String,
    full_name: String,
    email: String,
    groups: String,
    tokens: Vec<TokenRow>,
    new_token: Option<String>,
    token_name: String,
    token_days: String,
    token_error: String,
    password_errors: PasswordErrors,
    /// Every time zone (IANA names), the user's choice selected.
    zones: Vec<(&'static str, bool)>,
    /// The user chose none: dates follow the browser's.
    zone_follows_browser: bool,
    /// The zone the pages show dates in now.
    zone_now: &'static str,
    zone_error: String,
    /// Every language (code, name, chosen), and whether the user chose none (the browser's).
    languages: Vec<(&'static str, &'static str, bool)>,
    language_follows_browser: bool,
    language_error: String,
}

/// What the page needs besides the messages of a failed form.
async fn page_of(state: &AppState, user: &PageUser) -> PageResult<SettingsPage> {
    let db = &state.db.conn;
    let me = &user.actor.user;
    let mut groups = users::groups_of(db, &user.actor, &[me.id], Take::All).await?;
    let groups = groups
        .remove(&me.id)
        .unwrap_or_default()
        .into_iter()
        .map(|g| g.name)
        .collect::<Vec<_>>()
        .join(", ");
    let now = chrono::Utc::now();
    let tokens = tokens::list_for(db, &user.actor, Take::All)
        .await?
        .into_iter()
        .map(|t| {
            let (state, active) = if t.revoked_at.is_some() {
                ("revoked", false)
            } else if t.expires_at.is_some_and(|e| e <= now) {
                ("expired", false)
            } else {
                ("active", true)
            };
            TokenRow {
                id: t.id,
                name: t.name,
                created: user.when(Some(t.created_at)),
                last_used: user.when(t.last_used_at),
                expires: t
                    .expires_at
                    .map(|e| user.when(Some(e)))
                    .unwrap_or_else(|| user.lang.t("date-never")),
                state,
                active,
            }
        })
        .collect();
    Ok(SettingsPage {
        layout: Layout::for_user(user),
        flash: None,
        username: me.username.clone(),
        full_name: me.full_name.clone(),
        email: me.email.clone().unwrap_or_default(),
        groups,
        tokens,
        new_token: None,
        token_name: String::new(),
        token_days: String::new(),
        token_error: String::new(),
        password_errors: PasswordErrors::default(),
        zones: chrono_tz::TZ_VARIANTS
            .iter()
            .map(|z| (z.name(), me.time_zone.as_deref() == Some(z.name())))
            .collect(),
        zone_follows_browser: me.time_zone.is_none(),
        zone_now: user.zone.name(),
        zone_error: String::new(),
        languages: Lang::ALL
            .into_iter()
            .map(|l| (l.code(), l.name(), me.language.as_deref() == Some(l.code())))
            .collect(),
        language_follows_browser: me.language.is_none(),
        language_error: String::new(),
    })
}

/// What a redirect back to the page says.
#[derive(Deserialize)]
pub struct Done {
    done: Option<String>,
}

/// `GET /settings/`.
#[utoipa::path(get, path = "/settings/", tag = "pages", operation_id = "pageSettings",
    summary = "The signed-in user's settings: profile, password, API tokens.",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    let mut page = page_of(&state, &user).await?;
    page.flash = match done.done.as_deref() {
        Some("password") => Some(user.lang.t("settings-password-changed")),
        Some("revoked") => Some(user.lang.t("settings-token-revoked")),
        Some("zone") => Some(
            user.lang
                .t1("settings-zone-changed", "zone", user.zone.name()),
        ),
        Some("language") => Some(user.lang.t("settings-language-changed")),
        _ => None,
    };
    Ok(html(StatusCode::OK, &page))
}

/// `POST /settings/password/` (form: `current_password`, `new_password`).
#[utoipa::path(post, path = "/settings/password/", tag = "pages", operation_id = "pageChangePassword",
    summary = "Change one's password; the form again with the messages on a mistake.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Changed: back to the settings"),
        (status = 400, description = "The page with the messages next to the fields", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn change_password(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let changed = passwords::change_mine(
        state.people_deps(),
        &user.actor,
        form.get("current_password"),
        form.get("new_password").to_string(),
        Some(&user.session),
    )
    .await;
    match changed {
        Ok(_) => Ok(Redirect::to("/settings/?done=password").into_response()),
        Err(AppError::Validation { fields, message }) => {
            let mut page = page_of(&state, &user).await?;
            let first = |key: &str| {
                fields
                    .get(key)
                    .and_then(|m| m.first().cloned())
                    .unwrap_or_default()
            };
            page.password_errors = PasswordErrors {
                current: first("current_password"),
                new: first("password"),
            };
            if page.password_errors.current.is_empty() && page.password_errors.new.is_empty() {
                page.password_errors.new = message;
            }
            Ok(html(StatusCode::BAD_REQUEST, &page))
        }
        Err(other) => Err(other.into()),
    }
}

/// `POST /settings/time-zone/` (form: `time_zone`, an IANA name or empty for the browser's).
#[utoipa::path(post, path = "/settings/time-zone/", tag = "pages", operation_id = "pageSetTimeZone",
    summary = "Choose the time zone the pages show dates in (empty: the browser's).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Saved: back to the settings"),
        (status = 400, description = "The page with the message next to the field", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn set_time_zone(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let zone = match users::accounts::parse_time_zone(form.get("time_zone")) {
        Ok(zone) => zone,
        Err(err) => {
            let mut page = page_of(&state, &user).await?;
            page.zone_error = super::thread::field_message(&err, "time_zone");
            return Ok(html(StatusCode::BAD_REQUEST, &page));
        }
    };
    users::accounts::set_time_zone(state.people_deps(), &user.actor, zone).await?;
    Ok(Redirect::to("/settings/?done=zone").into_response())
}

/// `POST /settings/language/` (form: `language`, a language's code or empty for the browser's).
#[utoipa::path(post, path = "/settings/language/", tag = "pages", operation_id = "pageSetLanguage",
    summary = "Choose the language the pages are in (empty: the browser's).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Saved: back to the settings"),
        (status = 400, description = "The page with the message next to the field", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn set_language(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let code = form.get("language").trim();
    let lang = if code.is_empty() {
        None
    } else {
        match Lang::ALL.into_iter().find(|l| l.code() == code) {
            Some(lang) => Some(lang),
            None => {
                let mut page = page_of(&state, &user).await?;
                page.language_error = user.lang.t("settings-language-unknown");
                return Ok(html(StatusCode::BAD_REQUEST, &page));
            }
        }
    };
    users::accounts::set_language(state.people_deps(), &user.actor, lang.map(Lang::code)).await?;
    Ok(Redirect::to("/settings/?done=language").into_response())
}

/// `POST /settings/tokens/` (form: `name`, `expires_days`): the page again, with the new token shown once.
#[utoipa::path(post, path = "/settings/tokens/", tag = "pages", operation_id = "pageCreateToken",
    summary = "Create an API token; the page shows its secret once.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 201, description = "The page with the new token", content_type = "text/html", body = String),
        (status = 400, description = "The page with the message next to the field", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn create_token(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let days = form.get("expires_days").trim();
    let expires = if days.is_empty() {
        Ok(None)
    } else {
        days.parse::<i64>()
            .map(Some)
            .map_err(|_| AppError::field("expiresInDays", "must be a number of days"))
    };
    let issued = match expires {
        Ok(expires) => {
            tokens::create(
                &state.db,
                Some(user.actor.id()),
                user.actor.id(),
                form.get("name"),
                expires,
            )
            .await
        }
        Err(err) => Err(err),
    };
    match issued {
        Ok(issued) => {
            let mut page = page_of(&state, &user).await?;
            page.new_token = Some(issued.secret);
            Ok(html(StatusCode::CREATED, &page))
        }
        Err(AppError::Validation { message, .. }) => {
            let mut page = page_of(&state, &user).await?;
            page.token_name = form.get("name").to_string();
            page.token_days = days.to_string();
            page.token_error = message;
            Ok(html(StatusCode::BAD_REQUEST, &page))
        }
        Err(other) => Err(other.into()),
    }
}

/// `POST /settings/tokens/<id>/revoke/`: revoke one of one's tokens; it stops working at once.
#[utoipa::path(post, path = "/settings/tokens/{id}/revoke/", tag = "pages", operation_id = "pageRevokeToken",
    summary = "Revoke one of one's API tokens.",
    params(("id" = i32, Path, description = "Token id")),
    responses((status = 303, description = "Back to the settings")),
    security(("session" = [], "csrf" = [])))]
pub async fn revoke_token(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    user.form(&body)?;
    let id = crate::rest::comments::path_id(&id, "API token")?;
    tokens::revoke(&state.db, &state.auth_cache, &user.actor, id).await?;
    Ok(Redirect::to("/settings/?done=revoked").into_response())
}
