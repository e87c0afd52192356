//! `POST /api/mail/in/`, additive to the contract: a mail server hands the running service one message, as
//! `deskgraph mail-in --url` does for each message its pipe gets (RT's `rt-mailgate` works the same way). The
//! message is taken in exactly as `deskgraph mail-in` takes it from standard input (`service::mail_in`); the
//! route is closed unless `DESKGRAPH_MAIL_IN_SECRET` is set, and its caller shows that secret
//! (`crate::http::layers`).
use crate::domain::Channel;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::service::mail_in::{self, Received, Refused, MAX_BYTES};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest).mail("/api/mail/in/", post(take_in))
}

/// What `Retry-After` tells a mail server whose sender is over the hourly pace: their oldest messages leave
/// the hour as it goes by, and the server retries on its own schedule anyway.
const RETRY_AFTER_SECONDS: u64 = 300;

/// The `project` of the query: new tickets open there (an address of that project's own).
fn project_of(query: Option<&str>) -> AppResult<Option<i32>> {
    let mut project = None;
    for (key, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if key == "project" && !value.trim().is_empty() {
            let id = value
                .trim()
                .parse::<i32>()
                .map_err(|_| AppError::field("project", "must be a project id"))?;
            project = Some(id);
        }
    }
    Ok(project)
}

/// What became of a message the service took.
#[derive(Serialize, ToSchema)]
pub struct MailTaken {
    /// `ticket` (a new ticket), `comment` (a reply on its ticket) or `ignored` (an auto-reply, a bounce, a
    /// duplicate, the service's own mail: nothing to do, and the mail server must not retry).
    outcome: &'static str,
    /// The ticket opened or answered (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    ticket: Option<i32>,
    /// The comment the reply became (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<i32>,
    /// Why nothing was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
}

/// Take in one message.
#[utoipa::path(post, path = "/api/mail/in/", tag = "mail", operation_id = "takeInMail",
    summary = "Take in one RFC 5322 message, as `deskgraph mail-in` does: a new ticket, a reply on the ticket it answers, or nothing for an auto-reply or a duplicate. Closed (404) unless `DESKGRAPH_MAIL_IN_SECRET` is set.",
    params(("project" = Option<i32>, Query, description = "Open new tickets in this project.")),
    request_body(content((String = "message/rfc822"), (String = "text/plain")), description = "The message as the mail server received it, at most 25 MiB; the `Content-Type` is not read."),
    responses(
        (status = 201, description = "A ticket opened, or a comment added", body = MailTaken),
        (status = 200, description = "Taken and ignored on purpose (not to be retried)", body = MailTaken),
        (status = 400, description = "Not a message that can be read, or no such project", body = crate::error::bodies::Error),
        (status = 403, description = "The sender may not write to the help desk", body = crate::error::bodies::Error),
        (status = 404, description = "This service takes no mail over HTTP (`DESKGRAPH_MAIL_IN_SECRET` is not set)", body = crate::error::bodies::Error),
        (status = 413, description = "Larger than 25 MiB", body = crate::error::bodies::Error),
        (status = 429, description = "The sender wrote too many messages in the last hour; retry later", body = crate::error::bodies::RateLimitError),
    ),
    security(("mail_secret" = [])))]
pub async fn take_in(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    raw: Bytes,
) -> AppResult<(StatusCode, Json<MailTaken>)> {
    let project = project_of(query.as_deref())?;
    if let Some(id) = project {
        crate::service::automation::triggers::check_project(&state.db.conn, "project", id).await?;
    }
    let received = mail_in::receive(
        state.write_deps(Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        &raw,
        project,
    )
    .await?;
    let taken = |outcome, ticket, comment, reason| MailTaken {
        outcome,
        ticket,
        comment,
        reason,
    };
    match received {
        Ok(Received::Ticket(id)) => Ok((
            StatusCode::CREATED,
            Json(taken("ticket", Some(id), None, None)),
        )),
        Ok(Received::Comment { ticket, comment }) => Ok((
            StatusCode::CREATED,
            Json(taken("comment", Some(ticket), Some(comment), None)),
        )),
        Ok(Received::Ignored(why)) => Ok((
            StatusCode::OK,
            Json(taken("ignored", None, None, Some(why))),
        )),
        Err(Refused::Unreadable(why)) => Err(AppError::bad_request(why)),
        Err(Refused::Sender(why)) => Err(AppError::forbidden(why)),
        Err(Refused::TooLarge) => Err(AppError::PayloadTooLarge(format!(
            "the message is larger than {} MiB",
            MAX_BYTES >> 20
        ))),
        Err(Refused::TooMany) => Err(AppError::RateLimited {
            retry_after: RETRY_AFTER_SECONDS,
        }),
    }
}
