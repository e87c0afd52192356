//! The GraphQL API: schema, per-request context and the `/graphql` endpoint.
pub mod context;
pub mod query;

use crate::auth::middleware::Auth;
use crate::state::AppState;
use async_graphql::{EmptyMutation, EmptySubscription, Schema};
use async_graphql_axum::{GraphQLRequest, GraphQLResponse};
use axum::extract::{Extension, State};
use axum::routing::post;
use axum::Router;
use context::RequestContext;

/// The served schema.
pub type AppSchema = Schema<query::QueryRoot, EmptyMutation, EmptySubscription>;

/// Build the schema once at start-up.
pub fn build_schema(state: AppState) -> AppSchema {
    Schema::build(query::QueryRoot, EmptyMutation, EmptySubscription)
        .data(state)
        .finish()
}

/// The SDL of the schema, as committed in `schema.graphql`.
pub fn sdl() -> String {
    Schema::build(query::QueryRoot, EmptyMutation, EmptySubscription)
        .finish()
        .sdl()
}

/// `/graphql` routes.
pub fn router(schema: AppSchema) -> Router<AppState> {
    Router::new()
        .route("/graphql", post(graphql_post))
        .layer(Extension(schema))
}

async fn graphql_post(
    Extension(schema): Extension<AppSchema>,
    Extension(auth): Extension<Auth>,
    State(state): State<AppState>,
    request: GraphQLRequest,
) -> GraphQLResponse {
    let ctx = RequestContext::new(state, auth);
    schema.execute(request.into_inner().data(ctx)).await.into()
}
