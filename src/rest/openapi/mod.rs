//! The OpenAPI 3.1 document of every REST, web and operational path, generated with utoipa, served at
//! `GET /api/openapi.json`, and a self-contained page that renders it at `GET /api/docs`.
mod errors;
pub mod paths_attachments;
pub mod paths_inventory;
pub mod paths_pages;
pub mod paths_tickets;
pub mod paths_web;
pub mod schemas;
pub mod schemas_comments;
pub mod schemas_more;

use crate::state::AppState;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use errors::StandardErrors;
use paths_attachments as att;
use paths_inventory as inv;
use paths_pages as pages;
use paths_tickets as tk;
use paths_web as web;
use utoipa::OpenApi;

/// The document's source: every documented operation and schema.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "deskgraph REST and web interface",
        description = "The legacy REST contract under `/api/`, the alternative comment paths, the web \
            interface's session and comment endpoints, and operational endpoints. The GraphQL API at \
            `/graphql` is described by `schema.graphql`.",
        license(name = "MIT OR Apache-2.0"),
    ),
    paths(
        tk::list_tickets, tk::create_ticket, tk::get_ticket, tk::update_ticket, tk::put_ticket,
        tk::archive_ticket, tk::list_comments, tk::create_comment, tk::edit_comment, tk::delete_comment,
        tk::list_comments_alt, tk::create_comment_alt, tk::edit_comment_alt, tk::delete_comment_alt,
        att::create_attachment, att::list_attachments, att::get_attachment, att::delete_attachment,
        att::download_attachment,
        inv::list_projects, inv::create_project, inv::get_project, inv::update_project,
        inv::archive_project, inv::list_assets, inv::create_asset, inv::get_asset, inv::update_asset,
        inv::archive_asset,
        web::session_login, web::session_logout, web::web_list_comments, web::web_add_comment,
        web::web_edit_comment, web::web_delete_comment, web::issue_token, web::version,
        web::openapi_json, web::api_docs, web::healthz, web::readyz, web::metrics, web::graphql_get,
        web::graphql_post,
        pages::page_login, pages::page_queue, pages::page_new_ticket, pages::page_create_ticket,
        pages::page_ticket, pages::page_change_status, pages::page_edit_ticket,
        pages::page_add_comment,
        pages::page_delete_comment, pages::static_file, pages::graphql_ws,
    ),
    components(schemas(schemas::Error, schemas::RateLimitError, schemas::RetryDetails, schemas::WebFailure)),
    modifiers(&StandardErrors),
    tags(
        (name = "tickets", description = "Tickets (Bearer)"),
        (name = "comments", description = "Ticket comments (Bearer)"),
        (name = "comments (alternative paths)", description = "The same comment operations without the `/api` prefix"),
        (name = "attachments", description = "Files on tickets and comments (Bearer; downloads also by signed link)"),
        (name = "projects", description = "Projects (Bearer; writes by team members)"),
        (name = "assets", description = "Inventory (Bearer; writes by team members)"),
        (name = "auth", description = "Access tokens"),
        (name = "web", description = "Web interface: session cookie, `X-CSRFToken` on unsafe methods; failures as `{success: false, error}`"),
        (name = "meta", description = "Version, health, metrics and this documentation"),
        (name = "graphql", description = "The GraphQL endpoint"),
        (name = "pages", description = "Server-rendered HTML pages of the web interface (session cookie; CSRF on form posts)"),
    ),
)]
pub struct ApiDoc;

/// The document, with the package version.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = crate::rest::API_VERSION.to_string();
    doc
}

/// The documentation routes (public).
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/docs", get(docs_page))
}

async fn openapi_json() -> Response {
    match document().to_json() {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(err) => crate::error::AppError::internal(anyhow::anyhow!(err)).into_response(),
    }
}

/// Self-written page and script, compiled in; it fetches only `/api/openapi.json` from this server.
async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
