//! The GraphQL API: schema, per-request context, loaders and the `/graphql` endpoint.
pub mod connection;
pub mod context;
pub mod engine;
pub mod http;
pub mod ids;
pub mod limits;
pub mod list_connection;
pub mod loaders;
pub mod mutation;
pub mod query;
pub mod scalars;
pub mod subscription;
pub mod types;
pub mod ws;

use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::state::AppState;
use async_graphql::{Schema, SchemaBuilder};
use axum::routing::get;
use axum::Extension;
use std::sync::Arc;

/// The served schema.
pub type AppSchema =
    Schema<query::QueryRoot, mutation::MutationRoot, subscription::SubscriptionRoot>;

/// Deepest selection accepted; GraphiQL's introspection query needs about 13 levels.
pub const MAX_DEPTH: usize = 20;
/// Largest query complexity accepted (one per field).
pub const MAX_COMPLEXITY: usize = 5000;

fn builder(
) -> SchemaBuilder<query::QueryRoot, mutation::MutationRoot, subscription::SubscriptionRoot> {
    Schema::build(
        query::QueryRoot::default(),
        mutation::MutationRoot::default(),
        subscription::SubscriptionRoot,
    )
    .limit_depth(MAX_DEPTH)
    .limit_complexity(MAX_COMPLEXITY)
}

/// Build the schema once at start-up.
pub fn build_schema(state: AppState) -> AppSchema {
    builder().data(state).finish()
}

/// The same schema, validating with [`async_graphql::ValidationMode::Fast`]: only for requests already
/// validated in full ([`limits::Checked`]).
fn build_fast_schema(state: AppState) -> AppSchema {
    builder()
        .validation_mode(async_graphql::ValidationMode::Fast)
        .data(state)
        .finish()
}

/// The same schema without "Did you mean …" suggestions in validation errors: for anonymous callers
/// ([`limits::Checked`]).
fn build_anonymous_schema(state: AppState) -> AppSchema {
    builder().disable_suggestions().data(state).finish()
}

/// The SDL of the schema, as committed in `schema.graphql` (`deskgraph schema > schema.graphql`).
pub fn sdl() -> String {
    builder().finish().sdl()
}

/// Which fields are connections and lists, for pricing queries: read from the schema, which is the same
/// for every router of the process.
fn cost_model() -> anyhow::Result<Arc<limits::cost::Model>> {
    static MODEL: std::sync::OnceLock<Arc<limits::cost::Model>> = std::sync::OnceLock::new();
    if let Some(model) = MODEL.get() {
        return Ok(model.clone());
    }
    let model = Arc::new(limits::cost::Model::from_sdl(&sdl())?);
    Ok(MODEL.get_or_init(|| model).clone())
}

/// The executor every door runs GraphQL requests on, over schemas built once; fails when the allow-list
/// (`DESKGRAPH_GRAPHQL_TRUSTED_DOCUMENTS`) cannot be read.
pub fn checked(state: AppState) -> anyhow::Result<limits::Checked> {
    let trusted = match &state.config.graphql.trusted_documents {
        Some(path) => Some(Arc::new(limits::allow_list::Registry::load(path)?)),
        None => None,
    };
    let limits = state.config.graphql.clone();
    let schemas = limits::Schemas {
        strict: build_schema(state.clone()),
        fast: build_fast_schema(state.clone()),
        anonymous: build_anonymous_schema(state),
    };
    Ok(limits::Checked::new(
        schemas,
        cost_model()?,
        limits,
        trusted,
    ))
}

/// `/graphql` routes (`/graphql/ws` for subscriptions).
pub fn router(state: AppState) -> anyhow::Result<Routes> {
    let checked = checked(state)?;
    Ok(Routes::new(Door::GraphQl)
        // Multipart requests carry files (`Upload`s).
        .uploads("/graphql", get(http::graphql_get).post(http::graphql_post))
        .route("/graphql/ws", get(ws::graphql_ws))
        .map(|router| router.layer(Extension(checked))))
}
