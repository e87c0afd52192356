//! One typed configuration, read from the environment (and an optional `.env` file).
use anyhow::{bail, Context};
use std::collections::HashMap;

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
    /// `DESKGRAPH_AUTH_CACHE_SECONDS`: how long a resolved token and its user's groups are reused without
    /// asking the database (default 10; 0 turns the cache off). Revocations through the service apply at once.
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
    /// in one pass (`src/graphql/plain.rs`) rather than field by field (default true; same answers).
    pub graphql_plain: bool,
    /// `DESKGRAPH_WEBHOOK_URL`: endpoint that receives every event (none when unset).
    pub webhook_url: Option<String>,
    /// `DESKGRAPH_WEBHOOK_SECRET`: HMAC key for that endpoint (required with `DESKGRAPH_WEBHOOK_URL`).
    pub webhook_secret: String,
    /// `DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`: whether webhooks may go to loopback and private addresses, for
    /// on-premises receivers (default false; see `notify::targets`).
    pub webhook_allow_private: bool,
    /// `DESKGRAPH_SMTP_URL`: `smtp://host:port` or `smtps://user:pass@host`; unset logs emails instead.
    pub smtp_url: Option<String>,
    /// `DESKGRAPH_MAIL_FROM`: sender address (default `deskgraph@localhost`).
    pub mail_from: String,
    /// `DESKGRAPH_OUTBOX_MAX_ATTEMPTS`: delivery attempts before a message is marked failed (default 8).
    pub outbox_max_attempts: i32,
    /// `DESKGRAPH_OUTBOX_BACKOFF_MS`: first retry delay, doubled per attempt (default 2000; 0 retries at once).
    pub outbox_backoff_ms: i64,
    /// `DESKGRAPH_DELIVERY_TIMEOUT_MS`: limit of one webhook call or email send (default 10000).
    pub delivery_timeout_ms: i64,
    /// Failed sign-ins allowed per account and per client address (`DESKGRAPH_LOGIN_*`).
    pub login_throttle: LoginThrottle,
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

/// How long a connection may take over a request header or sit idle, and how many may be open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// `DESKGRAPH_HEADER_TIMEOUT_SECONDS` (default 10): from a request's first byte to its blank line.
    pub header_timeout_seconds: u64,
    /// `DESKGRAPH_IDLE_TIMEOUT_SECONDS` (default 60): a kept-alive connection with no request, or a
    /// client that stops reading its response, is closed after this long.
    pub idle_timeout_seconds: u64,
    /// `DESKGRAPH_MAX_CONNECTIONS` (default 10000): connections open at once; more wait to be accepted.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout_seconds: 10,
            idle_timeout_seconds: 60,
            max_connections: 10_000,
        }
    }
}

/// How many failed sign-ins are allowed before further attempts are refused (see `service::login_throttle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoginThrottle {
    /// `DESKGRAPH_LOGIN_MAX_FAILURES`: failures per account in one window (default 5).
    pub max_failures: u64,
    /// `DESKGRAPH_LOGIN_MAX_FAILURES_PER_ADDRESS`: failures per client address in one window (default 20).
    pub max_failures_per_address: u64,
    /// `DESKGRAPH_LOGIN_WINDOW_SECONDS`: length of a counting window (default 900, at most 3600).
    pub window_seconds: u64,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        LoginThrottle {
            max_failures: 5,
            max_failures_per_address: 20,
            window_seconds: 900,
        }
    }
}

/// GraphQL cost limits and budget (see docs/graphql.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphqlLimits {
    /// `DESKGRAPH_GRAPHQL_MAX_NODES`: largest `nodeCount` an operation may have (default 50,000).
    pub max_nodes: u64,
    /// `DESKGRAPH_GRAPHQL_POINTS`: points per hour for each signed-in viewer (default 5,000).
    pub points_authenticated: u64,
    /// `DESKGRAPH_GRAPHQL_POINTS_ANONYMOUS`: points per hour for each anonymous client address (default 500).
    pub points_anonymous: u64,
    /// `DESKGRAPH_GRAPHQL_MAX_ROOT_FIELDS`: most root fields (aliases included) in one operation (default 50).
    pub max_root_fields: usize,
    /// `DESKGRAPH_GRAPHQL_MAX_RESPONSE_BYTES`: largest response body served (default 16 MiB).
    pub max_response_bytes: usize,
    /// `DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS`: a `.graphql` file or a folder of them; when set, only these
    /// documents run (allow-list mode).
    pub trusted_documents: Option<std::path::PathBuf>,
}

impl Default for GraphqlLimits {
    fn default() -> Self {
        GraphqlLimits {
            max_nodes: 50_000,
            points_authenticated: 5_000,
            points_anonymous: 500,
            max_root_fields: 50,
            max_response_bytes: 16 << 20,
            trusted_documents: None,
        }
    }
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

/// Sender address when `DESKGRAPH_MAIL_FROM` is unset.
pub const DEFAULT_MAIL_FROM: &str = "deskgraph@localhost";

/// Prefix of Redis keys when `DESKGRAPH_REDIS_KEY_PREFIX` is unset.
pub const DEFAULT_REDIS_KEY_PREFIX: &str = "deskgraph";

/// Largest attachment when `DESKGRAPH_MAX_UPLOAD_BYTES` is unset: 25 MiB.
pub const DEFAULT_MAX_UPLOAD_BYTES: u64 = 25 * 1024 * 1024;

/// Default SQLite database, created on first run.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://deskgraph.db?mode=rwc";

impl Config {
    /// Read from the process environment (after loading `.env` when present).
    pub fn from_env() -> anyhow::Result<Self> {
        let _ = dotenvy::dotenv();
        Self::from_map(&std::env::vars().collect())
    }

    /// Read from a map of variables; a bad value is an error naming the variable.
    pub fn from_map(vars: &HashMap<String, String>) -> anyhow::Result<Self> {
        let get = |key: &str| {
            vars.get(key)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let database_url = get("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string());
        if !(database_url.starts_with("sqlite:")
            || database_url.starts_with("postgres://")
            || database_url.starts_with("postgresql://"))
        {
            bail!("DATABASE_URL must start with sqlite:, postgres:// or postgresql:// (got {database_url:?})");
        }
        let jwt_secret = get("DESKGRAPH_JWT_SECRET");
        if let Some(secret) = &jwt_secret {
            if secret.len() < 16 {
                bail!("DESKGRAPH_JWT_SECRET must be at least 16 characters long");
            }
        }
        let ticket_prefix = get("DESKGRAPH_TICKET_PREFIX").unwrap_or_else(|| "TKT".to_string());
        if ticket_prefix.len() > 10 || !ticket_prefix.chars().all(|c| c.is_ascii_alphanumeric()) {
            bail!("DESKGRAPH_TICKET_PREFIX must be 1-10 ASCII letters or digits (got {ticket_prefix:?})");
        }
        let log_format = match get("DESKGRAPH_LOG_FORMAT").as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => bail!("DESKGRAPH_LOG_FORMAT must be `text` or `json` (got {other:?})"),
        };
        let webhook_url = get("DESKGRAPH_WEBHOOK_URL");
        let webhook_secret = get("DESKGRAPH_WEBHOOK_SECRET").unwrap_or_default();
        let webhook_allow_private = boolean(&get, "DESKGRAPH_WEBHOOK_ALLOW_PRIVATE", false)?;
        if let Some(url) = &webhook_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                bail!("DESKGRAPH_WEBHOOK_URL must start with http:// or https:// (got {url:?})");
            }
            let parsed = url::Url::parse(url).with_context(|| {
                format!("DESKGRAPH_WEBHOOK_URL is not a valid URL (got {url:?})")
            })?;
            if let Err(why) = crate::notify::targets::check_url(&parsed, webhook_allow_private) {
                bail!("DESKGRAPH_WEBHOOK_URL: {why}");
            }
            // Receivers verify the signature; one made with an empty key proves nothing.
            if webhook_secret.is_empty() {
                bail!("DESKGRAPH_WEBHOOK_URL is set but DESKGRAPH_WEBHOOK_SECRET is not: set the HMAC key the receiver checks signatures with");
            }
        }
        let smtp_url = get("DESKGRAPH_SMTP_URL");
        if let Some(url) = &smtp_url {
            if !(url.starts_with("smtp://") || url.starts_with("smtps://")) {
                bail!("DESKGRAPH_SMTP_URL must start with smtp:// or smtps://");
            }
        }
        Ok(Config {
            webhook_url,
            webhook_secret,
            webhook_allow_private,
            smtp_url,
            mail_from: get("DESKGRAPH_MAIL_FROM").unwrap_or_else(|| DEFAULT_MAIL_FROM.to_string()),
            outbox_max_attempts: number(&get, "DESKGRAPH_OUTBOX_MAX_ATTEMPTS", 8, 1, 100)? as i32,
            outbox_backoff_ms: number(&get, "DESKGRAPH_OUTBOX_BACKOFF_MS", 2000, 0, 3_600_000)?,
            delivery_timeout_ms: number(
                &get,
                "DESKGRAPH_DELIVERY_TIMEOUT_MS",
                10_000,
                100,
                300_000,
            )?,
            database_url,
            jwt_secret,
            jwt_ttl_seconds: number(&get, "DESKGRAPH_JWT_TTL_SECONDS", 3600, 1, 31 * 24 * 3600)?,
            ticket_prefix,
            log_format,
            db_pool_size: number(&get, "DESKGRAPH_DB_POOL_SIZE", 10, 1, 1000)? as u32,
            db_acquire_timeout_ms: number(
                &get,
                "DESKGRAPH_DB_ACQUIRE_TIMEOUT_MS",
                5000,
                100,
                600_000,
            )? as u64,
            session_ttl_hours: number(&get, "DESKGRAPH_SESSION_TTL_HOURS", 336, 1, 24 * 365)?,
            rate_limit_authenticated: number(
                &get,
                "DESKGRAPH_RATE_LIMIT_AUTHENTICATED",
                1000,
                1,
                1_000_000_000,
            )? as u64,
            rate_limit_anonymous: number(
                &get,
                "DESKGRAPH_RATE_LIMIT_ANONYMOUS",
                100,
                1,
                1_000_000_000,
            )? as u64,
            redis_url: get("DESKGRAPH_REDIS_URL"),
            redis_key_prefix: get("DESKGRAPH_REDIS_KEY_PREFIX")
                .unwrap_or_else(|| DEFAULT_REDIS_KEY_PREFIX.to_string()),
            redis_deadline_ms: number(&get, "DESKGRAPH_REDIS_DEADLINE_MS", 100, 1, 60_000)? as u64,
            trusted_proxies: proxies(get("DESKGRAPH_TRUSTED_PROXIES"))?,
            cors_origins: get("DESKGRAPH_CORS_ORIGINS")
                .map(|v| {
                    v.split(',')
                        .map(|o| o.trim().to_string())
                        .filter(|o| !o.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            auth_cache_seconds: number(&get, "DESKGRAPH_AUTH_CACHE_SECONDS", 10, 0, 3600)? as u64,
            request_timeout_seconds: number(&get, "DESKGRAPH_REQUEST_TIMEOUT_SECONDS", 30, 1, 3600)?
                as u64,
            max_body_bytes: number(
                &get,
                "DESKGRAPH_MAX_BODY_BYTES",
                1024 * 1024,
                1024,
                1024 * 1024 * 1024,
            )? as usize,
            max_upload_bytes: number(
                &get,
                "DESKGRAPH_MAX_UPLOAD_BYTES",
                DEFAULT_MAX_UPLOAD_BYTES as i64,
                1,
                1 << 40,
            )? as u64,
            storage_url: get("DESKGRAPH_STORAGE_URL"),
            s3: S3Settings {
                endpoint: get("DESKGRAPH_S3_ENDPOINT"),
                region: get("DESKGRAPH_S3_REGION"),
                access_key_id: get("DESKGRAPH_S3_ACCESS_KEY_ID"),
                secret_access_key: get("DESKGRAPH_S3_SECRET_ACCESS_KEY"),
            },
            anonymous_introspection: boolean(&get, "DESKGRAPH_ANONYMOUS_INTROSPECTION", true)?,
            graphql_plain: boolean(&get, "DESKGRAPH_GRAPHQL_PLAIN", true)?,
            login_throttle: LoginThrottle {
                max_failures: number(&get, "DESKGRAPH_LOGIN_MAX_FAILURES", 5, 1, 1000)? as u64,
                max_failures_per_address: number(
                    &get,
                    "DESKGRAPH_LOGIN_MAX_FAILURES_PER_ADDRESS",
                    20,
                    1,
                    1_000_000,
                )? as u64,
                // At most an hour: the in-memory counters forget a key idle longer than that.
                window_seconds: number(&get, "DESKGRAPH_LOGIN_WINDOW_SECONDS", 900, 60, 3600)?
                    as u64,
            },
            graphql: GraphqlLimits {
                max_nodes: number(&get, "DESKGRAPH_GRAPHQL_MAX_NODES", 50_000, 1, 100_000_000)?
                    as u64,
                points_authenticated: number(
                    &get,
                    "DESKGRAPH_GRAPHQL_POINTS",
                    5_000,
                    1,
                    1_000_000_000,
                )? as u64,
                points_anonymous: number(
                    &get,
                    "DESKGRAPH_GRAPHQL_POINTS_ANONYMOUS",
                    500,
                    1,
                    1_000_000_000,
                )? as u64,
                max_root_fields: number(&get, "DESKGRAPH_GRAPHQL_MAX_ROOT_FIELDS", 50, 1, 10_000)?
                    as usize,
                max_response_bytes: number(
                    &get,
                    "DESKGRAPH_GRAPHQL_MAX_RESPONSE_BYTES",
                    16 << 20,
                    1024,
                    1 << 32,
                )? as usize,
                trusted_documents: get("DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS").map(Into::into),
            },
            secure_cookies: match get("DESKGRAPH_SECURE_COOKIES")
                .map(|v| v.to_ascii_lowercase())
                .as_deref()
            {
                None | Some("auto") => SecureCookies::Auto,
                Some("1" | "true" | "yes" | "on") => SecureCookies::Always,
                Some("0" | "false" | "no" | "off") => SecureCookies::Never,
                Some(other) => {
                    bail!("DESKGRAPH_SECURE_COOKIES must be auto, true or false (got {other:?})")
                }
            },
            hsts_seconds: number(&get, "DESKGRAPH_HSTS_SECONDS", 0, 0, 2 * 365 * 24 * 3600)? as u64,
            metrics_token: get("DESKGRAPH_METRICS_TOKEN"),
            connections: ConnectionLimits {
                header_timeout_seconds: number(
                    &get,
                    "DESKGRAPH_HEADER_TIMEOUT_SECONDS",
                    10,
                    1,
                    3600,
                )? as u64,
                idle_timeout_seconds: number(&get, "DESKGRAPH_IDLE_TIMEOUT_SECONDS", 60, 1, 86_400)?
                    as u64,
                max_connections: number(&get, "DESKGRAPH_MAX_CONNECTIONS", 10_000, 1, 1_000_000)?
                    as usize,
            },
        })
    }

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
            smtp_url: None,
            mail_from: DEFAULT_MAIL_FROM.to_string(),
            outbox_max_attempts: 8,
            outbox_backoff_ms: 0,
            delivery_timeout_ms: 2000,
            login_throttle: LoginThrottle::default(),
            graphql: GraphqlLimits::default(),
            secure_cookies: SecureCookies::Auto,
            hsts_seconds: 0,
            metrics_token: None,
            connections: ConnectionLimits::default(),
        }
    }
}

fn boolean(
    get: &impl Fn(&str) -> Option<String>,
    key: &str,
    default: bool,
) -> anyhow::Result<bool> {
    match get(key).map(|v| v.to_ascii_lowercase()).as_deref() {
        None => Ok(default),
        Some("1" | "true" | "yes" | "on") => Ok(true),
        Some("0" | "false" | "no" | "off") => Ok(false),
        Some(other) => bail!("{key} must be true or false (got {other:?})"),
    }
}

fn proxies(raw: Option<String>) -> anyhow::Result<Vec<ipnet::IpNet>> {
    let Some(raw) = raw else {
        return Ok(Vec::new());
    };
    raw.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<ipnet::IpNet>()
                .or_else(|_| p.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!("DESKGRAPH_TRUSTED_PROXIES: {p:?} is not an IP address or CIDR")
                })
        })
        .collect()
}

fn number(
    get: &impl Fn(&str) -> Option<String>,
    key: &str,
    default: i64,
    min: i64,
    max: i64,
) -> anyhow::Result<i64> {
    match get(key) {
        None => Ok(default),
        Some(raw) => {
            let value: i64 = raw
                .parse()
                .with_context(|| format!("{key} must be a whole number (got {raw:?})"))?;
            if value < min || value > max {
                bail!("{key} must be between {min} and {max} (got {value})");
            }
            Ok(value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_the_variable() {
        let mut vars = HashMap::new();
        vars.insert("DESKGRAPH_LOG_FORMAT".to_string(), "xml".to_string());
        let err = Config::from_map(&vars)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("DESKGRAPH_LOG_FORMAT"), "{err}");
        let mut vars = HashMap::new();
        vars.insert("DESKGRAPH_DB_POOL_SIZE".to_string(), "lots".to_string());
        let err = Config::from_map(&vars)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("DESKGRAPH_DB_POOL_SIZE"), "{err}");
    }

    #[test]
    fn a_webhook_url_needs_a_secret_and_an_allowed_target() {
        let error = |pairs: &[(&str, &str)]| {
            let vars: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Config::from_map(&vars).err().map(|e| e.to_string())
        };
        let unsigned = error(&[("DESKGRAPH_WEBHOOK_URL", "https://hooks.example.com/h")]);
        assert!(
            unsigned
                .as_deref()
                .is_some_and(|e| e.contains("DESKGRAPH_WEBHOOK_SECRET")),
            "{unsigned:?}"
        );
        let internal = [
            ("DESKGRAPH_WEBHOOK_URL", "http://169.254.169.254/latest"),
            ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
        ];
        assert!(error(&internal).is_some_and(|e| e.contains("link-local")));
        let local = [
            ("DESKGRAPH_WEBHOOK_URL", "http://127.0.0.1:9000/h"),
            ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
        ];
        assert!(error(&local).is_some());
        let mut allowed = local.to_vec();
        allowed.push(("DESKGRAPH_WEBHOOK_ALLOW_PRIVATE", "true"));
        assert_eq!(error(&allowed), None);
        let fine = [
            ("DESKGRAPH_WEBHOOK_URL", "https://hooks.example.com/h"),
            ("DESKGRAPH_WEBHOOK_SECRET", "s3cret"),
        ];
        assert_eq!(error(&fine), None);
    }

    #[test]
    fn defaults() -> anyhow::Result<()> {
        let config = Config::from_map(&HashMap::new())?;
        assert_eq!(config.database_url, DEFAULT_DATABASE_URL);
        assert_eq!(config.ticket_prefix, "TKT");
        assert_eq!(config.login_throttle, LoginThrottle::default());
        assert_eq!(config.secure_cookies, SecureCookies::Auto);
        assert_eq!(config.hsts_seconds, 0);
        Ok(())
    }
}

/// Where and as whom `s3://` attachment storage is reached. Each unset one falls back to the standard
/// `AWS_*` variable (`AWS_ENDPOINT`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, …) or the instance's role.
#[derive(Clone, Default)]
pub struct S3Settings {
    /// `DESKGRAPH_S3_ENDPOINT`: the server's base URL, for S3-compatible services (MinIO, Ceph, R2);
    /// `http://` ones are allowed, and buckets are then addressed by path.
    pub endpoint: Option<String>,
    /// `DESKGRAPH_S3_REGION`: the bucket's region.
    pub region: Option<String>,
    /// `DESKGRAPH_S3_ACCESS_KEY_ID`: the access key.
    pub access_key_id: Option<String>,
    /// `DESKGRAPH_S3_SECRET_ACCESS_KEY`: its secret.
    pub secret_access_key: Option<String>,
}

impl std::fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Settings")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| "…"),
            )
            .finish()
    }
}
