//! `POST /api/mail/in/`, additive to the contract: a mail server hands the running service one message, as
//! `deskgraph mail-in --url` does for each message its pipe gets (RT's `rt-mailgate` works the same way). The
//! message is taken in exactly as `deskgraph mail-in` takes it from standard input (`service::mail_in`); the
//! route is closed unless `DESKGRAPH_MAIL_IN_SECRET` is set, and its caller shows that secret
//! (`crate::http::layers`).
use crate::domain::Channel;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::service::mail_in::{self, Received, Refused};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::Json;
use serde::{Deserialize, Serialize};
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

/// What became of a message the service took: the answer of this route, read back by `deskgraph mail-in
/// --url`, and (as [`std::fmt::Display`]) the line the command prints either way.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct MailTaken {
    /// `ticket` (a new ticket), `comment` (a reply on its ticket) or `ignored` (an auto-reply, a bounce, a
    /// duplicate, the service's own mail: nothing to do, and the mail server must not retry).
    outcome: Outcome,
    /// The ticket opened or answered (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    ticket: Option<i32>,
    /// The comment the reply became (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<i32>,
    /// Why nothing was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// What a message became, in a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A new ticket.
    Ticket,
    /// A comment on the ticket it answers.
    Comment,
    /// Nothing, on purpose.
    Ignored,
}

impl From<&Received> for MailTaken {
    fn from(received: &Received) -> Self {
        let (outcome, ticket, comment, reason) = match received {
            Received::Ticket(id) => (Outcome::Ticket, Some(*id), None, None),
            Received::Comment { ticket, comment } => {
                (Outcome::Comment, Some(*ticket), Some(*comment), None)
            }
            Received::Ignored(why) => (Outcome::Ignored, None, None, Some(why.to_string())),
        };
        MailTaken {
            outcome,
            ticket,
            comment,
            reason,
        }
    }
}

impl MailTaken {
    /// Whether it says all its outcome needs (an answer missing its ticket is not the service's).
    pub fn is_whole(&self) -> bool {
        match self.outcome {
            Outcome::Ticket => self.ticket.is_some(),
            Outcome::Comment => self.ticket.is_some() && self.comment.is_some(),
            Outcome::Ignored => true,
        }
    }
}

impl std::fmt::Display for MailTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
        match self.outcome {
            Outcome::Ticket => write!(f, "ticket {} opened", id(self.ticket)),
            Outcome::Comment => write!(
                f,
                "comment {} added to ticket {}",
                id(self.comment),
                id(self.ticket)
            ),
            Outcome::Ignored => write!(f, "ignored: {}", self.reason.as_deref().unwrap_or("")),
        }
    }
}

/// How this route answers a message it refused: the REST error of each [`Refused`].
impl From<Refused> for AppError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Unreadable(why) => AppError::bad_request(why),
            Refused::Sender(why) => AppError::forbidden(why),
            Refused::TooLarge => AppError::PayloadTooLarge(Refused::TooLarge.reason()),
            Refused::TooMany => AppError::RateLimited {
                retry_after: RETRY_AFTER_SECONDS,
            },
        }
    }
}

/// The [`Refused`] an answer of this route stands for, read back from its status and error message (the
/// inverse of `From<Refused> for AppError`); none for an answer that is not a refusal.
pub fn refusal_of(status: u16, error: &str) -> Option<Refused> {
    match status {
        400 => Some(Refused::Unreadable(error.to_string())),
        403 => Some(Refused::Sender(error.to_string())),
        413 => Some(Refused::TooLarge),
        429 => Some(Refused::TooMany),
        _ => None,
    }
}

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
    match received {
        Ok(received) => {
            let status = match received {
                Received::Ignored(_) => StatusCode::OK,
                _ => StatusCode::CREATED,
            };
            Ok((status, Json(MailTaken::from(&received))))
        }
        Err(refused) => Err(refused.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_reads_back_as_itself_from_its_answer() {
        for refused in [
            Refused::Unreadable("not an RFC 5322 message".into()),
            Refused::Sender("this account is deactivated".into()),
            Refused::TooLarge,
            Refused::TooMany,
        ] {
            let error = AppError::from(refused.clone());
            let back = refusal_of(error.status().as_u16(), &refused.reason());
            assert_eq!(back.as_ref(), Some(&refused), "{error:?}");
        }
        assert_eq!(refusal_of(500, "boom"), None);
    }

    #[test]
    fn an_answer_reads_back_to_the_line_the_command_prints() {
        for received in [
            Received::Ticket(12),
            Received::Comment {
                ticket: 12,
                comment: 40,
            },
            Received::Ignored("already taken in"),
        ] {
            let taken = MailTaken::from(&received);
            let json = serde_json::to_string(&taken).unwrap_or_default();
            let back: Option<MailTaken> = serde_json::from_str(&json).ok();
            assert_eq!(
                back.map(|b| b.to_string()),
                Some(taken.to_string()),
                "{json}"
            );
        }
        let half: Option<MailTaken> = serde_json::from_str(r#"{"outcome":"ticket"}"#).ok();
        assert!(half.is_some_and(|t| !t.is_whole()));
        assert!(serde_json::from_str::<MailTaken>("<html>").is_err());
    }
}
