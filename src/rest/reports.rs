//! Reports, additive to the contract: `/api/reports/tickets/` as JSON or CSV, a thin handler over
//! `service::reports`; requesters get 403.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::csv::{cell, response};
use crate::rest::fields::date;
use crate::service::reports::{
    self, Attainment, Dimension, Durations, Line, Metric, ReportRequest,
};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest).route("/api/reports/tickets/", get(ticket_report))
}

/// Durations in minutes.
#[derive(Serialize, ToSchema)]
pub struct DurationStats {
    /// How many.
    count: u64,
    /// The median (null without any).
    median_minutes: Option<f64>,
    /// The 90th percentile (null without any).
    p90_minutes: Option<f64>,
}

impl From<&Durations> for DurationStats {
    fn from(d: &Durations) -> Self {
        DurationStats {
            count: d.count,
            median_minutes: d.median,
            p90_minutes: d.p90,
        }
    }
}

/// How often an SLA target was met.
#[derive(Serialize, ToSchema)]
pub struct SlaAttainment {
    /// Met.
    met: u64,
    /// Missed.
    missed: u64,
    /// Met among met and missed, 0 to 1 (null when none was decided).
    rate: Option<f64>,
}

impl From<Attainment> for SlaAttainment {
    fn from(a: Attainment) -> Self {
        SlaAttainment {
            met: a.met,
            missed: a.missed,
            rate: a.rate(),
        }
    }
}

/// One line of a ticket report.
#[derive(Serialize, ToSchema)]
pub struct ReportLine {
    /// What the line is: a value (null for none) per dimension of `group_by`; empty for the total.
    keys: BTreeMap<String, Option<String>>,
    /// Tickets created.
    created: u64,
    /// Tickets resolved (or closed; merged duplicates are not).
    resolved: u64,
    /// Moves of the created tickets back out of a done status.
    reopened: u64,
    /// From creation to the first public comment of the team, of the created tickets.
    first_response: DurationStats,
    /// The same in business minutes, of the created tickets an SLA policy governed when they were answered
    /// (under its calendar).
    first_response_business: DurationStats,
    /// From creation to resolution, of the resolved tickets.
    resolution: DurationStats,
    /// First-response targets of the created tickets.
    first_response_sla: SlaAttainment,
    /// Resolution targets of the resolved tickets.
    resolution_sla: SlaAttainment,
    /// Time in a to-do status (new, open), of the resolved tickets whose moves were kept.
    time_waiting: DurationStats,
    /// Time in an in-progress status (in progress, on hold, blocked), of the resolved tickets whose moves
    /// were kept.
    time_in_progress: DurationStats,
}

impl From<&Line> for ReportLine {
    fn from(l: &Line) -> Self {
        ReportLine {
            keys: l
                .keys
                .iter()
                .map(|k| (k.dimension.as_str().to_string(), k.value.clone()))
                .collect(),
            created: l.created,
            resolved: l.resolved,
            reopened: l.reopened,
            first_response: (&l.first_response).into(),
            first_response_business: (&l.first_response_business).into(),
            resolution: (&l.resolution).into(),
            first_response_sla: l.first_response_sla.into(),
            resolution_sla: l.resolution_sla.into(),
            time_waiting: (&l.waiting).into(),
            time_in_progress: (&l.in_progress).into(),
        }
    }
}

/// A ticket report.
#[derive(Serialize, ToSchema)]
pub struct TicketReport {
    /// First day covered (UTC).
    from: String,
    /// Last day covered (UTC).
    to: String,
    /// The dimensions the lines are split by.
    group_by: Vec<String>,
    /// One line per combination of keys that has tickets, periods in time order.
    lines: Vec<ReportLine>,
    /// Over every ticket.
    total: ReportLine,
}

/// `GET /api/reports/tickets/`: the team's ticket report, as JSON or (`format=csv`) CSV.
#[utoipa::path(get, path = "/api/reports/tickets/", tag = "reports", operation_id = "ticketReport",
    summary = "Tickets created and resolved, reopened, first-response and resolution times (median, 90th percentile) and SLA attainment, in all and split (the team); `format=csv` answers CSV.",
    params(
        ("from" = Option<String>, Query, description = "First day (YYYY-MM-DD, UTC), included; 30 days before `to` when absent."),
        ("to" = Option<String>, Query, description = "Last day (YYYY-MM-DD, UTC), included; today when absent."),
        ("group_by" = Option<String>, Query, description = "Comma-separated: `group`, `agent`, `priority`, `project`, and at most one of `day`, `week`, `month`."),
        ("project" = Option<i32>, Query, description = "Only tickets of this project."),
        ("group" = Option<i32>, Query, description = "Only tickets assigned to this group."),
        ("metrics" = Option<String>, Query, description = "Comma-separated figures the report is about: `created`, `resolved`, `reopened`, `first_response`, `resolution`, `first_response_sla`, `resolution_sla`, `time_waiting`, `time_in_progress`, `first_response_business`. A line is listed when it has one of them; CSV has only their columns."),
        ("format" = Option<String>, Query, description = "`json` (default) or `csv`: a row per line, then the total."),
    ),
    responses((status = 200, description = "The report", content((TicketReport = "application/json"), (String = "text/csv"))), (status = 400, description = "A bad parameter", body = crate::error::bodies::Error), (status = 403, description = "Not the team", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn ticket_report(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<Response> {
    let mut to = None;
    let mut from = None;
    let mut request = ReportRequest::recent(chrono::Utc::now().date_naive());
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
            "from" => from = Some(date("from", value)?),
            "to" => to = Some(date("to", value)?),
            "project" => request.project_id = Some(id("project")?),
            "group" => request.group_id = Some(id("group")?),
            "group_by" => {
                request.group_by = value
                    .split(',')
                    .filter(|v| !v.trim().is_empty())
                    .map(|v| Dimension::parse("group_by", v))
                    .collect::<AppResult<_>>()?;
            }
            "metrics" => {
                request.metrics = value
                    .split(',')
                    .filter(|v| !v.trim().is_empty())
                    .map(|v| Metric::parse("metrics", v))
                    .collect::<AppResult<_>>()?;
            }
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
    if let Some(to) = to {
        request.to = to;
        request.from = ReportRequest::recent(to).from;
    }
    if let Some(from) = from {
        request.from = from;
    }
    let report = reports::tickets(&state.db.conn, &actor, &request).await?;
    if csv {
        return Ok(response(csv_of(&request, &report)));
    }
    Ok(axum::Json(TicketReport {
        from: report.from.to_string(),
        to: report.to.to_string(),
        group_by: request
            .group_by
            .iter()
            .map(|d| d.as_str().to_string())
            .collect(),
        lines: report.lines.iter().map(Into::into).collect(),
        total: (&report.total).into(),
    })
    .into_response())
}

/// A figure's CSV columns, each with its cell for `line`.
fn columns(metric: Metric, line: &Line) -> Vec<(&'static str, String)> {
    let number = |n: Option<f64>| n.map(|n| format!("{n:.1}")).unwrap_or_default();
    let times = |prefix: [&'static str; 3], d: &Durations| {
        vec![
            (prefix[0], d.count.to_string()),
            (prefix[1], number(d.median)),
            (prefix[2], number(d.p90)),
        ]
    };
    match metric {
        Metric::Created => vec![("created", line.created.to_string())],
        Metric::Resolved => vec![("resolved", line.resolved.to_string())],
        Metric::Reopened => vec![("reopened", line.reopened.to_string())],
        Metric::FirstResponse => times(
            [
                "first_response_count",
                "first_response_median_minutes",
                "first_response_p90_minutes",
            ],
            &line.first_response,
        ),
        Metric::FirstResponseBusiness => times(
            [
                "first_response_business_count",
                "first_response_business_median_minutes",
                "first_response_business_p90_minutes",
            ],
            &line.first_response_business,
        ),
        Metric::Resolution => times(
            [
                "resolution_count",
                "resolution_median_minutes",
                "resolution_p90_minutes",
            ],
            &line.resolution,
        ),
        Metric::FirstResponseSla => vec![
            (
                "first_response_sla_met",
                line.first_response_sla.met.to_string(),
            ),
            (
                "first_response_sla_missed",
                line.first_response_sla.missed.to_string(),
            ),
        ],
        Metric::ResolutionSla => vec![
            ("resolution_sla_met", line.resolution_sla.met.to_string()),
            (
                "resolution_sla_missed",
                line.resolution_sla.missed.to_string(),
            ),
        ],
        Metric::TimeWaiting => vec![
            ("time_waiting_median_minutes", number(line.waiting.median)),
            ("time_waiting_p90_minutes", number(line.waiting.p90)),
        ],
        Metric::TimeInProgress => vec![
            (
                "time_in_progress_median_minutes",
                number(line.in_progress.median),
            ),
            ("time_in_progress_p90_minutes", number(line.in_progress.p90)),
        ],
    }
}

/// The report as CSV: a row per line and a last row for the total, its keys empty and `line` = `total`; the
/// columns of the figures `request` names (all without any), in the order of [`Metric::ALL`].
fn csv_of(request: &ReportRequest, report: &reports::Report) -> String {
    let group_by = &request.group_by;
    let metrics: Vec<Metric> = Metric::ALL
        .iter()
        .map(|(m, _)| *m)
        .filter(|m| request.metrics.is_empty() || request.metrics.contains(m))
        .collect();
    let mut out = String::from("line");
    for d in group_by {
        out.push(',');
        out.push_str(d.as_str());
    }
    for m in &metrics {
        for (name, _) in columns(*m, &Line::default()) {
            out.push(',');
            out.push_str(name);
        }
    }
    out.push_str("\r\n");
    let mut row = |kind: &str, line: &Line| {
        out.push_str(kind);
        for i in 0..group_by.len() {
            out.push(',');
            let value = line.keys.get(i).and_then(|k| k.value.as_deref());
            out.push_str(&cell(value.unwrap_or("")));
        }
        for m in &metrics {
            for (_, value) in columns(*m, line) {
                out.push(',');
                out.push_str(&value);
            }
        }
        out.push_str("\r\n");
    };
    for line in &report.lines {
        row("line", line);
    }
    row("total", &report.total);
    out
}
