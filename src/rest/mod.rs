//! The `/api/` REST contract: thin handlers over the service layer, legacy JSON shapes in `shapes`.
pub mod auth;
pub mod fields;
pub mod json;
pub mod shapes;
pub mod tickets;

use crate::state::AppState;
use axum::routing::{get, post};
use axum::Router;

/// Interface release served by this build.
pub const API_VERSION: &str = "0.6.0";

/// Every REST route.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/version/", get(version))
        .route("/api/auth/token/", post(auth::issue_token))
        .merge(tickets::router())
}

async fn version() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({ "version": API_VERSION, "api": API_VERSION }))
}
