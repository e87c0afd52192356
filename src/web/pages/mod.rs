//! Server-rendered pages of the web interface: sign-in, the ticket queue, the ticket page with its
//! comment thread, and the new-ticket form. Templates are compiled in (askama, escaped by default);
//! CSS and JavaScript are served from the binary under `/static/`.
pub mod admin;
pub mod assets;
pub mod graphiql;
pub mod live;
pub mod login;
pub mod new_ticket;
pub mod oidc;
pub mod queue;
pub mod reports;
pub mod reset;
pub mod settings;
pub mod thread;
pub mod ticket;
pub mod upload;

use super::session::{check_csrf, signed_in, FORM_CSRF_FIELD};
use super::WebError;
use crate::auth::middleware::WebSession;
use crate::auth::Actor;
use crate::error::{AppError, LoggedCause};
use crate::http::errors::Door;
use crate::http::routes::Routes;
pub use crate::i18n::Lang;
use crate::state::AppState;
use askama::Template;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use std::sync::Arc;

/// The Content-Security-Policy of every page: nothing inline, nothing from elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; frame-ancestors 'none'";

/// The page routes (the sign-in page, the form delete and the JSON endpoints are in `web::router`).
pub fn router() -> Routes {
    Routes::new(Door::Web)
        .route("/", get(home))
        .route("/tickets/", get(queue::page))
        .route("/tickets/bulk/", post(queue::bulk_macro))
        .route("/tickets/bulk/change/", post(queue::bulk_change))
        .route("/tickets/views/", post(queue::save_view))
        .route("/tickets/views/{id}/remove/", post(queue::remove_view))
        .route("/tickets/live/", get(live::feed))
        // Forms that may carry a file: the front layer bounds their bodies by the upload limit.
        .uploads(
            "/tickets/new/",
            get(new_ticket::page).post(new_ticket::submit),
        )
        .route("/tickets/{id}/", get(ticket::page))
        .route("/tickets/{id}/status/", post(ticket::change_status))
        .route("/tickets/{id}/macro/", post(ticket::apply_macro))
        .route("/tickets/{id}/edit/", post(ticket::edit))
        .route("/tickets/{id}/tags/", post(ticket::tag))
        .route("/tickets/{id}/fields/", post(ticket::fields::set_fields))
        .route("/tickets/{id}/links/", post(ticket::link))
        .route("/tickets/{id}/merge/", post(ticket::merge))
        .route("/tickets/{id}/split/", post(ticket::split))
        .route("/tickets/{id}/followers/", post(ticket::follow))
        .route(
            "/tickets/{id}/children/resolve/",
            post(ticket::resolve_children),
        )
        .uploads("/tickets/{id}/comments/new/", post(thread::add))
        .route("/reports/", get(reports::page))
        .route("/settings/", get(settings::page))
        .route("/settings/password/", post(settings::change_password))
        .route("/settings/time-zone/", post(settings::set_time_zone))
        .route("/settings/language/", post(settings::set_language))
        .route("/settings/tokens/", post(settings::create_token))
        .route(
            "/settings/tokens/{id}/revoke/",
            post(settings::revoke_token),
        )
        .route("/admin/", get(admin::home))
        .route("/admin/audit/", get(admin::audit_page))
        .route(
            "/admin/triggers/",
            get(admin::triggers_page).post(admin::create_trigger),
        )
        .route("/admin/triggers/new/", get(admin::new_trigger_page))
        .route(
            "/admin/triggers/{id}/",
            get(admin::trigger_page).post(admin::update_trigger),
        )
        .route("/admin/triggers/{id}/move/", post(admin::move_trigger))
        .route("/admin/triggers/{id}/delete/", post(admin::delete_trigger))
        .route(
            "/admin/time-rules/",
            get(admin::time_rules_page).post(admin::create_time_rule),
        )
        .route("/admin/time-rules/new/", get(admin::new_time_rule_page))
        .route(
            "/admin/time-rules/{id}/",
            get(admin::time_rule_page).post(admin::update_time_rule),
        )
        .route(
            "/admin/time-rules/{id}/dry-run/",
            post(admin::dry_run_time_rule),
        )
        .route(
            "/admin/time-rules/{id}/delete/",
            post(admin::delete_time_rule),
        )
        .route(
            "/admin/webhooks/",
            get(admin::webhooks_page).post(admin::create_webhook),
        )
        .route(
            "/admin/webhooks/{id}/",
            get(admin::webhook_page).post(admin::update_webhook),
        )
        .route("/admin/webhooks/{id}/delete/", post(admin::delete_webhook))
        .route(
            "/admin/webhooks/deliveries/{delivery_id}/redeliver/",
            post(admin::redeliver),
        )
        .route(
            "/admin/users/",
            get(admin::users_page).post(admin::create_user),
        )
        .route(
            "/admin/users/{id}/",
            get(admin::user_page).post(admin::update_user),
        )
        .route("/admin/users/{id}/deactivate/", post(admin::deactivate))
        .route("/admin/users/{id}/reactivate/", post(admin::reactivate))
        .route("/admin/users/{id}/password/", post(admin::set_password))
        .route(
            "/admin/groups/",
            get(admin::groups_page).post(admin::create_group),
        )
        .route("/admin/groups/{id}/rename/", post(admin::rename_group))
        .route(
            "/admin/tags/",
            get(admin::tags_page).post(admin::curate_tag),
        )
        .route("/admin/tags/change/", post(admin::change_tag))
        .route(
            "/admin/fields/",
            get(admin::fields_page).post(admin::create_field),
        )
        .route("/admin/fields/change/", post(admin::change_field))
        .route(
            "/admin/chat/",
            get(admin::chat_page).post(admin::create_chat),
        )
        .route("/admin/chat/change/", post(admin::change_chat))
        .route(
            "/admin/mail/",
            get(admin::mail_page).post(admin::create_mailbox),
        )
        .route("/admin/mail/change/", post(admin::change_mailbox))
        .route("/admin/mail/project/", post(admin::change_project_mail))
        .route(
            "/admin/assets/",
            get(admin::assets_page).post(admin::create_asset),
        )
        .route("/admin/assets/change/", post(admin::change_asset))
        .route(
            "/admin/projects/",
            get(admin::projects_page).post(admin::create_project),
        )
        .route("/admin/projects/change/", post(admin::change_project))
        .route(
            "/admin/sla/",
            get(admin::sla_page).post(admin::create_sla_policy),
        )
        .route("/admin/sla/change/", post(admin::change_sla_policy))
        .route("/admin/tags/settings/", post(admin::tag_settings))
        .route("/admin/groups/{id}/delete/", post(admin::delete_group))
        .route("/admin/groups/{id}/members/", post(admin::add_member))
        .route(
            "/admin/groups/{id}/members/{user_id}/remove/",
            post(admin::remove_member),
        )
        .route(
            "/accounts/password-reset/",
            get(reset::request_page).post(reset::request_link),
        )
        .route(
            "/accounts/password-reset/{token}/",
            get(reset::token_page).post(reset::set_password),
        )
        .route("/accounts/oidc/login/", get(oidc::start))
        .route("/accounts/oidc/callback/", get(oidc::callback))
        .route("/static/{file}", get(assets::serve))
        .route("/static/graphiql/{file}", get(assets::serve_graphiql))
        .map(|router| router.layer(axum::middleware::from_fn(in_page_language)))
}

tokio::task_local! {
    /// The language of the page being answered: the browser's, then the signed-in user's once known. An error
    /// page is rendered where the request is out of reach ([`PageError::into_response`]) and reads it here.
    static PAGE_LANG: std::cell::Cell<Lang>;
}

/// Answer a page request with [`PAGE_LANG`] set from its `Accept-Language`.
async fn in_page_language(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let lang = page_lang(None, request.headers());
    PAGE_LANG
        .scope(std::cell::Cell::new(lang), next.run(request))
        .await
}

/// The language of the page being answered (English outside one).
fn current_lang() -> Lang {
    PAGE_LANG.try_with(std::cell::Cell::get).unwrap_or_default()
}

/// What every page's frame shows: who is signed in, and the CSRF token its forms carry.
pub struct Layout {
    /// Display name of the signed-in user; `None` on pages for signed-out visitors.
    pub user: Option<String>,
    /// Token for the hidden CSRF field of this page's forms.
    pub csrf: String,
    /// `?v=` suffix that busts the long-lived cache of the stylesheet and script.
    pub version: &'static str,
    /// Whether the navigation offers the administration pages.
    pub is_admin: bool,
    /// Whether the navigation offers the reports (the team's).
    pub is_team: bool,
    /// The language the page is in.
    pub lang: Lang,
}

impl Layout {
    /// The frame for a signed-in user.
    pub fn for_user(user: &PageUser) -> Layout {
        Layout {
            user: Some(display_name(&user.actor.user)),
            csrf: user.csrf.clone(),
            version: assets::version(),
            is_admin: user.actor.is_admin(),
            is_team: user.actor.is_team(),
            lang: user.lang,
        }
    }

    /// The frame for a signed-out visitor, in the language their browser asks for.
    pub fn anonymous(csrf: String, lang: Lang) -> Layout {
        Layout {
            user: None,
            csrf,
            version: assets::version(),
            is_admin: false,
            is_team: false,
            lang,
        }
    }
}

/// The name pages show for a user: the full name, or the user name when there is none.
pub fn display_name(u: &entity::user::Model) -> String {
    if u.full_name.trim().is_empty() {
        u.username.clone()
    } else {
        u.full_name.clone()
    }
}

/// The language of a page for a user who chose `chosen` (none: the browser's), asking with `headers`.
pub fn page_lang(chosen: Option<&str>, headers: &HeaderMap) -> Lang {
    let accept = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    Lang::negotiate(chosen, accept)
}

/// Why a page could not be shown.
#[derive(Debug)]
pub enum PageError {
    /// Not signed in: go to the sign-in page, then come back to this path.
    SignIn(String),
    /// Anything else, shown as an error page with its status.
    App(AppError),
}

impl From<AppError> for PageError {
    fn from(err: AppError) -> Self {
        PageError::App(err)
    }
}

impl From<crate::domain::UnknownValue> for PageError {
    fn from(err: crate::domain::UnknownValue) -> Self {
        PageError::App(err.into())
    }
}

impl From<WebError> for PageError {
    fn from(err: WebError) -> Self {
        PageError::App(err.0)
    }
}

/// Result of a page handler.
pub type PageResult<T> = Result<T, PageError>;

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    layout: Layout,
    title: String,
    message: String,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        match self {
            PageError::SignIn(next) => {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("next", &next)
                    .finish();
                Redirect::to(&format!("/accounts/login/?{query}")).into_response()
            }
            PageError::App(err) => {
                let status = err.status();
                let lang = current_lang();
                let page = ErrorPage {
                    layout: Layout::anonymous(String::new(), lang),
                    title: lang.status(status),
                    message: err.public_message(),
                };
                let mut response = html(status, &page);
                if let AppError::Internal(cause) | AppError::Unavailable(cause) = &err {
                    response
                        .extensions_mut()
                        .insert(LoggedCause(format!("{cause:#}")));
                }
                response
            }
        }
    }
}

/// `GET /`: a signed-in browser goes to the queue, anyone else to the sign-in page.
#[utoipa::path(get, path = "/", tag = "pages", operation_id = "pageHome",
    summary = "The way in: to the queue when signed in, to the sign-in page otherwise.",
    responses((status = 303, description = "To `/tickets/` or `/accounts/login/`")))]
pub async fn home(State(state): State<AppState>, headers: HeaderMap) -> Response {
    match signed_in(&state, &headers).await {
        Ok(Some(_)) => Redirect::to("/tickets/").into_response(),
        _ => Redirect::to("/accounts/login/").into_response(),
    }
}

/// Whether the request asks for HTML (a browser navigating), rather than JSON.
pub fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// `err` as an error page, with the navigation of the signed-in user when there is one.
pub async fn error_page(state: &AppState, headers: &HeaderMap, err: AppError) -> Response {
    let layout = match signed_in(state, headers).await {
        Ok(Some((actor, session, _))) => Layout {
            user: Some(display_name(&actor.user)),
            csrf: session.csrf_token,
            version: assets::version(),
            is_admin: actor.is_admin(),
            is_team: actor.is_team(),
            lang: page_lang(actor.user.language.as_deref(), headers),
        },
        _ => Layout::anonymous(String::new(), page_lang(None, headers)),
    };
    let status = err.status();
    let page = ErrorPage {
        title: layout.lang.status(status),
        layout,
        message: err.public_message(),
    };
    html(status, &page)
}

/// The first message of each field of a refused form, for showing next to its field.
pub fn field_messages(
    fields: crate::error::FieldErrors,
) -> std::collections::BTreeMap<String, String> {
    fields
        .into_iter()
        .filter_map(|(k, v)| v.into_iter().next().map(|m| (k, m)))
        .collect()
}

/// A rendered page with the page headers (CSP, no caching of personal pages).
pub fn html(status: StatusCode, page: &impl Template) -> Response {
    match page.render() {
        Ok(body) => {
            let mut response = (status, body).into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            );
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(err) => {
            let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
            response
                .extensions_mut()
                .insert(LoggedCause(format!("template: {err}")));
            response
        }
    }
}

/// The signed-in user of a page request; signed-out visitors are sent to the sign-in page.
pub struct PageUser {
    /// Who is looking.
    pub actor: Arc<Actor>,
    /// The session's CSRF token, for the page's forms.
    pub csrf: String,
    /// The session cookie's secret (a password change keeps this session signed in).
    pub session: String,
    /// The time zone the pages show dates in: the user's setting, else the browser's (the `tz` cookie the
    /// pages' script sets), else UTC.
    pub zone: chrono_tz::Tz,
    /// The language the pages are in: the user's setting, else the browser's, else English.
    pub lang: Lang,
}

/// The cookie in which the pages' script keeps the browser's time zone.
const ZONE_COOKIE: &str = "tz";

impl PageUser {
    /// `at` as the pages show a moment, in the viewer's time zone ([`local_date`]).
    pub fn date(&self, at: &chrono::DateTime<chrono::Utc>) -> String {
        local_date(at, self.zone, self.lang)
    }

    /// [`PageUser::date`] of a moment that may not have come: "never".
    pub fn when(&self, at: Option<chrono::DateTime<chrono::Utc>>) -> String {
        at.map(|at| self.date(&at))
            .unwrap_or_else(|| self.lang.t("date-never"))
    }
}

/// `at` as the pages show a moment: "Nov 30, 2026 14:05" in `zone`.
pub fn local_date(at: &chrono::DateTime<chrono::Utc>, zone: chrono_tz::Tz, lang: Lang) -> String {
    at.with_timezone(&zone)
        .format(lang.moment_format())
        .to_string()
}

impl FromRequestParts<AppState> for PageUser {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> PageResult<Self> {
        let here = parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| "/tickets/".into());
        // The front layer has usually resolved the session already; look again only when it could not say
        // (the database away), so the failure is reported in the page's shape.
        let resolved = match parts.extensions.get::<WebSession>() {
            Some(web) => Some((web.actor.clone(), web.record.clone(), web.secret.clone())),
            None => signed_in(state, &parts.headers).await?,
        };
        match resolved {
            Some((actor, session, secret)) => {
                let browser = || {
                    let raw = crate::web::session::cookie(&parts.headers, ZONE_COOKIE)?;
                    let name = percent_encoding::percent_decode_str(&raw).decode_utf8_lossy();
                    name.parse::<chrono_tz::Tz>().ok()
                };
                let zone = (actor.user.time_zone.as_deref())
                    .and_then(|name| name.parse::<chrono_tz::Tz>().ok())
                    .or_else(browser)
                    .unwrap_or(chrono_tz::UTC);
                let lang = page_lang(actor.user.language.as_deref(), &parts.headers);
                // An error page for this request is in the user's language too.
                let _ = PAGE_LANG.try_with(|page| page.set(lang));
                Ok(PageUser {
                    actor,
                    csrf: session.csrf_token,
                    session: secret,
                    zone,
                    lang,
                })
            }
            None => Err(PageError::SignIn(here)),
        }
    }
}

/// The fields of a posted HTML form, in the order they came, parsed once for everything the handler reads.
pub struct Form(pub(super) Vec<(String, String)>);

impl Form {
    /// Parse a form-urlencoded body.
    pub fn parse(body: &[u8]) -> Form {
        Form(
            url::form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// A field's value (the first, when the field repeats), `None` when the form did not send it.
    pub fn opt(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A field's value (the first, when the field repeats), `""` when absent.
    pub fn get(&self, name: &str) -> &str {
        self.opt(name).unwrap_or("")
    }

    /// Every value of the field `name`, in order (ticked checkboxes, repeated rows).
    pub fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Every field, in order.
    pub fn fields(&self) -> &[(String, String)] {
        &self.0
    }

    /// The ids named by fields `<prefix><id>` (checkboxes such as `split_7`), in order; other names are skipped.
    pub fn ids_named(&self, prefix: &str) -> Vec<i32> {
        let mut ids: Vec<i32> = self
            .0
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(prefix)?.parse().ok())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

impl PageUser {
    /// Parse a form this user posted, refusing it (403) unless it carries the session's CSRF token.
    pub fn form(&self, body: &[u8]) -> PageResult<Form> {
        let form = Form::parse(body);
        check_csrf(Some(form.get(FORM_CSRF_FIELD)), &self.csrf)?;
        Ok(form)
    }
}
