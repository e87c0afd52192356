//! Posting one chat row: to a Slack or Teams incoming webhook, or through Slack's `chat.postMessage` as a
//! bot, whose later messages about a ticket go into the thread of its first. A 429 is obeyed: the row, and
//! the destination's lane, wait out `Retry-After`.
use super::outbox::{Outcome, MAX_WAIT_MS};
use super::Notifier;
use crate::config::Config;
use crate::db::Db;
use crate::error::AppResult;
use crate::net::targets;
use chrono::Utc;
use entity::{chat_delivery, chat_destination, chat_thread, outbox};
use reqwest::header::RETRY_AFTER;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use std::time::Instant;

/// A chat row's payload, as the services write it: the ticket it is about (a Slack bot threads by it) and the
/// rendered message.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Payload {
    /// The ticket.
    pub ticket_id: i32,
    /// Slack's or Teams' message body.
    pub message: serde_json::Value,
}

/// How long to wait on a 429 that names no time.
const DEFAULT_WAIT_MS: i64 = 30_000;

/// Slack's Web API errors no retry can fix: the token or channel is wrong or gone.
const FATAL_SLACK_ERRORS: [&str; 9] = [
    "invalid_auth",
    "not_authed",
    "account_inactive",
    "token_revoked",
    "token_expired",
    "channel_not_found",
    "not_in_channel",
    "is_archived",
    "missing_scope",
];

/// The wait a 429 asks for: its `Retry-After` seconds (capped), or [`DEFAULT_WAIT_MS`].
fn wait_of(response: &reqwest::Response) -> i64 {
    response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map_or(DEFAULT_WAIT_MS, |s| s.saturating_mul(1000))
        .clamp(0, MAX_WAIT_MS)
}

/// One try's end: the destination's HTTP status when an answer came, and what it means for the row.
struct Tried {
    status: Option<u16>,
    outcome: Outcome,
}

impl From<Outcome> for Tried {
    /// A try that got no answer: refused before sending, or the request failed.
    fn from(outcome: Outcome) -> Self {
        Tried {
            status: None,
            outcome,
        }
    }
}

impl Tried {
    fn answered(response: &reqwest::Response, outcome: Outcome) -> Self {
        Tried {
            status: Some(response.status().as_u16()),
            outcome,
        }
    }
}

/// Post `row` to its destination, and log the try in `chat_deliveries`. A row whose destination is gone,
/// inactive or unreadable is given up without a try.
pub async fn deliver(
    db: &Db,
    config: &Config,
    notifier: &Notifier,
    row: &outbox::Model,
) -> AppResult<Outcome> {
    let Some(id) = row.chat_destination_id else {
        return Ok(Outcome::GiveUp("a chat row without a destination".into()));
    };
    let destination = match chat_destination::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
    {
        Some(d) if d.active => d,
        Some(_) => {
            return Ok(Outcome::GiveUp(format!(
                "chat destination {id} is inactive"
            )))
        }
        None => {
            return Ok(Outcome::GiveUp(format!(
                "chat destination {id} was deleted"
            )))
        }
    };
    let payload: Payload = match serde_json::from_str(&row.payload) {
        Ok(p) => p,
        Err(e) => return Ok(Outcome::GiveUp(format!("unreadable chat message: {e}"))),
    };
    let started = Instant::now();
    let tried = match (&destination.url, &destination.token, &destination.channel) {
        (Some(url), _, _) => post_webhook(config, notifier, url, &payload.message).await?,
        (None, Some(token), Some(channel)) => {
            post_as_bot(db, config, notifier, &destination, token, channel, payload).await?
        }
        _ => {
            return Ok(Outcome::GiveUp(format!(
                "chat destination {id} has nowhere to post"
            )))
        }
    };
    chat_delivery::ActiveModel {
        outbox_id: Set(row.id),
        destination_id: Set(id),
        event: Set(row.event.clone()),
        attempt: Set(row.attempts.saturating_add(1)),
        status_code: Set(tried.status.map(i32::from)),
        error: Set(tried.outcome.error().map(str::to_string)),
        duration_ms: Set(i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)),
        created_at: Set(Utc::now()),
        ..Default::default()
    }
    .insert(&db.conn)
    .await?;
    Ok(tried.outcome)
}

/// How a request that got no answer ended. The error is told without its URL: a Slack or Teams webhook URL
/// is a secret, and failures go to the log and the outbox row.
fn failed(e: reqwest::Error) -> Outcome {
    if e.is_timeout() {
        return Outcome::Retry("timed out".to_string());
    }
    match targets::refused_in(&e) {
        Some(why) => Outcome::GiveUp(why),
        None => Outcome::Retry(format!("request failed: {}", e.without_url())),
    }
}

/// An incoming webhook (Slack's or Teams'): any 2xx is delivered.
async fn post_webhook(
    config: &Config,
    notifier: &Notifier,
    url: &str,
    message: &serde_json::Value,
) -> AppResult<Tried> {
    if let Err(why) = url::Url::parse(url)
        .map_err(|_| "the stored webhook URL is not a valid URL".to_string())
        .and_then(|u| targets::check_url(&u, config.webhook_allow_private))
    {
        return Ok(Outcome::GiveUp(why).into());
    }
    let r = match notifier.http()?.post(url).json(message).send().await {
        Ok(r) => r,
        Err(e) => return Ok(failed(e).into()),
    };
    let outcome = if r.status().is_success() {
        Outcome::Delivered
    } else if r.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
        Outcome::Wait {
            after_ms: wait_of(&r),
            reason: "the destination answered 429".to_string(),
        }
    } else if r.status().is_redirection() {
        Outcome::GiveUp(format!(
            "the destination answered {}; redirects are not followed",
            r.status().as_u16()
        ))
    } else {
        Outcome::Retry(format!("the destination answered {}", r.status().as_u16()))
    };
    Ok(Tried::answered(&r, outcome))
}

/// What `chat.postMessage` answers with a 200.
#[derive(serde::Deserialize)]
struct SlackAnswer {
    ok: bool,
    #[serde(default)]
    ts: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// `chat.postMessage` as a bot, in the ticket's thread when one was started; the first message about a
/// ticket starts it.
async fn post_as_bot(
    db: &Db,
    config: &Config,
    notifier: &Notifier,
    destination: &chat_destination::Model,
    token: &str,
    channel: &str,
    payload: Payload,
) -> AppResult<Tried> {
    let thread = chat_thread::Entity::find_by_id((destination.id, payload.ticket_id))
        .one(&db.conn)
        .await?;
    let mut message = payload.message;
    message["channel"] = channel.into();
    if let Some(thread) = &thread {
        message["thread_ts"] = thread.thread_ts.clone().into();
    }
    let url = format!("{}/chat.postMessage", config.slack_api_url);
    let answer = notifier
        .http()?
        .post(&url)
        .bearer_auth(token)
        .json(&message)
        .send()
        .await;
    let response = match answer {
        Ok(r) => r,
        Err(e) => return Ok(failed(e).into()),
    };
    let status = Some(response.status().as_u16());
    let answered = |outcome| Tried { status, outcome };
    if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS {
        return Ok(answered(Outcome::Wait {
            after_ms: wait_of(&response),
            reason: "Slack answered 429".to_string(),
        }));
    }
    if !response.status().is_success() {
        return Ok(answered(Outcome::Retry(format!(
            "Slack answered {}",
            response.status().as_u16()
        ))));
    }
    let answer: SlackAnswer = match response.json().await {
        Ok(a) => a,
        Err(e) => {
            return Ok(answered(Outcome::Retry(format!(
                "Slack's answer was unreadable: {e}"
            ))))
        }
    };
    if !answer.ok {
        let error = answer.error.unwrap_or_else(|| "unknown".to_string());
        return Ok(answered(if FATAL_SLACK_ERRORS.contains(&error.as_str()) {
            Outcome::GiveUp(format!("Slack refused: {error}"))
        } else {
            Outcome::Retry(format!("Slack refused: {error}"))
        }));
    }
    if let (None, Some(ts)) = (thread, answer.ts) {
        // The first message's `ts` names the thread; should two instances start one at once, the first
        // recorded stays.
        chat_thread::Entity::insert(chat_thread::ActiveModel {
            destination_id: Set(destination.id),
            ticket_id: Set(payload.ticket_id),
            thread_ts: Set(ts),
            created_at: Set(Utc::now()),
        })
        .on_conflict_do_nothing()
        .exec_without_returning(&db.conn)
        .await?;
    }
    Ok(answered(Outcome::Delivered))
}
