//! `GET`/`POST /tickets/new/`: the new-ticket form; the service's field errors are shown next to the
//! fields they name.
use super::ticket::fields::{self, FieldInput};
use super::upload::Posted;
use super::{html, Form, Layout, PageError, PageResult, PageUser};
use crate::domain::Priority;
use crate::error::AppError;
use crate::service::attachments;
use crate::service::tickets::{self, NewTicket};
use crate::state::AppState;
use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use std::collections::BTreeMap;

/// A priority choice of the form.
struct Choice {
    value: &'static str,
    label: String,
    selected: bool,
}

#[derive(Template)]
#[template(path = "new_ticket.html")]
struct NewTicketPage {
    layout: Layout,
    title: String,
    description: String,
    priorities: Vec<Choice>,
    errors: BTreeMap<String, String>,
    summary: Option<String>,
    /// The custom fields every ticket carries.
    fields: Vec<FieldInput>,
}

impl NewTicketPage {
    /// The message for `field`, `""` when it has none.
    fn error(&self, field: &str) -> &str {
        self.errors.get(field).map(String::as_str).unwrap_or("")
    }
}

fn form_page(
    user: &PageUser,
    form: Option<&Form>,
    errors: BTreeMap<String, String>,
    summary: Option<String>,
    mut fields: Vec<FieldInput>,
) -> NewTicketPage {
    if let Some(form) = form {
        super::ticket::fields::refill(&mut fields, form, &errors);
    }
    let field = |name: &str| form.map(|f| f.get(name).to_string()).unwrap_or_default();
    let chosen = form
        .map(|f| f.get("priority").to_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| Priority::Medium.as_str().to_string());
    NewTicketPage {
        layout: Layout::for_user(user),
        title: field("title"),
        description: field("description"),
        priorities: Priority::ALL
            .iter()
            .map(|p| Choice {
                value: p.as_str(),
                label: user.lang.label(p.as_str()),
                selected: p.as_str() == chosen,
            })
            .collect(),
        errors,
        summary,
        fields,
    }
}

/// The empty form.
#[utoipa::path(get, path = "/tickets/new/", tag = "pages", operation_id = "pageNewTicket",
    summary = "New-ticket form.",
    responses((status = 200, description = "HTML form", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn page(State(state): State<AppState>, user: PageUser) -> PageResult<Response> {
    let shown = fields::for_new_ticket(&state, &user.actor).await?;
    let inputs = fields::inputs(&state.db.conn, &user.actor, &shown, user.lang, user.zone).await;
    Ok(html(
        StatusCode::OK,
        &form_page(&user, None, BTreeMap::new(), None, inputs),
    ))
}

/// Create the ticket and open it, or show the form again with the errors.
#[utoipa::path(post, path = "/tickets/new/", tag = "pages", operation_id = "pageCreateTicket",
    summary = "Create a ticket from the form; redirects to it, or re-renders the form with field errors.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Created: redirect to the ticket page"),
        (status = 400, description = "The form again, with errors next to the fields", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn submit(
    State(state): State<AppState>,
    user: PageUser,
    req: Request,
) -> PageResult<Response> {
    let Posted { form, files } = user.posted(&state, req).await?;
    let shown = fields::for_new_ticket(&state, &user.actor).await?;
    let checked = files
        .iter()
        .map(|(name, spooled)| attachments::check(name, spooled))
        .collect::<Result<Vec<_>, _>>();
    let edits = fields::changed(&state.db.conn, &user.actor, &form, &shown, user.zone).await;
    let result = match (Priority::parse(form.get("priority")), checked, edits) {
        (_, Err(err), _) => Err(err),
        (_, _, Err(PageError::App(err))) => Err(err),
        (_, _, Err(other)) => return Err(other),
        (Ok(priority), Ok(_), Ok(custom_fields)) => {
            let description = crate::sanitize::text_to_html(form.get("description"));
            let input = NewTicket {
                title: form.get("title").to_string(),
                description: (!description.is_empty()).then_some(description),
                priority: Some(priority),
                custom_fields,
                ..Default::default()
            };
            // The files commit with the ticket: none is opened without the files it was sent with.
            let along = tickets::Along {
                files,
                storage: Some(&*state.storage),
                receipt: None,
                related: None,
            };
            tickets::create_along(
                state.write_deps(crate::domain::Channel::Web),
                &user.actor,
                input,
                along,
            )
            .await
        }
        (Err(_), Ok(_), Ok(_)) => Err(AppError::field("priority", "choose a priority")),
    };
    match result {
        Ok(created) => Ok(Redirect::to(&format!("/tickets/{}/", created.id)).into_response()),
        Err(AppError::Validation { message, fields }) => {
            let errors = super::field_messages(fields);
            let summary = errors.is_empty().then_some(message);
            let inputs =
                fields::inputs(&state.db.conn, &user.actor, &shown, user.lang, user.zone).await;
            let page = form_page(&user, Some(&form), errors, summary, inputs);
            Ok(html(StatusCode::BAD_REQUEST, &page))
        }
        Err(err) => Err(PageError::App(err)),
    }
}
