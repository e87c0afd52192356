//! Sending one email: over SMTP, to the log when no server is configured, or into memory in tests.
use futures_util::future::BoxFuture;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::time::Duration;

/// A rendered email for one recipient, as stored in the outbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Email {
    /// Recipient address.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// Plain-text body.
    pub text: String,
    /// HTML body (user text escaped).
    pub html: String,
    /// The ticket it is about: its messages carry a `Message-ID` and `References` that name it, so a reply
    /// threads back onto it (`service::mail_in`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<i32>,
    /// The `Message-ID` of the message this one answers automatically (the note that a message was too large):
    /// it then says `In-Reply-To` that message and `Auto-Submitted: auto-replied`; every other email of ours is
    /// `auto-generated` (RFC 3834), so other robots do not answer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<String>,
}

/// The thread of ticket `id` as message ids say it: `<ticket-<id>@<domain>>` is the thread's root, named in
/// `References` and `In-Reply-To`; each message's own id is `<ticket-<id>.<random>@<domain>>`.
pub fn thread_root(id: i32, domain: &str) -> String {
    format!("<ticket-{id}@{domain}>")
}

/// The ticket a message id of ours names (`<ticket-<id>@…>` or `<ticket-<id>.<anything>@…>`).
pub fn ticket_of_message_id(message_id: &str) -> Option<i32> {
    let inner = message_id.trim().trim_start_matches('<');
    let rest = inner.strip_prefix("ticket-")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = rest[digits.len()..].chars().next()?;
    if !matches!(after, '@' | '.') {
        return None;
    }
    digits.parse().ok().filter(|id: &i32| *id > 0)
}

/// The key reply tokens are signed with, derived from the service's signing secret (so it is the same on
/// every instance, and changes when the secret does).
pub fn token_key(secret: &str) -> String {
    super::hmac_hex(secret.as_bytes(), &[b"deskgraph mail reply tokens"])
}

/// The plus-address tag that names ticket `id`: `t<id>-<16 hex digits of its signature>`, unguessable without
/// the key.
pub fn reply_tag(key: &str, id: i32) -> String {
    let signature = super::hmac_hex(key.as_bytes(), &[format!("ticket:{id}").as_bytes()]);
    format!("t{id}-{}", signature.get(..16).unwrap_or_default())
}

/// `help@desk.example.com` with ticket `id`'s tag: `help+t12-…@desk.example.com`.
pub fn reply_address(from: &str, key: &str, id: i32) -> Option<String> {
    let (local, domain) = from.rsplit_once('@')?;
    let local = local.split('+').next().unwrap_or(local);
    Some(format!("{local}+{}@{domain}", reply_tag(key, id)))
}

/// The ticket an address's tag names, when its signature is right (`help+t12-…@…`).
pub fn ticket_of_reply_address(key: &str, address: &str) -> Option<i32> {
    let (local, _) = address.trim().rsplit_once('@')?;
    let (_, tag) = local.split_once('+')?;
    let tag = tag.to_ascii_lowercase();
    let id: i32 = tag.strip_prefix('t')?.split('-').next()?.parse().ok()?;
    let expected = reply_tag(key, id);
    // Compared whole and without early exit: a guess learns nothing from how long the answer took.
    let same = expected.len() == tag.len()
        && expected
            .bytes()
            .zip(tag.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    (same && id > 0).then_some(id)
}

/// Something that sends emails. An error is a message for the outbox row; the worker retries.
pub trait Mailer: Send + Sync + std::fmt::Debug {
    /// Send `email` from `from`.
    fn send<'a>(&'a self, from: &'a str, email: &'a Email) -> BoxFuture<'a, Result<(), String>>;
}

/// Logs emails instead of sending them, so development needs no mail server.
#[derive(Debug, Default)]
pub struct LogMailer;

impl Mailer for LogMailer {
    fn send<'a>(&'a self, from: &'a str, email: &'a Email) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            // One line each; the body (links in it included) only at debug level.
            tracing::info!(from, to = %email.to, subject = %email.subject, "email (no SMTP configured)");
            tracing::debug!(to = %email.to, body = %email.text, "email body");
            Ok(())
        })
    }
}

/// Keeps sent emails in memory; for tests.
#[derive(Debug, Default)]
pub struct MemoryMailer {
    sent: Mutex<Vec<Email>>,
}

impl MemoryMailer {
    /// Everything sent so far.
    pub fn sent(&self) -> Vec<Email> {
        self.sent.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Mailer for MemoryMailer {
    fn send<'a>(&'a self, _from: &'a str, email: &'a Email) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.sent
                .lock()
                .map_err(|_| "mailer poisoned".to_string())?
                .push(email.clone());
            Ok(())
        })
    }
}

/// Sends over SMTP (`smtp://host:port`, `smtps://user:pass@host`, `?tls=required` for STARTTLS).
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    /// Set when emails about a ticket carry a plus-addressed `Reply-To` signed with it.
    reply_key: Option<String>,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The transport holds credentials.
        f.write_str("SmtpMailer")
    }
}

impl SmtpMailer {
    /// A pooled transport for `url`, each command limited to `timeout`; with `reply_key`, emails about a
    /// ticket carry a `Reply-To` that names it (see [`reply_address`]).
    pub fn new(url: &str, timeout: Duration, reply_key: Option<String>) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("DESKGRAPH_SMTP_URL is not usable: {e}"))?
            .timeout(Some(timeout))
            .build();
        Ok(SmtpMailer {
            transport,
            reply_key,
        })
    }
}

impl Mailer for SmtpMailer {
    fn send<'a>(&'a self, from: &'a str, email: &'a Email) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let from: Mailbox = from.parse().map_err(|e| format!("bad sender: {e}"))?;
            let to: Mailbox = email
                .to
                .parse()
                .map_err(|e| format!("bad recipient: {e}"))?;
            let domain = from.email.domain().to_string();
            let mut builder = Message::builder().from(from.clone()).to(to);
            if let (Some(id), Some(key)) = (email.ticket, &self.reply_key) {
                let address = reply_address(from.email.as_ref(), key, id)
                    .and_then(|a| a.parse::<lettre::Address>().ok());
                if let Some(address) = address {
                    builder = builder.reply_to(Mailbox::new(from.name.clone(), address));
                }
            }
            if let Some(id) = email.ticket {
                let root = thread_root(id, &domain);
                let own = format!(
                    "<ticket-{id}.{}@{domain}>",
                    crate::auth::tokens::new_secret("")
                        .chars()
                        .filter(char::is_ascii_alphanumeric)
                        .take(20)
                        .collect::<String>()
                );
                builder = builder
                    .message_id(Some(own))
                    .in_reply_to(root.clone())
                    .references(root);
            }
            let automatic = match &email.answers {
                Some(id) => {
                    // Only what a message id may hold: nothing a sender put in it can start a header.
                    let id: String = id
                        .chars()
                        .filter(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>'))
                        .collect();
                    let id = format!("<{id}>");
                    builder = builder.in_reply_to(id.clone()).references(id);
                    "auto-replied"
                }
                None => "auto-generated",
            };
            let auto_submitted = HeaderName::new_from_ascii_str("Auto-Submitted");
            let message = builder
                .raw_header(HeaderValue::new(auto_submitted, automatic.to_string()))
                .subject(email.subject.clone())
                .multipart(MultiPart::alternative_plain_html(
                    email.text.clone(),
                    email.html.clone(),
                ))
                .map_err(|e| format!("cannot build message: {e}"))?;
            self.transport
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| format!("smtp: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_addresses_name_their_ticket_only_when_signed() {
        let key = token_key("a signing secret");
        let address = reply_address("help@desk.example.org", &key, 42).unwrap_or_default();
        assert!(address.starts_with("help+t42-"), "{address}");
        assert!(address.ends_with("@desk.example.org"), "{address}");
        assert_eq!(ticket_of_reply_address(&key, &address), Some(42));
        assert_eq!(
            ticket_of_reply_address(&key, &address.to_uppercase()),
            Some(42),
            "mail servers may change the letter case"
        );
        // Another ticket's number with this signature, a changed digit, another key, no tag: nothing.
        let forged = address.replace("+t42-", "+t43-");
        assert_eq!(ticket_of_reply_address(&key, &forged), None);
        let (head, last) = address.split_at(address.find('@').unwrap_or(0) - 1);
        let flipped = format!(
            "{head}{}",
            last.replacen(&last[..1], if &last[..1] == "0" { "1" } else { "0" }, 1)
        );
        assert_eq!(ticket_of_reply_address(&key, &flipped), None, "{flipped}");
        assert_eq!(ticket_of_reply_address(&token_key("other"), &address), None);
        assert_eq!(ticket_of_reply_address(&key, "help@desk.example.org"), None);
        assert_eq!(
            ticket_of_reply_address(&key, "help+t42@desk.example.org"),
            None
        );
        // A sender address already plus-addressed keeps its own local part only.
        let again = reply_address("help+desk@desk.example.org", &key, 7).unwrap_or_default();
        assert!(again.starts_with("help+t7-"), "{again}");
    }
}
