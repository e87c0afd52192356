//! Reading the configuration from the environment: every variable, its default and its bounds.
use super::*;
use anyhow::{bail, Context};
use std::collections::HashMap;

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
        let mail_in_secret = get("DESKGRAPH_MAIL_IN_SECRET");
        if mail_in_secret.as_ref().is_some_and(|s| s.len() < 32) {
            bail!("DESKGRAPH_MAIL_IN_SECRET must be at least 32 characters long");
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
        let slack_api_url = match get("DESKGRAPH_SLACK_API_URL") {
            None => DEFAULT_SLACK_API_URL.to_string(),
            Some(raw) => {
                let trimmed = raw.trim().trim_end_matches('/');
                match url::Url::parse(trimmed) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") => trimmed.to_string(),
                    _ => bail!("DESKGRAPH_SLACK_API_URL must be an http(s) URL (got {raw:?})"),
                }
            }
        };
        if let Some(url) = &webhook_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                bail!("DESKGRAPH_WEBHOOK_URL must start with http:// or https:// (got {url:?})");
            }
            let parsed = url::Url::parse(url).with_context(|| {
                format!("DESKGRAPH_WEBHOOK_URL is not a valid URL (got {url:?})")
            })?;
            if let Err(why) = crate::net::targets::check_url(&parsed, webhook_allow_private) {
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
        let public_url = match get("DESKGRAPH_PUBLIC_URL") {
            None => None,
            Some(raw) => {
                let parsed = url::Url::parse(raw.trim()).map_err(|e| {
                    anyhow::anyhow!("DESKGRAPH_PUBLIC_URL must be an http(s) URL: {e}")
                })?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    bail!("DESKGRAPH_PUBLIC_URL must be an http(s) URL");
                }
                Some(raw.trim().trim_end_matches('/').to_string())
            }
        };
        let oidc = oidc::read(
            &get,
            boolean(&get, "DESKGRAPH_OIDC_SSO_ONLY", false)?,
            public_url.as_deref(),
        )?;
        Ok(Config {
            oidc,
            webhook_url,
            webhook_secret,
            webhook_allow_private,
            slack_api_url,
            smtp_url,
            mail_from: get("DESKGRAPH_MAIL_FROM").unwrap_or_else(|| DEFAULT_MAIL_FROM.to_string()),
            mail_in_open: match get("DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS").as_deref() {
                None | Some("create") => true,
                Some("refuse") => false,
                Some(other) => bail!(
                    "DESKGRAPH_MAIL_IN_UNKNOWN_SENDERS must be create or refuse (got {other:?})"
                ),
            },
            mail_in_secret,
            mail_trusted_receivers: list(get("DESKGRAPH_MAIL_TRUSTED_RECEIVERS")),
            mail_reply_tokens: boolean(&get, "DESKGRAPH_MAIL_REPLY_TOKENS", false)?,
            mail_token_key: String::new(),
            max_custom_fields: number(&get, "DESKGRAPH_MAX_CUSTOM_FIELDS", 50, 1, 500)? as usize,
            outbox_max_attempts: number(&get, "DESKGRAPH_OUTBOX_MAX_ATTEMPTS", 8, 1, 100)? as i32,
            outbox_backoff_ms: number(&get, "DESKGRAPH_OUTBOX_BACKOFF_MS", 2000, 0, 3_600_000)?,
            delivery_timeout_ms: number(
                &get,
                "DESKGRAPH_DELIVERY_TIMEOUT_MS",
                10_000,
                100,
                300_000,
            )?,
            delivery_history_days: number(&get, "DESKGRAPH_DELIVERY_HISTORY_DAYS", 30, 0, 3650)?
                as u32,
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
            statement_timeout_ms: number(
                &get,
                "DESKGRAPH_STATEMENT_TIMEOUT_MS",
                5000,
                10,
                3_600_000,
            )? as u64,
            viewer: ViewerLimits {
                concurrency: number(&get, "DESKGRAPH_VIEWER_CONCURRENCY", 0, 0, 100_000)? as u32,
                queue_ms: number(&get, "DESKGRAPH_VIEWER_QUEUE_MS", 1000, 0, 60_000)? as u64,
            },
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
            accounts: AccountSettings {
                password_min_length: number(&get, "DESKGRAPH_PASSWORD_MIN_LENGTH", 8, 1, 1024)?
                    as usize,
                password_reset_minutes: number(
                    &get,
                    "DESKGRAPH_PASSWORD_RESET_MINUTES",
                    60,
                    5,
                    7 * 24 * 60,
                )? as u64,
                public_url: public_url.clone(),
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
                max_counts: number(&get, "DESKGRAPH_GRAPHQL_MAX_COUNTS", 20, 0, 10_000)? as u64,
                max_document_bytes: number(
                    &get,
                    "DESKGRAPH_GRAPHQL_MAX_DOCUMENT_BYTES",
                    256 << 10,
                    1024,
                    1 << 30,
                )? as usize,
                max_tokens: number(&get, "DESKGRAPH_GRAPHQL_MAX_TOKENS", 20_000, 100, 1_000_000)?
                    as usize,
                max_operations: number(&get, "DESKGRAPH_GRAPHQL_MAX_OPERATIONS", 100, 1, 100_000)?
                    as usize,
                max_fragments: number(&get, "DESKGRAPH_GRAPHQL_MAX_FRAGMENTS", 500, 0, 100_000)?
                    as usize,
                max_spreads: number(&get, "DESKGRAPH_GRAPHQL_MAX_SPREADS", 100, 1, 100_000)?
                    as usize,
                max_selections: number(
                    &get,
                    "DESKGRAPH_GRAPHQL_MAX_SELECTIONS",
                    10_000,
                    1,
                    10_000_000,
                )? as u64,
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
}

/// A comma-separated list, without empty entries.
pub(super) fn list(raw: Option<String>) -> Vec<String> {
    raw.map(|v| {
        v.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    })
    .unwrap_or_default()
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
