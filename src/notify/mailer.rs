//! Sending one email: over SMTP, to the log when no server is configured, or into memory in tests.
use futures_util::future::BoxFuture;
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
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The transport holds credentials.
        f.write_str("SmtpMailer")
    }
}

impl SmtpMailer {
    /// A pooled transport for `url`, each command limited to `timeout`.
    pub fn new(url: &str, timeout: Duration) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("DESKGRAPH_SMTP_URL is not usable: {e}"))?
            .timeout(Some(timeout))
            .build();
        Ok(SmtpMailer { transport })
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
            let mut builder = Message::builder().from(from).to(to);
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
            let message = builder
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
