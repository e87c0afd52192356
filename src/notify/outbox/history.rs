//! How long delivery history is kept. Every event leaves outbox rows, and every try a line in a webhook's or
//! chat destination's log; kept forever they would outgrow the tickets. Rows that are done — delivered, or
//! given up on after the configured attempts — go once they were raised longer ago than
//! `DESKGRAPH_DELIVERY_HISTORY_DAYS`, with their tries (the logs cascade). Pending rows, among them the SLA
//! checks scheduled weeks ahead, always stay.
use crate::error::AppResult;
use chrono::{DateTime, Utc};
use entity::outbox;
use entity::values::JobStatus;
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ConnectionTrait, Order};
use std::time::Duration;

/// Rows removed per statement, so that a first sweep of a long history holds no lock for long.
const BATCH: u64 = 1000;

/// Remove the done rows raised before `now - keep`, in batches; returns how many went.
pub async fn sweep(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    keep: Duration,
) -> AppResult<u64> {
    let keep = chrono::Duration::from_std(keep).unwrap_or(chrono::Duration::MAX);
    let Some(cutoff) = now.checked_sub_signed(keep) else {
        return Ok(0);
    };
    let mut removed = 0;
    loop {
        let done = Query::select()
            .column(outbox::Column::Id)
            .from(outbox::Entity)
            .and_where(
                Expr::col(outbox::Column::Status)
                    .is_in([JobStatus::Delivered.as_str(), JobStatus::Failed.as_str()]),
            )
            .and_where(Expr::col(outbox::Column::CreatedAt).lt(cutoff))
            .order_by(outbox::Column::Id, Order::Asc)
            .limit(BATCH)
            .to_owned();
        let delete = Query::delete()
            .from_table(outbox::Entity)
            .and_where(Expr::col(outbox::Column::Id).in_subquery(done))
            .to_owned();
        let gone = db.execute(&delete).await?.rows_affected();
        removed += gone;
        if gone < BATCH {
            return Ok(removed);
        }
    }
}

/// Sweep every `every` while the worker runs, keeping `days` days (none: keep everything).
pub async fn sweep_forever(db: crate::db::Db, days: u32, every: Duration) {
    if days == 0 {
        return std::future::pending().await;
    }
    let keep = Duration::from_secs(u64::from(days) * 24 * 3600);
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        match sweep(&db.conn, Utc::now(), keep).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                removed = n,
                "delivery history older than {days} days removed"
            ),
            Err(err) => tracing::warn!(error = %err, "removing old delivery history failed"),
        }
    }
}
