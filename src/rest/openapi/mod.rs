//! The OpenAPI 3.1 document of every REST, web and operational path, served at `GET /api/openapi.json`,
//! and a self-contained page that renders it at `GET /api/docs`. Generated with utoipa from the handlers'
//! `#[utoipa::path]` attributes and the `ToSchema` response types in `rest::shapes`, `web::shapes` and
//! beside their handlers; the standard error responses are added by `standard_errors`.
mod aliases;
pub mod request_bodies;
mod standard_errors;
pub mod values;

use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::{graphql, http, rest, web};
use aliases::Aliases;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use standard_errors::StandardErrors;
use utoipa::OpenApi;
use web::pages;

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
        rest::tickets::list, rest::tickets::create, rest::tickets::detail, rest::tickets::update,
        rest::tickets::archive,
        rest::comments::list, rest::comments::create, rest::comments::update, rest::comments::delete,
        rest::attachments::create, rest::attachments::list, rest::attachments::metadata,
        rest::attachments::delete, rest::attachments::download,
        rest::projects::list, rest::projects::create, rest::projects::get, rest::projects::update,
        rest::projects::archive, rest::projects::mail_rules, rest::projects::update_mail_rules,
        rest::assets::list, rest::assets::create, rest::assets::get, rest::assets::update,
        rest::assets::archive,
        rest::auth::issue_token, rest::version, openapi_json, docs_page,
        rest::people::list_users, rest::people::create_user, rest::people::get_user,
        rest::people::update_user, rest::people::deactivate_user, rest::people::reactivate_user,
        rest::people::set_password, rest::people::list_groups, rest::people::create_group,
        rest::people::get_group, rest::people::rename_group, rest::people::delete_group,
        rest::people::add_member, rest::people::remove_member, rest::people::change_password,
        rest::people::request_reset, rest::people::confirm_reset,
        rest::automation::list_triggers, rest::automation::create_trigger,
        rest::automation::get_trigger, rest::automation::update_trigger,
        rest::automation::delete_trigger, rest::automation::reorder_triggers,
        rest::bulk::start, rest::bulk::job,
        rest::tags::ticket_tags, rest::tags::replace_tags, rest::tags::add_tags, rest::tags::remove_tags,
        rest::tags::remove_tag, rest::tags::list_tags, rest::tags::get_tag, rest::tags::curate_tag,
        rest::tags::update_tag, rest::tags::delete_tag, rest::tags::tag_settings,
        rest::tags::update_tag_settings,
        rest::custom_fields::list, rest::custom_fields::detail, rest::custom_fields::create,
        rest::custom_fields::update, rest::custom_fields::archive,
        rest::chat::list, rest::chat::detail, rest::chat::create, rest::chat::update, rest::chat::delete,
        rest::mailboxes::list, rest::mailboxes::detail, rest::mailboxes::create, rest::mailboxes::update,
        rest::mailboxes::delete, rest::mail_in::take_in,
        rest::links::list_links, rest::links::add_link, rest::links::remove_link,
        rest::links::resolve_children,
        rest::merge::merge, rest::merge::split,
        rest::time_spent::ticket_time, rest::time_spent::log_time, rest::time_spent::delete_time,
        rest::time_spent::time_report, rest::reports::ticket_report,
        rest::followers::list_followers, rest::followers::add_follower, rest::followers::remove_follower,
        rest::time_rules::list_time_rules, rest::time_rules::create_time_rule,
        rest::time_rules::get_time_rule, rest::time_rules::update_time_rule,
        rest::time_rules::delete_time_rule, rest::time_rules::dry_run_time_rule,
        rest::automation::list_macros, rest::automation::create_macro, rest::automation::get_macro,
        rest::automation::update_macro, rest::automation::delete_macro,
        rest::automation::preview_macro, rest::automation::apply_macro,
        web::session::login, web::session::logout, web::comments::list, web::comments::add,
        web::comments::edit, web::comments::delete,
        http::health::healthz, http::health::readyz, http::health::metrics,
        graphql::http::graphql_get, graphql::http::graphql_post, graphql::ws::graphql_ws,
        pages::login::page, pages::queue::page, pages::queue::bulk_macro, pages::queue::bulk_change, pages::queue::save_view, pages::queue::remove_view, pages::live::feed, pages::new_ticket::page, pages::new_ticket::submit,
        pages::ticket::page, pages::ticket::edit::change_status, pages::ticket::edit::apply_macro, pages::ticket::edit::edit, pages::ticket::edit::tag, pages::ticket::edit::link,
        pages::ticket::edit::resolve_children, pages::ticket::edit::follow, pages::ticket::edit::merge, pages::ticket::edit::split,
        pages::ticket::fields::set_fields,
        pages::thread::add, pages::thread::delete, pages::assets::serve, pages::assets::serve_graphiql,
        pages::reports::page, pages::settings::page, pages::settings::change_password, pages::settings::set_time_zone, pages::settings::set_language, pages::settings::create_token,
        pages::settings::revoke_token, pages::admin::home, pages::admin::users::users_page,
        pages::admin::users::create_user, pages::admin::users::user_page,
        pages::admin::users::update_user, pages::admin::users::deactivate,
        pages::admin::users::reactivate, pages::admin::users::set_password,
        pages::admin::groups::groups_page, pages::admin::groups::create_group,
        pages::admin::groups::rename_group, pages::admin::groups::delete_group,
        pages::admin::groups::add_member, pages::admin::groups::remove_member,
        pages::admin::audit::audit_page, pages::admin::tags::tags_page, pages::admin::tags::curate_tag,
        pages::admin::tags::change_tag, pages::admin::tags::tag_settings,
        pages::admin::fields::fields_page, pages::admin::fields::create_field, pages::admin::fields::change_field, pages::admin::webhooks::webhooks_page,
        pages::admin::webhooks::create_webhook, pages::admin::webhooks::webhook_page,
        pages::admin::webhooks::update_webhook, pages::admin::webhooks::delete_webhook,
        pages::admin::webhooks::redeliver,
        pages::admin::triggers::triggers_page, pages::admin::triggers::new_trigger_page,
        pages::admin::triggers::create_trigger, pages::admin::triggers::trigger_page,
        pages::admin::triggers::update_trigger, pages::admin::triggers::move_trigger,
        pages::admin::triggers::delete_trigger,
        pages::admin::time_rules::time_rules_page, pages::admin::time_rules::new_time_rule_page,
        pages::admin::time_rules::create_time_rule, pages::admin::time_rules::time_rule_page,
        pages::admin::time_rules::update_time_rule, pages::admin::time_rules::dry_run_time_rule,
        pages::admin::chat::chat_page, pages::admin::chat::create_chat, pages::admin::chat::change_chat,
        pages::admin::mailboxes::mail_page, pages::admin::mailboxes::create_mailbox,
        pages::admin::mailboxes::change_mailbox, pages::admin::mailboxes::change_project_mail,
        pages::admin::inventory::assets_page, pages::admin::inventory::create_asset,
        pages::admin::inventory::change_asset,
        pages::admin::projects::projects_page, pages::admin::projects::create_project,
        pages::admin::projects::change_project,
        pages::admin::sla::sla_page, pages::admin::sla::create_sla_policy,
        pages::admin::sla::change_sla_policy,
        pages::admin::time_rules::delete_time_rule,
        pages::reset::request_page, pages::reset::request_link, pages::reset::token_page,
        pages::reset::set_password, pages::home, pages::oidc::start, pages::oidc::callback,
    ),
    components(schemas(
        crate::error::bodies::Error, crate::error::bodies::RateLimitError, crate::error::bodies::RetryDetails,
        crate::error::bodies::WebFailure,
    )),
    modifiers(&Aliases, &StandardErrors),
    tags(
        (name = "tickets", description = "Tickets (Bearer)"),
        (name = "comments", description = "Ticket comments (Bearer)"),
        (name = "comments (alternative paths)", description = "The same comment operations without the `/api` prefix"),
        (name = "attachments", description = "Files on tickets and comments (Bearer; downloads also by signed link)"),
        (name = "projects", description = "Projects (Bearer; writes by team members)"),
        (name = "assets", description = "Inventory (Bearer; writes by team members)"),
        (name = "auth", description = "Access tokens and passwords"),
        (name = "people", description = "Accounts and groups (Bearer; administrators only)"),
        (name = "automation", description = "Triggers, rules run on ticket writes, and time rules, run when a wait has passed (Bearer; administrators only); macros (Bearer; team members)"),
        (name = "links", description = "Links between tickets: parent and child, related, duplicate, blocking (Bearer; changed by the team, the assignee and the assigned group)"),
        (name = "followers", description = "Followers of a ticket, who hear of it as its requester does (Bearer)"),
        (name = "time", description = "Time spent on tickets and its reports (Bearer; the team, the assignee and the assigned group; reports by the team)"),
        (name = "reports", description = "Ticket reports: volumes, response and resolution times, reopens and SLA attainment (Bearer; the team)"),
        (name = "chat", description = "Slack and Teams destinations that hear of tickets (Bearer; administrators). Webhook URLs and bot tokens are write-only"),
        (name = "mail", description = "IMAP mailboxes the help desk fetches mail from (Bearer; administrators; secrets are write-only), and the door a mail server hands messages to (`DESKGRAPH_MAIL_IN_SECRET`)"),
        (name = "custom fields", description = "Custom field definitions (Bearer; read by anyone signed in, team-only ones by the team; defined by administrators). Values travel on the ticket as `custom_fields`"),
        (name = "tags", description = "Ticket tags, the tag list and its curation (Bearer; the team, the assignee and the assigned group; curation by administrators)"),
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
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/docs", get(docs_page))
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", operation_id = "openapiDocument",
    responses((status = 200, description = "OpenAPI 3.1 document", content_type = "application/json", body = serde_json::Value)))]
async fn openapi_json() -> Response {
    match document().to_json() {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(err) => crate::error::AppError::internal(anyhow::anyhow!(err)).into_response(),
    }
}

/// Self-written page and script, compiled in; it fetches only `/api/openapi.json` from this server.
#[utoipa::path(get, path = "/api/docs", tag = "meta", operation_id = "apiDocs",
    summary = "A browsable page that renders this document (no external assets).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String)))]
async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
