//! One typed configuration, read from the environment (and an optional `.env` file): the settings here,
//! the limits in `limits`, the S3 settings in `s3`, the reading of the environment in `env`.
mod env;
mod limits;
mod oidc;
mod s3;
#[cfg(test)]
mod tests;

pub use limits::{AccountSettings, ConnectionLimits, GraphqlLimits, LoginThrottle, ViewerLimits};
pub use oidc::{OidcSettings, CALLBACK_PATH as OIDC_CALLBACK_PATH};
pub use s3::S3Settings;

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Service configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// `DATABASE_URL`: `sqlite://…` or `postgres://…`.
    pub database_url: String,
    /// `DESKGRAPH_JWT_SECRET`; when unset, one is generated and kept in the database.
    pub jwt_secret: Option<String>,
    /// `DESKGRAPH_JWT_TTL_SECONDS`: lifetime of issued access tokens (default 3600).
    pub jwt_ttl_seconds: i64,
    /// `DESKGRAPH_TICKET_PREFIX`: prefix of ticket numbers (default `TKT`).
    pub ticket_prefix: String,
    /// `DESKGRAPH_LOG_FORMAT`: `text` or `json`.
    pub log_format: LogFormat,
    /// `DESKGRAPH_DB_POOL_SIZE`: maximum database connections (default 10).
    pub db_pool_size: u32,
    /// `DESKGRAPH_DB_ACQUIRE_TIMEOUT_MS`: longest a request waits for a database connection before it answers
    /// 503 `unavailable` (default 5000): a busy pool, or a database that is down or restarting.
    pub db_acquire_timeout_ms: u64,
    /// `DESKGRAPH_STATEMENT_TIMEOUT_MS`: longest one statement may run while serving (default 5000; on SQLite,
    /// one use of a pooled connection): PostgreSQL's `statement_timeout`, an interrupt on SQLite. Past it the
    /// request answers 503 `timeout`. Commands (`migrate`, `seed`, …) run without it.
    pub statement_timeout_ms: u64,
    /// How many requests of one viewer may use the database at once, and how long more wait for a turn
    /// (`DESKGRAPH_VIEWER_*`).
    pub viewer: ViewerLimits,
    /// `DESKGRAPH_SESSION_TTL_HOURS`: lifetime of web sessions (default 336, two weeks).
    pub session_ttl_hours: i64,
    /// `DESKGRAPH_RATE_LIMIT_AUTHENTICATED`: requests per hour per user (default 1000).
    pub rate_limit_authenticated: u64,
    /// `DESKGRAPH_RATE_LIMIT_ANONYMOUS`: requests per hour per client address (default 100).
    pub rate_limit_anonymous: u64,
    /// `DESKGRAPH_REDIS_URL`: when set, rate-limit counters live in Redis and are shared by instances.
    pub redis_url: Option<String>,
    /// `DESKGRAPH_REDIS_KEY_PREFIX`: prefix of the Redis keys (default `deskgraph`); instances sharing a budget
    /// must share it, separate deployments (or test runs) on one Redis must not.
    pub redis_key_prefix: String,
    /// `DESKGRAPH_REDIS_DEADLINE_MS`: longest a Redis call may take before this instance counts on its own
    /// until Redis answers again (default 100).
    pub redis_deadline_ms: u64,
    /// `DESKGRAPH_TRUSTED_PROXIES`: comma-separated addresses or CIDRs whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// `DESKGRAPH_CORS_ORIGINS`: comma-separated origins allowed to call the API from a browser.
    pub cors_origins: Vec<String>,
    /// `DESKGRAPH_AUTH_CACHE_SECONDS`: how long a resolved token, a session's user and their groups are reused
    /// without asking the database (default 10; 0 turns the cache off). Revocations through the service apply at once.
    pub auth_cache_seconds: u64,
    /// `DESKGRAPH_REQUEST_TIMEOUT_SECONDS`: longest a request may take (default 30).
    pub request_timeout_seconds: u64,
    /// `DESKGRAPH_MAX_BODY_BYTES`: largest accepted request body (default 1 MiB).
    pub max_body_bytes: usize,
    /// `DESKGRAPH_MAX_UPLOAD_BYTES`: largest accepted attachment (default 25 MiB); upload routes alone are
    /// exempt from `max_body_bytes`.
    pub max_upload_bytes: u64,
    /// `DESKGRAPH_STORAGE_URL`: where attachment bytes live: `database` (default), `file:///path` or
    /// `s3://bucket/prefix`.
    pub storage_url: Option<String>,
    /// `DESKGRAPH_S3_*`: how `s3://` storage is reached (over the standard `AWS_*` variables).
    pub s3: S3Settings,
    /// `DESKGRAPH_ANONYMOUS_INTROSPECTION`: whether unauthenticated callers may introspect (default true).
    pub anonymous_introspection: bool,
    /// `DESKGRAPH_GRAPHQL_PLAIN`: whether GraphQL objects whose selection is all plain fields are answered
    /// in one pass (`src/graphql/engine/one_pass/`) rather than field by field (default true; same answers).
    pub graphql_plain: bool,
    /// `DESKGRAPH_WEBHOOK_URL`: endpoint that receives every event (none when unset).
    pub webhook_url: Option<String>,
    /// `DESKGRAPH_WEBHOOK_SECRET`: HMAC key for that endpoint (required with `DESKGRAPH_WEBHOOK_URL`).
    pub webhook_secret: String,
    /// `DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`: whether webhooks may go to loopback and private addresses, for
    /// on-premises receivers (default false; see `notify::targets`).
    pub webhook_allow_private: bool,
    /// `DESKGRAPH_SLACK_API_URL`: where Slack bot destinations call `chat.postMessage` (default
    /// `https://slack.com/api`; a test or an on-premises proxy names its own).
    pub slack_api_url: String,
    /// `DESKGRAPH_SMTP_URL`: `smtp://host:port` or `smtps://user:pass@host`; unset logs emails instead.
    pub smtp_url: Option<String>,
    /// `DESKGRAPH_MAIL_FROM`: sender address (default `deskgraph@localhost`).
    pub mail_from: String,
    /// `DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS`: `create` (default) gives a stranger who writes to the help desk a
    /// requester account; `refuse` turns them away.
    pub mail_in_open: bool,
    /// `DESKGRAPH_MAIL_IN_SECRET` (32 characters or more): the secret a mail server's `deskgraph mail-in --url`
    /// shows to hand messages to the running service (`POST /api/mail/in/`); unset, that door is closed.
    pub mail_in_secret: Option<String>,
    /// `DESKGRAPH_MAIL_TRUSTED_RECEIVERS`: the receiving mail servers (their `Authentication-Results` authserv-id,
    /// comma-separated) whose DKIM or DMARC verdict the service believes. When set, mail from a team member's
    /// address acts as them only with such a pass for the sender's domain; unset, the `From` address is taken
    /// as it comes (the receiving server's own checks are the defence).
    pub mail_trusted_receivers: Vec<String>,
    /// `DESKGRAPH_MAIL_REPLY_TOKENS`: notification emails about a ticket carry a plus-addressed `Reply-To`
    /// (`help+t12-<token>@desk.example.com`) that threads a reply onto its ticket even when the mail client
    /// drops `In-Reply-To` (default false: the mail server must deliver `help+…@` to `help@`).
    pub mail_reply_tokens: bool,
    /// The key reply tokens are signed with: derived at start from the signing secret, never configured.
    pub mail_token_key: String,
    /// `DESKGRAPH_MAX_CUSTOM_FIELDS`: most active custom fields one ticket may carry, every ticket's and its
    /// project's together (default 50).
    pub max_custom_fields: usize,
    /// `DESKGRAPH_OUTBOX_MAX_ATTEMPTS`: delivery attempts before a message is marked failed (default 8).
    pub outbox_max_attempts: i32,
    /// `DESKGRAPH_OUTBOX_BACKOFF_MS`: first retry delay, doubled per attempt (default 2000; 0 retries at once).
    pub outbox_backoff_ms: i64,
    /// `DESKGRAPH_DELIVERY_TIMEOUT_MS`: limit of one webhook call or email send (default 10000).
    pub delivery_timeout_ms: i64,
    /// `DESKGRAPH_DELIVERY_HISTORY_DAYS`: days delivered and failed outbox rows are kept, with the webhook and
    /// chat tries they logged (default 30; 0 keeps them forever).
    pub delivery_history_days: u32,
    /// Failed sign-ins allowed per account and per client address (`DESKGRAPH_LOGIN_*`).
    pub login_throttle: LoginThrottle,
    /// Passwords and reset links (`DESKGRAPH_PASSWORD_*`, `DESKGRAPH_PUBLIC_URL`).
    pub accounts: AccountSettings,
    /// Single sign-on with OpenID Connect (`DESKGRAPH_OIDC_*`); `None` when no provider is configured.
    pub oidc: Option<OidcSettings>,
    /// What one GraphQL request may ask for, and the hourly points budget (`DESKGRAPH_GRAPHQL_*`).
    pub graphql: GraphqlLimits,
    /// `DESKGRAPH_SECURE_COOKIES`: `auto` (default), `true` or `false`.
    pub secure_cookies: SecureCookies,
    /// `DESKGRAPH_HSTS_SECONDS`: `max-age` of the `Strict-Transport-Security` header (default 0: not sent).
    pub hsts_seconds: u64,
    /// `DESKGRAPH_METRICS_TOKEN`: bearer token that opens `/metrics` to other hosts (loopback clients
    /// need none; unset, only they may scrape).
    pub metrics_token: Option<String>,
    /// Limits on client connections (`crate::http::connections`).
    pub connections: ConnectionLimits,
}

/// When cookies carry the `Secure` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecureCookies {
    /// When the request arrived over TLS, as `X-Forwarded-Proto: https` from a trusted proxy says.
    Auto,
    /// Always (the service is only reached over HTTPS).
    Always,
    /// Never.
    Never,
}

/// Slack's Web API, where bot destinations post, when `DESKGRAPH_SLACK_API_URL` is unset.
pub const DEFAULT_SLACK_API_URL: &str = "https://slack.com/api";

/// Sender address when `DESKGRAPH_MAIL_FROM` is unset.
pub const DEFAULT_MAIL_FROM: &str = "deskgraph@localhost";

/// Prefix of Redis keys when `DESKGRAPH_REDIS_KEY_PREFIX` is unset.
pub const DEFAULT_REDIS_KEY_PREFIX: &str = "deskgraph";

/// Largest attachment when `DESKGRAPH_MAX_UPLOAD_BYTES` is unset: 25 MiB.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = 25 * 1024 * 1024;

/// Default SQLite database, created on first run.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://deskgraph.db?mode=rwc";

impl Config {
    /// Configuration for tests: the given database, defaults elsewhere.
    pub fn for_database(database_url: &str) -> Self {
        Config {
            database_url: database_url.to_string(),
            jwt_secret: Some("test-secret-test-secret-test-secret".to_string()),
            jwt_ttl_seconds: 3600,
            ticket_prefix: "TKT".to_string(),
            log_format: LogFormat::Text,
            db_pool_size: 5,
            db_acquire_timeout_ms: 5000,
            statement_timeout_ms: 5000,
            viewer: ViewerLimits::default(),
            session_ttl_hours: 336,
            rate_limit_authenticated: 1000,
            rate_limit_anonymous: 100,
            redis_url: None,
            redis_key_prefix: DEFAULT_REDIS_KEY_PREFIX.to_string(),
            redis_deadline_ms: 100,
            trusted_proxies: Vec::new(),
            cors_origins: Vec::new(),
            auth_cache_seconds: 10,
            request_timeout_seconds: 30,
            max_body_bytes: 1024 * 1024,
            max_upload_bytes: DEFAULT_MAX_UPLOAD_BYTES,
            storage_url: None,
            s3: S3Settings::default(),
            anonymous_introspection: true,
            graphql_plain: true,
            webhook_url: None,
            webhook_secret: String::new(),
            webhook_allow_private: false,
            slack_api_url: DEFAULT_SLACK_API_URL.to_string(),
            smtp_url: None,
            mail_from: DEFAULT_MAIL_FROM.to_string(),
            mail_in_open: true,
            mail_in_secret: None,
            mail_trusted_receivers: Vec::new(),
            mail_reply_tokens: false,
            mail_token_key: String::new(),
            max_custom_fields: 50,
            outbox_max_attempts: 8,
            outbox_backoff_ms: 0,
            delivery_timeout_ms: 2000,
            delivery_history_days: 30,
            login_throttle: LoginThrottle::default(),
            accounts: AccountSettings::default(),
            oidc: None,
            graphql: GraphqlLimits::default(),
            secure_cookies: SecureCookies::Auto,
            hsts_seconds: 0,
            metrics_token: None,
            connections: ConnectionLimits::default(),
        }
    }
}
