//! Per-request GraphQL data: the caller and a fresh set of loaders.
use super::loaders::DbLoader;
use super::viewer_loader::ViewerLoader;
use crate::auth::middleware::Auth;
use crate::auth::Actor;
use crate::error::AppError;
use crate::state::AppState;
use async_graphql::dataloader::{DataLoader, HashMapCache};
use std::sync::Arc;

/// What every resolver may read about the current request.
pub struct RequestContext {
    /// Shared state.
    pub state: AppState,
    /// The Authorization header's verdict.
    pub auth: Auth,
    /// Batched, cached loads for this request only, so nothing cached outlives it.
    pub loader: DataLoader<DbLoader, HashMapCache>,
    /// Batched loads filtered by the caller's visibility (linked assets and tickets).
    pub visible: DataLoader<ViewerLoader, HashMapCache>,
}

impl RequestContext {
    /// Context for one request.
    pub fn new(state: AppState, auth: Auth) -> Self {
        let loader = DataLoader::with_cache(
            DbLoader::new(state.db.conn.clone()),
            tokio::spawn,
            HashMapCache::default(),
        );
        let visible = DataLoader::with_cache(
            ViewerLoader::new(state.db.conn.clone(), auth.actor()),
            tokio::spawn,
            HashMapCache::default(),
        );
        RequestContext {
            state,
            auth,
            loader,
            visible,
        }
    }

    /// The actor, or UNAUTHENTICATED.
    pub fn actor(&self) -> Result<Arc<Actor>, AppError> {
        self.auth.require()
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
