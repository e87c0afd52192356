//! Delivering one webhook row: sign, POST with a timeout, log the attempt.
use super::outbox::Outcome;
use super::Notifier;
use crate::config::Config;
use crate::db::Db;
use crate::error::AppResult;
use crate::net::targets;
use chrono::Utc;
use entity::{outbox, webhook, webhook_delivery};
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use std::time::Instant;

/// `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`, the `X-Webhook-Signature` value.
pub fn sign(secret: &str, timestamp: i64, body: &str) -> String {
    let timestamp = timestamp.to_string();
    let parts: [&[u8]; 3] = [timestamp.as_bytes(), b".", body.as_bytes()];
    format!("sha256={}", super::hmac_hex(secret.as_bytes(), &parts))
}

/// Where a row goes: the configured endpoint (no id) or a stored one.
async fn target(
    db: &Db,
    config: &Config,
    row: &outbox::Model,
) -> AppResult<Result<(String, String), String>> {
    match row.webhook_id {
        None => Ok(match &config.webhook_url {
            Some(url) => Ok((url.clone(), config.webhook_secret.clone())),
            None => Err("DESKGRAPH_WEBHOOK_URL is no longer configured".to_string()),
        }),
        Some(id) => Ok(match webhook::Entity::find_by_id(id).one(&db.conn).await? {
            Some(w) if w.active => Ok((w.url, w.secret)),
            Some(_) => Err(format!("webhook {id} is inactive")),
            None => Err(format!("webhook {id} was deleted")),
        }),
    }
}

/// Refuse before sending: a URL whose literal host the policy refuses (names are checked as the client
/// resolves them), or an empty signing key.
fn checked_target(config: &Config, url: &str, secret: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|_| format!("{url:?} is not a valid URL"))?;
    targets::check_url(&parsed, config.webhook_allow_private)?;
    if secret.is_empty() {
        return Err(
            "no signing secret is configured; deliveries are never signed with an empty key".into(),
        );
    }
    Ok(())
}

/// POST `row` to its endpoint and log the attempt in `webhook_deliveries`.
pub async fn deliver(
    db: &Db,
    config: &Config,
    notifier: &Notifier,
    row: &outbox::Model,
) -> AppResult<Outcome> {
    let (url, secret) = match target(db, config, row).await? {
        Ok(found) => found,
        Err(reason) => return Ok(Outcome::GiveUp(reason)),
    };
    if let Err(reason) = checked_target(config, &url, &secret) {
        return Ok(Outcome::GiveUp(reason));
    }
    // Signed at send time, so receivers can reject stale replays; the id stays the event's.
    let timestamp = Utc::now().timestamp();
    let started = Instant::now();
    let answer = notifier
        .http()?
        .post(&url)
        .header("Content-Type", "application/json")
        .header("X-Webhook-Id", &row.event_id)
        .header("X-Webhook-Timestamp", timestamp.to_string())
        .header(
            "X-Webhook-Signature",
            sign(&secret, timestamp, &row.payload),
        )
        .body(row.payload.clone())
        .send()
        .await;
    let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    let (status_code, outcome) = match answer {
        Ok(response) if response.status().is_success() => (
            Some(i32::from(response.status().as_u16())),
            Outcome::Delivered,
        ),
        Ok(response) if response.status().is_redirection() => {
            let code = response.status().as_u16();
            (
                Some(i32::from(code)),
                Outcome::GiveUp(format!(
                    "endpoint answered {code}; redirects are not followed"
                )),
            )
        }
        Ok(response) => {
            let code = response.status().as_u16();
            (
                Some(i32::from(code)),
                Outcome::Retry(format!("endpoint answered {code}")),
            )
        }
        Err(e) if e.is_timeout() => (None, Outcome::Retry("timed out".to_string())),
        Err(e) if targets::refused_in(&e).is_some() => (
            None,
            Outcome::GiveUp(targets::refused_in(&e).unwrap_or_default()),
        ),
        Err(e) => (None, Outcome::Retry(format!("request failed: {e}"))),
    };
    let error = outcome.error().map(str::to_string);
    webhook_delivery::ActiveModel {
        outbox_id: Set(row.id),
        webhook_id: Set(row.webhook_id),
        event_id: Set(row.event_id.clone()),
        event: Set(row.event.clone()),
        attempt: Set(row.attempts + 1),
        status_code: Set(status_code),
        error: Set(error),
        duration_ms: Set(duration_ms),
        created_at: Set(Utc::now()),
        ..Default::default()
    }
    .insert(&db.conn)
    .await?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_over_timestamp_dot_body() {
        // From `printf '1700000000.{}' | openssl dgst -sha256 -hmac secret`.
        assert_eq!(
            sign("secret", 1_700_000_000, "{}"),
            "sha256=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163"
        );
    }
}
