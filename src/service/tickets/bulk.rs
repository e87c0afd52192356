//! Bulk changes: the same change to many tickets (named, or found by a filter), made by the worker ticket by
//! ticket as the person who asked, each with the checks and records a change by hand has, in its own
//! transaction, so a bulk change can partly succeed.
//!
//! The job row keeps the tickets (a filter is resolved when the change is asked for), how many were tried,
//! and the failures. The worker takes a chunk per outbox row and queues the next; a run holds the job by
//! `locked_until_ms`, so two never work on it at once, and a restarted instance resumes from the saved
//! position. A ticket tried again after a crash gets the same change again, which changes nothing the
//! second time, so no ticket is changed twice.
use super::{update, TicketFilter, TicketPatch, TicketReads};
use crate::auth::{load_actor, Actor};
use crate::db::Db;
use crate::domain::Channel;
use crate::error::{AppError, AppResult};
use crate::notify::live::{Held, Lasting, LiveBus};
use crate::notify::outbox::{self, JobKind};
use crate::service::ticket_events::Subscriber;
use crate::service::{tags, WriteDeps};
use chrono::{DateTime, NaiveDate, Utc};
use entity::bulk_job;
use entity::values::{BulkStatus, Priority, TicketStatus};
use futures_util::Stream;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value as Json};
use std::time::Duration;

/// Tickets one bulk change may name or find.
pub const MAX_TICKETS: usize = 10_000;
/// Bulk changes a person may have unfinished at once.
pub const MAX_UNFINISHED: u64 = 3;
/// Tickets per worker run.
const CHUNK: usize = 200;
/// Failures kept on the job (the count goes on).
const MAX_FAILURES: usize = 1_000;
/// How long a run holds its job.
const HOLD_MS: i64 = 120_000;

/// The fields a bulk change may set, in the REST spelling, and the tag lists it may add or remove.
const FIELDS: [&str; 8] = [
    "status",
    "priority",
    "assigned_to",
    "assigned_group",
    "project",
    "due_date",
    "add_tags",
    "remove_tags",
];

/// What a bulk change does to each ticket: its fields, then its tags.
#[derive(Debug, Clone, Default)]
pub struct BulkChange {
    /// The fields to set.
    pub patch: TicketPatch,
    /// Tags to put on (normalised).
    pub add_tags: Vec<String>,
    /// Tags to take off (normalised).
    pub remove_tags: Vec<String>,
}

/// Which tickets.
#[derive(Debug, Clone)]
pub enum Target {
    /// These, by id (1 to 10,000).
    Ids(Vec<i32>),
    /// Every visible live ticket this finds (at most 10,000).
    Filter(TicketFilter),
}

/// Read the change: `{"status": …, "priority": …, "assigned_to": id|null, "assigned_group": id|null,
/// "project": id|null, "due_date": "YYYY-MM-DD"|null, "add_tags": [...], "remove_tags": [...]}`, at least one,
/// errors naming `changes.<field>`.
pub fn parse_changes(raw: &Json) -> AppResult<BulkChange> {
    let Some(map) = raw.as_object() else {
        return Err(AppError::field("changes", "must be an object"));
    };
    if let Some(key) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(AppError::field(
            &format!("changes.{key}"),
            format!("a bulk change sets only: {}", FIELDS.join(", ")),
        ));
    }
    if map.is_empty() {
        return Err(AppError::field("changes", "name at least one field to set"));
    }
    let path = |k: &str| format!("changes.{k}");
    let text = |k: &str| -> AppResult<Option<&str>> {
        match map.get(k) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(AppError::field(&path(k), "must be a string")),
        }
    };
    let id = |k: &str| -> AppResult<Option<Option<i32>>> {
        match map.get(k) {
            None => Ok(None),
            Some(Json::Null) => Ok(Some(None)),
            Some(v) => v
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .filter(|n| *n > 0)
                .map(|n| Some(Some(n)))
                .ok_or_else(|| AppError::field(&path(k), "must be an id or null")),
        }
    };
    let status = text("status")?
        .map(|s| {
            TicketStatus::parse(s).map_err(|e| AppError::field(&path("status"), e.to_string()))
        })
        .transpose()?;
    let priority = text("priority")?
        .map(|s| Priority::parse(s).map_err(|e| AppError::field(&path("priority"), e.to_string())))
        .transpose()?;
    let due_date = match map.get("due_date") {
        None => None,
        Some(Json::Null) => Some(None),
        Some(Json::String(s)) => Some(Some(
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map_err(|_| AppError::field(&path("due_date"), "must be YYYY-MM-DD or null"))?,
        )),
        Some(_) => {
            return Err(AppError::field(
                &path("due_date"),
                "must be YYYY-MM-DD or null",
            ))
        }
    };
    let names = |k: &str| -> AppResult<Vec<String>> {
        match map.get(k) {
            None => Ok(Vec::new()),
            Some(Json::Array(items)) => {
                let names: Vec<&str> = items
                    .iter()
                    .map(Json::as_str)
                    .collect::<Option<_>>()
                    .ok_or_else(|| AppError::field(&path(k), "must be a list of tag names"))?;
                tags::normalise_all(&path(k), &names)
            }
            Some(_) => Err(AppError::field(&path(k), "must be a list of tag names")),
        }
    };
    let change = BulkChange {
        patch: TicketPatch {
            status,
            priority,
            assignee_id: id("assigned_to")?,
            assigned_group_id: id("assigned_group")?,
            project_id: id("project")?,
            due_date,
            ..Default::default()
        },
        add_tags: names("add_tags")?,
        remove_tags: names("remove_tags")?,
    };
    if change.patch.fields().is_empty()
        && change.add_tags.is_empty()
        && change.remove_tags.is_empty()
    {
        return Err(AppError::field("changes", "name at least one field to set"));
    }
    Ok(change)
}

/// One ticket's share of a bulk change, as a change by hand: its fields, then its tags.
async fn apply(deps: WriteDeps<'_>, actor: &Actor, id: i32, change: &BulkChange) -> AppResult<()> {
    if !change.patch.fields().is_empty() {
        update(deps, actor, id, change.patch.clone()).await?;
    }
    if !change.add_tags.is_empty() {
        tags::change(deps, actor, id, tags::Edit::Add(change.add_tags.clone())).await?;
    }
    if !change.remove_tags.is_empty() {
        tags::change(
            deps,
            actor,
            id,
            tags::Edit::Remove(change.remove_tags.clone()),
        )
        .await?;
    }
    Ok(())
}

/// The change as stored and shown (only what it sets).
pub fn changes_json(change: &BulkChange) -> Json {
    let patch = &change.patch;
    let mut map = Map::new();
    if !change.add_tags.is_empty() {
        map.insert("add_tags".into(), json!(change.add_tags));
    }
    if !change.remove_tags.is_empty() {
        map.insert("remove_tags".into(), json!(change.remove_tags));
    }
    if let Some(s) = patch.status {
        map.insert("status".into(), json!(s.as_str()));
    }
    if let Some(p) = patch.priority {
        map.insert("priority".into(), json!(p.as_str()));
    }
    for (key, value) in [
        ("assigned_to", patch.assignee_id),
        ("assigned_group", patch.assigned_group_id),
        ("project", patch.project_id),
    ] {
        if let Some(v) = value {
            map.insert(key.into(), json!(v));
        }
    }
    if let Some(d) = patch.due_date {
        map.insert(
            "due_date".into(),
            json!(d.map(|d| d.format("%Y-%m-%d").to_string())),
        );
    }
    Json::Object(map)
}

/// A failure of one ticket, as the job keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The ticket.
    pub ticket_id: i32,
    /// The error code (`forbidden`, `not_found`, `invalid_transition`, …).
    pub code: String,
    /// Why.
    pub message: String,
}

/// The failures kept on `job`.
pub fn failures(job: &bulk_job::Model) -> Vec<Failure> {
    serde_json::from_value(job.failures.clone()).unwrap_or_default()
}

/// The tickets of `job`.
fn ticket_ids(job: &bulk_job::Model) -> Vec<i32> {
    serde_json::from_value(job.ticket_ids.clone()).unwrap_or_default()
}

/// How many tickets `job` names.
pub fn total(job: &bulk_job::Model) -> usize {
    job.ticket_ids.as_array().map_or(0, Vec::len)
}

/// A run's payload: the job, and the door it was asked for through (what rules see as the channel).
#[derive(Debug, Serialize, Deserialize)]
struct RunRow {
    job: i32,
    #[serde(default)]
    channel: Option<String>,
}

impl RunRow {
    fn channel(&self) -> Channel {
        Channel::ALL
            .iter()
            .copied()
            .find(|c| Some(c.as_str()) == self.channel.as_deref())
            .unwrap_or(Channel::System)
    }
}

fn run_row(job: i32, channel: Channel) -> AppResult<entity::outbox::ActiveModel> {
    let row = RunRow {
        job,
        channel: Some(channel.as_str().to_string()),
    };
    let payload = serde_json::to_string(&row).map_err(AppError::internal)?;
    Ok(outbox::row(
        JobKind::BulkChange,
        &outbox::new_event_id(),
        "bulk_change",
        None,
        payload,
    ))
}

/// Ask for a bulk change as `actor` (a team member): the tickets are fixed now (a filter finds what the
/// actor may see), the change is checked, and the job is queued. Answers the job, queued.
pub async fn start(
    db: &Db,
    reads: &TicketReads,
    channel: Channel,
    actor: &Actor,
    target: Target,
    changes: &Json,
) -> AppResult<bulk_job::Model> {
    if !actor.is_team() {
        return Err(AppError::forbidden(
            "only team members may change tickets in bulk",
        ));
    }
    let patch = parse_changes(changes)?;
    let ids = match target {
        Target::Ids(ids) => {
            if ids.is_empty() || ids.len() > MAX_TICKETS {
                return Err(AppError::field(
                    "ids",
                    format!("name 1 to {MAX_TICKETS} tickets"),
                ));
            }
            let mut seen = std::collections::HashSet::new();
            ids.into_iter().filter(|id| seen.insert(*id)).collect()
        }
        Target::Filter(filter) => {
            let found = reads
                .ids(db, actor, &filter, MAX_TICKETS as u64 + 1)
                .await?;
            if found.len() > MAX_TICKETS {
                return Err(AppError::field(
                    "filter",
                    format!("more than {MAX_TICKETS} tickets match: narrow the filter"),
                ));
            }
            found
        }
    };
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let unfinished = bulk_job::Entity::find()
        .filter(bulk_job::Column::OwnerId.eq(actor.id()))
        .filter(bulk_job::Column::Status.ne(BulkStatus::Done))
        .count(&txn)
        .await?;
    if unfinished >= MAX_UNFINISHED {
        return Err(AppError::bad_request(format!(
            "you have {MAX_UNFINISHED} bulk changes under way; wait for one to finish"
        )));
    }
    let done = ids.is_empty();
    let job = bulk_job::ActiveModel {
        owner_id: Set(actor.id()),
        status: Set(if done {
            BulkStatus::Done
        } else {
            BulkStatus::Queued
        }),
        changes: Set(changes_json(&patch)),
        ticket_ids: Set(json!(ids)),
        processed: Set(0),
        failed: Set(0),
        failures: Set(json!([])),
        locked_until_ms: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
        finished_at: Set(done.then_some(now)),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    if !done {
        run_row(job.id, channel)?.insert(&txn).await?;
    }
    txn.commit().await?;
    Ok(job)
}

/// A bulk change, to the person who asked for it or an administrator (anyone else: not found).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<bulk_job::Model> {
    bulk_job::Entity::find_by_id(id)
        .one(db)
        .await?
        .filter(|job| job.owner_id == actor.id() || actor.is_admin())
        .ok_or_else(|| AppError::not_found("job"))
}

/// How often a followed bulk change is read again: the job may be worked on by any instance, so its progress
/// is read from the database rather than heard.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// Follow bulk change `id` as `actor`, the `subscriber` (the `bulkJob` subscription): the job as it
/// is now, then again each time its status or counts move (read every second), ending after it is done.
/// NOT_FOUND for a job `actor` may not read ([`get`]); it takes one of the user's subscription places until
/// dropped, and ends with UNAUTHENTICATED once the credential no longer resolves.
pub async fn follow(
    live: &LiveBus,
    subscriber: Subscriber,
    actor: &Actor,
    id: i32,
) -> AppResult<impl Stream<Item = AppResult<bulk_job::Model>> + Send + 'static> {
    let first = get(&subscriber.db.conn, actor, id).await?;
    let place = live.hold(actor.id(), Lasting::Subscription)?;
    let progress = Progress {
        subscriber,
        id,
        first: Some(first),
        last: None,
        ended: false,
        _place: place,
    };
    Ok(futures_util::stream::unfold(progress, |mut p| async move {
        let next = p.next().await?;
        Some((next, p))
    }))
}

/// A followed bulk change: what was last told, and the subscriber's place.
struct Progress {
    subscriber: Subscriber,
    id: i32,
    /// The job as read when the subscription started, told first.
    first: Option<bulk_job::Model>,
    /// Status, processed and failed as last told.
    last: Option<(BulkStatus, i32, i32)>,
    ended: bool,
    _place: Held,
}

impl Progress {
    /// The job once it moved since it was last told, or the error that ends the subscription; `None` after the
    /// job was told done.
    async fn next(&mut self) -> Option<AppResult<bulk_job::Model>> {
        if self.ended {
            return None;
        }
        loop {
            let read = match self.first.take() {
                Some(job) => Ok(job),
                None => {
                    tokio::time::sleep(FOLLOW_EVERY).await;
                    match self.subscriber.resolve().await {
                        Ok(actor) => get(&self.subscriber.db.conn, &actor, self.id).await,
                        Err(err) => Err(err),
                    }
                }
            };
            match read {
                Ok(job) => {
                    let seen = (job.status, job.processed, job.failed);
                    if self.last == Some(seen) {
                        continue;
                    }
                    self.last = Some(seen);
                    self.ended = job.status == BulkStatus::Done;
                    return Some(Ok(job));
                }
                Err(err @ (AppError::Unauthenticated(_) | AppError::NotFound(_))) => {
                    self.ended = true;
                    return Some(Err(err));
                }
                // The database briefly away: read again at the next tick.
                Err(err) => tracing::warn!(error = %err, job = self.id, "bulk change not read"),
            }
        }
    }
}

/// Run the next chunk of a bulk change at `now` (the worker): each ticket changed as its owner would change
/// it by hand, the progress saved after each, and the next chunk queued. A job that is done is left alone.
/// Returns false when another run holds the job: this row is to be tried again later (the holder may have
/// died; its hold then runs out).
pub async fn run(deps: WriteDeps<'_>, payload: &str, now: DateTime<Utc>) -> AppResult<bool> {
    let Ok(row) = serde_json::from_str::<RunRow>(payload) else {
        return Err(AppError::internal(anyhow::anyhow!(
            "unreadable bulk change"
        )));
    };
    let channel = row.channel();
    let deps = WriteDeps { channel, ..deps };
    let db = &deps.db.conn;
    let now_ms = now.timestamp_millis();
    let held = bulk_job::Entity::update_many()
        .col_expr(
            bulk_job::Column::LockedUntilMs,
            Expr::value(now_ms + HOLD_MS),
        )
        .col_expr(
            bulk_job::Column::Status,
            Expr::value(BulkStatus::Running.as_str()),
        )
        .filter(bulk_job::Column::Id.eq(row.job))
        .filter(bulk_job::Column::Status.ne(BulkStatus::Done))
        .filter(bulk_job::Column::LockedUntilMs.lte(now_ms))
        .exec(db)
        .await?
        .rows_affected;
    if held == 0 {
        let unfinished = bulk_job::Entity::find_by_id(row.job)
            .one(db)
            .await?
            .is_some_and(|job| job.status != BulkStatus::Done);
        return Ok(!unfinished);
    }
    let Some(job) = bulk_job::Entity::find_by_id(row.job).one(db).await? else {
        return Ok(true);
    };
    let ids = ticket_ids(&job);
    let mut failures = failures(&job);
    let (mut processed, mut failed) = (job.processed, job.failed);
    let owner = load_actor(db, job.owner_id).await?;
    let patch = parse_changes(&job.changes).ok();
    let start = usize::try_from(job.processed).unwrap_or(0);
    for &id in ids.iter().skip(start).take(CHUNK) {
        let outcome = match (&owner, &patch) {
            (Some(actor), Some(change)) => apply(deps, actor, id, change).await,
            (None, _) => Err(AppError::forbidden(
                "the account that asked for this change is no longer active",
            )),
            (_, None) => Err(AppError::bad_request("the stored change no longer reads")),
        };
        processed += 1;
        if let Err(e) = outcome {
            if matches!(e, AppError::Internal(_)) {
                // Not this ticket's fault (the database went away): the run is tried again from here.
                bulk_job::Entity::update_many()
                    .col_expr(bulk_job::Column::LockedUntilMs, Expr::value(0i64))
                    .filter(bulk_job::Column::Id.eq(job.id))
                    .exec(db)
                    .await?;
                return Err(e);
            }
            failed += 1;
            if failures.len() < MAX_FAILURES {
                failures.push(Failure {
                    ticket_id: id,
                    code: e.code().to_string(),
                    message: e.to_string(),
                });
            }
        }
        let mut saved: bulk_job::ActiveModel = job.clone().into();
        saved.processed = Set(processed);
        saved.failed = Set(failed);
        saved.failures = Set(serde_json::to_value(&failures).map_err(AppError::internal)?);
        saved.status = Set(BulkStatus::Running);
        saved.updated_at = Set(Utc::now());
        saved.update(db).await?;
    }
    let finished = usize::try_from(processed).unwrap_or(0) >= ids.len();
    let txn = deps.db.begin_write().await?;
    let mut saved: bulk_job::ActiveModel = bulk_job::Entity::find_by_id(job.id)
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("job"))?
        .into();
    saved.locked_until_ms = Set(0);
    if finished {
        saved.status = Set(BulkStatus::Done);
        saved.finished_at = Set(Some(Utc::now()));
    } else {
        run_row(job.id, channel)?.insert(&txn).await?;
    }
    saved.updated_at = Set(Utc::now());
    saved.update(&txn).await?;
    txn.commit().await?;
    Ok(true)
}
