//! `/admin/time-rules/`: the time rules; add, change, switch off, count what they would act on and remove them
//! (administrators only), with the triggers' editor (`triggers.rs`) and a wait, over the service calls GraphQL
//! and REST use.
use super::triggers::{editor, refused, rule_of, settings, Kind, Saved};
use crate::rest::comments::path_id;
use crate::service::automation::time_rules::{self, NewTimeRule, TimeRulePatch};
use crate::service::projects;
use crate::state::AppState;
use crate::web::pages::{html, Form, Lang, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use entity::time_rule;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// A time rule as the list shows it.
pub struct Listed {
    id: i32,
    name: String,
    wait: String,
    project: String,
    active: bool,
    conditions: usize,
    actions: usize,
}

#[derive(Template)]
#[template(path = "admin_time_rules.html")]
struct TimeRulesPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    listed: Vec<Listed>,
}

fn saved(t: &time_rule::Model) -> Saved {
    Saved {
        id: t.id,
        name: t.name.clone(),
        project_id: t.project_id,
        active: t.active,
        conditions: t.conditions.clone(),
        actions: t.actions.clone(),
        wait: t.wait.clone(),
    }
}

/// "72 business hours after its status last changed", "2 hours before the first response is due".
fn wait_text(lang: Lang, wait: &Value) -> String {
    let hours = wait["hours"].as_i64().unwrap_or_default();
    let span = if wait["business_hours"] == true {
        lang.tn("admin-wait-business-hours", "n", hours)
    } else {
        lang.tn("admin-wait-hours", "n", hours)
    };
    if let Some(target) = wait["before"].as_str() {
        let target = lang.t(match target {
            "resolution_due" => "admin-wait-before-resolution",
            _ => "admin-wait-before-first-response",
        });
        return lang.t2("admin-wait-before", "span", span, "target", target);
    }
    let since = lang.t(match wait["since"].as_str().unwrap_or_default() {
        "created" => "admin-wait-since-created",
        "updated" => "admin-wait-since-updated",
        "resolved" => "admin-wait-since-resolved",
        _ => "admin-wait-since-changed",
    });
    lang.t2("admin-wait", "span", span, "since", since)
}

/// The posted wait: its hours as a number when they read as one, so the service names what is wrong. The
/// form offers the SLA targets among the moments; a wait counts back from those (`before`).
fn wait_of(form: &Form) -> Value {
    let hours = form.get("hours").trim();
    let moment = form.get("since");
    let key = match moment {
        "first_response_due" | "resolution_due" => "before",
        _ => "since",
    };
    json!({
        key: moment,
        "hours": hours.parse::<i64>().map_or_else(|_| json!(hours), |h| json!(h)),
        "business_hours": form.get("business_hours") == "true",
    })
}

/// What a redirect back to a page says.
#[derive(Deserialize, Default)]
pub struct Shown {
    done: Option<String>,
}

fn flash(lang: Lang, done: Option<&str>) -> Option<String> {
    done.map(|d| {
        lang.t(match d {
            "created" => "admin-time-rules-created",
            "deleted" => "admin-time-rules-deleted",
            _ => "admin-time-rules-saved",
        })
    })
}

/// `GET /admin/time-rules/`.
#[utoipa::path(get, path = "/admin/time-rules/", tag = "pages", operation_id = "pageAdminTimeRules",
    summary = "Automation time rules (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn time_rules_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let found = time_rules::list(&state.db, &user.actor).await?;
    let projects: HashMap<i32, String> = projects::list(&state.db.conn)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    let listed = found
        .into_iter()
        .map(|t| Listed {
            id: t.id,
            wait: wait_text(user.lang, &t.wait),
            project: t
                .project_id
                .map(|p| projects.get(&p).cloned().unwrap_or_else(|| p.to_string()))
                .unwrap_or_else(|| user.lang.t("admin-time-rules-every-ticket")),
            active: t.active,
            conditions: ["all", "any"]
                .iter()
                .map(|l| t.conditions[l].as_array().map_or(0, Vec::len))
                .sum(),
            actions: t.actions.as_array().map_or(0, Vec::len),
            name: t.name,
        })
        .collect();
    let page = TimeRulesPage {
        layout: Layout::for_user(&user),
        section: "time-rules",
        flash: flash(user.lang, shown.done.as_deref()),
        listed,
    };
    Ok(html(StatusCode::OK, &page))
}

/// `GET /admin/time-rules/new/`.
#[utoipa::path(get, path = "/admin/time-rules/new/", tag = "pages", operation_id = "pageAdminNewTimeRule",
    summary = "The editor for a new time rule (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn new_time_rule_page(
    State(state): State<AppState>,
    user: PageUser,
) -> PageResult<Response> {
    crate::service::users::Admin::of(&user.actor)?;
    let page = editor(&state, &user, Kind::TimeRule, None, &json!({}), &json!([])).await?;
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/time-rules/` (form: `name`, `project`, `active`, `hours`, `since`, `business_hours`, rows).
#[utoipa::path(post, path = "/admin/time-rules/", tag = "pages", operation_id = "pageAdminCreateTimeRule",
    summary = "Add a time rule from the editor (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Added: to the time rule's page"), (status = 400, description = "The editor with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_time_rule(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    crate::service::users::Admin::of(&user.actor)?;
    let made = async {
        let (name, project_id, active) = settings(&state, &user.actor, &form).await?;
        let (conditions, actions) = rule_of(&state, &user.actor, &form).await?;
        let input = NewTimeRule {
            name,
            project_id,
            active: Some(active),
            wait: wait_of(&form),
            conditions,
            actions,
        };
        time_rules::create(&state.db, &user.actor, input).await
    }
    .await;
    match made {
        Ok(t) => {
            Ok(Redirect::to(&format!("/admin/time-rules/{}/?done=created", t.id)).into_response())
        }
        Err(err) => refused(&state, &user, Kind::TimeRule, None, &form, err).await,
    }
}

/// `GET /admin/time-rules/<id>/`.
#[utoipa::path(get, path = "/admin/time-rules/{id}/", tag = "pages", operation_id = "pageAdminTimeRule",
    summary = "One time rule in the editor (administrators only).",
    params(("id" = i32, Path, description = "Time rule id")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn time_rule_page(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let id = path_id(&id, "time rule")?;
    let t = saved(&time_rules::get(&state.db, &user.actor, id).await?);
    let mut page = editor(
        &state,
        &user,
        Kind::TimeRule,
        Some(&t),
        &t.conditions,
        &t.actions,
    )
    .await?;
    page.flash = flash(user.lang, shown.done.as_deref());
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/time-rules/<id>/` (the editor's form).
#[utoipa::path(post, path = "/admin/time-rules/{id}/", tag = "pages", operation_id = "pageAdminUpdateTimeRule",
    summary = "Change a time rule from the editor (administrators only).",
    params(("id" = i32, Path, description = "Time rule id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Saved: back to the time rule"), (status = 400, description = "The editor with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn update_time_rule(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "time rule")?;
    let form = user.form(&body)?;
    let current = saved(&time_rules::get(&state.db, &user.actor, id).await?);
    let changed = async {
        let (name, project_id, active) = settings(&state, &user.actor, &form).await?;
        let (conditions, actions) = rule_of(&state, &user.actor, &form).await?;
        let patch = TimeRulePatch {
            name: Some(name),
            project_id: Some(project_id),
            active: Some(active),
            wait: Some(wait_of(&form)),
            conditions: Some(conditions),
            actions: Some(actions),
        };
        time_rules::update(&state.db, &user.actor, id, patch).await
    }
    .await;
    match changed {
        Ok(_) => Ok(Redirect::to(&format!("/admin/time-rules/{id}/?done=saved")).into_response()),
        Err(err) => refused(&state, &user, Kind::TimeRule, Some(&current), &form, err).await,
    }
}

/// `POST /admin/time-rules/<id>/dry-run/`: the rule's page, saying how many tickets it would act on now.
#[utoipa::path(post, path = "/admin/time-rules/{id}/dry-run/", tag = "pages", operation_id = "pageAdminDryRunTimeRule",
    summary = "Count the open tickets a time rule would act on now, changing nothing (administrators only).",
    params(("id" = i32, Path, description = "Time rule id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 200, description = "The rule's page with the count", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn dry_run_time_rule(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "time rule")?;
    user.form(&body)?;
    let deps = state.write_deps(crate::domain::Channel::Web);
    let found = time_rules::dry_run(deps, &user.actor, id).await?;
    let t = saved(&time_rules::get(&state.db, &user.actor, id).await?);
    let mut page = editor(
        &state,
        &user,
        Kind::TimeRule,
        Some(&t),
        &t.conditions,
        &t.actions,
    )
    .await?;
    page.flash = Some(if found.capped {
        user.lang.t2(
            "admin-time-rules-dry-run-capped",
            "n",
            found.matching,
            "examined",
            found.examined,
        )
    } else {
        user.lang
            .tn("admin-time-rules-dry-run", "n", found.matching)
    });
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/time-rules/<id>/delete/`.
#[utoipa::path(post, path = "/admin/time-rules/{id}/delete/", tag = "pages", operation_id = "pageAdminDeleteTimeRule",
    summary = "Remove a time rule (administrators only); what it did stays in the tickets' history.",
    params(("id" = i32, Path, description = "Time rule id")),
    responses((status = 303, description = "Removed: to the time rules")),
    security(("session" = [], "csrf" = [])))]
pub async fn delete_time_rule(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "time rule")?;
    user.form(&body)?;
    time_rules::delete(&state.db, &user.actor, id).await?;
    Ok(Redirect::to("/admin/time-rules/?done=deleted").into_response())
}
