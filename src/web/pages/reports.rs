//! `GET /reports/`: the team's reports page — the period at a glance (created, resolved, reopened, median
//! times, SLA attainment), created against resolved per week, the backlog by age, and a table split by
//! group, agent, priority or project. Charts are SVG drawn here, so they work without JavaScript, print, and
//! carry titles; every figure is in a table too. The same service as `ticketReport` and
//! `/api/reports/tickets/`.
use super::{html, Layout, PageResult, PageUser};
use crate::i18n::Lang;
use crate::service::reports::{self, Aged, Dimension, Line, ReportRequest};
use crate::state::AppState;
use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::NaiveDate;

/// Width and height of a chart's drawing area, in SVG units.
const CHART_W: f64 = 720.0;
const CHART_H: f64 = 180.0;

/// The splits the page offers (the periods are the chart's): the value, and the messages that name it in the
/// drop-down and in the table's heading ("By group").
const SPLITS: [(&str, &str, &str); 4] = [
    ("group", "reports-split-group", "reports-by-group"),
    ("agent", "reports-split-agent", "reports-by-agent"),
    ("priority", "reports-split-priority", "reports-by-priority"),
    ("project", "reports-split-project", "reports-by-project"),
];

/// A choice of split.
struct Choice {
    value: &'static str,
    label: String,
    selected: bool,
}

/// An age band of the open tickets, named in the page's language.
struct Band {
    label: String,
    count: u64,
}

/// A bar of a chart.
struct Bar {
    x: String,
    y: String,
    width: String,
    height: String,
    class: &'static str,
    title: String,
}

/// A label under or beside a chart's bars.
struct Tick {
    x: String,
    y: String,
    text: String,
}

/// A line of a table, its figures as shown.
struct Row {
    name: String,
    created: u64,
    resolved: u64,
    reopened: u64,
    first_response: String,
    first_response_p90: String,
    /// The median first response in business time (tickets an SLA policy governed).
    first_response_business: String,
    resolution: String,
    resolution_p90: String,
    first_response_sla: String,
    resolution_sla: String,
    waiting: String,
    in_progress: String,
}

#[derive(Template)]
#[template(path = "reports.html")]
struct ReportsPage {
    layout: Layout,
    from: String,
    to: String,
    /// A bad date or range, said next to the form (the page then shows the last 30 days).
    error: Option<String>,
    splits: Vec<Choice>,
    /// The split's name, as the table's first column heads it.
    split_label: String,
    /// The split table's heading ("By group").
    split_heading: String,
    total: Row,
    weeks: Vec<Row>,
    week_bars: Vec<Bar>,
    week_ticks: Vec<Tick>,
    backlog: Vec<Band>,
    backlog_bars: Vec<Bar>,
    backlog_ticks: Vec<Tick>,
    lines: Vec<Row>,
}

/// Minutes as a person reads them: "45 min", "3.5 h", "2.1 d"; a dash for none.
fn duration(lang: Lang, minutes: Option<f64>) -> String {
    match minutes {
        None => "–".to_string(),
        Some(m) if m < 60.0 => lang.t1("reports-minutes", "n", format!("{m:.0}")),
        Some(m) if m < 48.0 * 60.0 => lang.t1(
            "reports-hours",
            "n",
            lang.decimal(format!("{:.1}", m / 60.0)),
        ),
        Some(m) => lang.t1(
            "reports-days",
            "n",
            lang.decimal(format!("{:.1}", m / 1440.0)),
        ),
    }
}

fn rate(lang: Lang, a: reports::Attainment) -> String {
    match a.rate() {
        None => "–".to_string(),
        Some(r) => format!(
            "{:.0}% ({})",
            r * 100.0,
            lang.t2("reports-met-of", "met", a.met, "total", a.met + a.missed)
        ),
    }
}

fn row(lang: Lang, name: String, l: &Line) -> Row {
    Row {
        name,
        created: l.created,
        resolved: l.resolved,
        reopened: l.reopened,
        first_response: duration(lang, l.first_response.median),
        first_response_p90: duration(lang, l.first_response.p90),
        first_response_business: duration(lang, l.first_response_business.median),
        resolution: duration(lang, l.resolution.median),
        resolution_p90: duration(lang, l.resolution.p90),
        first_response_sla: rate(lang, l.first_response_sla),
        resolution_sla: rate(lang, l.resolution_sla),
        waiting: duration(lang, l.waiting.median),
        in_progress: duration(lang, l.in_progress.median),
    }
}

/// A line's name: its key, "None" without one. A priority is its stored value in English (as the page has
/// always shown it), in words in another language.
fn key(lang: Lang, l: &Line) -> String {
    match l.keys.first() {
        Some(k) => match &k.value {
            Some(v) if k.dimension == Dimension::Priority && lang != Lang::En => lang.label(v),
            Some(v) => v.clone(),
            None => lang.t("reports-none"),
        },
        None => lang.t("reports-none"),
    }
}

/// An age band's name in the page's language (the service names them in English).
fn band(lang: Lang, aged: &Aged) -> Band {
    let id = match aged.label {
        "Under a day" => Some("reports-age-under-a-day"),
        "1–3 days" => Some("reports-age-1-3-days"),
        "3–7 days" => Some("reports-age-3-7-days"),
        "1–4 weeks" => Some("reports-age-1-4-weeks"),
        "Over 4 weeks" => Some("reports-age-over-4-weeks"),
        _ => None,
    };
    Band {
        label: id.map_or_else(|| aged.label.to_string(), |id| lang.t(id)),
        count: aged.count,
    }
}

/// Created and resolved side by side per week.
fn week_chart(lang: Lang, weeks: &[Row]) -> (Vec<Bar>, Vec<Tick>) {
    let most = weeks
        .iter()
        .map(|w| w.created.max(w.resolved))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let slot = CHART_W / weeks.len().max(1) as f64;
    let width = (slot * 0.4).min(24.0);
    let mut bars = Vec::new();
    let mut ticks = Vec::new();
    for (i, w) in weeks.iter().enumerate() {
        let left = i as f64 * slot + slot / 2.0 - width;
        for (n, (count, class, what)) in [
            (w.created, "bar-created", "reports-bar-created"),
            (w.resolved, "bar-resolved", "reports-bar-resolved"),
        ]
        .into_iter()
        .enumerate()
        {
            let height = count as f64 / most * CHART_H;
            bars.push(Bar {
                x: format!("{:.1}", left + n as f64 * width),
                y: format!("{:.1}", CHART_H - height),
                width: format!("{width:.1}"),
                height: format!("{height:.1}"),
                class,
                title: format!("{}: {}", w.name, lang.tn(what, "n", count)),
            });
        }
        // Every label when they fit, every few otherwise.
        let every = (weeks.len() / 12).max(1);
        if i % every == 0 {
            ticks.push(Tick {
                x: format!("{:.1}", i as f64 * slot + slot / 2.0),
                y: format!("{:.1}", CHART_H + 16.0),
                text: w.name.clone(),
            });
        }
    }
    (bars, ticks)
}

/// One horizontal bar per age band.
fn backlog_chart(lang: Lang, backlog: &[Band]) -> (Vec<Bar>, Vec<Tick>) {
    let most = backlog.iter().map(|a| a.count).max().unwrap_or(0).max(1) as f64;
    let (label_w, row_h) = (120.0, 28.0);
    let mut bars = Vec::new();
    let mut ticks = Vec::new();
    for (i, a) in backlog.iter().enumerate() {
        let y = i as f64 * row_h;
        let width = a.count as f64 / most * (CHART_W - label_w - 60.0);
        bars.push(Bar {
            x: format!("{label_w:.1}"),
            y: format!("{:.1}", y + 4.0),
            width: format!("{width:.1}"),
            height: format!("{:.1}", row_h - 8.0),
            class: "bar-backlog",
            title: format!("{}: {}", a.label, lang.tn("reports-bar-open", "n", a.count)),
        });
        ticks.push(Tick {
            x: format!("{:.1}", label_w + width + 6.0),
            y: format!("{:.1}", y + row_h / 2.0 + 4.0),
            text: a.count.to_string(),
        });
    }
    (bars, ticks)
}

/// The reports page.
#[utoipa::path(get, path = "/reports/", tag = "pages", operation_id = "pageReports",
    summary = "The team's reports: the period at a glance, created against resolved per week, the backlog by age, a split table.",
    params(
        ("from" = Option<String>, Query, description = "First day (YYYY-MM-DD); 30 days before `to` when absent"),
        ("to" = Option<String>, Query, description = "Last day (YYYY-MM-DD); today when absent"),
        ("split" = Option<String>, Query, description = "`group` (default), `agent`, `priority` or `project`"),
    ),
    responses(
        (status = 200, description = "HTML page", content_type = "text/html", body = String),
        (status = 303, description = "Not signed in: redirect to the sign-in page"),
        (status = 403, description = "Not the team: an error page"),
    ),
    security(("session" = [])))]
pub async fn page(
    State(state): State<AppState>,
    user: PageUser,
    RawQuery(raw): RawQuery,
) -> PageResult<Response> {
    let wanted = |name: &str| {
        url::form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let lang = user.lang;
    let now = chrono::Utc::now();
    let (from_typed, to_typed) = (wanted("from"), wanted("to"));
    let date = |typed: &str| NaiveDate::parse_from_str(typed, "%Y-%m-%d");
    let mut error = None;
    let mut request = ReportRequest::recent(now.date_naive());
    if !to_typed.is_empty() {
        match date(&to_typed) {
            Ok(to) => request = ReportRequest::recent(to),
            Err(_) => error = Some(lang.t("reports-error-end")),
        }
    }
    if !from_typed.is_empty() {
        match date(&from_typed) {
            Ok(from) => request.from = from,
            Err(_) => error = Some(lang.t("reports-error-start")),
        }
    }
    if error.is_none() {
        if let Err(e) = request.check() {
            error = Some(lang.t1("reports-error-range", "reason", e));
        }
    }
    if error.is_some() {
        request = ReportRequest::recent(now.date_naive());
    }
    let split = SPLITS
        .iter()
        .find(|(v, ..)| *v == wanted("split"))
        .unwrap_or(&SPLITS[0]);
    let db = &state.db.conn;
    let by_week = ReportRequest {
        group_by: vec![Dimension::Week],
        ..request.clone()
    };
    let weekly = reports::tickets(db, &user.actor, &by_week).await?;
    let by_split = ReportRequest {
        group_by: vec![Dimension::parse("split", split.0)?],
        ..request.clone()
    };
    let split_report = reports::tickets(db, &user.actor, &by_split).await?;
    let backlog: Vec<Band> = reports::backlog(db, &user.actor, now)
        .await?
        .iter()
        .map(|a| band(lang, a))
        .collect();
    let weeks: Vec<Row> = weekly
        .lines
        .iter()
        .map(|l| row(lang, key(lang, l), l))
        .collect();
    let (week_bars, week_ticks) = week_chart(lang, &weeks);
    let (backlog_bars, backlog_ticks) = backlog_chart(lang, &backlog);
    let page = ReportsPage {
        layout: Layout::for_user(&user),
        from: if error.is_some() {
            from_typed
        } else {
            request.from.to_string()
        },
        to: if error.is_some() {
            to_typed
        } else {
            request.to.to_string()
        },
        error,
        splits: SPLITS
            .iter()
            .map(|(value, label, _)| Choice {
                value,
                label: lang.t(label),
                selected: *value == split.0,
            })
            .collect(),
        split_label: lang.t(split.1),
        split_heading: lang.t(split.2),
        total: row(lang, "All".to_string(), &weekly.total),
        weeks,
        week_bars,
        week_ticks,
        backlog,
        backlog_bars,
        backlog_ticks,
        lines: split_report
            .lines
            .iter()
            .map(|l| row(lang, key(lang, l), l))
            .collect(),
    };
    Ok(html(StatusCode::OK, &page))
}
