//! Per-request GraphQL data: the caller and a fresh set of loaders.
use crate::auth::middleware::Auth;
use crate::auth::Actor;
use crate::error::AppError;
use crate::state::AppState;
use std::sync::Arc;

/// What every resolver may read about the current request.
pub struct RequestContext {
    /// Shared state.
    pub state: AppState,
    /// The Authorization header's verdict.
    pub auth: Auth,
}

impl RequestContext {
    /// Context for one request.
    pub fn new(state: AppState, auth: Auth) -> Self {
        RequestContext { state, auth }
    }

    /// The actor, or UNAUTHENTICATED.
    pub fn actor(&self) -> Result<Arc<Actor>, AppError> {
        self.auth.require()
    }
}

/// Shorthand for resolvers: the request context.
pub fn request<'a>(ctx: &async_graphql::Context<'a>) -> async_graphql::Result<&'a RequestContext> {
    ctx.data::<RequestContext>()
}
