//! `/admin/`: the administration pages, for administrators only (everyone else gets the 403 page). Accounts,
//! groups, webhook endpoints, Slack and Teams channels, mailboxes, projects, the inventory, SLA policies with their calendars, automation triggers and time rules, tags, and the audit trail, server-rendered and working without JavaScript, over the same service calls as GraphQL, REST
//! and the command line.
pub mod audit;
pub mod chat;
pub mod fields;
pub mod groups;
pub mod inventory;
pub mod mailboxes;
pub mod projects;
pub mod sla;
pub mod tags;
pub mod time_rules;
pub mod triggers;
pub mod users;
pub mod webhooks;

pub use audit::audit_page;
pub use chat::{change_chat, chat_page, create_chat};
pub use fields::{change_field, create_field, fields_page};
pub use groups::{
    add_member, create_group, delete_group, groups_page, remove_member, rename_group,
};
pub use inventory::{assets_page, change_asset, create_asset};
pub use mailboxes::{change_mailbox, create_mailbox, mail_page};
pub use projects::{change_project, create_project, projects_page};
pub use sla::{change_sla_policy, create_sla_policy, sla_page};
pub use tags::{change_tag, curate_tag, tag_settings, tags_page};
pub use time_rules::{
    create_time_rule, delete_time_rule, dry_run_time_rule, new_time_rule_page, time_rule_page,
    time_rules_page, update_time_rule,
};
pub use triggers::{
    create_trigger, delete_trigger, move_trigger, new_trigger_page, trigger_page, triggers_page,
    update_trigger,
};
pub use users::{
    create_user, deactivate, reactivate, set_password, update_user, user_page, users_page,
};
pub use webhooks::{
    create_webhook, delete_webhook, redeliver, update_webhook, webhook_page, webhooks_page,
};

use super::{Form, PageResult, PageUser};
use crate::service::users::Admin;
use axum::response::{IntoResponse, Redirect, Response};

/// `GET /admin/`: the people list.
#[utoipa::path(get, path = "/admin/", tag = "pages", operation_id = "pageAdmin",
    summary = "Administration (administrators only): leads to the people list.",
    responses((status = 303, description = "To /admin/users/"), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn home(user: PageUser) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    Ok(Redirect::to("/admin/users/").into_response())
}

/// What a redirect back to an administration page says it did (`?done=`).
#[derive(serde::Deserialize)]
pub struct Done {
    done: Option<String>,
}

/// An option of a filter's drop-down.
pub struct Choice {
    value: String,
    label: String,
    selected: bool,
}

/// A checkbox of a group in a form.
pub struct GroupChoice {
    id: i32,
    name: String,
    checked: bool,
}

/// An option of a select.
struct Opt {
    value: String,
    label: String,
    selected: bool,
}

/// The projects as the options of a select, `chosen` selected.
fn project_options(projects: &[entity::project::Model], chosen: Option<i32>) -> Vec<Opt> {
    projects
        .iter()
        .map(|p| Opt {
            value: p.id.to_string(),
            label: p.name.clone(),
            selected: Some(p.id) == chosen,
        })
        .collect()
}

/// The project chosen in a form's `project` select: none when left on "all projects".
fn chosen_project(form: &Form) -> Result<Option<i32>, crate::error::AppError> {
    match form.get("project").trim() {
        "" => Ok(None),
        raw => raw
            .parse::<i32>()
            .map(Some)
            .map_err(|_| crate::error::AppError::field("project", "choose a project")),
    }
}

/// What was typed in box `name`, trimmed; a box left blank is none (on a change: keep what is stored).
fn typed(form: &Form, name: &str) -> Option<String> {
    Some(form.get(name).trim())
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// The record a change form names in its `id` field (404 as `what` when that is not a number).
fn form_id(form: &Form, what: &str) -> Result<i32, crate::error::AppError> {
    form.get("id")
        .parse::<i32>()
        .map_err(|_| crate::error::AppError::not_found(what))
}

/// Every value of the repeated field `name` of a form body.
fn all_values(body: &[u8], name: &str) -> Vec<String> {
    url::form_urlencoded::parse(body)
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .collect()
}

/// An administration page of the whole desk, one form or more on it: where it lives, how it is read, and
/// where a form's mistake is shown.
trait DeskPage: askama::Template + Sized {
    /// Its path, `/admin/<section>/`.
    const PATH: &'static str;

    /// The page as `user` sees it now.
    async fn read(state: &crate::state::AppState, user: &PageUser) -> PageResult<Self>;

    /// Show `message` as the form's mistake.
    fn show_error(&mut self, message: String);
}

/// A form's outcome on page `P`: back to the page saying `done`, or the page with the mistake's message
/// and the error's status.
async fn outcome<P: DeskPage, T>(
    state: &crate::state::AppState,
    user: &PageUser,
    done: &str,
    result: Result<T, crate::error::AppError>,
) -> PageResult<Response> {
    match result {
        Ok(_) => Ok(Redirect::to(&format!("{}?done={done}", P::PATH)).into_response()),
        Err(err) => {
            let Some((message, _)) = messages(&err) else {
                return Err(err.into());
            };
            let mut page = P::read(state, user).await?;
            page.show_error(message);
            Ok(super::html(err.status(), &page))
        }
    }
}

/// The first message of a validation or conflict error, and its fields.
fn messages(err: &crate::error::AppError) -> Option<(String, crate::error::FieldErrors)> {
    match err {
        crate::error::AppError::Validation { message, fields }
        | crate::error::AppError::Conflict { message, fields } => {
            Some((message.clone(), fields.clone()))
        }
        _ => None,
    }
}
