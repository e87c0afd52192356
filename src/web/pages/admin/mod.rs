//! `/admin/`: the administration pages, for administrators only (everyone else gets the 403 page). Accounts,
//! groups, webhook endpoints, automation triggers and time rules, tags, and the audit trail, server-rendered and working without JavaScript, over the same service calls as GraphQL, REST
//! and the command line.
pub mod audit;
pub mod fields;
pub mod groups;
pub mod tags;
pub mod time_rules;
pub mod triggers;
pub mod users;
pub mod webhooks;

pub use audit::audit_page;
pub use fields::{change_field, create_field, fields_page};
pub use groups::{
    add_member, create_group, delete_group, groups_page, remove_member, rename_group,
};
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

use super::{PageResult, PageUser};
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

/// Every value of the repeated field `name` of a form body.
fn all_values(body: &[u8], name: &str) -> Vec<String> {
    url::form_urlencoded::parse(body)
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .collect()
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
