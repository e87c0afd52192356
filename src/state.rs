//! Shared state built once at start-up: database, configuration and signing keys.
use crate::auth::cache::AuthCache;
use crate::auth::jwt::JwtKeys;
use crate::auth::tokens::new_secret;
use crate::config::Config;
use crate::counters::Counters;
use crate::db::Db;
use crate::notify::live::LiveBus;
use crate::notify::Notifier;
use entity::setting;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Everything a request handler needs; one reference count to clone, since every middleware layer and
/// extractor clones it per request.
#[derive(Clone, Debug)]
pub struct AppState(Arc<StateInner>);

impl std::ops::Deref for AppState {
    type Target = StateInner;

    fn deref(&self) -> &StateInner {
        &self.0
    }
}

/// The parts of [`AppState`].
#[derive(Clone, Debug)]
pub struct StateInner {
    /// Database handle.
    pub db: Db,
    /// Ticket reads and what they remember (statements, list totals).
    pub ticket_reads: crate::service::tickets::TicketReads,
    /// SLA policies by priority, remembered (cleared across instances when they change).
    pub sla_policies: crate::service::sla::policies::KnownPolicies,
    /// The active triggers, compiled (cleared across instances when they change).
    pub triggers: crate::service::automation::KnownTriggers,
    /// The active custom field definitions (cleared across instances when they change).
    pub custom_fields: crate::service::custom_fields::KnownFields,
    /// The names of tags known to exist (cleared across instances on a rename, merge or delete).
    pub tags: crate::service::tags::KnownTags,
    /// The macros each team member may use (cleared across instances when they change).
    pub macros: crate::service::automation::KnownMacros,
    /// Each user's saved views of the queue (cleared across instances when they change).
    pub saved_views: crate::service::saved_views::KnownViews,
    /// Configuration.
    pub config: Arc<Config>,
    /// JWT keys.
    pub jwt: JwtKeys,
    /// Counters in time windows: rate limits, failed logins (memory, or Redis shared by instances).
    pub counters: Arc<Counters>,
    /// Delivery of outbox rows (HTTP client, mailer).
    pub notifier: Notifier,
    /// Live events for subscriptions (shared across instances on PostgreSQL).
    pub live: LiveBus,
    /// Recently resolved credentials (cleared across instances when they change).
    pub auth_cache: AuthCache,
    /// Where attachment bytes live (`DESKGRAPH_STORAGE_URL`).
    pub storage: Arc<dyn crate::storage::BlobStore>,
    /// The key of signed attachment download links.
    pub url_key: crate::service::attachments::UrlKey,
    /// GraphQL objects answered in one pass (`src/graphql/engine/one_pass/`); `graphql_plain_objects_total`.
    pub plain_objects: Arc<AtomicU64>,
    /// The OpenID Connect provider of the sign-in page (`DESKGRAPH_OIDC_*`), when one is configured.
    pub oidc: Option<Arc<crate::auth::oidc::Oidc>>,
    /// Each viewer's share of the database pool (`DESKGRAPH_VIEWER_*`).
    pub viewer_gate: Arc<crate::db::viewer_gate::ViewerGate>,
}

impl From<StateInner> for AppState {
    fn from(inner: StateInner) -> Self {
        AppState(Arc::new(inner))
    }
}

impl AppState {
    /// The handles managing accounts, groups and passwords needs ([`crate::service::users::PeopleDeps`]).
    pub fn people_deps(&self) -> crate::service::users::PeopleDeps<'_> {
        crate::service::users::PeopleDeps {
            db: &self.db,
            auth_cache: &self.auth_cache,
            min_password_length: self.config.accounts.password_min_length,
            reset_ttl_minutes: self.config.accounts.password_reset_minutes,
            public_url: self.config.accounts.public_url.as_deref(),
        }
    }

    /// The handles a write that announces itself needs ([`crate::service::WriteDeps`]), for a write that
    /// came through `channel`.
    pub fn write_deps(&self, channel: crate::domain::Channel) -> crate::service::WriteDeps<'_> {
        crate::service::WriteDeps {
            db: &self.db,
            config: &self.config,
            live: &self.live,
            policies: &self.sla_policies,
            triggers: &self.triggers,
            fields: &self.custom_fields,
            tags: &self.tags,
            channel,
        }
    }

    /// A follower of live events signed in with `credential` ([`crate::service::ticket_events::Subscriber`]).
    pub fn subscriber(
        &self,
        credential: crate::service::ticket_events::SignedInWith,
    ) -> crate::service::ticket_events::Subscriber {
        crate::service::ticket_events::Subscriber {
            db: self.db.clone(),
            auth_cache: self.auth_cache.clone(),
            jwt: self.jwt.clone(),
            credential,
        }
    }

    /// What the mail fetcher works with ([`crate::service::mailboxes::fetch::Fetcher`]).
    pub fn mail_fetcher(&self) -> crate::service::mailboxes::fetch::Fetcher {
        crate::service::mailboxes::fetch::Fetcher {
            db: self.db.clone(),
            config: self.config.clone(),
            live: self.live.clone(),
            policies: self.sla_policies.clone(),
            triggers: self.triggers.clone(),
            fields: self.custom_fields.clone(),
            tags: self.tags.clone(),
            auth_cache: self.auth_cache.clone(),
            storage: self.storage.clone(),
        }
    }

    /// The handles the outbox worker delivers with ([`crate::jobs::worker::DeliveryDeps`]).
    pub fn delivery_deps(&self) -> crate::jobs::worker::DeliveryDeps {
        crate::jobs::worker::DeliveryDeps {
            db: self.db.clone(),
            config: self.config.clone(),
            notifier: self.notifier.clone(),
            live: self.live.clone(),
            policies: self.sla_policies.clone(),
            triggers: self.triggers.clone(),
            fields: self.custom_fields.clone(),
            tags: self.tags.clone(),
        }
    }
}

const JWT_SECRET_KEY: &str = "jwt_secret";

impl AppState {
    /// Connect, migrate, and load or create the JWT secret.
    pub async fn init(config: Config) -> anyhow::Result<Self> {
        let mut db = Db::connect(&config.database_url, config.db_pool_size).await?;
        // Nearly every start of a command finds nothing to apply, and a command run per message (`mail-in`)
        // pays for each connection it opens: the pool's own checks. Only when something is pending is the pool
        // closed, the database migrated over a connection of its own ([`Db::migrate_at`]), and opened again.
        if !db.migrations_applied().await? {
            db.conn.close().await?;
            Db::migrate_at(&config.database_url).await?;
            db = Db::connect(&config.database_url, config.db_pool_size).await?;
        }
        Self::from_db(db, config).await
    }

    /// [`AppState::init`] for serving requests: migrate, then connect again with the statement timeout
    /// (`DESKGRAPH_STATEMENT_TIMEOUT_MS`; migrations and the other commands run without one).
    pub async fn init_serving(config: Config) -> anyhow::Result<Self> {
        Db::migrate_at(&config.database_url).await?;
        let timeout = std::time::Duration::from_millis(config.statement_timeout_ms);
        let acquire = std::time::Duration::from_millis(config.db_acquire_timeout_ms);
        let db = Db::connect_serving(&config.database_url, config.db_pool_size, timeout, acquire)
            .await?;
        Self::from_db(db, config).await
    }

    /// Build the state over an already migrated database.
    pub async fn from_db(db: Db, config: Config) -> anyhow::Result<Self> {
        let secret = match &config.jwt_secret {
            Some(secret) => secret.clone(),
            None => stored_jwt_secret(&db).await?,
        };
        let jwt = JwtKeys::new(&secret, config.jwt_ttl_seconds);
        let url_key = crate::service::attachments::UrlKey::new(&secret);
        let mut config = config;
        config.mail_token_key = crate::notify::mailer::token_key(&secret);
        let counters = match &config.redis_url {
            Some(url) => Counters::redis(
                url,
                &config.redis_key_prefix,
                std::time::Duration::from_millis(config.redis_deadline_ms),
            )
            .map_err(|e| anyhow::anyhow!("DESKGRAPH_REDIS_URL: {e}"))?,
            None => Counters::memory(),
        };
        let notifier = Notifier::from_config(&config)?;
        let auth_cache = AuthCache::new(std::time::Duration::from_secs(config.auth_cache_seconds));
        let storage = crate::storage::from_url(config.storage_url.as_deref(), &config.s3, &db)?;
        let sla_policies = crate::service::sla::policies::KnownPolicies::default();
        let triggers = crate::service::automation::KnownTriggers::default();
        let custom_fields = crate::service::custom_fields::KnownFields::default();
        let macros = crate::service::automation::KnownMacros::default();
        let saved_views = crate::service::saved_views::KnownViews::default();
        let tags = crate::service::tags::KnownTags::default();
        let listeners = vec![
            auth_cache.listener(),
            sla_policies.listener(),
            triggers.listener(),
            custom_fields.listener(),
            macros.listener(),
            saved_views.listener(),
            tags.listener(),
        ];
        let live = LiveBus::start(&db, &config.database_url, listeners).await?;
        let ticket_reads = crate::service::tickets::TicketReads::new(&config.ticket_prefix);
        let oidc = match &config.oidc {
            Some(settings) => Some(Arc::new(crate::auth::oidc::Oidc::new(
                settings.clone(),
                &secret,
            )?)),
            None => None,
        };
        let viewer_gate = Arc::new(crate::db::viewer_gate::ViewerGate::new(
            config.viewer.concurrency_for(config.db_pool_size),
            std::time::Duration::from_millis(config.viewer.queue_ms),
        ));
        Ok(AppState(Arc::new(StateInner {
            viewer_gate,
            ticket_reads,
            sla_policies,
            triggers,
            custom_fields,
            macros,
            saved_views,
            tags,
            auth_cache,
            plain_objects: Arc::default(),
            storage,
            url_key,
            oidc,
            notifier,
            live,
            db,
            config: Arc::new(config),
            jwt,
            counters: Arc::new(counters),
        })))
    }
}

/// The generated secret kept in the database, so restarts keep issued tokens valid.
async fn stored_jwt_secret(db: &Db) -> anyhow::Result<String> {
    if let Some(found) = setting::Entity::find_by_id(JWT_SECRET_KEY.to_string())
        .one(&db.conn)
        .await?
    {
        return Ok(found.value);
    }
    let secret = new_secret("");
    let inserted = setting::ActiveModel {
        key: Set(JWT_SECRET_KEY.to_string()),
        value: Set(secret.clone()),
    }
    .insert(&db.conn)
    .await;
    if inserted.is_err() {
        // Another instance won the race: use its secret.
        if let Some(found) = setting::Entity::find_by_id(JWT_SECRET_KEY.to_string())
            .one(&db.conn)
            .await?
        {
            return Ok(found.value);
        }
    }
    inserted?;
    Ok(secret)
}
