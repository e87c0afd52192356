//! Per-request GraphQL data: the caller and a fresh set of loaders.
use super::loaders::{DbLoader, ProjectKey};
use crate::auth::middleware::Auth;
use crate::auth::Actor;
use crate::error::AppError;
use crate::graphql::engine::batches::Batches;
use crate::graphql::loaders::viewer::{UserKey, ViewerLoader};
use crate::state::AppState;
use async_graphql::dataloader::{DataLoader, HashMapCache};
use entity::{project, user};
use std::sync::{Arc, Mutex};

/// The loaders' per-request cache, with the same hasher as [`crate::FastMap`].
pub type Cache = HashMapCache<foldhash::fast::RandomState>;

/// The web session a request came through (GraphiQL in a signed-in browser), when it authenticated it.
#[derive(Clone, Debug)]
pub struct SessionSecret(pub String);

/// What every resolver may read about the current request.
pub struct RequestContext {
    /// Shared state.
    pub state: AppState,
    /// The Authorization header's verdict.
    pub auth: Auth,
    /// Batched, cached loads for this request only, so nothing cached outlives it.
    pub loader: DataLoader<DbLoader, Cache>,
    /// Batched loads filtered by the caller's visibility (people, comments, linked assets and tickets).
    pub visible: DataLoader<ViewerLoader, Cache>,
    /// What this request's ticket pages read with their tickets, for one-pass answers (`engine::one_pass`) and the resolvers alike.
    pub page_records: Mutex<PageRecords>,
    /// Where the loaders' batches run: in the request's task while [`Batches::drive`] runs it.
    pub batches: Arc<Batches>,
    /// Held by the root field resolving now (`query::QueryRoot`): one at a time.
    pub root_fields: tokio::sync::Mutex<()>,
    /// When the request's time limit (`DESKGRAPH_REQUEST_TIMEOUT_SECONDS`) runs out.
    deadline: std::time::Instant,
}

/// People and projects read with ticket pages ([`crate::graphql::engine::prefetch::feed_refs`]). Plain
/// answers and the resolvers ([`RequestContext::user`] and its siblings) look here before the loader,
/// which costs a lookup instead of the loader's per-call maps, hashing and copies (a tenth of a 20-ticket
/// page); the loader is not fed with them.
#[derive(Default)]
pub struct PageRecords {
    /// Requesters and assignees.
    pub users: crate::FastMap<i32, user::Model>,
    /// Projects.
    pub projects: crate::FastMap<i32, project::Model>,
}

impl RequestContext {
    /// Context for one request.
    pub fn new(state: AppState, auth: Auth) -> Self {
        let batches = Arc::new(Batches::default());
        let loader = batches.loader(DbLoader::new(state.db.conn.clone()), Cache::new());
        let visible = batches.loader(
            ViewerLoader::new(state.db.conn.clone(), auth.actor()),
            Cache::new(),
        );
        let deadline = std::time::Instant::now()
            + std::time::Duration::from_secs(state.config.request_timeout_seconds);
        RequestContext {
            state,
            auth,
            loader,
            visible,
            page_records: Mutex::default(),
            batches,
            root_fields: tokio::sync::Mutex::new(()),
            deadline,
        }
    }

    /// Whether the request's time limit has run out.
    pub fn past_deadline(&self) -> bool {
        std::time::Instant::now() >= self.deadline
    }

    /// The actor, or UNAUTHENTICATED.
    pub fn actor(&self) -> Result<Arc<Actor>, AppError> {
        self.auth.require()
    }

    /// A user by id: one read with this request's ticket pages, else through the loader (batched).
    pub async fn user(&self, id: i32) -> async_graphql::Result<Option<user::Model>> {
        if let Some(found) = self.page_user(id) {
            return Ok(Some(found));
        }
        self.visible.load_one(UserKey(id)).await.map_err(load_error)
    }

    /// A project by id, like [`RequestContext::user`].
    pub async fn project(&self, id: i32) -> async_graphql::Result<Option<project::Model>> {
        if let Some(found) = self.page_project(id) {
            return Ok(Some(found));
        }
        self.loader
            .load_one(ProjectKey(id))
            .await
            .map_err(load_error)
    }

    /// Keep users read with something else (comment authors with their comments) where
    /// [`RequestContext::user`] and plain answers look first.
    pub fn add_page_users(&self, users: impl IntoIterator<Item = user::Model>) {
        match self.page_records.lock() {
            Ok(mut records) => records.users.extend(users.into_iter().map(|u| (u.id, u))),
            // Never expected (nothing panics while holding it); the resolvers then load them again.
            Err(_) => tracing::warn!("request's page records unavailable"),
        }
    }

    /// The user read with this request's ticket pages, if one was.
    pub fn page_user(&self, id: i32) -> Option<user::Model> {
        self.look(|records| records.users.get(&id).cloned())
    }

    /// The project read with this request's ticket pages, if one was.
    pub fn page_project(&self, id: i32) -> Option<project::Model> {
        self.look(|records| records.projects.get(&id).cloned())
    }

    /// Look into the page records (the lock is held only for `look`, which must not come back here).
    fn look<R>(&self, look: impl FnOnce(&PageRecords) -> Option<R>) -> Option<R> {
        look(&*self.page_records.lock().ok()?)
    }

    /// The configured ticket-number prefix.
    pub fn prefix(&self) -> &str {
        &self.state.config.ticket_prefix
    }
}

/// Shorthand for resolvers: the request context.
pub fn request<'a>(ctx: &async_graphql::Context<'a>) -> async_graphql::Result<&'a RequestContext> {
    ctx.data::<RequestContext>()
}

/// Shorthand for resolvers: the request context and the signed-in actor (UNAUTHENTICATED otherwise).
pub fn viewer<'a>(
    ctx: &async_graphql::Context<'a>,
) -> async_graphql::Result<(&'a RequestContext, Arc<Actor>)> {
    let req = request(ctx)?;
    let actor = req.actor()?;
    Ok((req, actor))
}

/// Turn a shared loader error into a GraphQL error with its code.
pub fn load_error(err: Arc<AppError>) -> async_graphql::Error {
    match Arc::try_unwrap(err) {
        Ok(err) => err.into(),
        Err(shared) => AppError::internal(anyhow::anyhow!("{shared}")).into(),
    }
}
