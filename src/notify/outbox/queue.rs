//! The worker's side of the outbox: which destination a row goes to, leasing due rows, giving them back,
//! the backlog per destination, and recording each attempt's outcome.
use super::{now_ms, JobKind, JobStatus};
use crate::config::Config;
use crate::error::AppResult;
use chrono::Utc;
use entity::outbox;
use rand::Rng;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult, QueryFilter, Statement,
};

/// Where a row goes; the worker delivers each destination in its own lane, so one that is slow or down
/// holds back only its own rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Destination {
    /// The SMTP server (or whatever mailer is configured).
    Email,
    /// A webhook endpoint: a stored endpoint's id, or 0 for `DESKGRAPH_WEBHOOK_URL`.
    Webhook(i32),
    /// A chat destination, by id.
    Chat(i32),
    /// The service's own work: SLA checks and re-clocks.
    Other,
}

impl Destination {
    /// The destination of `row`.
    pub fn of(row: &outbox::Model) -> Self {
        Self::of_parts(row.kind, row.webhook_id, row.chat_destination_id)
    }

    /// The destination of a row of `kind` for `webhook_id` or `chat_id`.
    pub fn of_parts(kind: JobKind, webhook_id: Option<i32>, chat_id: Option<i32>) -> Self {
        match kind {
            JobKind::Email => Destination::Email,
            JobKind::Webhook => Destination::Webhook(webhook_id.unwrap_or(0)),
            JobKind::Chat => Destination::Chat(chat_id.unwrap_or(0)),
            JobKind::SlaCheck | JobKind::SlaReclock | JobKind::TimeRule | JobKind::BulkChange => {
                Destination::Other
            }
        }
    }

    /// The `destination` label in `/metrics` and the logs: `email`, `webhook:configured`, `webhook:<id>`.
    pub fn label(&self) -> String {
        match self {
            Destination::Email => "email".to_string(),
            Destination::Webhook(0) => "webhook:configured".to_string(),
            Destination::Webhook(id) => format!("webhook:{id}"),
            Destination::Chat(id) => format!("chat:{id}"),
            Destination::Other => "other".to_string(),
        }
    }

    /// The SQL condition matching this destination's rows, its values bound as parameters (numbered
    /// from `next`, as `placeholder` spells them).
    fn condition(
        &self,
        placeholder: impl Fn(usize) -> String,
        next: usize,
    ) -> (String, Vec<sea_orm::Value>) {
        match self {
            Destination::Email => (
                format!("kind = {}", placeholder(next)),
                vec![JobKind::Email.as_str().into()],
            ),
            Destination::Webhook(id) => (
                format!(
                    "(kind = {} AND COALESCE(webhook_id, 0) = {})",
                    placeholder(next),
                    placeholder(next + 1)
                ),
                vec![JobKind::Webhook.as_str().into(), (*id).into()],
            ),
            Destination::Chat(id) => (
                format!(
                    "(kind = {} AND COALESCE(chat_destination_id, 0) = {})",
                    placeholder(next),
                    placeholder(next + 1)
                ),
                vec![JobKind::Chat.as_str().into(), (*id).into()],
            ),
            Destination::Other => {
                // The service's own work: every kind that is neither mail nor a webhook.
                let kinds: Vec<JobKind> = JobKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| Destination::of_parts(*k, None, None) == Destination::Other)
                    .collect();
                let places: Vec<String> = (0..kinds.len()).map(|i| placeholder(next + i)).collect();
                (
                    format!("kind IN ({})", places.join(", ")),
                    kinds.iter().map(|k| k.as_str().into()).collect(),
                )
            }
        }
    }
}

/// Lease up to `limit` due rows to this worker until `lease_until_ms`. One statement, so two workers
/// never lease the same row; on PostgreSQL `SKIP LOCKED` lets them claim side by side without waiting.
pub async fn claim(
    db: &impl ConnectionTrait,
    now: i64,
    lease_until_ms: i64,
    limit: i64,
) -> AppResult<Vec<outbox::Model>> {
    claim_except(db, now, lease_until_ms, limit, &[]).await
}

/// [`claim`], leaving out the rows of the destinations in `skip` (busy here, or with an open circuit).
/// Rows are taken in the order they came due (queue order for rows due at once), along the
/// `(status, due_at_ms)` index: rows due later (scheduled SLA checks, one per open ticket) are never read,
/// where an order by id alone read past every one of them on each claim.
pub async fn claim_except(
    db: &impl ConnectionTrait,
    now: i64,
    lease_until_ms: i64,
    limit: i64,
    skip: &[Destination],
) -> AppResult<Vec<outbox::Model>> {
    let backend = db.get_database_backend();
    let placeholder = |n: usize| match backend {
        DbBackend::Postgres => format!("${n}"),
        _ => "?".to_string(),
    };
    // Only the kinds this version runs: a row of a kind it does not know (written by a newer version
    // during a rolling upgrade) waits for an instance that does.
    let known: Vec<String> = (5..5 + JobKind::ALL.len()).map(placeholder).collect();
    let mut values: Vec<sea_orm::Value> = vec![
        lease_until_ms.into(),
        JobStatus::Pending.as_str().into(),
        now.into(),
        now.into(),
    ];
    values.extend(
        JobKind::ALL
            .iter()
            .map(|k| sea_orm::Value::from(k.as_str())),
    );
    let mut except = Vec::new();
    for destination in skip {
        let (condition, bound) = destination.condition(placeholder, values.len() + 1);
        except.push(condition);
        values.extend(bound);
    }
    let except = if except.is_empty() {
        String::new()
    } else {
        format!(" AND NOT ({})", except.join(" OR "))
    };
    let limit_at = placeholder(values.len() + 1);
    values.push(limit.into());
    let lock = match backend {
        DbBackend::Postgres => " FOR UPDATE SKIP LOCKED",
        _ => "",
    };
    // One statement leases the rows and returns them; the lease is what makes them this worker's.
    let sql = format!(
        "UPDATE outbox SET locked_until_ms = {} WHERE id IN (SELECT id FROM outbox \
         WHERE status = {} AND due_at_ms <= {} AND locked_until_ms <= {} AND kind IN ({}){except} \
         ORDER BY due_at_ms, id LIMIT {limit_at}{lock}) RETURNING *",
        placeholder(1),
        placeholder(2),
        placeholder(3),
        placeholder(4),
        known.join(", ")
    );
    let stmt = Statement::from_sql_and_values(backend, sql, values);
    let mut rows = outbox::Model::find_by_statement(stmt).all(db).await?;
    // RETURNING promises no order.
    rows.sort_by_key(|r| (r.due_at_ms, r.id));
    Ok(rows)
}

/// Give leased rows back without an attempt, so any worker may take them at once.
pub async fn release(db: &impl ConnectionTrait, rows: &[outbox::Model]) -> AppResult<()> {
    if rows.is_empty() {
        return Ok(());
    }
    outbox::Entity::update_many()
        .col_expr(outbox::Column::LockedUntilMs, Expr::value(0_i64))
        .filter(outbox::Column::Id.is_in(rows.iter().map(|r| r.id)))
        .filter(outbox::Column::Status.eq(JobStatus::Pending))
        .exec(db)
        .await?;
    Ok(())
}

/// Due rows of one destination: how many, and since when the longest-waiting one has been due.
#[derive(Clone, Debug, PartialEq)]
pub struct Backlog {
    /// The destination.
    pub destination: Destination,
    /// Pending rows already due.
    pub pending: i64,
    /// When the longest-waiting of them came due.
    pub oldest: chrono::DateTime<Utc>,
}

/// The rows due by `now` (milliseconds) and not yet delivered, per destination, for `/metrics`.
///
/// Rows due later (a scheduled SLA check per open ticket) are not a backlog: they are counted by
/// [`scheduled`]. A row's wait is measured from when it came due, so a check queued a week ahead
/// that came due a second ago has waited a second. Retried rows keep their `due_at_ms` (their backoff
/// is a lease), so their wait includes the failed attempts.
pub async fn backlog(db: &impl ConnectionTrait, now: i64) -> AppResult<Vec<Backlog>> {
    use sea_orm::QuerySelect;
    // kind, webhook id, chat destination id, pending, oldest due.
    type Group = (String, Option<i32>, Option<i32>, i64, i64);
    let groups: Vec<Group> = outbox::Entity::find()
        .select_only()
        .column(outbox::Column::Kind)
        .column(outbox::Column::WebhookId)
        .column(outbox::Column::ChatDestinationId)
        .column_as(outbox::Column::Id.count(), "pending")
        .column_as(outbox::Column::DueAtMs.min(), "oldest_due")
        .filter(outbox::Column::Status.eq(JobStatus::Pending))
        .filter(outbox::Column::DueAtMs.lte(now))
        .group_by(outbox::Column::Kind)
        .group_by(outbox::Column::WebhookId)
        .group_by(outbox::Column::ChatDestinationId)
        .into_tuple()
        .all(db)
        .await?;
    let mut by_destination: std::collections::BTreeMap<Destination, Backlog> = Default::default();
    for (kind, webhook_id, chat_id, pending, oldest_due) in groups {
        // Rows of a kind this version does not run are counted with the service's own work.
        let destination = JobKind::parse(&kind).map_or(Destination::Other, |kind| {
            Destination::of_parts(kind, webhook_id, chat_id)
        });
        let oldest = chrono::DateTime::from_timestamp_millis(oldest_due).unwrap_or_else(Utc::now);
        let entry = by_destination.entry(destination).or_insert(Backlog {
            destination,
            pending: 0,
            oldest,
        });
        entry.pending += pending;
        entry.oldest = entry.oldest.min(oldest);
    }
    Ok(by_destination.into_values().collect())
}

/// Pending rows due after `now` (milliseconds): the scheduled SLA checks, waiting for their time.
pub async fn scheduled(db: &impl ConnectionTrait, now: i64) -> AppResult<u64> {
    use sea_orm::PaginatorTrait;
    Ok(outbox::Entity::find()
        .filter(outbox::Column::Status.eq(JobStatus::Pending))
        .filter(outbox::Column::DueAtMs.gt(now))
        .count(db)
        .await?)
}

/// How one attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered.
    Delivered,
    /// Failed; retry later (until the attempts run out).
    Retry(String),
    /// Failed in a way no retry can fix (endpoint deleted, bad stored message).
    GiveUp(String),
    /// The destination asked to be left alone for a while (a 429 with `Retry-After`): retry this row, and
    /// every other row for it, no sooner than `after_ms` from now.
    Wait {
        /// Milliseconds to wait.
        after_ms: i64,
        /// What the destination said.
        reason: String,
    },
}

impl Outcome {
    /// What went wrong, when something did.
    pub fn error(&self) -> Option<&str> {
        match self {
            Outcome::Delivered => None,
            Outcome::Retry(e) | Outcome::GiveUp(e) | Outcome::Wait { reason: e, .. } => Some(e),
        }
    }
}

/// The longest a destination's `Retry-After` is obeyed; a longer one is cut to it.
pub const MAX_WAIT_MS: i64 = 3_600_000;

/// The delay before attempt `attempts + 1`: `base * 2^(attempts-1)`, capped at an hour, with jitter
/// (between half and all of it) so a burst of failures does not retry in lockstep.
pub fn backoff_ms(base_ms: i64, attempts: i32) -> i64 {
    let exp = attempts.saturating_sub(1).clamp(0, 30) as u32;
    let delay = base_ms.saturating_mul(1_i64 << exp).min(3_600_000);
    if delay <= 1 {
        return delay.max(0);
    }
    delay / 2 + rand::thread_rng().gen_range(0..=delay / 2)
}

/// Record the outcome of one attempt on `row`. Guarded on `pending`, so a row is finished once.
///
/// A retry keeps the row's `due_at_ms` (when it first came due, which orders the queue and measures the
/// backlog) and waits out its backoff on the lease, `locked_until_ms`.
pub async fn finish(
    db: &impl ConnectionTrait,
    config: &Config,
    row: &outbox::Model,
    outcome: &Outcome,
) -> AppResult<()> {
    let attempts = row.attempts + 1;
    let update = outbox::Entity::update_many()
        .col_expr(outbox::Column::Attempts, Expr::value(attempts))
        .filter(outbox::Column::Id.eq(row.id))
        .filter(outbox::Column::Status.eq(JobStatus::Pending));
    let update = match outcome {
        Outcome::Delivered => return finish_delivered(db, &[row.id]).await,
        Outcome::Retry(error) if attempts < config.outbox_max_attempts => update
            .col_expr(
                outbox::Column::LockedUntilMs,
                Expr::value(now_ms() + backoff_ms(config.outbox_backoff_ms, attempts)),
            )
            .col_expr(outbox::Column::LastError, Expr::value(error.clone())),
        Outcome::Wait { after_ms, reason } if attempts < config.outbox_max_attempts => update
            .col_expr(
                outbox::Column::LockedUntilMs,
                Expr::value(now_ms() + after_ms.clamp(&0, &MAX_WAIT_MS)),
            )
            .col_expr(outbox::Column::LastError, Expr::value(reason.clone())),
        Outcome::Retry(error) | Outcome::GiveUp(error) | Outcome::Wait { reason: error, .. } => {
            update
                .col_expr(outbox::Column::LockedUntilMs, Expr::value(0_i64))
                .col_expr(outbox::Column::Status, Expr::value(JobStatus::Failed))
                .col_expr(outbox::Column::LastError, Expr::value(error.clone()))
        }
    };
    update.exec(db).await?;
    Ok(())
}

/// Record the rows of `ids` as delivered, in one statement: a lane's run of successes, or [`finish`]'s one.
pub async fn finish_delivered(db: &impl ConnectionTrait, ids: &[i64]) -> AppResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    outbox::Entity::update_many()
        .col_expr(
            outbox::Column::Attempts,
            sea_orm::sea_query::ExprTrait::add(Expr::col(outbox::Column::Attempts), 1),
        )
        .col_expr(outbox::Column::LockedUntilMs, Expr::value(0_i64))
        .col_expr(outbox::Column::Status, Expr::value(JobStatus::Delivered))
        .col_expr(outbox::Column::DeliveredAt, Expr::value(Utc::now()))
        .col_expr(
            outbox::Column::LastError,
            Expr::value(Option::<String>::None),
        )
        .filter(outbox::Column::Id.is_in(ids.iter().copied()))
        .filter(outbox::Column::Status.eq(JobStatus::Pending))
        .exec(db)
        .await?;
    Ok(())
}
