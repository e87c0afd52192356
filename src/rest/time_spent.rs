//! Time spent, additive to the contract: a ticket's entries at `/api/tickets/{id}/time/`, and reports at
//! `/api/time-entries/` as JSON or CSV. Thin handlers over `service::time_spent`; requesters get 403.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::csv::cell;
use crate::rest::fields::{date, id_value, Fields};
use crate::rest::json::JsonObject;
use crate::rest::shapes::timestamp;
use crate::service::time_spent::{self, GroupBy, NewEntry, ReportFilter};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use entity::time_entry;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/tickets/{id}/time/", get(ticket_time).post(log_time))
        .route("/api/tickets/{id}/time/{entry_id}/", delete(delete_time))
        .route("/api/time-entries/", get(time_report))
}

/// Time someone spent.
#[derive(Serialize, ToSchema)]
pub struct TimeEntry {
    /// Entry id.
    id: i32,
    /// Ticket id.
    ticket: i32,
    /// The comment it was logged with, or null.
    #[schema(required = true)]
    comment: Option<i32>,
    /// Who spent it (user id).
    user: i32,
    /// Their user name.
    username: String,
    /// 1 to 1440.
    minutes: i32,
    /// `YYYY-MM-DD`.
    #[schema(format = Date)]
    spent_on: String,
    /// Billable.
    billable: bool,
    /// The kind of work.
    activity: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
}

impl TimeEntry {
    fn of(e: &time_entry::Model, names: &HashMap<i32, String>) -> Self {
        TimeEntry {
            id: e.id,
            ticket: e.ticket_id,
            comment: e.comment_id,
            user: e.user_id,
            username: names.get(&e.user_id).cloned().unwrap_or_default(),
            minutes: e.minutes,
            spent_on: e.spent_on.to_string(),
            billable: e.billable,
            activity: e.activity.clone(),
            created_at: timestamp(&e.created_at),
        }
    }
}

/// A ticket's time.
#[derive(Serialize, ToSchema)]
pub struct TicketTime {
    /// Every minute logged on it.
    total_minutes: i64,
    /// The entries, newest day first.
    entries: Vec<TimeEntry>,
}

/// Time to log: `minutes` is required.
#[derive(Serialize, ToSchema)]
pub struct NewTimeEntry {
    /// 1 to 1440.
    minutes: i32,
    /// `YYYY-MM-DD`; today when absent.
    spent_on: Option<String>,
    /// Default true.
    billable: Option<bool>,
    /// At most 50 characters; `support` when absent.
    activity: Option<String>,
    /// A comment of the ticket it goes with.
    comment: Option<i32>,
}

/// A line of a report's totals.
#[derive(Serialize, ToSchema)]
pub struct TimeTotal {
    /// A user, group or project id, or a month (`2026-11`); empty for no group or project.
    key: String,
    /// Minutes.
    minutes: i64,
    /// Of which billable.
    billable_minutes: i64,
}

/// A time report.
#[derive(Serialize, ToSchema)]
pub struct TimeReport {
    /// Every matching minute.
    total_minutes: i64,
    /// Of which billable.
    billable_minutes: i64,
    /// Totals by `group_by`, largest first (empty without it).
    groups: Vec<TimeTotal>,
    /// The newest matching entries, at most 1,000.
    entries: Vec<TimeEntry>,
}

async fn entries(state: &AppState, list: &[time_entry::Model]) -> AppResult<Vec<TimeEntry>> {
    let names = time_spent::usernames(&state.db.conn, list.iter().map(|e| e.user_id)).await?;
    Ok(list.iter().map(|e| TimeEntry::of(e, &names)).collect())
}

/// `GET /api/tickets/{id}/time/`.
#[utoipa::path(get, path = "/api/tickets/{id}/time/", tag = "time", operation_id = "getTicketTime",
    summary = "The time logged on a ticket (the team, the assignee and the assigned group).",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The time", body = TicketTime), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn ticket_time(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<axum::Json<TicketTime>> {
    let id = path_id(&id, "ticket")?;
    let (list, total_minutes) = time_spent::of_ticket(&state.db.conn, &actor, id).await?;
    Ok(axum::Json(TicketTime {
        total_minutes,
        entries: entries(&state, &list).await?,
    }))
}

/// `POST /api/tickets/{id}/time/` → 201.
#[utoipa::path(post, path = "/api/tickets/{id}/time/", tag = "time", operation_id = "logTime",
    summary = "Log time on a ticket (the team, the assignee and the assigned group).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = NewTimeEntry,
    responses((status = 201, description = "Logged", body = TimeEntry), (status = 400, description = "Invalid", body = crate::error::bodies::Error), (status = 403, description = "Not the team's", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn log_time(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<TimeEntry>)> {
    let id = path_id(&id, "ticket")?;
    let fields = Fields(&body);
    let minutes = body
        .get("minutes")
        .ok_or_else(|| AppError::field("minutes", "this field is required"))?
        .as_i64()
        .ok_or_else(|| AppError::field("minutes", "must be a whole number from 1 to 1440"))?;
    let entry = NewEntry {
        minutes: time_spent::check_minutes(minutes)?,
        spent_on: fields
            .string("spent_on")?
            .map(|d| date("spent_on", &d))
            .transpose()?,
        billable: fields.boolean("billable")?,
        activity: fields.string("activity")?,
        comment_id: match body.get("comment") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(id_value("comment", v)?),
        },
    };
    let saved = time_spent::log(&state.db, &actor, id, entry).await?;
    let shown = entries(&state, std::slice::from_ref(&saved)).await?;
    let first = shown
        .into_iter()
        .next()
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("a logged entry vanished")))?;
    Ok((StatusCode::CREATED, axum::Json(first)))
}

/// `DELETE /api/tickets/{id}/time/{entry_id}/` → 204.
#[utoipa::path(delete, path = "/api/tickets/{id}/time/{entry_id}/", tag = "time", operation_id = "deleteTimeEntry",
    summary = "Remove a time entry (its author, or an administrator).",
    params(("id" = i32, Path, description = "Ticket id"), ("entry_id" = i32, Path, description = "Entry id")),
    responses((status = 204, description = "Removed"), (status = 403, description = "Not yours", body = crate::error::bodies::Error), (status = 404, description = "No such ticket or entry", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_time(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path((id, entry_id)): Path<(String, String)>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "ticket")?;
    let entry_id = path_id(&entry_id, "time entry")?;
    time_spent::delete(&state.db, &actor, id, entry_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/time-entries/`: a report, as JSON or (`format=csv`) CSV.
#[utoipa::path(get, path = "/api/time-entries/", tag = "time", operation_id = "timeReport",
    summary = "Time spent, filtered, totalled and grouped (the team); `format=csv` answers CSV.",
    params(
        ("user" = Option<i32>, Query, description = "Spent by this user."),
        ("group" = Option<i32>, Query, description = "On tickets assigned to this group."),
        ("project" = Option<i32>, Query, description = "On tickets of this project."),
        ("ticket" = Option<i32>, Query, description = "On this ticket."),
        ("from" = Option<String>, Query, description = "From this day (YYYY-MM-DD)."),
        ("to" = Option<String>, Query, description = "Up to this day (YYYY-MM-DD)."),
        ("billable" = Option<bool>, Query, description = "Only billable (true) or not billable (false) time."),
        ("group_by" = Option<String>, Query, description = "`agent`, `group`, `project` or `month`."),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`: the entries, or the groups with `group_by`."),
    ),
    responses((status = 200, description = "The report", content((TimeReport = "application/json"), (String = "text/csv"))), (status = 400, description = "A bad parameter", body = crate::error::bodies::Error), (status = 403, description = "Not the team", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn time_report(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<Response> {
    let mut filter = ReportFilter::default();
    let mut group_by = None;
    let mut csv = false;
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        let id = |key: &str| {
            value
                .parse::<i32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| AppError::field(key, "must be a positive whole number"))
        };
        match key.as_ref() {
            "user" => filter.user_id = Some(id("user")?),
            "group" => filter.group_id = Some(id("group")?),
            "project" => filter.project_id = Some(id("project")?),
            "ticket" => filter.ticket_id = Some(id("ticket")?),
            "from" => filter.from = Some(date("from", value)?),
            "to" => filter.to = Some(date("to", value)?),
            "billable" => {
                filter.billable = Some(match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(AppError::field("billable", "must be true or false")),
                })
            }
            "group_by" => group_by = Some(GroupBy::parse("group_by", value)?),
            "format" => {
                csv = match value {
                    "csv" => true,
                    "json" => false,
                    _ => return Err(AppError::field("format", "must be json or csv")),
                }
            }
            _ => {}
        }
    }
    let report = time_spent::report(&state.db.conn, &actor, &filter, group_by).await?;
    let listed = entries(&state, &report.entries).await?;
    if csv {
        return Ok(csv_response(&report, &listed, group_by.is_some()));
    }
    Ok(axum::Json(TimeReport {
        total_minutes: report.total_minutes,
        billable_minutes: report.billable_minutes,
        groups: report
            .groups
            .into_iter()
            .map(|g| TimeTotal {
                key: g.key,
                minutes: g.minutes,
                billable_minutes: g.billable_minutes,
            })
            .collect(),
        entries: listed,
    })
    .into_response())
}

fn csv_response(report: &time_spent::Report, listed: &[TimeEntry], grouped: bool) -> Response {
    let mut out = String::new();
    if grouped {
        out.push_str("key,minutes,billable_minutes\r\n");
        for g in &report.groups {
            out.push_str(&format!(
                "{},{},{}\r\n",
                cell(&g.key),
                g.minutes,
                g.billable_minutes
            ));
        }
    } else {
        out.push_str("id,ticket,spent_on,username,minutes,billable,activity\r\n");
        for e in listed {
            out.push_str(&format!(
                "{},{},{},{},{},{},{}\r\n",
                e.id,
                e.ticket,
                e.spent_on,
                cell(&e.username),
                e.minutes,
                e.billable,
                cell(&e.activity)
            ));
        }
    }
    crate::rest::csv::response(out)
}
