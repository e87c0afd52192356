//! The router: GraphQL, REST, web and health endpoints behind the shared layers.
use crate::auth::middleware::resolve_auth;
use crate::error::LoggedCause;
use crate::state::AppState;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use tower_http::trace::TraceLayer;

/// Build the whole application router.
pub fn router(state: AppState) -> Router {
    let schema = crate::graphql::build_schema(state.clone());
    Router::new()
        .route(
            "/healthz",
            get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .merge(crate::rest::router())
        .merge(crate::web::router())
        .merge(crate::graphql::router(schema))
        .layer(middleware::from_fn_with_state(state.clone(), resolve_auth))
        .layer(middleware::from_fn(log_internal_errors))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// One place logs the hidden cause of every 500.
async fn log_internal_errors(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let response = next.run(req).await;
    if let Some(LoggedCause(cause)) = response.extensions().get::<LoggedCause>() {
        tracing::error!(%method, %path, error = %cause, "internal error");
    }
    response
}
