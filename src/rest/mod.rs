//! The `/api/` REST contract: thin handlers over the service layer, legacy JSON shapes in `shapes`.
pub mod assets;
pub mod attachments;
pub mod auth;
pub mod automation;
pub mod bulk;
pub mod chat;
pub mod comments;
pub mod csv;
pub mod custom_fields;
pub mod fields;
pub mod followers;
pub mod idempotency;
pub mod json;
pub mod links;
pub mod mail_in;
pub mod mailboxes;
pub mod merge;
pub mod openapi;
pub mod path;
pub mod people;
pub mod projects;
pub mod reports;
pub mod shapes;
pub mod tags;
pub mod tickets;
pub mod time_rules;
pub mod time_spent;

use crate::http::errors::Door;
use crate::http::routes::Routes;
use axum::routing::{get, patch, post};

/// Interface release served by this build.
pub const API_VERSION: &str = "0.6.0";

/// Every REST route.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/version/", get(version))
        .route("/api/auth/token/", post(auth::issue_token))
        .route("/api/projects/", get(projects::list).post(projects::create))
        .route(
            "/api/projects/{id}/",
            get(projects::get)
                .patch(projects::update)
                .delete(projects::archive),
        )
        .route(
            "/api/projects/{id}/mail/",
            get(projects::mail_rules).patch(projects::update_mail_rules),
        )
        .route("/api/assets/", get(assets::list).post(assets::create))
        .route(
            "/api/assets/{id}/",
            get(assets::get)
                .patch(assets::update)
                .delete(assets::archive),
        )
        .merge(tickets::router())
        .merge(attachments::router())
        .merge(people::router())
        .merge(automation::router())
        .merge(bulk::router())
        .merge(tags::router())
        .merge(custom_fields::router())
        .merge(chat::router())
        .merge(mailboxes::router())
        .merge(mail_in::router())
        .merge(links::router())
        .merge(merge::router())
        .merge(time_spent::router())
        .merge(reports::router())
        .merge(followers::router())
        .merge(openapi::router())
        .route(
            "/api/tickets/{id}/comments/",
            get(comments::list).post(comments::create),
        )
        .route(
            "/api/tickets/{id}/comments/{comment_id}/",
            patch(comments::update).delete(comments::delete),
        )
        // The alternative comment paths of the spec, same handlers, same Bearer auth.
        .route(
            "/tickets/{id}/comment/",
            get(comments::list).post(comments::create),
        )
        .route(
            "/tickets/{id}/comment/{comment_id}/",
            patch(comments::update).delete(comments::delete),
        )
}

/// `GET /api/version/`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Version {
    /// Release.
    version: &'static str,
    /// Interface release.
    api: &'static str,
}

/// Interface release.
#[utoipa::path(get, path = "/api/version/", tag = "meta", operation_id = "version",
    responses((status = 200, description = "The release", body = Version)))]
async fn version() -> axum::Json<Version> {
    axum::Json(Version {
        version: API_VERSION,
        api: API_VERSION,
    })
}
