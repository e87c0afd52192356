//! Time rules: administrators' rules that act on a ticket once a wait has passed since one of its moments
//! ("pending for 72 business hours", "resolved for 7 days"), with the triggers' conditions (on the ticket
//! only) and actions.
//!
//! Each rule runs from its own outbox row, due when the next ticket's wait may end. A run walks the live
//! tickets whose moment is old enough, by an index on (status, moment), in pages and at most `MAX_EXAMINED`
//! per run; it fires each match in its own transaction, where the row in `time_rule_fires` (rule, ticket,
//! moment) decides once and for all between instances. A rule fires again for a ticket only once the moment
//! has moved (the status changed again, the ticket was updated again). The run then queues the next one:
//! soon when it stopped at the cap, else when the oldest waiting ticket's wait ends, and at the latest after
//! `RESCAN` (a change that makes a ticket match without moving its moment is found then).
use super::evaluate::Facts;
use super::language::{actions_to_json, parse_actions, Conditions};
use super::triggers::{check_actions, check_project, require_admin, type_fields};
use super::{Event, Role, Trigger};
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::Channel;
use crate::error::{AppError, AppResult};
use crate::notify::outbox::{self, JobKind};
use crate::service::tickets::write::triggered;
use crate::service::{audit, sla, text, WriteDeps};
use chrono::{DateTime, Duration, TimeZone, Utc};
use entity::values::TicketStatus;
use entity::{ticket, ticket_sla, time_rule, time_rule_fire};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};

/// Time rules at most.
pub const MAX_TIME_RULES: u64 = 100;
/// The longest wait: a year.
pub const MAX_HOURS: i64 = 24 * 366;
/// Tickets read per page of a run.
const PAGE: u64 = 200;
/// Tickets a run looks at before it hands over to the next run.
const MAX_EXAMINED: usize = 1_000;
/// The longest time between two runs of a rule.
const RESCAN: Duration = Duration::minutes(5);
/// How soon a run that stopped at the cap is followed.
const CONTINUE: Duration = Duration::seconds(1);
/// Tickets a dry run counts at most.
pub const MAX_DRY_RUN: u64 = 10_000;

/// The moment of a ticket a wait counts from: after one of the ticket's own moments, or back from an SLA
/// target still pending.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Since {
    /// It was opened.
    Created,
    /// Its last change of any kind (a comment included).
    Updated,
    /// Its status last changed.
    StatusChanged,
    /// It was resolved (only resolved and closed tickets have one).
    Resolved,
    /// Its first response is due (while it is pending under an SLA policy): the wait counts back from it.
    FirstResponseDue,
    /// Its resolution is due (while it is pending under an SLA policy): the wait counts back from it.
    ResolutionDue,
}

impl Since {
    /// The ticket's own moments, spelled `since`.
    const AFTER: [Since; 4] = [
        Since::Created,
        Since::Updated,
        Since::StatusChanged,
        Since::Resolved,
    ];
    /// The SLA targets, spelled `before`.
    const BEFORE: [Since; 2] = [Since::FirstResponseDue, Since::ResolutionDue];

    /// The rules' spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Since::Created => "created",
            Since::Updated => "updated",
            Since::StatusChanged => "status_changed",
            Since::Resolved => "resolved",
            Since::FirstResponseDue => "first_response_due",
            Since::ResolutionDue => "resolution_due",
        }
    }

    /// Whether the wait ends before this moment rather than after it.
    pub fn is_before(self) -> bool {
        Since::BEFORE.contains(&self)
    }

    /// Where the moment is kept: a column of the ticket, or of its SLA clock.
    fn column(self) -> Result<ticket::Column, ticket_sla::Column> {
        match self {
            Since::Created => Ok(ticket::Column::CreatedAt),
            Since::Updated => Ok(ticket::Column::UpdatedAt),
            Since::StatusChanged => Ok(ticket::Column::StatusChangedAt),
            Since::Resolved => Ok(ticket::Column::ResolvedAt),
            Since::FirstResponseDue => Err(ticket_sla::Column::FirstResponseDueAt),
            Since::ResolutionDue => Err(ticket_sla::Column::ResolutionDueAt),
        }
    }

    /// The moment on `t` (read from its SLA clock for a target), when it has one.
    async fn of(
        self,
        db: &impl ConnectionTrait,
        t: &ticket::Model,
    ) -> AppResult<Option<DateTime<Utc>>> {
        if self.column().is_ok() {
            return Ok(self.on_ticket(t));
        }
        Ok(ticket_sla::Entity::find_by_id(t.id)
            .one(db)
            .await?
            .and_then(|clock| self.on_clock(&clock)))
    }

    /// The moment a ticket's own row holds (`None` for an SLA target).
    fn on_ticket(self, t: &ticket::Model) -> Option<DateTime<Utc>> {
        match self {
            Since::Created => Some(t.created_at),
            Since::Updated => Some(t.updated_at),
            Since::StatusChanged => t.status_changed_at,
            Since::Resolved => t.resolved_at,
            Since::FirstResponseDue | Since::ResolutionDue => None,
        }
    }

    /// The target an SLA clock holds (`None` for a ticket's own moment, or a target met or paused).
    fn on_clock(self, clock: &ticket_sla::Model) -> Option<DateTime<Utc>> {
        match self {
            Since::FirstResponseDue => clock.first_response_due_at,
            Since::ResolutionDue => clock.resolution_due_at,
            _ => None,
        }
    }
}

/// A page of tickets a run looks at, in the order of their moment: each with its moment, and where the page
/// ended (the keyset cursor of the next page) and whether more may follow.
struct Page {
    tickets: Vec<(DateTime<Utc>, ticket::Model)>,
    /// Rows the page read (clocks of tickets out of the rule's scope among them).
    read: usize,
    last: Option<(i64, i32)>,
    full: bool,
}

/// How long after which moment a rule acts: `{"since": "status_changed", "hours": 72, "business_hours":
/// true}`. Business hours are those of the ticket's SLA policy (every hour when it has none).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wait {
    /// From when.
    pub since: Since,
    /// How many hours, 1 to a year's.
    pub hours: i64,
    /// Counted in the business hours of the ticket's SLA policy.
    pub business_hours: bool,
}

impl Wait {
    /// Parse and check a wait, errors naming `wait.*`.
    pub fn parse(raw: &Json) -> AppResult<Wait> {
        let Some(map) = raw.as_object() else {
            return Err(AppError::field(
                "wait",
                "must be an object with since and hours",
            ));
        };
        if let Some(key) = map
            .keys()
            .find(|k| !["since", "before", "hours", "business_hours"].contains(&k.as_str()))
        {
            return Err(AppError::field(
                &format!("wait.{key}"),
                "is not a field of a wait",
            ));
        }
        let named = |key: &str, of: &[Since]| {
            map.get(key)
                .and_then(Json::as_str)
                .and_then(|s| of.iter().copied().find(|v| v.as_str() == s))
        };
        let since = match (map.contains_key("since"), map.contains_key("before")) {
            (true, true) => {
                return Err(AppError::field(
                    "wait.before",
                    "give since or before, not both",
                ))
            }
            (false, true) => named("before", &Since::BEFORE).ok_or_else(|| {
                AppError::field(
                    "wait.before",
                    "must be one of: first_response_due, resolution_due",
                )
            })?,
            _ => named("since", &Since::AFTER).ok_or_else(|| {
                AppError::field(
                    "wait.since",
                    "must be one of: created, updated, status_changed, resolved",
                )
            })?,
        };
        let hours = map
            .get("hours")
            .and_then(Json::as_i64)
            .filter(|h| (1..=MAX_HOURS).contains(h))
            .ok_or_else(|| {
                AppError::field(
                    "wait.hours",
                    format!("must be a whole number, 1 to {MAX_HOURS}"),
                )
            })?;
        let business_hours = match map.get("business_hours") {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => {
                return Err(AppError::field(
                    "wait.business_hours",
                    "must be true or false",
                ))
            }
        };
        if business_hours && since.is_before() {
            return Err(AppError::field(
                "wait.business_hours",
                "a wait before an SLA target counts in hours of the clock (the target itself is in business hours)",
            ));
        }
        Ok(Wait {
            since,
            hours,
            business_hours,
        })
    }

    /// The canonical JSON, as stored.
    pub fn to_json(&self) -> Json {
        let key = if self.since.is_before() {
            "before"
        } else {
            "since"
        };
        json!({key: self.since.as_str(), "hours": self.hours, "business_hours": self.business_hours})
    }

    fn length(&self) -> Duration {
        Duration::hours(self.hours)
    }
}

/// A time rule as its runs use it.
#[derive(Clone, Debug)]
pub struct TimeRule {
    /// The stored row's generation: a run queued for another does nothing.
    pub generation: i32,
    /// The wait.
    pub wait: Wait,
    /// Its id, name, scope, conditions and actions, run as a trigger's.
    pub rule: Trigger,
}

impl TimeRule {
    /// Parse a stored row.
    pub fn from_row(row: &time_rule::Model) -> AppResult<TimeRule> {
        Ok(TimeRule {
            generation: row.generation,
            wait: Wait::parse(&row.wait)?,
            rule: Trigger {
                id: row.id,
                name: row.name.clone(),
                project_id: row.project_id,
                conditions: Conditions::parse(&row.conditions)?,
                actions: parse_actions(&row.actions)?,
                kind: "time_rule",
            },
        })
    }

    /// The statuses a ticket can match in: those the conditions name, never closed.
    fn statuses(&self) -> Vec<TicketStatus> {
        let named = self.rule.conditions.statuses();
        TicketStatus::ALL
            .iter()
            .copied()
            .filter(|s| *s != TicketStatus::Closed)
            .filter(|s| {
                named
                    .as_ref()
                    .is_none_or(|n| n.iter().any(|x| x == s.as_str()))
            })
            .collect()
    }

    /// The tickets whose wait may have ended at `now`, in the order of their moment after the keyset
    /// cursor `after`, at most `limit`: live, in the scope and statuses (business hours only lengthen a wait).
    /// A ticket's own moment is walked by its index on the ticket; an SLA target by the pending clocks' index,
    /// the tickets then read by id.
    async fn page(
        &self,
        db: &impl ConnectionTrait,
        now: DateTime<Utc>,
        after: Option<(i64, i32)>,
        limit: u64,
    ) -> AppResult<Page> {
        let live = |query: sea_orm::Select<ticket::Entity>| {
            let query = query
                .filter(ticket::Column::ArchivedAt.is_null())
                .filter(ticket::Column::Status.is_in(self.statuses()));
            match self.rule.project_id {
                Some(p) => query.filter(ticket::Column::ProjectId.eq(p)),
                None => query,
            }
        };
        let since = self.wait.since;
        // The tickets with their moments, how many rows were read, and the last row's place.
        let (tickets, read, last) = match since.column() {
            Ok(column) => {
                let mut query = live(ticket::Entity::find())
                    .filter(column.lte(self.latest_moment(now)))
                    .order_by_asc(column)
                    .order_by_asc(ticket::Column::Id);
                if let Some((us, id)) = after {
                    query = query.filter(keyset(column, ticket::Column::Id, us, id));
                }
                let rows = query.limit(limit).all(db).await?;
                let last = rows
                    .last()
                    .and_then(|t| since.on_ticket(t).map(|m| (m.timestamp_micros(), t.id)));
                let read = rows.len();
                let tickets: Vec<_> = rows
                    .into_iter()
                    .filter_map(|t| since.on_ticket(&t).map(|m| (m, t)))
                    .collect();
                (tickets, read, last)
            }
            Err(column) => {
                let mut query = ticket_sla::Entity::find()
                    .filter(column.lte(self.latest_moment(now)))
                    .order_by_asc(column)
                    .order_by_asc(ticket_sla::Column::TicketId);
                if let Some((us, id)) = after {
                    query = query.filter(keyset(column, ticket_sla::Column::TicketId, us, id));
                }
                let clocks = query.limit(limit).all(db).await?;
                let ids: Vec<i32> = clocks.iter().map(|c| c.ticket_id).collect();
                let mut found: std::collections::HashMap<i32, ticket::Model> =
                    live(ticket::Entity::find())
                        .filter(ticket::Column::Id.is_in(ids))
                        .all(db)
                        .await?
                        .into_iter()
                        .map(|t| (t.id, t))
                        .collect();
                let last = clocks.last().and_then(|c| {
                    since
                        .on_clock(c)
                        .map(|m| (m.timestamp_micros(), c.ticket_id))
                });
                let tickets: Vec<_> = clocks
                    .iter()
                    .filter_map(|c| Some((since.on_clock(c)?, found.remove(&c.ticket_id)?)))
                    .collect();
                (tickets, clocks.len(), last)
            }
        };
        Ok(Page {
            tickets,
            read,
            last: last.or(after),
            full: read as u64 == limit,
        })
    }

    /// The latest moment whose wait has ended by `now` (business hours aside, which only lengthen it).
    fn latest_moment(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        if self.wait.since.is_before() {
            now + self.wait.length()
        } else {
            now - self.wait.length()
        }
    }

    /// When the wait from `moment` ends, in wall-clock hours.
    fn ends(&self, moment: DateTime<Utc>) -> DateTime<Utc> {
        if self.wait.since.is_before() {
            moment - self.wait.length()
        } else {
            moment + self.wait.length()
        }
    }

    /// The first moment whose wait has not ended at `now`, among the live tickets in the scope and statuses
    /// (for an SLA target, among the pending clocks: the ticket is judged when the run comes).
    async fn next_moment(
        &self,
        db: &impl ConnectionTrait,
        now: DateTime<Utc>,
    ) -> AppResult<Option<DateTime<Utc>>> {
        let latest = self.latest_moment(now);
        let next = match self.wait.since.column() {
            Ok(column) => {
                let mut next = ticket::Entity::find()
                    .select_only()
                    .column_as(column.min(), "next")
                    .filter(ticket::Column::ArchivedAt.is_null())
                    .filter(ticket::Column::Status.is_in(self.statuses()))
                    .filter(column.gt(latest));
                if let Some(p) = self.rule.project_id {
                    next = next.filter(ticket::Column::ProjectId.eq(p));
                }
                next.into_tuple::<Option<DateTime<Utc>>>().one(db).await?
            }
            Err(column) => {
                ticket_sla::Entity::find()
                    .select_only()
                    .column_as(column.min(), "next")
                    .filter(column.gt(latest))
                    .into_tuple::<Option<DateTime<Utc>>>()
                    .one(db)
                    .await?
            }
        };
        Ok(next.flatten())
    }

    /// Whether the rule holds for `t` at `now`: its wait has passed (in business hours when asked) and its
    /// conditions hold. Returns the moment the wait counted from.
    async fn holds(
        &self,
        deps: WriteDeps<'_>,
        t: &ticket::Model,
        now: DateTime<Utc>,
    ) -> AppResult<Option<DateTime<Utc>>> {
        let Some(moment) = self.wait.since.of(&deps.db.conn, t).await? else {
            return Ok(None);
        };
        if t.archived_at.is_some()
            || t.status == TicketStatus::Closed
            || (moment > now && !self.wait.since.is_before())
        {
            return Ok(None);
        }
        let tags = if self.rule.conditions.uses_tags() {
            crate::service::tags::names_of(&deps.db.conn, t.id).await?
        } else {
            Vec::new()
        };
        let keys = super::fields::named([&self.rule.conditions]);
        let fields = super::fields::asked(&deps.db.conn, deps.fields, &keys, t, None).await?;
        let facts = Facts {
            event: Event::Updated,
            channel: Channel::Rule,
            role: Role::System,
            groups: &[],
            comment_internal: None,
            sla_target: None,
            business_hours: true,
            tags: &tags,
            fields: &fields,
            fields_before: &fields,
            before: Some(t),
            after: t,
        };
        if !self.rule.fires(&facts) {
            return Ok(None);
        }
        let ends = if self.wait.business_hours {
            let policies = deps
                .policies
                .for_priority(&deps.db.conn, t.priority)
                .await?;
            match sla::policies::matching(&policies, t.priority, t.project_id, t.assigned_group_id)
            {
                Some(policy) => policy.calendar.add(moment, self.wait.length()),
                None => Some(self.ends(moment)),
            }
        } else {
            Some(self.ends(moment))
        };
        Ok(ends.filter(|end| *end <= now).map(|_| moment))
    }
}

/// A scheduled run's payload: the rule, its generation, and where the last run stopped at the cap.
#[derive(Debug, Serialize, Deserialize)]
struct RunRow {
    rule: i32,
    generation: i32,
    /// The keyset cursor: the last moment read, in microseconds as the database keeps it (a cursor cut to
    /// milliseconds reads that row again, and a page of rows within one millisecond for ever), and its ticket.
    #[serde(default, rename = "after_us")]
    after: Option<(i64, i32)>,
    /// The cursor in milliseconds, as runs queued by earlier versions carry it.
    #[serde(default, rename = "after", skip_serializing)]
    after_ms: Option<(i64, i32)>,
}

impl RunRow {
    /// Where this run starts: after its cursor, if it has one.
    fn cursor(&self) -> Option<(i64, i32)> {
        self.after
            .or_else(|| self.after_ms.map(|(ms, id)| (ms.saturating_mul(1_000), id)))
    }
}

fn run_row(run: &RunRow, due: DateTime<Utc>) -> AppResult<entity::outbox::ActiveModel> {
    let payload = serde_json::to_string(run).map_err(AppError::internal)?;
    let mut row = outbox::row(
        JobKind::TimeRule,
        &outbox::new_event_id(),
        "time_rule",
        None,
        payload,
    );
    row.due_at_ms = Set(due.timestamp_millis());
    Ok(row)
}

/// Queue the first run of `rule` (generation `generation`), due now, in `db` (a rule's save).
async fn schedule(db: &impl ConnectionTrait, rule: i32, generation: i32) -> AppResult<()> {
    let run = RunRow {
        rule,
        generation,
        after: None,
        after_ms: None,
    };
    run_row(&run, Utc::now())?.insert(db).await?;
    Ok(())
}

/// Rows after the keyset cursor (`us`, `id`) in the order of (`moment`, `key`).
fn keyset(moment: impl ColumnTrait, key: impl ColumnTrait, us: i64, id: i32) -> Condition {
    let at = Utc.timestamp_micros(us).single().unwrap_or_default();
    Condition::any()
        .add(moment.gt(at))
        .add(Condition::all().add(moment.eq(at)).add(key.gt(id)))
}

/// Run a scheduled run at `now` (the worker's clock): fire the rule on every ticket whose wait has passed
/// and that it has not fired on from the same moment, then queue the next run. A run of a rule deleted,
/// switched off or changed since does nothing and queues nothing (the change queued its own).
pub async fn run(deps: WriteDeps<'_>, payload: &str, now: DateTime<Utc>) -> AppResult<()> {
    let Ok(run) = serde_json::from_str::<RunRow>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!(
            "unreadable time rule run"
        )));
    };
    let Some(row) = time_rule::Entity::find_by_id(run.rule)
        .one(&deps.db.conn)
        .await?
    else {
        return Ok(());
    };
    if !row.active || row.generation != run.generation {
        return Ok(());
    }
    let rule = match TimeRule::from_row(&row) {
        Ok(rule) => rule,
        Err(e) => {
            tracing::warn!(time_rule = row.id, error = %e, "stored time rule does not parse; not run");
            return Ok(());
        }
    };
    let mut after = run.cursor();
    let mut examined = 0usize;
    let mut capped = false;
    loop {
        let page = rule.page(&deps.db.conn, now, after, PAGE).await?;
        let ids: Vec<i32> = page.tickets.iter().map(|(_, t)| t.id).collect();
        let fired: std::collections::HashMap<i32, i64> = time_rule_fire::Entity::find()
            .filter(time_rule_fire::Column::RuleId.eq(rule.rule.id))
            .filter(time_rule_fire::Column::TicketId.is_in(ids))
            .all(&deps.db.conn)
            .await?
            .into_iter()
            .map(|f| (f.ticket_id, f.anchor_ms))
            .collect();
        examined += page.read;
        for (moment, t) in &page.tickets {
            if fired.get(&t.id) == Some(&moment.timestamp_millis()) {
                continue;
            }
            if rule.holds(deps, t, now).await?.is_some() {
                // One ticket the rule cannot act on (its actions fail there) does not hold up the others;
                // it is not marked fired, so the next run tries it again.
                if let Err(e) = fire(deps, &rule, t.id, now).await {
                    metrics::counter!("time_rule_failures_total").increment(1);
                    tracing::warn!(time_rule = rule.rule.id, ticket = t.id, error = %e, "time rule could not act");
                }
            }
        }
        after = page.last;
        if !page.full {
            after = None;
            break;
        }
        if examined >= MAX_EXAMINED {
            capped = true;
            break;
        }
    }
    let due = if capped {
        metrics::counter!("time_rule_runs_capped_total").increment(1);
        now + CONTINUE
    } else {
        // The oldest moment not yet old enough: its wait ends first (business hours end it later, found by
        // the run then or at the next rescan).
        let rescan = now + RESCAN;
        rule.next_moment(&deps.db.conn, now)
            .await?
            .map_or(rescan, |m| rule.ends(m).min(rescan))
            .max(now + CONTINUE)
    };
    let next = RunRow {
        rule: run.rule,
        generation: run.generation,
        after,
        after_ms: None,
    };
    run_row(&next, due)?.insert(&deps.db.conn).await?;
    Ok(())
}

/// Fire `rule` on ticket `id` in its own transaction: the row is locked and judged again (it may have
/// changed since the scan), and the firing claimed in `time_rule_fires`. Only the first of two instances
/// racing claims it; the other's transaction changes nothing.
async fn fire(deps: WriteDeps<'_>, rule: &TimeRule, id: i32, now: DateTime<Utc>) -> AppResult<()> {
    let txn = deps.db.begin_write().await?;
    let Some(current) = ticket::Entity::find_by_id(id)
        .lock_exclusive()
        .one(&txn)
        .await?
    else {
        return Ok(());
    };
    let Some(moment) = rule.holds(deps, &current, now).await? else {
        return Ok(());
    };
    use time_rule_fire::Column as C;
    let claimed = time_rule_fire::Entity::insert(time_rule_fire::ActiveModel {
        rule_id: Set(rule.rule.id),
        ticket_id: Set(id),
        anchor_ms: Set(moment.timestamp_millis()),
        fired_at: Set(Utc::now()),
    })
    .on_conflict(
        OnConflict::columns([C::RuleId, C::TicketId])
            .update_columns([C::AnchorMs, C::FiredAt])
            .action_and_where(Expr::cust(
                "time_rule_fires.anchor_ms <> excluded.anchor_ms",
            ))
            .to_owned(),
    )
    .exec_without_returning(&txn)
    .await?;
    if claimed == 0 {
        return Ok(());
    }
    let before = current.clone();
    let ran = triggered::by_time_rule(&txn, deps, &rule.rule, current).await?;
    txn.commit().await?;
    ran.publish(deps, &before).await;
    Ok(())
}

/// What a dry run found: the tickets the rule would act on now, counted up to `MAX_DRY_RUN`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DryRun {
    /// Tickets it would act on now.
    pub matching: u64,
    /// Tickets looked at.
    pub examined: u64,
    /// Whether the count stopped at the cap (there may be more).
    pub capped: bool,
}

/// Count the open tickets `rule` would act on now, changing nothing (administrators only). Tickets it has
/// already acted on from the same moment are not counted.
pub async fn dry_run(deps: WriteDeps<'_>, actor: &Actor, id: i32) -> AppResult<DryRun> {
    let row = get(deps.db, actor, id).await?;
    let rule = TimeRule::from_row(&row)?;
    let now = Utc::now();
    let page = rule.page(&deps.db.conn, now, None, MAX_DRY_RUN + 1).await?;
    let capped = page.read as u64 > MAX_DRY_RUN;
    let ids: Vec<i32> = page.tickets.iter().map(|(_, t)| t.id).collect();
    let fired: std::collections::HashMap<i32, i64> = time_rule_fire::Entity::find()
        .filter(time_rule_fire::Column::RuleId.eq(id))
        .filter(time_rule_fire::Column::TicketId.is_in(ids))
        .all(&deps.db.conn)
        .await?
        .into_iter()
        .map(|f| (f.ticket_id, f.anchor_ms))
        .collect();
    let mut matching = 0;
    let mut examined = 0;
    for (_, t) in page.tickets.iter().take(MAX_DRY_RUN as usize) {
        examined += 1;
        if let Some(moment) = rule.holds(deps, t, now).await? {
            if fired.get(&t.id) != Some(&moment.timestamp_millis()) {
                matching += 1;
            }
        }
    }
    Ok(DryRun {
        matching,
        examined,
        capped,
    })
}

/// Fields of a new time rule.
#[derive(Debug, Clone)]
pub struct NewTimeRule {
    /// 1-200 characters.
    pub name: String,
    /// Only tickets of this project.
    pub project_id: Option<i32>,
    /// Defaults to true.
    pub active: Option<bool>,
    /// `{"since": ..., "hours": ..., "business_hours": ...}`.
    pub wait: Json,
    /// `{"all": [...], "any": [...]}` on the ticket's fields.
    pub conditions: Json,
    /// The triggers' actions.
    pub actions: Json,
}

/// A change to a time rule; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct TimeRulePatch {
    /// New name.
    pub name: Option<String>,
    /// New project scope, or none.
    pub project_id: Option<Option<i32>>,
    /// Switch on or off.
    pub active: Option<bool>,
    /// New wait.
    pub wait: Option<Json>,
    /// New conditions.
    pub conditions: Option<Json>,
    /// New actions.
    pub actions: Option<Json>,
}

async fn conditions_of(db: &impl ConnectionTrait, raw: &Json) -> AppResult<Conditions> {
    let mut conditions = Conditions::parse(raw)?;
    conditions.ticket_only()?;
    type_fields(db, Some(&mut conditions), &mut []).await?;
    Ok(conditions)
}

/// Every time rule, oldest first; administrators only.
pub async fn list(db: &Db, actor: &Actor) -> AppResult<Vec<time_rule::Model>> {
    require_admin(actor)?;
    Ok(time_rule::Entity::find()
        .order_by_asc(time_rule::Column::Id)
        .limit(MAX_TIME_RULES)
        .all(&db.conn)
        .await?)
}

/// One time rule; administrators only.
pub async fn get(db: &Db, actor: &Actor, id: i32) -> AppResult<time_rule::Model> {
    require_admin(actor)?;
    time_rule::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("time rule"))
}

/// Save a new time rule, checked (a 400 naming the path of what does not fit), and queue its first run.
pub async fn create(db: &Db, actor: &Actor, input: NewTimeRule) -> AppResult<time_rule::Model> {
    require_admin(actor)?;
    let name = text::required_line("name", &input.name)?;
    let wait = Wait::parse(&input.wait)?;
    let conditions = conditions_of(&db.conn, &input.conditions).await?;
    let mut actions = parse_actions(&input.actions)?;
    type_fields(&db.conn, None, &mut actions).await?;
    check_actions(&db.conn, &actions).await?;
    if let Some(p) = input.project_id {
        check_project(&db.conn, "project", p).await?;
    }
    let now = Utc::now();
    let txn = db.begin_write().await?;
    if time_rule::Entity::find().count(&txn).await? >= MAX_TIME_RULES {
        return Err(AppError::bad_request(format!(
            "there are {MAX_TIME_RULES} time rules already; delete one first"
        )));
    }
    let created = time_rule::ActiveModel {
        name: Set(name),
        project_id: Set(input.project_id),
        active: Set(input.active.unwrap_or(true)),
        wait: Set(wait.to_json()),
        conditions: Set(conditions.to_json()),
        actions: Set(actions_to_json(&actions)),
        generation: Set(1),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "time_rule", created.id, "create").changes(json!({
            "name": [null, created.name],
            "project_id": [null, created.project_id],
            "active": [null, created.active],
            "wait": [null, created.wait],
            "conditions": [null, created.conditions],
            "actions": [null, created.actions],
        })),
    )
    .await?;
    if created.active {
        schedule(&txn, created.id, created.generation).await?;
    }
    txn.commit().await?;
    Ok(created)
}

/// Change a time rule, checked as [`create`] checks. A change starts a new generation: runs queued before
/// it do nothing, and the rule runs from now with what it says now.
pub async fn update(
    db: &Db,
    actor: &Actor,
    id: i32,
    patch: TimeRulePatch,
) -> AppResult<time_rule::Model> {
    let current = get(db, actor, id).await?;
    let mut changes = audit::Changes::new();
    let mut row: time_rule::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        let name = text::required_line("name", name)?;
        changes.diff("name", &current.name, &name);
        row.name = Set(name);
    }
    if let Some(project) = patch.project_id {
        if let Some(p) = project.filter(|p| current.project_id != Some(*p)) {
            check_project(&db.conn, "project", p).await?;
        }
        changes.diff("project_id", &current.project_id, &project);
        row.project_id = Set(project);
    }
    if let Some(on) = patch.active {
        changes.diff("active", &current.active, &on);
        row.active = Set(on);
    }
    if let Some(raw) = &patch.wait {
        let wait = Wait::parse(raw)?.to_json();
        changes.diff("wait", &current.wait, &wait);
        row.wait = Set(wait);
    }
    if let Some(raw) = &patch.conditions {
        let conditions = conditions_of(&db.conn, raw).await?.to_json();
        changes.diff("conditions", &current.conditions, &conditions);
        row.conditions = Set(conditions);
    }
    if let Some(raw) = &patch.actions {
        let mut actions = parse_actions(raw)?;
        type_fields(&db.conn, None, &mut actions).await?;
        check_actions(&db.conn, &actions).await?;
        let actions = actions_to_json(&actions);
        changes.diff("actions", &current.actions, &actions);
        row.actions = Set(actions);
    }
    if changes.is_empty() {
        return Ok(current);
    }
    let generation = current.generation.saturating_add(1);
    row.generation = Set(generation);
    row.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let saved = row.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "time_rule", id, "update")
            .changes(changes.into_value()),
    )
    .await?;
    if saved.active {
        schedule(&txn, saved.id, generation).await?;
    }
    txn.commit().await?;
    Ok(saved)
}

/// Remove a time rule. What it did stays in the tickets' history.
pub async fn delete(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    let current = get(db, actor, id).await?;
    let txn = db.begin_write().await?;
    time_rule_fire::Entity::delete_many()
        .filter(time_rule_fire::Column::RuleId.eq(id))
        .exec(&txn)
        .await?;
    time_rule::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "time_rule", id, "delete")
            .changes(json!({ "name": [current.name, null] })),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_queued_with_a_cursor_in_milliseconds_starts_where_it_stopped() -> serde_json::Result<()>
    {
        let old: RunRow =
            serde_json::from_str(r#"{"rule":1,"generation":2,"after":[1700000000123,5]}"#)?;
        assert_eq!(old.cursor(), Some((1_700_000_000_123_000, 5)));
        let next = RunRow {
            rule: 1,
            generation: 2,
            after: Some((1_700_000_000_123_456, 5)),
            after_ms: None,
        };
        let written = serde_json::to_string(&next)?;
        assert_eq!(
            written,
            r#"{"rule":1,"generation":2,"after_us":[1700000000123456,5]}"#
        );
        let read: RunRow = serde_json::from_str(&written)?;
        assert_eq!(read.cursor(), Some((1_700_000_000_123_456, 5)));
        Ok(())
    }
}
