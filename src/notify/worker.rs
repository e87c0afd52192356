//! The delivery worker: claims due outbox rows, delivers them, records the outcome.
use super::mailer::Email;
use super::outbox::{self, Outcome, KIND_EMAIL, KIND_WEBHOOK};
use super::webhooks;
use crate::error::AppResult;
use crate::service::sla;
use crate::state::AppState;
use chrono::{DateTime, TimeZone, Utc};
use entity::outbox as row;
use std::time::Duration;

/// Rows leased per round.
const BATCH: i64 = 20;
/// Pause between rounds when nothing was due.
const IDLE: Duration = Duration::from_millis(1000);

async fn deliver(state: &AppState, item: &row::Model, now_ms: i64) -> AppResult<Outcome> {
    let timeout = Duration::from_millis(state.config.delivery_timeout_ms.unsigned_abs());
    match item.kind.as_str() {
        KIND_WEBHOOK => webhooks::deliver(state, item).await,
        KIND_EMAIL => {
            let email: Email = match serde_json::from_str(&item.payload) {
                Ok(email) => email,
                Err(e) => return Ok(Outcome::GiveUp(format!("unreadable email: {e}"))),
            };
            let sent = tokio::time::timeout(
                timeout,
                state.notifier.mailer.send(&state.config.mail_from, &email),
            )
            .await;
            Ok(match sent {
                Ok(Ok(())) => Outcome::Delivered,
                Ok(Err(e)) => Outcome::Retry(e),
                Err(_) => Outcome::Retry("timed out".to_string()),
            })
        }
        sla::KIND_CHECK => {
            sla::check(state, &item.payload, sla_now(now_ms)).await?;
            Ok(Outcome::Delivered)
        }
        other => Ok(Outcome::GiveUp(format!("unknown outbox kind {other:?}"))),
    }
}

fn sla_now(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .unwrap_or_else(Utc::now)
}

/// Deliver the rows that are due now, once each; returns how many were attempted.
pub async fn run_once(state: &AppState) -> AppResult<usize> {
    run_once_at(state, outbox::now_ms()).await
}

/// Deliver the rows due at `now` (epoch milliseconds), as if it were that time: SLA checks judge the
/// ticket at `now`. The service passes the clock; tests pass a time to come.
pub async fn run_once_at(state: &AppState, now: i64) -> AppResult<usize> {
    // The lease outlasts one attempt, so a crashed worker's rows come back after it expires.
    let lease = now + state.config.delivery_timeout_ms * 3 + 30_000;
    let claimed = outbox::claim(&state.db.conn, now, lease, BATCH).await?;
    for item in &claimed {
        let outcome = match deliver(state, item, now).await {
            Ok(outcome) => outcome,
            Err(e) => Outcome::Retry(format!("internal error: {e}")),
        };
        if let Outcome::Retry(reason) | Outcome::GiveUp(reason) = &outcome {
            tracing::warn!(outbox_id = item.id, event = %item.event, kind = %item.kind, attempt = item.attempts + 1, %reason, "delivery failed");
        }
        outbox::finish(&state.db.conn, &state.config, item, &outcome).await?;
    }
    Ok(claimed.len())
}

/// Deliver forever: rounds back to back while there is work, a pause when there is none.
pub async fn run(state: AppState) {
    loop {
        match run_once(&state).await {
            Ok(0) => tokio::time::sleep(IDLE).await,
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "outbox worker round failed");
                tokio::time::sleep(IDLE).await;
            }
        }
    }
}

/// Start the worker as a background task of this process.
pub fn spawn(state: AppState) -> tokio::task::JoinHandle<()> {
    tokio::spawn(run(state))
}
