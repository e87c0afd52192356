//! Mail in: a message written to the help desk becomes a ticket, or a comment on the ticket it answers
//! (docs/mail.md). The message is parsed by `mail-parser`; the ticket and comment are made by the same
//! service calls as every other door, as the sender, with their permissions.
//!
//! A reply is matched to its ticket by the signed tag of the plus-address it was sent to
//! (`notify::mailer::reply_address`), by the message ids of ours it names (`In-Reply-To`, `References`: see
//! `notify::mailer::thread_root`), then by the ticket number in the subject (`[TKT-123]` or `(TKT-123)`).
//! Each only counts when the sender may see that ticket; otherwise the message opens a new one, so naming
//! another requester's ticket gets nobody into it. Auto-replies, bounces and mailing-list mail, the
//! service's own mail, and a message already taken in (by `Message-ID`) do nothing.
use crate::auth::{load_actor, Actor};
use crate::config::Config;
use crate::db::Db;
use crate::domain::{parse_ticket_number, Channel};
use crate::error::{AppError, AppResult};
use crate::i18n::Lang;
use crate::notify::mailer::Email;
use crate::notify::mailer::{ticket_of_message_id, ticket_of_reply_address};
use crate::notify::outbox;
use crate::service::attachments;
use crate::service::comments::{self, NewComment};
use crate::service::idempotency::IdempotencyKey;
use crate::service::tickets::{self, NewTicket};
use crate::service::users::{sso, PeopleDeps};
use crate::service::WriteDeps;
use crate::service::{project_mail, projects};
use crate::storage::BlobStore;
use chrono::Utc;
use entity::mail_message;
use entity::values::{CommentType, ResolvedReply, TicketStatus};
use mail_parser::{Message, MessageParser, MimeHeaders};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
    SqlErr,
};

/// The largest message taken in.
pub const MAX_BYTES: usize = 25 * 1024 * 1024;
/// The first line an agent writes to make their reply an internal note.
pub const INTERNAL_MARKER: &str = "#internal";
/// Longest title a subject gives.
const MAX_TITLE: usize = 200;
/// Messages one sender may have taken in per hour; past it the mail server is asked to retry later.
pub const MAX_PER_HOUR: u64 = 60;

/// What a message became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// A new ticket.
    Ticket(i32),
    /// A comment on the ticket it answers.
    Comment {
        /// The ticket.
        ticket: i32,
        /// The comment.
        comment: i32,
    },
    /// Nothing, on purpose: an auto-reply, a bounce, list mail, our own mail, or a duplicate.
    Ignored(&'static str),
}

/// Why a message was turned away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It is not a message (or not one we can read): exit 65 from `mail-in`.
    Unreadable(String),
    /// The sender may not write to the help desk (unknown, deactivated): exit 67.
    Sender(String),
    /// It is larger than [`MAX_BYTES`]: exit 65, and the mail server tells the sender.
    TooLarge,
    /// The sender wrote more than [`MAX_PER_HOUR`] messages in the last hour: exit 75, the mail server
    /// retries later (a loop or a flood slows down instead of filling the queue).
    TooMany,
}

impl Refused {
    /// The `sysexits.h` status `deskgraph mail-in` exits with, which the mail server acts on: 65 (bounce it:
    /// unreadable or too large), 67 (bounce it: the sender is refused), 75 (keep it and try again later).
    pub fn exit_code(&self) -> u8 {
        match self {
            Refused::Unreadable(_) | Refused::TooLarge => 65,
            Refused::Sender(_) => 67,
            Refused::TooMany => 75,
        }
    }

    /// Why, in words.
    pub fn reason(&self) -> String {
        match self {
            Refused::Unreadable(why) | Refused::Sender(why) => why.clone(),
            Refused::TooLarge => format!("the message is larger than {} MiB", MAX_BYTES >> 20),
            Refused::TooMany => "this sender wrote too many messages in the last hour".to_string(),
        }
    }
}

/// What `deskgraph mail-in` says on standard error: `refused: …`, or `deferred: …` for a message to be tried
/// again.
impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = match self {
            Refused::TooMany => "deferred",
            _ => "refused",
        };
        write!(f, "{verb}: {}", self.reason())
    }
}

/// Take in one RFC 5322 message; a new ticket opens in `project` (none: the default project).
/// `Err(AppError)` is a failure of the service (retry later); a message it will not take is
/// `Ok(Err(Refused))`.
pub async fn receive(
    deps: WriteDeps<'_>,
    people: PeopleDeps<'_>,
    storage: &dyn BlobStore,
    raw: &[u8],
    project: Option<i32>,
) -> AppResult<Result<Received, Refused>> {
    let config = deps.config;
    if raw.len() > MAX_BYTES {
        return Ok(Err(Refused::TooLarge));
    }
    let Some(message) = MessageParser::default().parse(raw) else {
        return Ok(Err(Refused::Unreadable("not an RFC 5322 message".into())));
    };
    let Some(sender) = sender_of(&message) else {
        return Ok(Err(Refused::Unreadable(
            "the message has no From address".into(),
        )));
    };
    // A message without an id is known by its content: a second copy is still a duplicate, and it still
    // counts towards its sender's pace.
    let message_id = id_of(&message, raw);
    if let Some(reason) = automatic(&message) {
        if let Some(bounce) = bounce_of(&message, raw, config) {
            record_bounce(deps.db, &message_id, &sender, bounce).await?;
        }
        return Ok(Ok(Received::Ignored(reason)));
    }
    if sender.eq_ignore_ascii_case(address_of(&config.mail_from)) {
        return Ok(Ok(Received::Ignored("our own mail")));
    }
    let db = &deps.db.conn;
    if taken_in(db, &message_id).await? {
        return Ok(Ok(Received::Ignored("already taken in")));
    }
    let recent = mail_message::Entity::find()
        .filter(mail_message::Column::Sender.eq(sender.as_str()))
        .filter(mail_message::Column::ReceivedAt.gt(Utc::now() - chrono::Duration::hours(1)))
        .count(db)
        .await?;
    if recent >= MAX_PER_HOUR {
        return Ok(Err(Refused::TooMany));
    }
    let account = sso::find_by_email(db, &sender).await?;
    let account = match account {
        Some(a) if !a.is_active => {
            return Ok(Err(Refused::Sender(
                "this account is deactivated".to_string(),
            )))
        }
        Some(a) => a,
        None if project_mail::of(db, project)
            .await?
            .admits_stranger(&sender, config.mail_in_open) =>
        {
            let name = message
                .from()
                .and_then(|f| f.first())
                .and_then(|a| a.name())
                .unwrap_or("");
            sso::requester_for_email(people, &sender, name).await?
        }
        None => {
            return Ok(Err(Refused::Sender(
                "this help desk takes mail only from its accounts".to_string(),
            )))
        }
    };
    let Some(actor) = load_actor(db, account.id).await? else {
        return Ok(Err(Refused::Sender("this account is deactivated".into())));
    };
    // A team member's address can write internal notes and answer any ticket: a forged `From` must not.
    if actor.is_team() && !verified_sender(&message, raw, &sender, &config.mail_trusted_receivers) {
        return Ok(Err(Refused::Sender(
            "mail from a team member's address needs a DKIM or DMARC pass from a trusted receiving server"
                .into(),
        )));
    }
    let deps = WriteDeps {
        channel: Channel::Email,
        ..deps
    };
    // Written in the transaction of what the message makes: a copy taken in at the same time (the message
    // was sent to two help-desk addresses, or the mail server retried) is refused by the unique id and
    // makes nothing, and a crash leaves either both or neither.
    let receipt = |outcome: &str| receipt_of(&message_id, &sender, outcome);
    let (mut files, left_out) = files_of(&message, config.max_upload_bytes);
    let (mut body, whole) = body_of(&message);
    if !left_out.is_empty() {
        body.push_str(&format!("\n\n({})", left_out.join("; ")));
    }
    let subject = message.subject().unwrap_or("").trim().to_string();
    let answered = answered_ticket(deps, config, &actor, &message, &subject).await?;
    let (answered, follows) = match answered {
        // A reply to a merged ticket lands on the one it went into (`comments::create`).
        Some(t) if t.status == TicketStatus::Closed && t.merged_into_id.is_none() => {
            (None, Some(t))
        }
        Some(t) if t.status == TicketStatus::Resolved && !actor.is_team() => {
            match project_mail::of(db, t.project_id).await?.resolved_reply {
                ResolvedReply::FollowUp => (None, Some(t)),
                // The reply reopens it as it is recorded (`tickets::write::on_requester_reply`).
                ResolvedReply::Reopen => (Some(t), None),
            }
        }
        other => (other, None),
    };
    // A follow-up opens where the ticket it follows was, while that project is open.
    let project = match follows.as_ref().and_then(|t| t.project_id) {
        Some(id) if projects::get(db, id).await.is_ok() => Some(id),
        _ => project,
    };
    let received = match answered {
        Some(t) => {
            let (text, internal) = match body.strip_prefix(INTERNAL_MARKER) {
                Some(rest) if comments::can_read_internal(&actor, &t) => (rest.trim_start(), true),
                _ => (body.as_str(), false),
            };
            let (text, cut) = stored_text(text);
            // The original goes with a comment that left part of it out, unless that comment is a team
            // member's public reply: their mail may quote a notification of an internal note.
            if (!whole || cut) && (internal || !actor.is_team()) {
                files.extend(original(raw, config.max_upload_bytes));
            }
            let input = NewComment {
                body: text,
                comment_type: if internal {
                    CommentType::Internal
                } else {
                    CommentType::Public
                },
            };
            // The files commit with the comment, and are announced in its one email.
            let spooled = spooled(deps.config.max_upload_bytes, files).await?;
            let made = comments::create_with_files(
                deps,
                storage,
                &actor,
                t.id,
                input,
                spooled,
                Some(receipt("comment")),
            )
            .await;
            let made = match made {
                Ok((made, _)) => made,
                // An internal note to a merged ticket whose target the sender does not work on: refused, not
                // retried (it would be refused every time).
                Err(AppError::Forbidden { message, .. }) => {
                    return Ok(Err(Refused::Sender(message)))
                }
                // Refused for what the message holds: it would be refused every time.
                Err(e @ AppError::Validation { .. }) => {
                    return Ok(Err(Refused::Unreadable(e.to_string())))
                }
                Err(_) if taken_in(db, &message_id).await? => {
                    return Ok(Ok(Received::Ignored("already taken in")))
                }
                Err(e) => return Err(e),
            };
            Received::Comment {
                ticket: made.ticket_id,
                comment: made.id,
            }
        }
        None => {
            // A follow-up's title does not carry the finished ticket's tag: a reply quoting it by subject alone
            // would land there again rather than on the follow-up.
            let subject = match &follows {
                Some(t) => {
                    let untagged = [
                        format!("({})", t.ticket_number),
                        format!("[{}]", t.ticket_number),
                    ]
                    .iter()
                    .fold(strip_reply_prefixes(&subject).to_string(), |s, tag| {
                        s.replace(tag, "")
                    });
                    match untagged.trim() {
                        "" => format!("Follow-up to {}", t.ticket_number),
                        rest => rest.to_string(),
                    }
                }
                None => subject.clone(),
            };
            let title: String = match strip_reply_prefixes(&subject) {
                "" => "(no subject)".to_string(),
                s => s
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_TITLE)
                    .collect(),
            };
            let (description, cut) = stored_text(&body);
            if !whole || cut {
                files.extend(original(raw, config.max_upload_bytes));
            }
            let input = NewTicket {
                title,
                description: Some(description),
                // A copy racing this one under the same key is answered with the first's ticket.
                idempotency_key: Some(IdempotencyKey::parse(
                    &format!("mail:{}", crate::auth::tokens::hash_secret(&message_id)),
                    "message_id",
                )?),
                project_id: project,
                ..Default::default()
            };
            let along = tickets::Along {
                files: spooled(deps.config.max_upload_bytes, files).await?,
                storage: Some(storage),
                receipt: Some(receipt("ticket")),
                related: follows,
            };
            match tickets::create_along(deps, &actor, input, along).await {
                Ok(made) => Received::Ticket(made.id),
                Err(e @ AppError::Validation { .. }) => {
                    return Ok(Err(Refused::Unreadable(e.to_string())))
                }
                Err(_) if taken_in(db, &message_id).await? => {
                    return Ok(Ok(Received::Ignored("already taken in")))
                }
                Err(e) => return Err(e),
            }
        }
    };
    Ok(Ok(received))
}

/// The sender's address, lowercase, when the message names one.
fn sender_of(message: &Message<'_>) -> Option<String> {
    message
        .from()
        .and_then(|f| f.first())
        .and_then(|a| a.address())
        .map(|a| a.trim().to_lowercase())
        .filter(|a| a.contains('@'))
}

/// The message's `Message-ID`, or one made of its content (`raw`) when it has none.
fn id_of(message: &Message<'_>, raw: &[u8]) -> String {
    message
        .message_id()
        .map(|id| id.trim().chars().take(998).collect::<String>())
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| {
            let digest = crate::auth::tokens::hash_secret(&String::from_utf8_lossy(raw));
            format!("{digest}@content.invalid")
        })
}

/// How much of a message's header is read to answer it.
const MAX_HEADER_BYTES: usize = 256 * 1024;

/// Tell the sender of a message of `size` bytes, too large to take in (fetched from a mailbox, moved to its
/// failed folder), that it did not arrive and why, in their language: true when a note was queued. Only an
/// active account's address is answered. A mail server that pipes to `mail-in` bounces such a message itself
/// (exit 65), so this is for fetched mail.
///
/// Only the header (`head`, at most its first 256 KiB) is read. No note goes to automatic mail (auto-replies,
/// bounces, list mail) or to our own address; one goes per message (a message fetched again after a crash is
/// not answered twice) and at most one an hour per sender, so a robot that keeps sending large mail gets one
/// answer, not a loop. The note says it is an automatic reply (`Auto-Submitted: auto-replied`) and answers the
/// sender's message.
pub async fn answer_too_large(
    db: &Db,
    config: &Config,
    head: &[u8],
    size: usize,
) -> AppResult<bool> {
    let head = &head[..head.len().min(MAX_HEADER_BYTES)];
    let Some(message) = MessageParser::default().parse_headers(head) else {
        return Ok(false);
    };
    let Some(sender) = sender_of(&message) else {
        return Ok(false);
    };
    if automatic(&message).is_some() || sender.eq_ignore_ascii_case(address_of(&config.mail_from)) {
        return Ok(false);
    }
    // Only people the desk knows are answered: answering whatever From a message names would let anyone make
    // the desk mail strangers (backscatter).
    let Some(account) = sso::find_by_email(&db.conn, &sender)
        .await?
        .filter(|a| a.is_active)
    else {
        return Ok(false);
    };
    let message_id = id_of(&message, head);
    if taken_in(&db.conn, &message_id).await? {
        return Ok(false);
    }
    let answered = mail_message::Entity::find()
        .filter(mail_message::Column::Sender.eq(sender.as_str()))
        .filter(mail_message::Column::Outcome.eq(TOO_LARGE))
        .filter(mail_message::Column::ReceivedAt.gt(Utc::now() - chrono::Duration::hours(1)))
        .count(&db.conn)
        .await?;
    if answered > 0 {
        return Ok(false);
    }
    let lang = account
        .language
        .as_deref()
        .and_then(Lang::from_tag)
        .unwrap_or_default();
    // The sender's own subject, cut as a ticket's title would be: the note quotes it, it need not carry all of it.
    let subject: String = message
        .subject()
        .unwrap_or_default()
        .trim()
        .chars()
        .take(200)
        .collect();
    let subject = subject.as_str();
    let said = lang.texts(
        "email-too-large",
        [
            ("subject", subject),
            ("size", &(size >> 20).to_string()),
            ("max", &(MAX_BYTES >> 20).to_string()),
        ],
    );
    let escape = crate::sanitize::html_escape;
    let email = Email {
        to: sender.clone(),
        subject: lang.t1("email-too-large-subject", "subject", subject),
        text: format!("{said}\n"),
        html: format!("<p>{}</p>", escape(&said)),
        ticket: None,
        answers: Some(message_id.clone()),
    };
    let txn = db.begin_write().await?;
    // A copy answered meanwhile by another instance holds the message id: then this one sends nothing.
    if let Err(err) = receipt_of(&message_id, &sender, TOO_LARGE)
        .insert(&txn)
        .await
    {
        return match err.sql_err() {
            Some(SqlErr::UniqueConstraintViolation(_)) => Ok(false),
            _ => Err(err.into()),
        };
    }
    outbox::email_row(&outbox::new_event_id(), "mail.too_large", &email)?
        .insert(&txn)
        .await?;
    txn.commit().await?;
    Ok(true)
}

/// The outcome recorded for a message answered as too large.
const TOO_LARGE: &str = "too_large";

/// The record of a message taken in (`outcome`: ticket, comment or bounce); what it made is filled in by the
/// transaction that makes it.
fn receipt_of(message_id: &str, sender: &str, outcome: &str) -> mail_message::ActiveModel {
    mail_message::ActiveModel {
        message_id: Set(message_id.to_string()),
        sender: Set(sender.chars().take(320).collect()),
        outcome: Set(outcome.into()),
        received_at: Set(Utc::now()),
        ..Default::default()
    }
}

/// Whether a message with this id was taken in already (it made a ticket or a comment, or was a bounce).
async fn taken_in(db: &impl ConnectionTrait, message_id: &str) -> AppResult<bool> {
    let seen = mail_message::Entity::find()
        .filter(mail_message::Column::MessageId.eq(message_id))
        .one(db)
        .await?;
    Ok(seen.is_some())
}

/// Files a message may carry onto its ticket or comment.
const MAX_FILES: usize = 20;

/// A file a message carries (an attachment, or an inline image).
struct MailFile {
    name: String,
    bytes: Vec<u8>,
}

/// The message's attachments and inline images, at most [`MAX_FILES`] and each at most `max` bytes, and a
/// sentence for each one left out (added to the text, so the reader knows a file did not arrive).
fn files_of(message: &Message<'_>, max: u64) -> (Vec<MailFile>, Vec<String>) {
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for (n, part) in message.attachments().enumerate() {
        let name = part
            .attachment_name()
            .map(str::to_string)
            .unwrap_or_else(|| {
                let ext = part
                    .content_type()
                    .and_then(|t| t.subtype())
                    .filter(|s| s.chars().all(|c| c.is_ascii_alphanumeric()))
                    .unwrap_or("bin");
                format!("attachment-{}.{ext}", n + 1)
            });
        let bytes = part.contents();
        if bytes.is_empty() {
            continue;
        }
        if bytes.len() as u64 > max {
            left_out.push(format!(
                "attachment {name} not kept: larger than {} MiB",
                max >> 20
            ));
        } else if kept.len() >= MAX_FILES {
            left_out.push(format!(
                "attachment {name} not kept: a message keeps at most {MAX_FILES} files"
            ));
        } else {
            kept.push(MailFile {
                name,
                bytes: bytes.to_vec(),
            });
        }
    }
    (kept, left_out)
}

/// `files` spooled as uploads are, without those whose name has nothing left once cleaned.
async fn spooled(max: u64, files: Vec<MailFile>) -> AppResult<Vec<(String, attachments::Spooled)>> {
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        let piece: Result<bytes::Bytes, AppError> = Ok(bytes::Bytes::from(file.bytes));
        let upload = attachments::spool(futures_util::stream::iter([piece]), max).await?;
        if attachments::check(&file.name, &upload).is_ok() {
            out.push((file.name, upload));
        }
    }
    Ok(out)
}

/// Largest stored text of a message, in bytes of its HTML: what a description or a comment holds.
const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The name of the whole message kept with a ticket or comment that leaves part of it out.
pub const ORIGINAL_NAME: &str = "original-message.eml";

/// The whole message as a file, when it fits an upload (`max` bytes): kept with a ticket or comment whose
/// text leaves part of it out (quoted history, a signature, a cut), so that nothing the sender wrote is lost.
/// It comes after the message's own files and is not counted against [`MAX_FILES`].
fn original(raw: &[u8], max: u64) -> Option<MailFile> {
    (raw.len() as u64 <= max).then(|| MailFile {
        name: ORIGINAL_NAME.to_string(),
        bytes: raw.to_vec(),
    })
}

/// The message's text as stored: without the control characters no field takes (tab and line breaks
/// kept), and cut, with a note saying so, where its HTML would not fit a description or a comment; and
/// whether it was cut.
fn stored_text(text: &str) -> (String, bool) {
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let clean = non_empty(&clean);
    let mut keep = clean.len();
    loop {
        let mut cut = keep.min(clean.len());
        while !clean.is_char_boundary(cut) {
            cut -= 1;
        }
        let html = if cut < clean.len() {
            crate::sanitize::text_to_html(&format!(
                "{}\n\n(The message was cut here: {} more bytes are in the original.)",
                &clean[..cut],
                clean.len() - cut
            ))
        } else {
            crate::sanitize::text_to_html(clean)
        };
        if html.len() <= MAX_TEXT_BYTES || cut == 0 {
            return (html, cut < clean.len());
        }
        // Escaping grows the text; cut by at least what is over, and by a tenth, until it fits.
        keep = cut
            .saturating_sub(html.len() - MAX_TEXT_BYTES)
            .min(cut - cut / 10);
    }
}

fn non_empty(text: &str) -> &str {
    if text.trim().is_empty() {
        "(no text)"
    } else {
        text
    }
}

/// The address in `From`-style text (`Help desk <help@example.com>` or `help@example.com`).
fn address_of(mailbox: &str) -> &str {
    match (mailbox.find('<'), mailbox.rfind('>')) {
        (Some(a), Some(b)) if a < b => mailbox[a + 1..b].trim(),
        _ => mailbox.trim(),
    }
}

/// Why a message is machine mail that must not open a ticket or be answered, if it is.
fn automatic(message: &Message<'_>) -> Option<&'static str> {
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if header("Auto-Submitted").is_some_and(|v| !v.starts_with("no")) {
        return Some("an automatic reply (Auto-Submitted)");
    }
    if header("X-Autoreply").is_some() || header("X-Autorespond").is_some() {
        return Some("an automatic reply");
    }
    if header("Precedence").is_some_and(|v| ["bulk", "junk", "list"].contains(&v.as_str())) {
        return Some("bulk or list mail");
    }
    if header("Content-Type").is_some_and(|v| v.starts_with("multipart/report")) {
        return Some("a delivery report");
    }
    None
}

/// Whether mail from `sender` may act as its account, a team member's: always when no receiving server is
/// trusted (`DESKGRAPH_MAIL_TRUSTED_RECEIVERS` unset); otherwise an `Authentication-Results` header (RFC 8601)
/// written by one of those servers must say `dmarc=pass` for the sender's domain, or `dkim=pass` for a signature
/// by that domain or a parent of it. The receiving server removes such headers that claim its name from the
/// mail it receives, as RFC 8601 asks; a forged one naming another server counts for nothing.
fn verified_sender(message: &Message<'_>, raw: &[u8], sender: &str, trusted: &[String]) -> bool {
    if trusted.is_empty() {
        return true;
    }
    let domain = sender
        .rsplit_once('@')
        .map(|(_, d)| d.to_ascii_lowercase())
        .unwrap_or_default();
    message
        .headers()
        .iter()
        .filter(|h| {
            h.name
                .as_str()
                .eq_ignore_ascii_case("Authentication-Results")
        })
        .filter_map(|h| raw.get(h.offset_start as usize..h.offset_end as usize))
        .filter_map(|v| std::str::from_utf8(v).ok())
        .any(|value| vouches_for(value, &domain, trusted))
}

/// Whether one `Authentication-Results` value comes from a trusted server and holds a pass that speaks for mail
/// from `domain`.
fn vouches_for(value: &str, domain: &str, trusted: &[String]) -> bool {
    let text = without_comments(value);
    let mut parts = text.split(';');
    let Some(server) = parts.next().and_then(|p| p.split_whitespace().next()) else {
        return false;
    };
    if domain.is_empty() || !trusted.iter().any(|t| t.eq_ignore_ascii_case(server)) {
        return false;
    }
    parts.any(|result| {
        let Some((method, verdict)) = result
            .split_whitespace()
            .next()
            .and_then(|w| w.split_once('='))
        else {
            return false;
        };
        if !verdict.eq_ignore_ascii_case("pass") {
            return false;
        }
        let said = |key: &str| {
            result
                .split_whitespace()
                .filter_map(|w| w.split_once('='))
                .filter(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.trim_matches('"').to_ascii_lowercase())
                .collect::<Vec<_>>()
        };
        let aligned = |signer: &str| domain == signer || domain.ends_with(&format!(".{signer}"));
        match method.to_ascii_lowercase().as_str() {
            "dmarc" => said("header.from").iter().any(|d| d == domain),
            "dkim" => {
                said("header.d").iter().any(|d| aligned(d))
                    || said("header.i")
                        .iter()
                        .any(|i| aligned(i.rsplit_once('@').map_or(i.as_str(), |(_, d)| d)))
            }
            _ => false,
        }
    })
}

/// `value` without its RFC 5322 comments (`(good signature)`), which may hold anything, `;` and `=` included.
fn without_comments(value: &str) -> String {
    let mut depth = 0usize;
    let mut kept = String::with_capacity(value.len());
    let mut escaped = false;
    for c in value.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if depth > 0 => escaped = true,
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => kept.push(c),
            _ => {}
        }
    }
    kept
}

/// What a delivery report says of one of our emails that could not be delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bounce {
    /// The address it failed for.
    recipient: String,
    /// The status code (`5.1.1`).
    status: String,
    /// What the receiving server said, cut to 200 characters.
    diagnostic: String,
}

/// The failure a delivery report (`multipart/report; report-type=delivery-status`, RFC 3464) tells of, when it
/// is about mail of ours: the returned headers name our sender address, and the action is `failed`.
fn bounce_of(message: &Message<'_>, raw: &[u8], config: &Config) -> Option<Bounce> {
    let ours = address_of(&config.mail_from).to_ascii_lowercase();
    if !String::from_utf8_lossy(raw)
        .to_ascii_lowercase()
        .contains(&ours)
    {
        return None;
    }
    let report = message.parts.iter().find(|part| {
        part.content_type().is_some_and(|t| {
            t.ctype().eq_ignore_ascii_case("message")
                && t.subtype()
                    .is_some_and(|s| s.eq_ignore_ascii_case("delivery-status"))
        })
    })?;
    let text = String::from_utf8_lossy(report.contents()).replace("\r\n", "\n");
    let field = |name: &str| {
        text.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    };
    if !field("Action").is_some_and(|a| a.eq_ignore_ascii_case("failed")) {
        return None;
    }
    let recipient = field("Final-Recipient").or_else(|| field("Original-Recipient"))?;
    // `rfc822; someone@example.com`
    let recipient = recipient
        .rsplit(';')
        .next()
        .map(|a| address_of(a).trim().to_lowercase())
        .filter(|a| a.contains('@'))?;
    Some(Bounce {
        recipient,
        status: field("Status")
            .unwrap_or_default()
            .chars()
            .take(20)
            .collect(),
        diagnostic: field("Diagnostic-Code")
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_control())
            .take(200)
            .collect(),
    })
}

/// Write a bounce down on the account it was for, in its audit trail, once per report.
async fn record_bounce(
    db: &crate::db::Db,
    message_id: &str,
    reporter: &str,
    bounce: Bounce,
) -> AppResult<()> {
    if taken_in(&db.conn, message_id).await? {
        return Ok(());
    }
    let Some(account) = sso::find_by_email(&db.conn, &bounce.recipient).await? else {
        return Ok(());
    };
    let txn = db.begin_write().await?;
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(None, "user", account.id, "email_bounced").changes(
            serde_json::json!({
                "email": [null, bounce.recipient],
                "status": [null, bounce.status],
                "diagnostic": [null, bounce.diagnostic],
            }),
        ),
    )
    .await?;
    receipt_of(message_id, reporter, "bounce")
        .insert(&txn)
        .await?;
    txn.commit().await?;
    tracing::info!(
        account = account.id,
        status = bounce.status.as_str(),
        "an email to an account bounced"
    );
    Ok(())
}

/// The text of the message: its plain text (or its HTML as text), without the quoted history and the
/// signature, with its line breaks.
fn body_of(message: &Message<'_>) -> (String, bool) {
    let text = message
        .body_text(0)
        .map(|t| t.replace("\r\n", "\n"))
        .unwrap_or_default();
    // Where quoted or forwarded history starts: everything from it on is left out.
    let history = |line: &str, kept: &[&str]| {
        let trimmed = line.trim();
        trimmed.starts_with("-----Original Message-----")
            || (trimmed.starts_with("On ") && trimmed.ends_with("wrote:"))
            || (trimmed.starts_with("Am ") && trimmed.ends_with("schrieb:"))
            || trimmed.starts_with("From: ") && !kept.is_empty() && kept.last() == Some(&"")
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut whole = true;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed == "--" || line == "-- " {
            // A signature alone is no loss; history quoted below it is.
            whole = !lines.any(|rest| rest.trim_start().starts_with('>') || history(rest, &[]));
            break;
        }
        if history(line, &kept) {
            whole = false;
            break;
        }
        if trimmed.starts_with('>') {
            whole = false;
            continue;
        }
        kept.push(line);
    }
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    (kept.join("\n").trim_start_matches('\n').to_string(), whole)
}

/// `Re: Fwd: AW: title` → `title`.
fn strip_reply_prefixes(subject: &str) -> &str {
    let mut s = subject.trim();
    loop {
        let lower = s.to_ascii_lowercase();
        let Some(cut) = ["re:", "fwd:", "fw:", "aw:", "wg:"]
            .iter()
            .find(|p| lower.starts_with(*p))
        else {
            return s;
        };
        s = s[cut.len()..].trim_start();
    }
}

/// The ticket the message answers, when it names one the sender may see: by the signed tag of the address it
/// was sent to (`help+t12-…@`), by our message ids in `In-Reply-To` and `References`, then by the ticket number
/// in the subject.
async fn answered_ticket(
    deps: WriteDeps<'_>,
    config: &Config,
    actor: &Actor,
    message: &Message<'_>,
    subject: &str,
) -> AppResult<Option<entity::ticket::Model>> {
    let db = &deps.db.conn;
    let mut named: Vec<i32> = Vec::new();
    // 1. The signed tag of a plus-addressed Reply-To the reply was sent to.
    let mut recipients: Vec<String> = [message.to(), message.cc()]
        .into_iter()
        .flatten()
        .flat_map(|list| list.iter())
        .filter_map(|a| a.address().map(str::to_string))
        .collect();
    for name in ["Delivered-To", "X-Original-To"] {
        recipients.extend(message.header_raw(name).map(|v| address_of(v).to_string()));
    }
    for address in &recipients {
        if let Some(t) = ticket_of_reply_address(&config.mail_token_key, address) {
            if !named.contains(&t) {
                named.push(t);
            }
        }
    }
    // 2. Our message ids in In-Reply-To and References.
    for header in [message.in_reply_to(), message.references()] {
        for id in header.as_text_list().into_iter().flatten() {
            if let Some(t) = ticket_of_message_id(id) {
                if !named.contains(&t) {
                    named.push(t);
                }
            }
        }
    }
    for id in named {
        match tickets::get(db, actor, id).await {
            Ok(t) => return Ok(Some(t)),
            Err(AppError::NotFound(_)) | Err(AppError::Forbidden { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    // 3. The ticket number in the subject.
    for number in subject_numbers(subject, &config.ticket_prefix) {
        match tickets::get_by_number(db, actor, &number, &config.ticket_prefix).await {
            Ok(t) => return Ok(Some(t)),
            Err(AppError::NotFound(_)) | Err(AppError::Forbidden { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Ticket numbers in brackets or parentheses in a subject: `[TKT-123]`, `(TKT-123)`.
fn subject_numbers(subject: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut rest = subject;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + 1..];
            let Some(end) = after.find(close) else {
                break;
            };
            let inside = after[..end].trim();
            if parse_ticket_number(inside, prefix).is_some()
                && inside
                    .to_ascii_uppercase()
                    .starts_with(&prefix.to_ascii_uppercase())
            {
                found.push(inside.to_string());
            }
            rest = &after[end..];
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(raw: &[u8]) -> Result<Message<'_>, String> {
        MessageParser::default()
            .parse(raw)
            .ok_or_else(|| "unparsable".to_string())
    }

    #[test]
    fn quoted_history_and_signatures_are_left_out() -> Result<(), String> {
        let raw = b"From: Ann <ann@example.com>\r\nSubject: Re: x\r\n\r\nStill broken.\r\nSecond line.\r\n\r\nOn Mon, 1 Dec 2026, Help <help@example.com> wrote:\r\n> old text\r\n";
        let message = parsed(&raw[..])?;
        assert_eq!(
            body_of(&message),
            ("Still broken.\nSecond line.".to_string(), false)
        );
        let raw = b"From: a@example.com\r\n\r\nHi\r\n-- \r\nAnn, Accounting\r\n";
        let message = parsed(&raw[..])?;
        assert_eq!(body_of(&message), ("Hi".to_string(), true));
        let raw =
            b"From: a@example.com\r\n\r\nHi\r\n-- \r\nAnn\r\n\r\nOn Mon, Help wrote:\r\n> old\r\n";
        let message = parsed(&raw[..])?;
        assert_eq!(body_of(&message), ("Hi".to_string(), false));
        let raw = b"From: a@example.com\r\n\r\nHi,\r\nno quote here.\r\n";
        let message = parsed(&raw[..])?;
        assert_eq!(body_of(&message), ("Hi,\nno quote here.".to_string(), true));
        Ok(())
    }

    #[test]
    fn long_and_odd_text_is_stored_cut_to_fit() {
        let html = stored_text("a\u{0}b\u{c}c\td\n");
        assert_eq!(html, ("<p>abc\td</p>".to_string(), false));
        // Escaping makes `<` four times longer: the cut leaves room for it.
        let long = "<".repeat(100_000);
        let (html, cut) = stored_text(&long);
        assert!(cut);
        assert!(html.len() <= MAX_TEXT_BYTES, "{}", html.len());
        assert!(
            html.contains("The message was cut here"),
            "{}",
            &html[html.len() - 120..]
        );
        let fits = "x".repeat(60_000);
        assert!(!stored_text(&fits).0.contains("cut here"));
        assert_eq!(stored_text(" \n "), ("<p>(no text)</p>".to_string(), false));
    }

    #[test]
    fn subjects_name_tickets_in_brackets_only() {
        assert_eq!(
            subject_numbers("Re: New Ticket: Printer (TKT-012)", "TKT"),
            vec!["TKT-012"]
        );
        assert_eq!(subject_numbers("[tkt-7] again", "TKT"), vec!["tkt-7"]);
        assert!(subject_numbers("about TKT-7 and (42)", "TKT").is_empty());
        assert_eq!(strip_reply_prefixes("Re: AW: Fwd:  Printer"), "Printer");
    }

    #[test]
    fn only_a_trusted_servers_pass_for_the_senders_domain_vouches() {
        let trusted = vec!["mx.example.com".to_string()];
        for value in [
            "mx.example.com; dkim=pass header.d=example.com header.s=s1",
            "mx.example.com 1; spf=fail smtp.mailfrom=x; dkim=pass (2048-bit key; secure) header.i=@example.com",
            "MX.EXAMPLE.COM;\r\n\tdmarc=pass (p=reject dis=none) header.from=example.com",
        ] {
            assert!(vouches_for(value, "example.com", &trusted), "{value}");
        }
        // A signature of the parent domain speaks for a subdomain's mail.
        assert!(vouches_for(
            "mx.example.com; dkim=pass header.d=example.com",
            "eu.example.com",
            &trusted
        ));
        for value in [
            "mx.evil.example; dkim=pass header.d=example.com",
            "(mx.example.com) mx.evil.example; dkim=pass header.d=example.com",
            "mx.example.com; dkim=fail header.d=example.com",
            "mx.example.com; dkim=pass header.d=evil.example",
            "mx.example.com; dkim=pass header.d=notexample.com",
            "mx.example.com; dkim=pass header.d=eu.example.com",
            "mx.example.com; spf=pass smtp.mailfrom=example.com",
            "mx.example.com; dmarc=pass header.from=evil.example",
            "mx.example.com; none (dkim=pass header.d=example.com)",
            "",
        ] {
            assert!(!vouches_for(value, "example.com", &trusted), "{value}");
        }
        assert!(!vouches_for(
            "mx.example.com; dkim=pass header.d=example.com",
            "",
            &trusted
        ));
    }

    #[test]
    fn automatic_mail_is_recognised() -> Result<(), String> {
        for header in [
            "Auto-Submitted: auto-replied",
            "X-Autoreply: yes",
            "Precedence: bulk",
            "Content-Type: multipart/report; report-type=delivery-status; boundary=x",
        ] {
            let raw = format!("From: a@example.com\r\n{header}\r\nSubject: x\r\n\r\nbody\r\n");
            let message = parsed(raw.as_bytes())?;
            assert!(automatic(&message).is_some(), "{header}");
        }
        let raw = b"From: a@example.com\r\nAuto-Submitted: no\r\n\r\nbody\r\n";
        let message = parsed(&raw[..])?;
        assert_eq!(automatic(&message), None);
        Ok(())
    }
}
