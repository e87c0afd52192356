//! The `/api/` REST contract: thin handlers over the service layer, legacy JSON shapes in `shapes`.
pub mod assets;
pub mod auth;
pub mod fields;
pub mod json;
pub mod path;
pub mod projects;
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
        .route("/api/projects/", get(projects::list).post(projects::create))
        .route(
            "/api/projects/{id}/",
            get(projects::get)
                .patch(projects::update)
                .delete(projects::archive),
        )
        .route("/api/assets/", get(assets::list).post(assets::create))
        .route(
            "/api/assets/{id}/",
            get(assets::get)
                .patch(assets::update)
                .delete(assets::archive),
        )
        .merge(tickets::router())
}

async fn version() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({ "version": API_VERSION, "api": API_VERSION }))
}
