//! `/admin/webhooks/`: the webhook endpoints, each with its delivery log; add, change, switch off and remove
//! endpoints, and send a delivery again (administrators only), over the service calls GraphQL uses. A
//! signing secret is set here and never shown again.
use super::messages;
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::service::events::EVENTS;
use crate::service::webhooks::{self, NewWebhook, WebhookPatch};
use crate::service::Take;
use crate::state::AppState;
use crate::web::pages::{html, Form, Lang, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use entity::webhook;
use serde::Deserialize;

/// Deliveries per page of an endpoint's log.
const PAGE: u64 = 50;

/// An event's checkbox.
pub struct EventChoice {
    name: &'static str,
    checked: bool,
}

/// An endpoint as the list shows it.
pub struct Endpoint {
    id: i32,
    url: String,
    events: String,
    active: bool,
}

/// One attempt of the log.
pub struct Attempt {
    id: i64,
    when: String,
    event: String,
    attempt: i32,
    answer: String,
    ok: bool,
    duration_ms: i64,
}

#[derive(Template)]
#[template(path = "admin_webhooks.html")]
struct WebhooksPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    form_error: String,
    endpoints: Vec<Endpoint>,
    url: String,
    events: Vec<EventChoice>,
}

#[derive(Template)]
#[template(path = "admin_webhook.html")]
struct WebhookPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    form_error: String,
    id: i32,
    url: String,
    active: bool,
    events: Vec<EventChoice>,
    total: u64,
    attempts: Vec<Attempt>,
    previous: Option<String>,
    next: Option<String>,
}

/// The events an endpoint asked for (none: every event).
fn wanted(w: &webhook::Model) -> Vec<String> {
    w.events
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn choices(checked: &[String]) -> Vec<EventChoice> {
    EVENTS
        .iter()
        .map(|name| EventChoice {
            name,
            checked: checked.iter().any(|c| c == name),
        })
        .collect()
}

/// The events ticked in a posted form.
fn ticked(form: &Form) -> Vec<String> {
    form.all("event")
}

async fn list_page(state: &AppState, user: &PageUser) -> PageResult<WebhooksPage> {
    let endpoints = webhooks::list(&state.db, &user.actor, Take::All)
        .await?
        .iter()
        .map(|w| {
            let events = wanted(w);
            Endpoint {
                id: w.id,
                url: w.url.clone(),
                events: if events.is_empty() {
                    user.lang.t("admin-webhooks-every-event")
                } else {
                    events.join(", ")
                },
                active: w.active,
            }
        })
        .collect();
    Ok(WebhooksPage {
        layout: Layout::for_user(user),
        section: "webhooks",
        flash: None,
        form_error: String::new(),
        endpoints,
        url: String::new(),
        events: choices(&[]),
    })
}

/// What a redirect back to a page says, and which page of the log.
#[derive(Deserialize, Default)]
pub struct Shown {
    done: Option<String>,
    page: Option<String>,
}

fn flash(lang: Lang, done: Option<&str>) -> Option<String> {
    done.map(|d| {
        lang.t(match d {
            "created" => "admin-webhooks-created",
            "deleted" => "admin-webhooks-deleted",
            "redelivered" => "admin-webhooks-redelivered",
            _ => "admin-saved",
        })
    })
}

/// `GET /admin/webhooks/`.
#[utoipa::path(get, path = "/admin/webhooks/", tag = "pages", operation_id = "pageAdminWebhooks",
    summary = "Webhook endpoints and the form that adds one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn webhooks_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let mut page = list_page(&state, &user).await?;
    page.flash = flash(user.lang, shown.done.as_deref());
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/webhooks/` (form: `url`, `secret`, `event`…).
#[utoipa::path(post, path = "/admin/webhooks/", tag = "pages", operation_id = "pageAdminCreateWebhook",
    summary = "Add a webhook endpoint (administrators only); no event ticked means every event.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Added: to the endpoint's page"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_webhook(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    let input = NewWebhook {
        url: form.get("url").to_string(),
        secret: form.get("secret").to_string(),
        events: ticked(&form),
        active: Some(true),
    };
    let allow_private = state.config.webhook_allow_private;
    match webhooks::create(&state.db, allow_private, &user.actor, input).await {
        Ok(created) => Ok(
            Redirect::to(&format!("/admin/webhooks/{}/?done=created", created.id)).into_response(),
        ),
        Err(err) => {
            let Some((message, _)) = messages(&err) else {
                return Err(err.into());
            };
            let mut page = list_page(&state, &user).await?;
            page.form_error = message;
            page.url = form.get("url").to_string();
            page.events = choices(&ticked(&form));
            Ok(html(err.status(), &page))
        }
    }
}

async fn endpoint_page(
    state: &AppState,
    user: &PageUser,
    id: i32,
    page: u64,
) -> PageResult<WebhookPage> {
    let w = webhooks::get(&state.db, &user.actor, id).await?;
    let offset = (page - 1).saturating_mul(PAGE);
    let (rows, total) = webhooks::deliveries_page(&state.db, &user.actor, id, offset, PAGE).await?;
    let attempts = rows
        .into_iter()
        .map(|d| Attempt {
            ok: d.error.is_none(),
            answer: match (d.status_code, &d.error) {
                (Some(code), None) => code.to_string(),
                (Some(code), Some(error)) => format!("{code}: {error}"),
                (None, Some(error)) => error.clone(),
                (None, None) => user.lang.t("admin-webhook-no-answer"),
            },
            id: d.id,
            when: d.created_at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            event: d.event,
            attempt: d.attempt,
            duration_ms: d.duration_ms,
        })
        .collect();
    let link = |p: u64| format!("/admin/webhooks/{id}/?page={p}");
    Ok(WebhookPage {
        layout: Layout::for_user(user),
        section: "webhooks",
        flash: None,
        form_error: String::new(),
        id,
        active: w.active,
        events: choices(&wanted(&w)),
        url: w.url,
        total,
        attempts,
        previous: (page > 1).then(|| link(page - 1)),
        next: (offset.saturating_add(PAGE) < total).then(|| link(page + 1)),
    })
}

/// `GET /admin/webhooks/<id>/`.
#[utoipa::path(get, path = "/admin/webhooks/{id}/", tag = "pages", operation_id = "pageAdminWebhook",
    summary = "One webhook endpoint: its settings and its delivery log, newest first (administrators only).",
    params(("id" = i32, Path, description = "Endpoint id"), ("page" = Option<String>, Query, description = "Page of the log, default 1")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn webhook_page(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let id = path_id(&id, "webhook")?;
    let page = shown
        .page
        .as_deref()
        .and_then(|p| p.trim().parse::<u64>().ok())
        .unwrap_or(1)
        .max(1);
    let mut found = endpoint_page(&state, &user, id, page).await?;
    found.flash = flash(user.lang, shown.done.as_deref());
    Ok(html(StatusCode::OK, &found))
}

/// `POST /admin/webhooks/<id>/` (form: `url`, `secret` (blank: unchanged), `event`…, `active`).
#[utoipa::path(post, path = "/admin/webhooks/{id}/", tag = "pages", operation_id = "pageAdminUpdateWebhook",
    summary = "Change a webhook endpoint (administrators only); a blank secret keeps the current one.",
    params(("id" = i32, Path, description = "Endpoint id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Saved: back to the endpoint"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn update_webhook(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "webhook")?;
    let form = user.form(&body)?;
    let secret = form.get("secret");
    let patch = WebhookPatch {
        url: Some(form.get("url").to_string()),
        secret: (!secret.is_empty()).then(|| secret.to_string()),
        events: Some(ticked(&form)),
        active: Some(form.get("active") == "true"),
    };
    let allow_private = state.config.webhook_allow_private;
    match webhooks::update(&state.db, allow_private, &user.actor, id, patch).await {
        Ok(_) => Ok(Redirect::to(&format!("/admin/webhooks/{id}/?done=saved")).into_response()),
        Err(err) => {
            let Some((message, _)) = messages(&err) else {
                return Err(err.into());
            };
            let mut page = endpoint_page(&state, &user, id, 1).await?;
            page.form_error = message;
            page.url = form.get("url").to_string();
            page.active = form.get("active") == "true";
            page.events = choices(&ticked(&form));
            Ok(html(err.status(), &page))
        }
    }
}

/// `POST /admin/webhooks/<id>/delete/`.
#[utoipa::path(post, path = "/admin/webhooks/{id}/delete/", tag = "pages", operation_id = "pageAdminDeleteWebhook",
    summary = "Remove a webhook endpoint with its pending deliveries and its log (administrators only).",
    params(("id" = i32, Path, description = "Endpoint id")),
    responses((status = 303, description = "Removed: to the endpoints")),
    security(("session" = [], "csrf" = [])))]
pub async fn delete_webhook(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "webhook")?;
    user.form(&body)?;
    webhooks::delete(&state.db, &user.actor, id).await?;
    Ok(Redirect::to("/admin/webhooks/?done=deleted").into_response())
}

/// `POST /admin/webhooks/deliveries/<delivery_id>/redeliver/`.
#[utoipa::path(post, path = "/admin/webhooks/deliveries/{delivery_id}/redeliver/", tag = "pages", operation_id = "pageAdminRedeliver",
    summary = "Send a delivery again, with its event id and body (administrators only).",
    params(("delivery_id" = i64, Path, description = "Delivery id")),
    responses((status = 303, description = "Queued: back to the endpoint")),
    security(("session" = [], "csrf" = [])))]
pub async fn redeliver(
    State(state): State<AppState>,
    user: PageUser,
    Path(delivery_id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let delivery_id = delivery_id
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| AppError::not_found("webhook delivery"))?;
    user.form(&body)?;
    let queued = webhooks::redeliver(&state.db, &user.actor, delivery_id).await?;
    let back = match queued.webhook_id {
        Some(id) => format!("/admin/webhooks/{id}/?done=redelivered"),
        None => "/admin/webhooks/?done=redelivered".to_string(),
    };
    Ok(Redirect::to(&back).into_response())
}
