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
pub use mailboxes::{change_mailbox, change_project_mail, create_mailbox, mail_page};
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

/// The values of a stored enum (`all`, spelled by `name`) as the options of a select, in words, `chosen`
/// selected.
fn enum_options<T: Copy + PartialEq>(
    lang: crate::i18n::Lang,
    all: &[T],
    name: fn(T) -> &'static str,
    chosen: Option<T>,
) -> Vec<Opt> {
    all.iter()
        .map(|v| Opt {
            value: name(*v).to_string(),
            label: lang.label(name(*v)),
            selected: Some(*v) == chosen,
        })
        .collect()
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
    form_key(form, "id", what)
}

/// The record a form names in field `key`: `id` for the page's own records, another name for a record of
/// another kind on the same page (so that a refused form of one is never shown as the other's).
fn form_key(form: &Form, key: &str, what: &str) -> Result<i32, crate::error::AppError> {
    form.get(key)
        .parse::<i32>()
        .map_err(|_| crate::error::AppError::not_found(what))
}

/// An administration page of the whole desk, one form or more on it: where it lives, how it is read, what its
/// redirects say, and where a form's mistake is shown.
trait DeskPage: askama::Template + Sized {
    /// Its path, `/admin/<section>/`.
    const PATH: &'static str;

    /// The message each `?done=` code says, by code.
    const DONE: &'static [(&'static str, &'static str)];

    /// The message any other `?done=` code says.
    const SAVED: &'static str = "rules-saved";

    /// The page as `user` sees it now.
    async fn read(state: &crate::state::AppState, user: &PageUser) -> PageResult<Self>;

    /// What the page says above its forms.
    fn notes(&mut self) -> &mut Notes;
}

/// What an administration page says above its forms: what a redirect says was done, or why a form was refused,
/// with what that form had typed so that it shows again instead of the stored values.
#[derive(Default)]
pub struct Notes {
    /// What was done (`?done=`).
    pub flash: Option<String>,
    /// Why the form was refused.
    pub error: String,
    /// What the refused form had typed.
    pub typed: Typed,
}

/// The fields of a refused form, for the page to show them again. Secrets (`secret`, `token`, `password`, and a
/// chat `webhook_url`, which carries its key) are not kept: they are typed again.
#[derive(Default)]
pub struct Typed {
    /// The record its `id` named; none for a new record's form.
    id: Option<i32>,
    /// A form was refused that carried fields beyond its id and buttons (a change, not an archive or a
    /// removal): false when none was.
    edited: bool,
    values: Vec<(String, String)>,
}

impl Typed {
    /// The fields of `form`.
    fn of(form: &Form) -> Typed {
        const SECRET: [&str; 4] = ["secret", "token", "password", "webhook_url"];
        const NOT_TYPED: [&str; 5] = ["csrfmiddlewaretoken", "id", "archive", "delete", "restore"];
        let values: Vec<(String, String)> = form
            .fields()
            .iter()
            .filter(|(k, _)| !SECRET.contains(&k.as_str()))
            .cloned()
            .collect();
        Typed {
            id: values
                .iter()
                .find(|(k, _)| k == "id")
                .and_then(|(_, v)| v.parse().ok()),
            edited: values.iter().any(|(k, _)| !NOT_TYPED.contains(&k.as_str())),
            values,
        }
    }

    /// Whether the refused form is the one of record `id` (none: the new record's form) and changed fields.
    fn is_for(&self, id: Option<i32>) -> bool {
        self.edited && self.id == id
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// What was typed in box `name` of the refused new-record form, or nothing.
    pub fn fresh(&self, name: &str) -> &str {
        match self.value(name) {
            Some(typed) if self.is_for(None) => typed,
            _ => "",
        }
    }

    /// What was typed in box `name` of the refused form of record `id`, or `stored`.
    pub fn or(&self, id: impl FormId, name: &str, stored: impl std::fmt::Display) -> String {
        match self.value(name) {
            Some(typed) if self.is_for(id.form_id()) => typed.to_string(),
            _ => stored.to_string(),
        }
    }

    /// Whether the refused form is the change form of record `id` (its disclosure opens to show it).
    pub fn refused_for(&self, id: impl FormId) -> bool {
        id.form_id().is_some() && self.is_for(id.form_id())
    }

    /// Whether option `value` of select `name` (or a checkbox `name` with that value) of the form of record `id`
    /// is chosen: as posted when that form was refused, else `stored`.
    pub fn picks(
        &self,
        id: impl FormId,
        name: &str,
        value: &str,
        stored: impl std::borrow::Borrow<bool>,
    ) -> bool {
        if self.is_for(id.form_id()) {
            self.values.iter().any(|(k, v)| k == name && v == value)
        } else {
            *stored.borrow()
        }
    }

    /// Whether checkbox `name` of the form of record `id` is ticked: as posted when that form was refused, else
    /// `stored`.
    pub fn ticks(
        &self,
        id: impl FormId,
        name: &str,
        stored: impl std::borrow::Borrow<bool>,
    ) -> bool {
        if self.is_for(id.form_id()) {
            self.value(name).is_some()
        } else {
            *stored.borrow()
        }
    }

    /// What was typed in box `name` of the refused form whose field `key` names record `id` (a record of
    /// another kind than the page's own, see [`form_key`]), or `stored`.
    pub fn keyed_or(
        &self,
        key: &str,
        id: impl FormId,
        name: &str,
        stored: impl std::fmt::Display,
    ) -> String {
        match self.value(name) {
            Some(typed) if self.names(key, id) => typed.to_string(),
            _ => stored.to_string(),
        }
    }

    /// [`Typed::picks`] on the form whose field `key` names record `id`.
    pub fn keyed_picks(
        &self,
        key: &str,
        id: impl FormId,
        name: &str,
        value: &str,
        stored: impl std::borrow::Borrow<bool>,
    ) -> bool {
        if self.names(key, id) {
            self.values.iter().any(|(k, v)| k == name && v == value)
        } else {
            *stored.borrow()
        }
    }

    /// Whether the refused form's field `key` names record `id`.
    fn names(&self, key: &str, id: impl FormId) -> bool {
        let id = id.form_id().map(|id| id.to_string());
        id.is_some() && self.value(key) == id.as_deref()
    }

    /// What was typed in box `name` of the refused new-record form, or `stored` (a default).
    pub fn fresh_or(&self, name: &str, stored: impl std::fmt::Display) -> String {
        self.or(None::<i32>, name, stored)
    }

    /// [`Typed::picks`] on the new record's form.
    pub fn fresh_picks(
        &self,
        name: &str,
        value: &str,
        stored: impl std::borrow::Borrow<bool>,
    ) -> bool {
        self.picks(None::<i32>, name, value, stored)
    }

    /// [`Typed::ticks`] on the new record's form.
    pub fn fresh_ticks(&self, name: &str) -> bool {
        self.ticks(None::<i32>, name, false)
    }
}

/// The record a form on an administration page changes: its id, or none for the new record's form.
pub trait FormId {
    /// The id, if any.
    fn form_id(&self) -> Option<i32>;
}

impl FormId for i32 {
    fn form_id(&self) -> Option<i32> {
        Some(*self)
    }
}

impl FormId for Option<i32> {
    fn form_id(&self) -> Option<i32> {
        *self
    }
}

impl<T: FormId> FormId for &T {
    fn form_id(&self) -> Option<i32> {
        (**self).form_id()
    }
}

impl Done {
    /// What the code says on page `P`, in `lang`.
    fn said<P: DeskPage>(self, lang: crate::i18n::Lang) -> Option<String> {
        self.done.map(|code| {
            let key = P::DONE
                .iter()
                .find(|(c, _)| *c == code)
                .map_or(P::SAVED, |(_, key)| *key);
            lang.t(key)
        })
    }
}

/// `GET` of page `P`: as it is now, saying what `?done=` did.
async fn show<P: DeskPage>(
    state: &crate::state::AppState,
    user: &PageUser,
    done: Done,
) -> PageResult<Response> {
    let page = P::read(state, user).await?;
    Ok(shown(page, user, done))
}

/// Page `page`, saying what `?done=` did.
fn shown<P: DeskPage>(mut page: P, user: &PageUser, done: Done) -> Response {
    page.notes().flash = done.said::<P>(user.lang);
    super::html(axum::http::StatusCode::OK, &page)
}

/// A form's outcome on page `P`: back to the page saying `done`, or the page with the mistake's message
/// and what `form` had typed, with the error's status.
async fn outcome<P: DeskPage, T>(
    state: &crate::state::AppState,
    user: &PageUser,
    done: &str,
    form: &Form,
    result: Result<T, crate::error::AppError>,
) -> PageResult<Response> {
    match result {
        Ok(_) => Ok(Redirect::to(&format!("{}?done={done}", P::PATH)).into_response()),
        Err(err) => {
            let Some((message, _)) = messages(&err) else {
                return Err(err.into());
            };
            let mut page = P::read(state, user).await?;
            let notes = page.notes();
            notes.error = message;
            notes.typed = Typed::of(form);
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
