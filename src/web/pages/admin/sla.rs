//! `/admin/sla/`: the SLA policies, each changed or removed in place, and a form for a new one (administrators
//! only), with the business-hours calendar its targets count in: opening hours per weekday, the time zone and
//! the holidays. Over the service calls GraphQL uses, so a change re-clocks the open tickets it may move.
use super::Done;
use super::{chosen_project, project_options, typed, Opt};
use crate::domain::{Priority, StatusCategory, TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use crate::service::sla::calendar::WEEK;
use crate::service::sla::policies::{
    self, stored_calendar, weekday_name, CalendarInput, DayHours, NewPolicy, PolicyPatch,
};
use crate::service::users::{self, Admin};
use crate::service::Take;
use crate::state::AppState;
use crate::web::pages::{Form, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::NaiveDate;
use entity::sla_policy;

/// A weekday's row of the calendar: its opening and closing time, both blank when it is closed.
struct DayRow {
    /// `mon` … `sun`: the fields are `open_<day>` and `close_<day>`.
    day: &'static str,
    label: String,
    open: String,
    close: String,
}

impl DayRow {
    /// The name of its opening time's field.
    fn open_field(&self) -> String {
        format!("open_{}", self.day)
    }

    /// The name of its closing time's field.
    fn close_field(&self) -> String {
        format!("close_{}", self.day)
    }
}

/// A status that may stop the clock, ticked when it does.
struct PauseBox {
    value: &'static str,
    label: String,
    checked: bool,
}

/// A policy's form: an existing policy's (`id`), or the new one's.
struct PolicyForm {
    id: Option<i32>,
    /// What the form's element ids carry: the policy's id, or `new`.
    key: String,
    name: String,
    priorities: Vec<Opt>,
    projects: Vec<Opt>,
    groups: Vec<Opt>,
    first_response: String,
    resolution: String,
    time_zone: String,
    days: Vec<DayRow>,
    /// One date per line.
    holidays: String,
    pauses: Vec<PauseBox>,
}

#[derive(Template)]
#[template(path = "admin_sla.html")]
struct SlaPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    /// The policies' forms, oldest first, then the new one's.
    forms: Vec<PolicyForm>,
}

/// The statuses a clock may pause in: those not done.
fn pausable() -> impl Iterator<Item = TicketStatus> {
    TicketStatus::ALL
        .iter()
        .copied()
        .filter(|s| s.category() != StatusCategory::Done)
}

async fn sla_of_desk(state: &AppState, user: &PageUser) -> PageResult<SlaPage> {
    let lang = user.lang;
    let db = &state.db.conn;
    let list = policies::list(&state.db, &user.actor, Take::All).await?;
    let projects = crate::service::projects::list(db).await?;
    let groups = users::list_groups(db, Take::All).await?;
    let form = |row: Option<&sla_policy::Model>| -> PageResult<PolicyForm> {
        let calendar = match row {
            Some(row) => stored_calendar(row)?,
            // A new policy starts on office hours, Monday to Friday, in UTC.
            None => CalendarInput {
                time_zone: Some("UTC".into()),
                hours: WEEK[..5]
                    .iter()
                    .map(|day| DayHours {
                        day: *day,
                        open: "09:00".into(),
                        close: "17:00".into(),
                    })
                    .collect(),
                holidays: Vec::new(),
            },
        };
        let paused: Vec<String> = match row {
            Some(row) => serde_json::from_value(row.pause_statuses.clone()).unwrap_or_default(),
            None => vec!["on_hold".into(), "blocked".into()],
        };
        let priority = row.map_or(Priority::Medium, |r| r.priority);
        Ok(PolicyForm {
            id: row.map(|r| r.id),
            key: row.map_or_else(|| "new".to_string(), |r| r.id.to_string()),
            name: row.map(|r| r.name.clone()).unwrap_or_default(),
            priorities: super::enum_options(lang, Priority::ALL, Priority::as_str, Some(priority)),
            projects: project_options(&projects, row.and_then(|r| r.project_id)),
            groups: groups
                .iter()
                .map(|g| Opt {
                    value: g.id.to_string(),
                    label: g.name.clone(),
                    selected: row.and_then(|r| r.group_id) == Some(g.id),
                })
                .collect(),
            first_response: row.map_or("60".into(), |r| r.first_response_minutes.to_string()),
            resolution: row.map_or("480".into(), |r| r.resolution_minutes.to_string()),
            time_zone: calendar.time_zone.clone().unwrap_or_default(),
            days: WEEK
                .iter()
                .map(|day| {
                    let hours = calendar.hours.iter().find(|h| h.day == *day);
                    DayRow {
                        day: weekday_name(*day),
                        label: lang.t(&format!("admin-sla-day-{}", weekday_name(*day))),
                        open: hours.map(|h| h.open.clone()).unwrap_or_default(),
                        close: hours.map(|h| h.close.clone()).unwrap_or_default(),
                    }
                })
                .collect(),
            holidays: calendar
                .holidays
                .iter()
                .map(NaiveDate::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
            pauses: pausable()
                .map(|s| PauseBox {
                    value: s.as_str(),
                    label: lang.label(s.as_str()),
                    checked: paused.iter().any(|p| p == s.as_str()),
                })
                .collect(),
        })
    };
    let mut forms = list
        .iter()
        .map(|row| form(Some(row)))
        .collect::<PageResult<Vec<_>>>()?;
    forms.push(form(None)?);
    Ok(SlaPage {
        layout: Layout::for_user(user),
        section: "sla",
        notes: Default::default(),
        forms,
    })
}

/// `GET /admin/sla/`.
#[utoipa::path(get, path = "/admin/sla/", tag = "pages", operation_id = "pageAdminSla",
    summary = "The SLA policies with their business-hours calendars, and a form for a new one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn sla_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<SlaPage>(&state, &user, done).await
}

impl super::DeskPage for SlaPage {
    const PATH: &'static str = "/admin/sla/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "admin-sla-added"),
        ("deleted", "admin-sla-removed"),
    ];
    const SAVED: &'static str = "admin-sla-saved";

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        sla_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// A policy as its form gives it.
struct Posted {
    name: String,
    priority: Priority,
    project_id: Option<i32>,
    group_id: Option<i32>,
    first_response_minutes: i32,
    resolution_minutes: i32,
    calendar: CalendarInput,
    pause_statuses: Vec<TicketStatus>,
}

fn minutes(form: &Form, field: &str) -> AppResult<i32> {
    form.get(field)
        .trim()
        .parse::<i32>()
        .map_err(|_| AppError::field(field, "give a whole number of minutes"))
}

/// Read a policy's form: a weekday with neither time is closed, one with a single time is a mistake; the
/// holidays are dates (`YYYY-MM-DD`) apart by lines, spaces or commas.
fn posted(form: &Form) -> AppResult<Posted> {
    let mut hours = Vec::new();
    for day in WEEK {
        let code = weekday_name(day);
        let open = form.get(&format!("open_{code}")).trim();
        let close = form.get(&format!("close_{code}")).trim();
        match (open.is_empty(), close.is_empty()) {
            (true, true) => {}
            (false, false) => hours.push(DayHours {
                day,
                open: open.to_string(),
                close: close.to_string(),
            }),
            _ => {
                return Err(AppError::field(
                    "calendar",
                    format!("{code}: give both the opening and the closing time, or neither"),
                ))
            }
        }
    }
    let holidays = form
        .get("holidays")
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|d| !d.is_empty())
        .map(|d| {
            NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| {
                AppError::field("holidays", format!("\"{d}\" is not a date (YYYY-MM-DD)"))
            })
        })
        .collect::<AppResult<Vec<_>>>()?;
    let group_id = match form.get("group").trim() {
        "" => None,
        raw => Some(
            raw.parse::<i32>()
                .map_err(|_| AppError::field("group", "choose a group"))?,
        ),
    };
    Ok(Posted {
        name: form.get("name").to_string(),
        priority: Priority::parse(form.get("priority"))?,
        project_id: chosen_project(form)?,
        group_id,
        first_response_minutes: minutes(form, "first_response_minutes")?,
        resolution_minutes: minutes(form, "resolution_minutes")?,
        calendar: CalendarInput {
            time_zone: typed(form, "time_zone"),
            hours,
            holidays,
        },
        pause_statuses: form
            .all("pause")
            .iter()
            .map(|s| TicketStatus::parse(s))
            .collect::<Result<_, _>>()?,
    })
}

/// `POST /admin/sla/` (form: `name`, `priority`, `project`, `group`, `first_response_minutes`,
/// `resolution_minutes`, `time_zone`, `open_<day>`/`close_<day>` for `mon` … `sun`, `holidays`, `pause`…): a new
/// policy.
#[utoipa::path(post, path = "/admin/sla/", tag = "pages", operation_id = "pageAdminCreateSlaPolicy",
    summary = "Add an SLA policy with its business-hours calendar (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the policies"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_sla_policy(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let made = async {
        let p = posted(&form)?;
        let input = NewPolicy {
            name: p.name,
            priority: Some(p.priority),
            project_id: p.project_id,
            group_id: p.group_id,
            first_response_minutes: p.first_response_minutes,
            resolution_minutes: p.resolution_minutes,
            calendar: p.calendar,
            pause_statuses: Some(p.pause_statuses),
        };
        policies::create(&state.db, &state.sla_policies, &user.actor, input).await
    }
    .await;
    super::outcome::<SlaPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/sla/change/` (form: `id`, and the fields of a new policy, each replacing the stored one; or
/// `delete`).
#[utoipa::path(post, path = "/admin/sla/change/", tag = "pages", operation_id = "pageAdminChangeSlaPolicy",
    summary = "Change or remove an SLA policy (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the policies"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_sla_policy(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_id(&form, "SLA policy")?;
    if form.opt("delete").is_some() {
        let gone = policies::delete(&state.db, &state.sla_policies, &user.actor, id).await;
        return super::outcome::<SlaPage, _>(&state, &user, "deleted", &form, gone).await;
    }
    let changed = async {
        let p = posted(&form)?;
        let patch = PolicyPatch {
            name: Some(p.name),
            priority: Some(p.priority),
            project_id: Some(p.project_id),
            group_id: Some(p.group_id),
            first_response_minutes: Some(p.first_response_minutes),
            resolution_minutes: Some(p.resolution_minutes),
            calendar: Some(p.calendar),
            pause_statuses: Some(p.pause_statuses),
        };
        policies::update(&state.db, &state.sla_policies, &user.actor, id, patch).await
    }
    .await;
    super::outcome::<SlaPage, _>(&state, &user, "saved", &form, changed).await
}
