//! SLA policies: administrators define them; tickets are matched to the most specific one.
use super::calendar::{Calendar, Hours, WEEK};
use super::clock::Targets;
use crate::auth::Actor;
use crate::domain::{Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::service::Take;
use crate::state::AppState;
use chrono::{Duration, NaiveDate, Utc, Weekday};
use entity::{group, project, sla_policy};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};
use serde_json::{json, Value};

/// Longest target accepted: a year of business minutes.
const MAX_MINUTES: i32 = 366 * 24 * 60;

/// Opening hours of one weekday, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayHours {
    /// The weekday.
    pub day: Weekday,
    /// `HH:MM`.
    pub open: String,
    /// `HH:MM`, `24:00` allowed.
    pub close: String,
}

/// A calendar as given: empty `hours` means open around the clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CalendarInput {
    /// IANA zone name; UTC when absent.
    pub time_zone: Option<String>,
    /// Opening hours per weekday; days not named are closed.
    pub hours: Vec<DayHours>,
    /// Closed dates.
    pub holidays: Vec<NaiveDate>,
}

/// Fields of a new policy.
#[derive(Debug, Clone, Default)]
pub struct NewPolicy {
    /// Unique, 1-200 characters.
    pub name: String,
    /// The priority matched.
    pub priority: Option<Priority>,
    /// Only tickets of this project, when set.
    pub project_id: Option<i32>,
    /// Only tickets assigned to this group, when set.
    pub group_id: Option<i32>,
    /// Business minutes until the first response.
    pub first_response_minutes: i32,
    /// Business minutes until resolution.
    pub resolution_minutes: i32,
    /// Business hours.
    pub calendar: CalendarInput,
    /// Statuses that stop the clock; `on_hold` and `blocked` when absent.
    pub pause_statuses: Option<Vec<TicketStatus>>,
}

/// A partial change of a policy; `Some(None)` clears the project or group.
#[derive(Debug, Clone, Default)]
pub struct PolicyPatch {
    /// New name.
    pub name: Option<String>,
    /// New priority.
    pub priority: Option<Priority>,
    /// New project restriction.
    pub project_id: Option<Option<i32>>,
    /// New group restriction.
    pub group_id: Option<Option<i32>>,
    /// New first-response target.
    pub first_response_minutes: Option<i32>,
    /// New resolution target.
    pub resolution_minutes: Option<i32>,
    /// New calendar.
    pub calendar: Option<CalendarInput>,
    /// New pause statuses.
    pub pause_statuses: Option<Vec<TicketStatus>>,
}

/// A stored policy, read into what the clock needs.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The row.
    pub row: sla_policy::Model,
    /// Business hours.
    pub calendar: Calendar,
    /// Targets.
    pub targets: Targets,
    /// Statuses that stop the clock.
    pub pause_statuses: Vec<TicketStatus>,
}

const DEFAULT_PAUSE: [TicketStatus; 2] = [TicketStatus::OnHold, TicketStatus::Blocked];

fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

fn calendar_of(input: &CalendarInput) -> AppResult<Calendar> {
    if input.hours.is_empty() && input.holidays.is_empty() && input.time_zone.is_none() {
        return Ok(Calendar::always());
    }
    let mut hours = Vec::new();
    for h in &input.hours {
        let parsed = Hours::parse(&h.open, &h.close)
            .map_err(|why| AppError::field("calendar", format!("{}: {why}", h.day)))?;
        hours.push((h.day, parsed));
    }
    if hours.is_empty() {
        // A zone or holidays without hours: open around the clock, apart from the holidays.
        let all = Hours {
            open: 0,
            close: 24 * 60,
        };
        hours = WEEK.into_iter().map(|d| (d, all)).collect();
    }
    if input.holidays.len() > 1000 {
        return Err(AppError::field("calendar", "at most 1000 holidays"));
    }
    Calendar::new(
        input.time_zone.as_deref().unwrap_or("UTC"),
        &hours,
        input.holidays.iter().copied(),
    )
    .map_err(|e| AppError::field("calendar", e.to_string()))
}

fn check_minutes(field: &str, minutes: i32) -> AppResult<i32> {
    if (1..=MAX_MINUTES).contains(&minutes) {
        Ok(minutes)
    } else {
        Err(AppError::field(
            field,
            format!("must be between 1 and {MAX_MINUTES} minutes"),
        ))
    }
}

fn clean_name(name: &str) -> AppResult<String> {
    crate::service::text::single_line("name", name)?;
    let name = name.trim();
    let len = name.chars().count();
    if len == 0 || len > 200 {
        return Err(AppError::field("name", "the name must be 1-200 characters"));
    }
    Ok(name.to_string())
}

fn hours_json(calendar: &Calendar) -> Value {
    Value::Array(
        calendar
            .hours()
            .into_iter()
            .map(|(d, h)| json!({"day": weekday_name(d), "open": h.open_text(), "close": h.close_text()}))
            .collect(),
    )
}

fn parse_weekday(name: &str) -> Option<Weekday> {
    WEEK.into_iter().find(|d| weekday_name(*d) == name)
}

/// The calendar a stored row describes.
pub fn stored_calendar(row: &sla_policy::Model) -> AppResult<CalendarInput> {
    let bad = || AppError::internal(anyhow::anyhow!("sla policy {} has a bad calendar", row.id));
    let mut hours = Vec::new();
    for h in row.hours.as_array().ok_or_else(bad)? {
        let text = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_string);
        hours.push(DayHours {
            day: text("day")
                .as_deref()
                .and_then(parse_weekday)
                .ok_or_else(bad)?,
            open: text("open").ok_or_else(bad)?,
            close: text("close").ok_or_else(bad)?,
        });
    }
    let mut holidays = Vec::new();
    for d in row.holidays.as_array().ok_or_else(bad)? {
        let d = d
            .as_str()
            .and_then(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .ok_or_else(bad)?;
        holidays.push(d);
    }
    Ok(CalendarInput {
        time_zone: Some(row.time_zone.clone()),
        hours,
        holidays,
    })
}

impl Policy {
    /// Read a stored row.
    pub fn from_row(row: sla_policy::Model) -> AppResult<Policy> {
        let calendar = calendar_of(&stored_calendar(&row)?)?;
        let pause_statuses = row
            .pause_statuses
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .filter_map(|s| TicketStatus::from_db(s).ok())
                    .collect()
            })
            .unwrap_or_default();
        let targets = Targets {
            first_response: Duration::minutes(i64::from(row.first_response_minutes)),
            resolution: Duration::minutes(i64::from(row.resolution_minutes)),
        };
        Ok(Policy {
            row,
            calendar,
            targets,
            pause_statuses,
        })
    }

    /// How specific the match is (project counts more than group), or `None` when it does not match.
    fn specificity(&self, priority: &str, project: Option<i32>, group: Option<i32>) -> Option<u8> {
        if self.row.priority != priority {
            return None;
        }
        let mut score = 0;
        if let Some(p) = self.row.project_id {
            if project != Some(p) {
                return None;
            }
            score += 2;
        }
        if let Some(g) = self.row.group_id {
            if group != Some(g) {
                return None;
            }
            score += 1;
        }
        Some(score)
    }
}

/// The policies for `priority`, oldest first.
pub async fn for_priority(db: &impl ConnectionTrait, priority: &str) -> AppResult<Vec<Policy>> {
    for_priorities(db, [priority.to_string()]).await
}

/// The policies for any of `priorities`, oldest first.
pub async fn for_priorities(
    db: &impl ConnectionTrait,
    priorities: impl IntoIterator<Item = String>,
) -> AppResult<Vec<Policy>> {
    sla_policy::Entity::find()
        .filter(sla_policy::Column::Priority.is_in(priorities))
        .order_by_asc(sla_policy::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(Policy::from_row)
        .collect()
}

/// The most specific of `policies` matching a ticket's priority, project and group (the oldest on a tie).
pub fn matching<'a>(
    policies: &'a [Policy],
    priority: &str,
    project: Option<i32>,
    group: Option<i32>,
) -> Option<&'a Policy> {
    let mut best: Option<(u8, &Policy)> = None;
    for p in policies {
        if let Some(score) = p.specificity(priority, project, group) {
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, p));
            }
        }
    }
    best.map(|(_, p)| p)
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "only administrators may manage SLA policies",
        ))
    }
}

/// Every policy, oldest first; administrators only.
pub async fn list(
    state: &AppState,
    actor: &Actor,
    take: Take,
) -> AppResult<Vec<sla_policy::Model>> {
    require_admin(actor)?;
    let select = sla_policy::Entity::find().order_by_asc(sla_policy::Column::Id);
    Ok(take.limit(select).all(&state.db.conn).await?)
}

/// A policy by id, for whoever may see something naming it (a ticket's clock names its policy).
pub async fn get(db: &impl ConnectionTrait, id: i32) -> AppResult<Option<sla_policy::Model>> {
    Ok(sla_policy::Entity::find_by_id(id).one(db).await?)
}

async fn check_refs(
    db: &impl ConnectionTrait,
    project_id: Option<i32>,
    group_id: Option<i32>,
) -> AppResult<()> {
    if let Some(id) = project_id {
        if project::Entity::find_by_id(id).count(db).await? == 0 {
            return Err(AppError::field(
                "project",
                format!("project {id} does not exist"),
            ));
        }
    }
    if let Some(id) = group_id {
        if group::Entity::find_by_id(id).count(db).await? == 0 {
            return Err(AppError::field(
                "group",
                format!("group {id} does not exist"),
            ));
        }
    }
    Ok(())
}

async fn check_name_free(
    db: &impl ConnectionTrait,
    name: &str,
    except: Option<i32>,
) -> AppResult<()> {
    let mut q = sla_policy::Entity::find().filter(sla_policy::Column::Name.eq(name));
    if let Some(id) = except {
        q = q.filter(sla_policy::Column::Id.ne(id));
    }
    if q.count(db).await? > 0 {
        return Err(AppError::field(
            "name",
            "a policy with this name already exists",
        ));
    }
    Ok(())
}

fn statuses_json(statuses: &[TicketStatus]) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for s in statuses {
        if matches!(s.category(), crate::domain::StatusCategory::Done) {
            continue;
        }
        if !names.contains(&s.as_str()) {
            names.push(s.as_str());
        }
    }
    json!(names)
}

/// Add a policy; administrators only. New tickets use it at once; the open tickets of its priority are
/// re-clocked in the background, in batches (`reclock`).
pub async fn create(
    state: &AppState,
    actor: &Actor,
    input: NewPolicy,
) -> AppResult<sla_policy::Model> {
    require_admin(actor)?;
    let db = &state.db.conn;
    let name = clean_name(&input.name)?;
    let priority = input
        .priority
        .ok_or_else(|| AppError::field("priority", "this field is required"))?;
    let first = check_minutes("firstResponseMinutes", input.first_response_minutes)?;
    let resolution = check_minutes("resolutionMinutes", input.resolution_minutes)?;
    let calendar = calendar_of(&input.calendar)?;
    check_refs(db, input.project_id, input.group_id).await?;
    check_name_free(db, &name, None).await?;
    let pause = input.pause_statuses.unwrap_or(DEFAULT_PAUSE.to_vec());
    let now = Utc::now();
    let row = sla_policy::ActiveModel {
        name: Set(name),
        priority: Set(priority.as_str().to_string()),
        project_id: Set(input.project_id),
        group_id: Set(input.group_id),
        first_response_minutes: Set(first),
        resolution_minutes: Set(resolution),
        time_zone: Set(calendar.time_zone().to_string()),
        hours: Set(hours_json(&calendar)),
        holidays: Set(json!(calendar
            .holidays()
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect::<Vec<_>>())),
        pause_statuses: Set(statuses_json(&pause)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    let txn = state.db.begin_write().await?;
    let saved = row.insert(&txn).await?;
    super::reclock::schedule(&txn, [saved.priority.clone()]).await?;
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", saved.id, "create")
            .changes(json!({"name": [null, saved.name]})),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}

/// Change a policy; administrators only. The open tickets of its old and new priority are re-clocked in
/// the background, in batches (`reclock`).
pub async fn update(
    state: &AppState,
    actor: &Actor,
    id: i32,
    patch: PolicyPatch,
) -> AppResult<sla_policy::Model> {
    require_admin(actor)?;
    let db = &state.db.conn;
    let current = get(db, id)
        .await?
        .ok_or_else(|| AppError::not_found("SLA policy"))?;
    let mut active: sla_policy::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        let name = clean_name(name)?;
        check_name_free(db, &name, Some(id)).await?;
        active.name = Set(name);
    }
    if let Some(p) = patch.priority {
        active.priority = Set(p.as_str().to_string());
    }
    let project_id = patch.project_id.unwrap_or(current.project_id);
    let group_id = patch.group_id.unwrap_or(current.group_id);
    check_refs(db, project_id, group_id).await?;
    active.project_id = Set(project_id);
    active.group_id = Set(group_id);
    if let Some(m) = patch.first_response_minutes {
        active.first_response_minutes = Set(check_minutes("firstResponseMinutes", m)?);
    }
    if let Some(m) = patch.resolution_minutes {
        active.resolution_minutes = Set(check_minutes("resolutionMinutes", m)?);
    }
    if let Some(c) = &patch.calendar {
        let calendar = calendar_of(c)?;
        active.time_zone = Set(calendar.time_zone().to_string());
        active.hours = Set(hours_json(&calendar));
        active.holidays = Set(json!(calendar
            .holidays()
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect::<Vec<_>>()));
    }
    if let Some(s) = &patch.pause_statuses {
        active.pause_statuses = Set(statuses_json(s));
    }
    active.updated_at = Set(Utc::now());
    let txn = state.db.begin_write().await?;
    let saved = active.update(&txn).await?;
    // A new name changes no clock.
    let clocks_move = sla_policy::Model {
        name: current.name.clone(),
        updated_at: current.updated_at,
        ..saved.clone()
    } != current;
    if clocks_move {
        super::reclock::schedule(&txn, [current.priority.clone(), saved.priority.clone()]).await?;
    }
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", id, "update")
            .changes(json!({"name": [current.name, saved.name]})),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}

/// Delete a policy; administrators only. The open tickets of its priority are re-clocked in the
/// background: to another matching policy, or to no due times and no policy. Resolved and closed tickets
/// keep their clocks, naming no policy.
pub async fn delete(state: &AppState, actor: &Actor, id: i32) -> AppResult<()> {
    require_admin(actor)?;
    let txn = state.db.begin_write().await?;
    let current = get(&txn, id)
        .await?
        .ok_or_else(|| AppError::not_found("SLA policy"))?;
    sla_policy::Entity::delete_by_id(id).exec(&txn).await?;
    super::reclock::schedule(&txn, [current.priority.clone()]).await?;
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", id, "delete")
            .changes(json!({"name": [current.name, null]})),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}
