//! The worker's side of the outbox: which destination a row goes to, leasing due rows, giving them back,
//! the backlog per destination, and recording each attempt's outcome.
use super::{now_ms, DELIVERED, FAILED, KIND_EMAIL, KIND_WEBHOOK, PENDING};
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
    /// Everything else: SLA checks, and rows of a kind this version does not know (given up at once).
    Other,
}

impl Destination {
    /// The destination of `row`.
    pub fn of(row: &outbox::Model) -> Self {
        Self::of_parts(&row.kind, row.webhook_id)
    }

    /// The destination of a row of `kind` for `webhook_id`.
    pub fn of_parts(kind: &str, webhook_id: Option<i32>) -> Self {
        match kind {
            KIND_EMAIL => Destination::Email,
            KIND_WEBHOOK => Destination::Webhook(webhook_id.unwrap_or(0)),
            _ => Destination::Other,
        }
    }

    /// The `destination` label in `/metrics` and the logs: `email`, `webhook:configured`, `webhook:<id>`.
    pub fn label(&self) -> String {
        match self {
            Destination::Email => "email".to_string(),
            Destination::Webhook(0) => "webhook:configured".to_string(),
            Destination::Webhook(id) => format!("webhook:{id}"),
            Destination::Other => "other".to_string(),
        }
    }

    /// The SQL condition matching this destination's rows. Only integers are spliced in.
    fn condition(&self) -> String {
        match self {
            Destination::Email => format!("kind = '{KIND_EMAIL}'"),
            Destination::Webhook(id) => {
                format!("(kind = '{KIND_WEBHOOK}' AND COALESCE(webhook_id, 0) = {id})")
            }
            Destination::Other => format!("kind NOT IN ('{KIND_EMAIL}', '{KIND_WEBHOOK}')"),
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
    let except = if skip.is_empty() {
        String::new()
    } else {
        let any: Vec<String> = skip.iter().map(Destination::condition).collect();
        format!(" AND NOT ({})", any.join(" OR "))
    };
    // One statement leases the rows and returns them; the lease is what makes them this worker's.
    let sql = match backend {
        DbBackend::Postgres => format!(
            "UPDATE outbox SET locked_until_ms = $1 WHERE id IN (SELECT id FROM outbox \
             WHERE status = 'pending' AND due_at_ms <= $2 AND locked_until_ms <= $3{except} \
             ORDER BY due_at_ms, id LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING *"
        ),
        _ => format!(
            "UPDATE outbox SET locked_until_ms = ? WHERE id IN (SELECT id FROM outbox \
             WHERE status = 'pending' AND due_at_ms <= ? AND locked_until_ms <= ?{except} \
             ORDER BY due_at_ms, id LIMIT ?) RETURNING *"
        ),
    };
    let stmt = Statement::from_sql_and_values(
        backend,
        sql,
        [lease_until_ms.into(), now.into(), now.into(), limit.into()],
    );
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
        .filter(outbox::Column::Status.eq(PENDING))
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
    let groups: Vec<(String, Option<i32>, i64, i64)> = outbox::Entity::find()
        .select_only()
        .column(outbox::Column::Kind)
        .column(outbox::Column::WebhookId)
        .column_as(outbox::Column::Id.count(), "pending")
        .column_as(outbox::Column::DueAtMs.min(), "oldest_due")
        .filter(outbox::Column::Status.eq(PENDING))
        .filter(outbox::Column::DueAtMs.lte(now))
        .group_by(outbox::Column::Kind)
        .group_by(outbox::Column::WebhookId)
        .into_tuple()
        .all(db)
        .await?;
    let mut by_destination: std::collections::BTreeMap<Destination, Backlog> = Default::default();
    for (kind, webhook_id, pending, oldest_due) in groups {
        let destination = Destination::of_parts(&kind, webhook_id);
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
        .filter(outbox::Column::Status.eq(PENDING))
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
}

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
        .filter(outbox::Column::Status.eq(PENDING));
    let update = match outcome {
        Outcome::Delivered => return finish_delivered(db, &[row.id]).await,
        Outcome::Retry(error) if attempts < config.outbox_max_attempts => update
            .col_expr(
                outbox::Column::LockedUntilMs,
                Expr::value(now_ms() + backoff_ms(config.outbox_backoff_ms, attempts)),
            )
            .col_expr(outbox::Column::LastError, Expr::value(error.clone())),
        Outcome::Retry(error) | Outcome::GiveUp(error) => update
            .col_expr(outbox::Column::LockedUntilMs, Expr::value(0_i64))
            .col_expr(outbox::Column::Status, Expr::value(FAILED))
            .col_expr(outbox::Column::LastError, Expr::value(error.clone())),
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
        .col_expr(outbox::Column::Status, Expr::value(DELIVERED))
        .col_expr(outbox::Column::DeliveredAt, Expr::value(Utc::now()))
        .col_expr(
            outbox::Column::LastError,
            Expr::value(Option::<String>::None),
        )
        .filter(outbox::Column::Id.is_in(ids.iter().copied()))
        .filter(outbox::Column::Status.eq(PENDING))
        .exec(db)
        .await?;
    Ok(())
}
