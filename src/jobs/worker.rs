//! The delivery worker: claims due outbox rows and delivers them in lanes, one per destination (the SMTP
//! server, each webhook endpoint, each chat destination). Lanes run side by side, a bounded number at once, so a destination
//! that is slow or down holds back only its own rows; its circuit (`notify::circuit`) then keeps it aside.
use crate::config::Config;
use crate::db::Db;
use crate::error::AppResult;
use crate::notify::live::LiveBus;
use crate::notify::mailer::Email;
use crate::notify::outbox::{self, Destination, JobKind, Outcome};
use crate::notify::Notifier;
use crate::notify::{chat, webhooks};
use crate::service::automation::time_rules;
use crate::service::{sla, tickets, WriteDeps};
use chrono::{DateTime, TimeZone, Utc};
use entity::outbox as row;
use futures_util::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;

/// Rows leased per claim.
const BATCH: i64 = 50;
/// Lanes delivering at once in one process.
const MAX_LANES: usize = 16;
/// Pause between claims when nothing was due.
const IDLE: Duration = Duration::from_millis(1000);
/// Time kept free at the end of a lease, so a row is never started that its lease might not cover.
const LEASE_MARGIN_MS: i64 = 5_000;

/// What the worker delivers with: the database, the configuration, the notifier (mailer, HTTP client,
/// circuits) and the live bus that SLA checks announce their changes on. Built from the application state
/// at start-up; cheap to clone.
#[derive(Clone, Debug)]
pub struct DeliveryDeps {
    /// The database.
    pub db: Db,
    /// The configuration.
    pub config: Arc<Config>,
    /// The mailer, the HTTP client and the circuits.
    pub notifier: Notifier,
    /// Where live events are published.
    pub live: LiveBus,
    /// SLA policies by priority, remembered.
    pub policies: crate::service::sla::policies::KnownPolicies,
    /// The active triggers, compiled.
    pub triggers: crate::service::automation::KnownTriggers,
    /// The active custom field definitions.
    pub fields: crate::service::custom_fields::KnownFields,
    /// The names of tags known to exist.
    pub tags: crate::service::tags::KnownTags,
}

impl DeliveryDeps {
    fn write_deps(&self) -> WriteDeps<'_> {
        WriteDeps {
            db: &self.db,
            config: &self.config,
            live: &self.live,
            policies: &self.policies,
            triggers: &self.triggers,
            fields: &self.fields,
            tags: &self.tags,
            channel: crate::domain::Channel::System,
        }
    }
}

async fn deliver(deps: &DeliveryDeps, item: &row::Model, now_ms: i64) -> AppResult<Outcome> {
    let timeout = Duration::from_millis(deps.config.delivery_timeout_ms.unsigned_abs());
    match item.kind {
        JobKind::Webhook => webhooks::deliver(&deps.db, &deps.config, &deps.notifier, item).await,
        JobKind::Chat => chat::deliver(&deps.db, &deps.config, &deps.notifier, item).await,
        JobKind::Email => {
            let email: Email = match serde_json::from_str(&item.payload) {
                Ok(email) => email,
                Err(e) => return Ok(Outcome::GiveUp(format!("unreadable email: {e}"))),
            };
            let sent = tokio::time::timeout(
                timeout,
                deps.notifier.mailer.send(&deps.config.mail_from, &email),
            )
            .await;
            Ok(match sent {
                Ok(Ok(())) => Outcome::Delivered,
                Ok(Err(e)) => Outcome::Retry(e),
                Err(_) => Outcome::Retry("timed out".to_string()),
            })
        }
        JobKind::SlaCheck => {
            sla::check(deps.write_deps(), &item.payload, sla_now(now_ms)).await?;
            Ok(Outcome::Delivered)
        }
        JobKind::SlaReclock => {
            sla::reclock::run(&deps.db, &deps.live, &item.payload, sla_now(now_ms)).await?;
            Ok(Outcome::Delivered)
        }
        JobKind::TimeRule => {
            let deps = WriteDeps {
                channel: crate::domain::Channel::Rule,
                ..deps.write_deps()
            };
            time_rules::run(deps, &item.payload, sla_now(now_ms)).await?;
            Ok(Outcome::Delivered)
        }
        JobKind::BulkChange => {
            let ran = tickets::bulk::run(deps.write_deps(), &item.payload, sla_now(now_ms)).await?;
            if !ran {
                // Tried again later, past the circuits: the holder is this service, not a destination.
                return Err(crate::error::AppError::internal(anyhow::anyhow!(
                    "another run holds the bulk change"
                )));
            }
            Ok(Outcome::Delivered)
        }
    }
}

fn sla_now(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or_else(Utc::now)
}

/// Lease due rows of every destination not in `skip` (nor with an open circuit), grouped by destination.
async fn claim(
    deps: &DeliveryDeps,
    skip: &[Destination],
    now: i64,
) -> AppResult<(i64, BTreeMap<Destination, Vec<row::Model>>)> {
    // The lease outlasts one attempt, so a crashed worker's rows come back after it expires.
    let lease = now + deps.config.delivery_timeout_ms * 3 + 30_000;
    let mut skip = skip.to_vec();
    skip.extend(deps.notifier.circuits.open(now));
    let claimed = outbox::claim_except(&deps.db.conn, now, lease, BATCH, &skip).await?;
    let mut lanes: BTreeMap<Destination, Vec<row::Model>> = BTreeMap::new();
    for item in claimed {
        lanes.entry(Destination::of(&item)).or_default().push(item);
    }
    Ok((lease, lanes))
}

/// Deliver one destination's leased rows in order; returns how many were attempted. Rows it will not
/// start (the circuit opened, or the lease is running out) go back to the queue untouched. `clock`: the
/// time to act at (tests pass a time to come), the real time when `None`.
async fn lane(
    deps: DeliveryDeps,
    destination: Destination,
    rows: Vec<row::Model>,
    lease_until_ms: i64,
    clock: Option<i64>,
) -> AppResult<usize> {
    let circuits = &deps.notifier.circuits;
    let mut delivered = Delivered::default();
    for (done, item) in rows.iter().enumerate() {
        let now = clock.unwrap_or_else(outbox::now_ms);
        if circuits.is_open(destination, now)
            || now + deps.config.delivery_timeout_ms + LEASE_MARGIN_MS > lease_until_ms
        {
            delivered.record(&deps).await?;
            outbox::release(&deps.db.conn, &rows[done..]).await?;
            return Ok(done);
        }
        let outcome = match deliver(&deps, item, now).await {
            Ok(outcome) => {
                let (base, now) = (deps.config.outbox_backoff_ms, outbox::now_ms());
                circuits.record(destination, &outcome, base, now);
                outcome
            }
            // A failure of this service (its database) says nothing about the destination.
            Err(e) => Outcome::Retry(format!("internal error: {e}")),
        };
        if let Some(reason) = outcome.error() {
            tracing::warn!(outbox_id = item.id, event = %item.event, destination = %destination.label(), attempt = item.attempts + 1, %reason, "delivery failed");
        }
        if outcome == Outcome::Delivered {
            delivered.push(&deps, item.id).await?;
        } else {
            outbox::finish(&deps.db.conn, &deps.config, item, &outcome).await?;
        }
    }
    delivered.record(&deps).await?;
    Ok(rows.len())
}

/// A lane's delivered rows not yet recorded: recorded together, in one statement, when the lane ends or
/// gives rows back, or once the oldest has waited [`RECORD_WITHIN`]. Until then a crash sends them again,
/// which at-least-once delivery allows (receivers deduplicate on the event id).
#[derive(Default)]
struct Delivered {
    ids: Vec<i64>,
    since: Option<std::time::Instant>,
}

/// How long a delivered row may wait to be recorded while its lane goes on.
const RECORD_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

impl Delivered {
    async fn push(&mut self, deps: &DeliveryDeps, id: i64) -> AppResult<()> {
        self.ids.push(id);
        let since = *self.since.get_or_insert_with(std::time::Instant::now);
        if since.elapsed() >= RECORD_WITHIN {
            self.record(deps).await?;
        }
        Ok(())
    }

    async fn record(&mut self, deps: &DeliveryDeps) -> AppResult<()> {
        outbox::finish_delivered(&deps.db.conn, &self.ids).await?;
        self.ids.clear();
        self.since = None;
        Ok(())
    }
}

/// Deliver the rows that are due now, once each, every destination in its own lane; returns how many
/// were attempted.
pub async fn run_once(deps: &DeliveryDeps) -> AppResult<usize> {
    run_once_at(deps, outbox::now_ms()).await
}

/// [`run_once`] at `now` (epoch milliseconds), as if it were that time: SLA checks judge the ticket at
/// `now`. Tests pass a time to come.
pub async fn run_once_at(deps: &DeliveryDeps, now: i64) -> AppResult<usize> {
    let (lease, lanes) = claim(deps, &[], now).await?;
    let results: Vec<AppResult<usize>> = futures_util::stream::iter(lanes)
        .map(|(destination, rows)| lane(deps.clone(), destination, rows, lease, Some(now)))
        .buffer_unordered(MAX_LANES)
        .collect()
        .await;
    let mut attempted = 0;
    for result in results {
        attempted += result?;
    }
    Ok(attempted)
}

/// How often the worker removes delivery history older than its configured days.
const SWEEP_HISTORY_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// Deliver forever, and keep the delivery history to its configured days
/// (`notify::outbox::history`), in one task: stopping the worker stops both.
pub async fn run(deps: DeliveryDeps) {
    let history = crate::notify::outbox::history::sweep_forever(
        deps.db.clone(),
        deps.config.delivery_history_days,
        SWEEP_HISTORY_EVERY,
    );
    tokio::join!(deliver_forever(deps), history);
}

/// Deliver forever. A lane runs until its rows are done; meanwhile new rows of the other destinations
/// are claimed and delivered in lanes of their own.
async fn deliver_forever(deps: DeliveryDeps) {
    let mut running: JoinSet<AppResult<usize>> = JoinSet::new();
    let mut busy: HashMap<tokio::task::Id, Destination> = HashMap::new();
    loop {
        let mut claimed = false;
        if running.len() < MAX_LANES {
            let skip: Vec<Destination> = busy.values().copied().collect();
            match claim(&deps, &skip, outbox::now_ms()).await {
                Ok((lease, lanes)) => {
                    for (destination, rows) in lanes {
                        claimed = true;
                        if running.len() >= MAX_LANES {
                            // No room for another lane now: back to the queue for the next claim.
                            if let Err(e) = outbox::release(&deps.db.conn, &rows).await {
                                tracing::error!(error = %e, "outbox worker could not release rows");
                            }
                            continue;
                        }
                        let task =
                            running.spawn(lane(deps.clone(), destination, rows, lease, None));
                        busy.insert(task.id(), destination);
                    }
                }
                Err(e) => tracing::error!(error = %e, "outbox worker claim failed"),
            }
        }
        if !claimed || running.len() >= MAX_LANES {
            // Wait for a lane to finish, or for new rows to come due.
            let finished = tokio::select! {
                done = running.join_next_with_id(), if !running.is_empty() => done,
                _ = tokio::time::sleep(IDLE) => None,
            };
            if let Some(done) = finished {
                settle(&mut busy, done);
            }
        }
        while let Some(done) = running.try_join_next_with_id() {
            settle(&mut busy, done);
        }
    }
}

fn settle(
    busy: &mut HashMap<tokio::task::Id, Destination>,
    done: Result<(tokio::task::Id, AppResult<usize>), tokio::task::JoinError>,
) {
    let (id, failure) = match done {
        Ok((id, result)) => (id, result.err().map(|e| e.to_string())),
        Err(e) => (e.id(), Some(e.to_string())),
    };
    let destination = busy.remove(&id);
    if let (Some(destination), Some(error)) = (destination, failure) {
        tracing::error!(%error, destination = %destination.label(), "outbox lane failed");
    }
}

/// Start the worker as a background task of this process.
pub fn spawn(deps: DeliveryDeps) -> tokio::task::JoinHandle<()> {
    tokio::spawn(run(deps))
}
