//! Events leave the service through a transactional outbox: changes write rows in their own
//! transaction (`events`, `outbox`), and a worker (`worker`) delivers them as signed webhooks
//! (`webhooks`), emails (`mailer`, `templates`) or chat messages (`chat`) with retries. Live events for GraphQL subscriptions
//! go through `live`, after the change committed.
pub mod chat;
pub mod circuit;
pub mod live;
pub mod mailer;
pub mod outbox;
pub mod templates;
pub mod webhooks;

use crate::config::Config;
use mailer::{LogMailer, Mailer, SmtpMailer};
use std::sync::Arc;
use std::time::Duration;

/// The delivery side: an HTTP client for webhooks and a mailer. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Notifier {
    /// Where emails go (SMTP, the log, or memory in tests).
    pub mailer: Arc<dyn Mailer>,
    /// The circuit of every destination delivered to by this process.
    pub circuits: Arc<circuit::Circuits>,
    /// Built on first use: loading the system's certificates is most of the start of a short-lived process
    /// (`deskgraph mail-in` runs once per message) that never calls out.
    http: Arc<std::sync::OnceLock<reqwest::Client>>,
    timeout: Duration,
    allow_private: bool,
}

impl Notifier {
    /// Build from configuration: SMTP when `DESKGRAPH_SMTP_URL` is set, the log otherwise.
    pub fn from_config(config: &Config) -> anyhow::Result<Self> {
        let timeout = Duration::from_millis(config.delivery_timeout_ms.unsigned_abs());
        let mailer: Arc<dyn Mailer> = match &config.smtp_url {
            Some(url) => Arc::new(SmtpMailer::new(
                url,
                timeout,
                config
                    .mail_reply_tokens
                    .then(|| config.mail_token_key.clone()),
            )?),
            None => Arc::new(LogMailer),
        };
        Ok(Notifier {
            mailer,
            circuits: Arc::default(),
            http: Arc::default(),
            timeout,
            allow_private: config.webhook_allow_private,
        })
    }

    /// The same notifier sending emails through `mailer` instead (tests use an in-memory one).
    pub fn with_mailer(mut self, mailer: Arc<dyn Mailer>) -> Self {
        self.mailer = mailer;
        self
    }

    /// The HTTP client for webhook and chat calls: no redirects, no proxy, names resolved under the target
    /// policy (`net::targets`).
    pub fn http(&self) -> crate::error::AppResult<&reqwest::Client> {
        if let Some(client) = self.http.get() {
            return Ok(client);
        }
        // reqwest is built without a bundled crypto provider; the first caller installs ring, later calls
        // find it already there.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            .user_agent(concat!("deskgraph/", env!("CARGO_PKG_VERSION")))
            // A redirect could lead anywhere, past the target policy: a 3xx is a failed delivery.
            .redirect(reqwest::redirect::Policy::none())
            // Through a proxy the proxy would resolve the name, out of the policy's sight.
            .no_proxy()
            .dns_resolver(crate::net::targets::CheckedResolver {
                allow_private: self.allow_private,
            })
            .build()
            .map_err(crate::error::AppError::internal)?;
        Ok(self.http.get_or_init(|| client))
    }
}

/// Lowercase hex of HMAC-SHA256 over `parts` in order, keyed by `key`: webhook signatures and reply tokens.
pub fn hmac_hex(key: &[u8], parts: &[&[u8]]) -> String {
    use hmac::{Hmac, Mac};
    // HMAC takes a key of any length, so this arm is never taken.
    let Ok(mut mac) = Hmac::<sha2::Sha256>::new_from_slice(key) else {
        return String::new();
    };
    for part in parts {
        mac.update(part);
    }
    hex::encode(mac.finalize().into_bytes())
}
