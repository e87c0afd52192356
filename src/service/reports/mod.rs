//! Ticket reports, the team's: how many tickets came in and were resolved, how fast they were answered and
//! resolved (medians and 90th percentiles), how often they were reopened and how often their SLA targets
//! were met — in all, and by group, agent, priority, project and day, week or month. One definition serves
//! GraphQL (`ticketReport`), REST (`/api/reports/tickets/`) and the reports page.
//!
//! What each figure counts (written on the page and in `docs/reports.md` too):
//! - **created**, **first response** and **first-response SLA**: the tickets *created* in the period, placed
//!   by their creation; a first response is the first public comment by a member of the team;
//!   its target is met when it came without a breach, missed when it was breached (answered late or not yet),
//!   and not counted while it is still running;
//! - **resolved**, **resolution** and **resolution SLA**: the tickets *resolved* (or closed) in the period,
//!   placed by when; a merged duplicate was not resolved and is not counted here;
//! - **reopened**: how many times the tickets created in the period were moved back out of a done status;
//! - **time waiting** and **time in progress**: of the resolved tickets, how long they spent in a to-do status
//!   (new, open) and in an in-progress one (in progress, on hold, blocked) before, kept on each status move
//!   (tickets resolved before that was kept have no figure).
//!
//! Times are wall-clock minutes from the ticket's creation; days, weeks (ISO, `2026-W48`) and months are UTC.
//! Percentiles interpolate between the two nearest values (as PostgreSQL's `percentile_cont`).
mod kept;

pub use kept::{on_first_response, on_status_moved};

use crate::auth::Actor;
use crate::domain::{Priority, StatusCategory, Workflow};
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use entity::{group, project, ticket, ticket_sla, user};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, JoinType};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, FromQueryResult, QueryFilter,
    QuerySelect, QueryTrait, RelationDef,
};
use std::collections::{BTreeMap, HashMap};

/// Most tickets one report reads: a wider range is refused and has to be narrowed.
pub const MAX_TICKETS: u64 = 100_000;
/// Longest range of one report, in days.
pub const MAX_DAYS: i64 = 3 * 366;
/// Days a report covers when it names no start.
pub const DEFAULT_DAYS: i64 = 30;

/// What a report's lines are split by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dimension {
    /// The assigned group.
    Group,
    /// The assignee.
    Agent,
    /// The priority.
    Priority,
    /// The project.
    Project,
    /// The day (`2026-11-29`).
    Day,
    /// The ISO week (`2026-W48`).
    Week,
    /// The month (`2026-11`).
    Month,
}

impl Dimension {
    /// Every dimension, as clients spell them.
    pub const ALL: [(Dimension, &'static str); 7] = [
        (Dimension::Group, "group"),
        (Dimension::Agent, "agent"),
        (Dimension::Priority, "priority"),
        (Dimension::Project, "project"),
        (Dimension::Day, "day"),
        (Dimension::Week, "week"),
        (Dimension::Month, "month"),
    ];

    /// From a client's spelling (400 on `field` otherwise).
    pub fn parse(field: &str, value: &str) -> AppResult<Dimension> {
        let value = value.trim().to_ascii_lowercase();
        Dimension::ALL
            .iter()
            .find(|(_, name)| *name == value)
            .map(|(d, _)| *d)
            .ok_or_else(|| {
                AppError::field(
                    field,
                    "must be one of: group, agent, priority, project, day, week, month",
                )
            })
    }

    /// How clients spell it.
    pub fn as_str(self) -> &'static str {
        Dimension::ALL
            .iter()
            .find(|(d, _)| *d == self)
            .map_or("", |(_, name)| name)
    }

    /// Whether it splits by time.
    pub fn is_period(self) -> bool {
        matches!(self, Dimension::Day | Dimension::Week | Dimension::Month)
    }
}

/// A figure of a report's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Tickets created.
    Created,
    /// Tickets resolved.
    Resolved,
    /// Moves back out of a done status.
    Reopened,
    /// Times to the first response.
    FirstResponse,
    /// Times to the first response in business hours.
    FirstResponseBusiness,
    /// Times to resolution.
    Resolution,
    /// First-response targets met and missed.
    FirstResponseSla,
    /// Resolution targets met and missed.
    ResolutionSla,
    /// Time in a to-do status.
    TimeWaiting,
    /// Time in an in-progress status.
    TimeInProgress,
}

impl Metric {
    /// Every figure, in the order reports give them (CSV columns too), as clients spell them.
    pub const ALL: [(Metric, &'static str); 10] = [
        (Metric::Created, "created"),
        (Metric::Resolved, "resolved"),
        (Metric::Reopened, "reopened"),
        (Metric::FirstResponse, "first_response"),
        (Metric::Resolution, "resolution"),
        (Metric::FirstResponseSla, "first_response_sla"),
        (Metric::ResolutionSla, "resolution_sla"),
        (Metric::TimeWaiting, "time_waiting"),
        (Metric::TimeInProgress, "time_in_progress"),
        // Last, so that a CSV read by column position keeps the columns it had before this figure.
        (Metric::FirstResponseBusiness, "first_response_business"),
    ];

    /// From a client's spelling (400 on `field` otherwise).
    pub fn parse(field: &str, value: &str) -> AppResult<Metric> {
        let value = value.trim().to_ascii_lowercase();
        Metric::ALL
            .iter()
            .find(|(_, name)| *name == value)
            .map(|(m, _)| *m)
            .ok_or_else(|| {
                let names: Vec<&str> = Metric::ALL.iter().map(|(_, n)| *n).collect();
                AppError::field(field, format!("must be one of: {}", names.join(", ")))
            })
    }

    /// Whether `line` has anything of this figure: a count above zero, a time, a target decided.
    fn told(self, line: &Line) -> bool {
        match self {
            Metric::Created => line.created > 0,
            Metric::Resolved => line.resolved > 0,
            Metric::Reopened => line.reopened > 0,
            Metric::FirstResponse => line.first_response.count > 0,
            Metric::FirstResponseBusiness => line.first_response_business.count > 0,
            Metric::Resolution => line.resolution.count > 0,
            Metric::FirstResponseSla => {
                line.first_response_sla.met + line.first_response_sla.missed > 0
            }
            Metric::ResolutionSla => line.resolution_sla.met + line.resolution_sla.missed > 0,
            Metric::TimeWaiting => line.waiting.count > 0,
            Metric::TimeInProgress => line.in_progress.count > 0,
        }
    }
}

/// What a report covers and how it is split.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    /// First day (UTC), included.
    pub from: NaiveDate,
    /// Last day (UTC), included.
    pub to: NaiveDate,
    /// How lines are split, in this order (none: one line, the total).
    pub group_by: Vec<Dimension>,
    /// Only tickets of this project.
    pub project_id: Option<i32>,
    /// Only tickets assigned to this group.
    pub group_id: Option<i32>,
    /// The figures the report is about: a line is listed when it has one of them (agents who resolved
    /// something, for `resolved`); none: every line that has tickets. Every figure is given either way: they
    /// come from the same read.
    pub metrics: Vec<Metric>,
}

impl ReportRequest {
    /// The last [`DEFAULT_DAYS`] days up to `today`, as one line.
    pub fn recent(today: NaiveDate) -> Self {
        ReportRequest {
            from: today
                .checked_sub_signed(Duration::days(DEFAULT_DAYS - 1))
                .unwrap_or(NaiveDate::MIN),
            to: today,
            group_by: Vec::new(),
            project_id: None,
            group_id: None,
            metrics: Vec::new(),
        }
    }

    /// The instants the range runs from (included) and to (excluded); a 400 on `to` past the calendar's end.
    fn bounds(&self) -> AppResult<(DateTime<Utc>, DateTime<Utc>)> {
        let end = self
            .to
            .succ_opt()
            .ok_or_else(|| AppError::field("to", "is past the last day there is"))?;
        let start = self.from.and_time(chrono::NaiveTime::MIN).and_utc();
        Ok((start, end.and_time(chrono::NaiveTime::MIN).and_utc()))
    }

    /// 400s: an inverted or too long range, a dimension named twice, two periods.
    pub fn check(&self) -> AppResult<()> {
        self.bounds()?;
        if self.to < self.from {
            return Err(AppError::field("to", "must not be before from"));
        }
        if (self.to - self.from).num_days() >= MAX_DAYS {
            return Err(AppError::field(
                "to",
                format!("a report covers at most {MAX_DAYS} days"),
            ));
        }
        let mut seen = self.group_by.clone();
        seen.sort();
        seen.dedup();
        if seen.len() != self.group_by.len() {
            return Err(AppError::field("group_by", "names a dimension twice"));
        }
        if self.group_by.iter().filter(|d| d.is_period()).count() > 1 {
            return Err(AppError::field(
                "group_by",
                "names at most one of day, week and month",
            ));
        }
        Ok(())
    }
}

/// Durations in minutes: how many, their median and 90th percentile (none without any).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Durations {
    /// How many.
    pub count: u64,
    /// The median, in minutes.
    pub median: Option<f64>,
    /// The 90th percentile, in minutes.
    pub p90: Option<f64>,
}

/// How often a target was met.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Attainment {
    /// Met.
    pub met: u64,
    /// Missed.
    pub missed: u64,
}

impl Attainment {
    /// Met among those decided, from 0 to 1 (none when none was decided).
    pub fn rate(&self) -> Option<f64> {
        let decided = self.met + self.missed;
        (decided > 0).then(|| self.met as f64 / decided as f64)
    }
}

/// What a line is, for one dimension: a name or a period, or `None` for none (unassigned, no project).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The dimension.
    pub dimension: Dimension,
    /// Its value on this line.
    pub value: Option<String>,
}

/// One line of a report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    /// What this line is, one key per dimension asked (none for the total).
    pub keys: Vec<Key>,
    /// Tickets created.
    pub created: u64,
    /// Tickets resolved.
    pub resolved: u64,
    /// Moves of the created tickets back out of a done status.
    pub reopened: u64,
    /// From creation to the first response, of the created tickets.
    pub first_response: Durations,
    /// The same in business time, of the created tickets an SLA policy governed when they were answered
    /// (under its calendar).
    pub first_response_business: Durations,
    /// From creation to resolution, of the resolved tickets.
    pub resolution: Durations,
    /// First-response targets of the created tickets.
    pub first_response_sla: Attainment,
    /// Resolution targets of the resolved tickets.
    pub resolution_sla: Attainment,
    /// Time in a to-do status, of the resolved tickets.
    pub waiting: Durations,
    /// Time in an in-progress status, of the resolved tickets.
    pub in_progress: Durations,
}

/// A report: its lines in key order (periods in time order), and the total.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What it covers.
    pub from: NaiveDate,
    /// Up to.
    pub to: NaiveDate,
    /// One per combination of keys that has tickets.
    pub lines: Vec<Line>,
    /// Over every ticket.
    pub total: Line,
}

/// What a report reads of a ticket.
#[derive(Debug, FromQueryResult)]
struct Fact {
    created_at: DateTime<Utc>,
    first_responded_at: Option<DateTime<Utc>>,
    resolved_at: Option<DateTime<Utc>>,
    status: crate::domain::TicketStatus,
    priority: Priority,
    assignee_id: Option<i32>,
    assigned_group_id: Option<i32>,
    project_id: Option<i32>,
    merged_into_id: Option<i32>,
    first_response_due_at: Option<DateTime<Utc>>,
    resolution_due_at: Option<DateTime<Utc>>,
    first_response_breached_at: Option<DateTime<Utc>>,
    resolution_breached_at: Option<DateTime<Utc>>,
    reopens: Option<i32>,
    first_response_business_ms: Option<i64>,
    todo_ms: Option<i64>,
    in_progress_ms: Option<i64>,
}

/// A key before ids are named.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Raw {
    None,
    Id(i32),
    Text(String),
}

/// Durations gathered for a line.
#[derive(Default)]
struct Gathered {
    line: Line,
    first_response: Vec<f64>,
    first_response_business: Vec<f64>,
    resolution: Vec<f64>,
    waiting: Vec<f64>,
    in_progress: Vec<f64>,
}

fn minutes(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    Ord::max((to - from).num_seconds(), 0) as f64 / 60.0
}

/// The `p` percentile (0 to 1) of sorted values, interpolated between the two nearest.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = p.clamp(0.0, 1.0) * last as f64;
    let (low, high) = (rank.floor() as usize, rank.ceil() as usize);
    let (a, b) = (sorted.get(low)?, sorted.get(high)?);
    Some(a + (b - a) * (rank - low as f64))
}

fn durations(mut values: Vec<f64>) -> Durations {
    values.sort_by(f64::total_cmp);
    Durations {
        count: values.len() as u64,
        median: percentile(&values, 0.5),
        p90: percentile(&values, 0.9),
    }
}

fn key_of(fact: &Fact, dimension: Dimension, at: DateTime<Utc>) -> Raw {
    let id = |id: Option<i32>| id.map_or(Raw::None, Raw::Id);
    match dimension {
        Dimension::Group => id(fact.assigned_group_id),
        Dimension::Agent => id(fact.assignee_id),
        Dimension::Project => id(fact.project_id),
        Dimension::Priority => Raw::Text(fact.priority.as_str().to_string()),
        Dimension::Day => Raw::Text(at.format("%Y-%m-%d").to_string()),
        Dimension::Week => {
            let week = at.iso_week();
            Raw::Text(format!("{}-W{:02}", week.year(), week.week()))
        }
        Dimension::Month => Raw::Text(at.format("%Y-%m").to_string()),
    }
}

/// The ticket's SLA clock, joined.
fn to_clock() -> RelationDef {
    ticket::Entity::belongs_to(ticket_sla::Entity)
        .from(ticket::Column::Id)
        .to(ticket_sla::Column::TicketId)
        .into()
}

/// The tickets created or resolved in the range, with their clocks and reopen counts, in one statement.
async fn facts(db: &impl ConnectionTrait, request: &ReportRequest) -> AppResult<Vec<Fact>> {
    let (start, end) = request.bounds()?;
    let within =
        |column: ticket::Column| Condition::all().add(column.gte(start)).add(column.lt(end));
    let mut select = ticket::Entity::find()
        .select_only()
        .columns([
            ticket::Column::CreatedAt,
            ticket::Column::FirstRespondedAt,
            ticket::Column::ResolvedAt,
            ticket::Column::Status,
            ticket::Column::Priority,
            ticket::Column::AssigneeId,
            ticket::Column::AssignedGroupId,
            ticket::Column::ProjectId,
            ticket::Column::MergedIntoId,
        ])
        .join(JoinType::LeftJoin, to_clock())
        .columns([
            ticket_sla::Column::FirstResponseDueAt,
            ticket_sla::Column::ResolutionDueAt,
            ticket_sla::Column::FirstResponseBreachedAt,
            ticket_sla::Column::ResolutionBreachedAt,
        ])
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(
            Condition::any()
                .add(within(ticket::Column::CreatedAt))
                .add(within(ticket::Column::ResolvedAt)),
        );
    if let Some(id) = request.project_id {
        select = select.filter(ticket::Column::ProjectId.eq(id));
    }
    if let Some(id) = request.group_id {
        select = select.filter(ticket::Column::AssignedGroupId.eq(id));
    }
    let metrics = Alias::new("ticket_metrics");
    let query = QueryTrait::query(&mut select);
    query.join(
        JoinType::LeftJoin,
        metrics.clone(),
        Expr::col((metrics.clone(), Alias::new("ticket_id")))
            .equals((ticket::Entity, ticket::Column::Id)),
    );
    for kept in [
        "reopens",
        "first_response_business_ms",
        "todo_ms",
        "in_progress_ms",
    ] {
        query.expr_as(
            Expr::col((metrics.clone(), Alias::new(kept))),
            Alias::new(kept),
        );
    }
    let found = select
        .limit(MAX_TICKETS + 1)
        .into_model::<Fact>()
        .all(db)
        .await?;
    if found.len() as u64 > MAX_TICKETS {
        return Err(AppError::field(
            "from",
            format!("the range holds more than {MAX_TICKETS} tickets: narrow it"),
        ));
    }
    Ok(found)
}

/// Names of the groups, agents and projects the keys hold, by id.
async fn names(
    db: &impl ConnectionTrait,
    dimension: Dimension,
    ids: Vec<i32>,
) -> AppResult<HashMap<i32, String>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(match dimension {
        Dimension::Group => group::Entity::find()
            .filter(group::Column::Id.is_in(ids))
            .all(db)
            .await?
            .into_iter()
            .map(|g| (g.id, g.name))
            .collect(),
        Dimension::Agent => user::Entity::find()
            .filter(user::Column::Id.is_in(ids))
            .all(db)
            .await?
            .into_iter()
            .map(|u| (u.id, u.username))
            .collect(),
        Dimension::Project => project::Entity::find()
            .filter(project::Column::Id.is_in(ids))
            .all(db)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect(),
        _ => HashMap::new(),
    })
}

/// The report `request` asks for (the team's: 403 otherwise; 400 for a bad request).
pub async fn tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    request: &ReportRequest,
) -> AppResult<Report> {
    if !actor.is_team() {
        return Err(AppError::forbidden("reports are the team's"));
    }
    request.check()?;
    let facts = facts(db, request).await?;
    let (start, end) = request.bounds()?;
    let within = |at: DateTime<Utc>| start <= at && at < end;
    let mut lines: BTreeMap<Vec<Raw>, Gathered> = BTreeMap::new();
    let mut total = Gathered::default();
    let keys = |fact: &Fact, at| -> Vec<Raw> {
        request
            .group_by
            .iter()
            .map(|d| key_of(fact, *d, at))
            .collect()
    };
    for fact in &facts {
        if within(fact.created_at) {
            let key = keys(fact, fact.created_at);
            for g in [lines.entry(key).or_default(), &mut total] {
                g.line.created += 1;
                g.line.reopened += u64::try_from(fact.reopens.unwrap_or(0)).unwrap_or(0);
                if let Some(at) = fact.first_responded_at {
                    g.first_response.push(minutes(fact.created_at, at));
                }
                if let Some(ms) = fact.first_response_business_ms {
                    g.first_response_business.push(ms as f64 / 60_000.0);
                }
                if fact.first_response_due_at.is_some() {
                    if fact.first_response_breached_at.is_some() {
                        g.line.first_response_sla.missed += 1;
                    } else if fact.first_responded_at.is_some() {
                        g.line.first_response_sla.met += 1;
                    }
                }
            }
        }
        let resolved = fact
            .resolved_at
            .filter(|at| within(*at))
            .filter(|_| fact.merged_into_id.is_none())
            .filter(|_| fact.status.category() == StatusCategory::Done);
        if let Some(at) = resolved {
            let key = keys(fact, at);
            for g in [lines.entry(key).or_default(), &mut total] {
                g.line.resolved += 1;
                g.resolution.push(minutes(fact.created_at, at));
                if let (Some(todo), Some(doing)) = (fact.todo_ms, fact.in_progress_ms) {
                    g.waiting.push(todo as f64 / 60_000.0);
                    g.in_progress.push(doing as f64 / 60_000.0);
                }
                if fact.resolution_due_at.is_some() {
                    if fact.resolution_breached_at.is_some() {
                        g.line.resolution_sla.missed += 1;
                    } else {
                        g.line.resolution_sla.met += 1;
                    }
                }
            }
        }
    }
    let mut named: HashMap<Dimension, HashMap<i32, String>> = HashMap::new();
    for (i, dimension) in request.group_by.iter().enumerate() {
        let ids: Vec<i32> = lines
            .keys()
            .filter_map(|k| match k.get(i) {
                Some(Raw::Id(id)) => Some(*id),
                _ => None,
            })
            .collect();
        named.insert(*dimension, names(db, *dimension, ids).await?);
    }
    let finish = |g: Gathered, keys: Vec<Key>| Line {
        keys,
        first_response: durations(g.first_response),
        first_response_business: durations(g.first_response_business),
        resolution: durations(g.resolution),
        waiting: durations(g.waiting),
        in_progress: durations(g.in_progress),
        ..g.line
    };
    let lines = lines
        .into_iter()
        .map(|(raw, g)| {
            let keys = raw
                .into_iter()
                .zip(&request.group_by)
                .map(|(r, d)| Key {
                    dimension: *d,
                    value: match r {
                        Raw::None => None,
                        Raw::Id(id) => Some(
                            named
                                .get(d)
                                .and_then(|n| n.get(&id))
                                .cloned()
                                .unwrap_or_else(|| format!("#{id}")),
                        ),
                        Raw::Text(text) => Some(text),
                    },
                })
                .collect();
            finish(g, keys)
        })
        .filter(|line| request.metrics.is_empty() || request.metrics.iter().any(|m| m.told(line)))
        .collect();
    Ok(Report {
        from: request.from,
        to: request.to,
        lines,
        total: finish(total, Vec::new()),
    })
}

/// How many open tickets (not in a done status, not archived) have waited how long since they were created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aged {
    /// The age band, as the reports page names it.
    pub label: &'static str,
    /// Open tickets in it.
    pub count: u64,
}

/// The age bands of [`backlog`]: a label and the band's lower bound.
const BANDS: [(&str, Duration); 5] = [
    ("Under a day", Duration::zero()),
    ("1–3 days", Duration::days(1)),
    ("3–7 days", Duration::days(3)),
    ("1–4 weeks", Duration::days(7)),
    ("Over 4 weeks", Duration::days(28)),
];

/// The open tickets by age at `now` (the team's: 403 otherwise), youngest band first, in one statement.
pub async fn backlog(
    db: &impl ConnectionTrait,
    actor: &Actor,
    now: DateTime<Utc>,
) -> AppResult<Vec<Aged>> {
    if !actor.is_team() {
        return Err(AppError::forbidden("reports are the team's"));
    }
    let done: Vec<&str> = crate::domain::TicketStatus::ALL
        .iter()
        .filter(|s| s.category() == StatusCategory::Done)
        .map(|s| s.as_str())
        .collect();
    let mut select = ticket::Entity::find()
        .select_only()
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(ticket::Column::Status.is_not_in(done));
    for (i, (_, from)) in BANDS.iter().enumerate() {
        // Created at or before `now - from`, and after the next band's bound.
        let mut band = Condition::all().add(ticket::Column::CreatedAt.lte(now - *from));
        if let Some((_, next)) = BANDS.get(i + 1) {
            band = band.add(ticket::Column::CreatedAt.gt(now - *next));
        }
        let counted = Expr::case(band, 1).finally(0);
        select = select.column_as(
            Expr::expr(sea_orm::sea_query::Func::coalesce([
                Expr::expr(counted).sum(),
                Expr::val(0),
            ]))
            .cast_as(Alias::new("BIGINT")),
            format!("band{i}"),
        );
    }
    let counts: Option<(i64, i64, i64, i64, i64)> = select.into_tuple().one(db).await?;
    let (a, b, c, d, e) = counts.unwrap_or_default();
    Ok(BANDS
        .iter()
        .zip([a, b, c, d, e])
        .map(|((label, _), count)| Aged {
            label,
            count: u64::try_from(count).unwrap_or(0),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate() {
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[7.0], 0.9), Some(7.0));
        assert_eq!(percentile(&[10.0, 20.0], 0.5), Some(15.0));
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&ten, 0.5), Some(5.5));
        assert_eq!(
            percentile(&ten, 0.9).map(|p| (p * 10.0).round() / 10.0),
            Some(9.1)
        );
    }

    #[test]
    fn requests_are_checked() {
        let day = |d| NaiveDate::from_ymd_opt(2026, 11, d).unwrap_or_default();
        let mut r = ReportRequest::recent(day(29));
        assert!(r.check().is_ok());
        assert_eq!((r.to - r.from).num_days(), DEFAULT_DAYS - 1);
        r.group_by = vec![Dimension::Week, Dimension::Month];
        assert!(r.check().is_err());
        r.group_by = vec![Dimension::Group, Dimension::Group];
        assert!(r.check().is_err());
        r.group_by = vec![Dimension::Group, Dimension::Month];
        assert!(r.check().is_ok());
        r.to = day(1);
        r.from = day(2);
        assert!(r.check().is_err());
        let edge = ReportRequest::recent(NaiveDate::MAX);
        assert!(
            edge.check().is_err(),
            "the day after the last is refused, not a panic"
        );
        assert!(ReportRequest::recent(NaiveDate::MIN).check().is_ok());
        assert!(Dimension::parse("group_by", "Month").is_ok());
        assert!(Dimension::parse("group_by", "year").is_err());
    }
}
