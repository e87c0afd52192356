//! `/admin/triggers/`: the automation triggers in the order they run; add, change, switch off, move and remove
//! them (administrators only), over the service calls GraphQL and REST use.
//!
//! The editor builds a rule without JSON: each condition is a row (all/any, field, operator, value) and each
//! action a row (what, value), with a few blank rows to fill. People, groups and projects are named in the
//! value boxes by user name or name (an id works too); `none` is the empty value, and `one of` takes a
//! comma-separated list. The page turns the rows into the rule language (docs/automation.md) and back.
use super::messages;
use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::rest::comments::path_id;
use crate::service::automation::language::FIELD_PREFIX;
use crate::service::automation::{triggers, NewTrigger, TriggerPatch};
use crate::service::custom_fields::{from_query_text, Defined};
use crate::service::{assets, chat, projects, users, webhooks, Take};
use crate::state::AppState;
use crate::web::pages::{html, Form, Lang, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use entity::trigger;
use entity::values::FieldKind;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Blank condition rows offered after the filled ones.
const BLANK_CONDITIONS: usize = 3;
/// Blank action rows offered after the filled ones.
const BLANK_ACTIONS: usize = 2;

/// The fields a condition row offers, as the rule language spells them. The first [`WRITE_ONLY`] are about the
/// write, not the ticket, so time rules leave them out.
const FIELDS: [&str; 16] = [
    "event",
    "channel",
    "actor.role",
    "actor.group",
    "comment.internal",
    "time.business_hours",
    "ticket.title",
    "ticket.description",
    "ticket.status",
    "ticket.priority",
    "ticket.project",
    "ticket.assigned_to",
    "ticket.assigned_group",
    "ticket.requester",
    "ticket.due_date",
    "ticket.tags",
];

/// A condition's field in words.
fn field_name(lang: Lang, field: &str) -> String {
    match field {
        "event" => lang.t("rules-cond-event"),
        "channel" => lang.t("rules-cond-channel"),
        "actor.role" => lang.t("rules-cond-actor-role"),
        "actor.group" => lang.t("rules-cond-actor-group"),
        "comment.internal" => lang.t("rules-cond-comment-internal"),
        "time.business_hours" => lang.t("rules-cond-business-hours"),
        "ticket.title" => lang.t("rules-cond-title"),
        "ticket.description" => lang.t("rules-cond-description"),
        "ticket.status" => lang.t("rules-cond-status"),
        "ticket.priority" => lang.t("rules-cond-priority"),
        "ticket.project" => lang.t("rules-cond-project"),
        "ticket.assigned_to" => lang.t("rules-cond-assignee"),
        "ticket.assigned_group" => lang.t("rules-cond-assigned-group"),
        "ticket.requester" => lang.t("rules-cond-requester"),
        "ticket.due_date" => lang.t("rules-cond-due-date"),
        "ticket.tags" => lang.t("rules-cond-tags"),
        other => other.to_string(),
    }
}

/// How many of [`FIELDS`] are about the write.
const WRITE_ONLY: usize = 6;

/// The operators a condition row offers.
const OPERATORS: [&str; 10] = [
    "is",
    "is_not",
    "one_of",
    "contains",
    "starts_with",
    "greater_than",
    "less_than",
    "changed",
    "changed_from",
    "changed_to",
];

/// An operator in words.
fn operator_name(lang: Lang, operator: &str) -> String {
    match operator {
        "is" => lang.t("rules-op-is"),
        "is_not" => lang.t("rules-op-is-not"),
        "one_of" => lang.t("rules-op-one-of"),
        "contains" => lang.t("rules-op-contains"),
        "starts_with" => lang.t("rules-op-starts-with"),
        "greater_than" => lang.t("rules-op-greater-than"),
        "less_than" => lang.t("rules-op-less-than"),
        "changed" => lang.t("rules-op-changed"),
        "changed_from" => lang.t("rules-op-changed-from"),
        "changed_to" => lang.t("rules-op-changed-to"),
        other => other.to_string(),
    }
}

/// What an action row can do.
const ACTIONS: [&str; 19] = [
    "status",
    "priority",
    "assigned_to",
    "assigned_group",
    "project",
    "due_date",
    "comment",
    "note",
    "add_tags",
    "remove_tags",
    "assign_least_loaded",
    "assign_round_robin",
    "notify_requester",
    "notify_assignee",
    "notify_assigned_group",
    "notify_group",
    "notify_user",
    "notify_chat",
    "notify_webhook",
];

/// An action in words.
fn action_name(lang: Lang, action: &str) -> String {
    match action {
        "status" => lang.t("rules-action-status"),
        "priority" => lang.t("rules-action-priority"),
        "assigned_to" => lang.t("rules-action-assigned-to"),
        "assigned_group" => lang.t("rules-action-assigned-group"),
        "project" => lang.t("rules-action-project"),
        "due_date" => lang.t("rules-action-due-date"),
        "comment" => lang.t("rules-action-comment"),
        "note" => lang.t("rules-action-note"),
        "add_tags" => lang.t("rules-action-add-tags"),
        "remove_tags" => lang.t("rules-action-remove-tags"),
        "assign_least_loaded" => lang.t("rules-action-assign-least-loaded"),
        "assign_round_robin" => lang.t("rules-action-assign-round-robin"),
        "notify_requester" => lang.t("rules-action-notify-requester"),
        "notify_assignee" => lang.t("rules-action-notify-assignee"),
        "notify_assigned_group" => lang.t("rules-action-notify-assigned-group"),
        "notify_group" => lang.t("rules-action-notify-group"),
        "notify_user" => lang.t("rules-action-notify-user"),
        "notify_chat" => lang.t("rules-action-notify-chat"),
        "notify_webhook" => lang.t("rules-action-notify-webhook"),
        other => other.to_string(),
    }
}

/// An option of a select.
pub struct Opt {
    value: String,
    label: String,
    selected: bool,
}

/// The options for the values `all`, each named by `name`, `chosen` selected.
fn options(
    lang: Lang,
    all: &[&'static str],
    name: fn(Lang, &str) -> String,
    chosen: &str,
) -> Vec<Opt> {
    all.iter()
        .map(|value| Opt {
            value: value.to_string(),
            label: name(lang, value),
            selected: *value == chosen,
        })
        .collect()
}

/// The prefix of an action row that sets a custom field: `set_field:<key>`.
const SET_FIELD: &str = "set_field:";

/// The options of the active custom fields, after `built_in`: each a condition's subject (`ticket.fields.<key>`)
/// or, for actions, `set_field:<key>`, named by its label and key, `chosen` selected.
fn with_fields(
    lang: Lang,
    mut built_in: Vec<Opt>,
    fields: &Defined,
    action: bool,
    chosen: &str,
) -> Vec<Opt> {
    for f in fields.iter() {
        let (value, message) = if action {
            (format!("{SET_FIELD}{}", f.key), "rules-action-set-field")
        } else {
            (
                format!("{FIELD_PREFIX}{}", f.key),
                "rules-cond-custom-field",
            )
        };
        built_in.push(Opt {
            selected: value == chosen,
            value,
            label: lang.t2(message, "label", &f.label, "key", &f.key),
        });
    }
    built_in
}

/// A typed value box of a custom field as the rule language's JSON (`one`: a single value of a condition,
/// one choice of a multiple choice field); "none" is null, and a person is named by user name as elsewhere.
async fn field_value(
    state: &AppState,
    actor: &Actor,
    fields: &Defined,
    key: &str,
    text: &str,
    one: bool,
) -> AppResult<Value> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(Value::Null);
    }
    Ok(match fields.iter().find(|f| f.key == key).map(|f| f.kind) {
        Some(FieldKind::MultiChoice) if one => json!(text),
        Some(FieldKind::User) => read_value(state, actor, "assigned_to", text).await?,
        Some(FieldKind::Asset) => asset_named(state, actor, text).await?,
        Some(kind) => from_query_text(kind, text),
        None => json!(text),
    })
}

/// The asset an asset field's box names: by its number, or by its name when one asset has it (an id is
/// needed to tell apart assets of one name).
async fn asset_named(state: &AppState, actor: &Actor, text: &str) -> AppResult<Value> {
    if let Ok(id) = text.parse::<i64>() {
        return Ok(json!(id));
    }
    let found = assets::named(&state.db.conn, actor, text, 2).await?;
    let mut named = found.iter();
    match (named.next(), named.next()) {
        (Some(a), None) => Ok(json!(a.id)),
        (Some(_), Some(_)) => Err(AppError::bad_request(format!(
            "several assets are named \"{text}\": give the asset's number"
        ))),
        (None, _) => Err(AppError::bad_request(format!(
            "there is no asset named \"{text}\""
        ))),
    }
}

/// How [`Names::show`] reads a custom field's stored value: a user field's as a person, an asset field's as
/// an asset.
fn shown_as<'a>(fields: &Defined, key: &str, otherwise: &'a str) -> &'a str {
    match fields.iter().find(|f| f.key == key).map(|f| f.kind) {
        Some(FieldKind::User) => "assigned_to",
        Some(FieldKind::Asset) => "asset",
        _ => otherwise,
    }
}

/// A condition row of the editor.
pub struct ConditionRow {
    any: bool,
    fields: Vec<Opt>,
    operators: Vec<Opt>,
    value: String,
}

/// An action row of the editor.
pub struct ActionRow {
    kinds: Vec<Opt>,
    value: String,
}

/// A trigger as the list shows it.
pub struct Listed {
    id: i32,
    name: String,
    project: String,
    active: bool,
    conditions: usize,
    actions: usize,
    first: bool,
    last: bool,
}

#[derive(Template)]
#[template(path = "admin_triggers.html")]
struct TriggersPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    listed: Vec<Listed>,
}

#[derive(Template)]
#[template(path = "admin_trigger.html")]
pub(super) struct TriggerPage {
    layout: Layout,
    section: &'static str,
    pub(super) flash: Option<String>,
    form_error: String,
    /// Where the rule's pages are: `/admin/triggers/` or `/admin/time-rules/`.
    base: &'static str,
    /// The heading of a new rule: "New trigger" or "New time rule".
    new_title: String,
    /// The button that adds a new rule.
    add: String,
    /// The button that removes the rule.
    remove: String,
    /// For a time rule: the wait's moment choices, hours and business-hours switch.
    wait: Option<WaitBox>,
    /// `None`: a new rule.
    id: Option<i32>,
    name: String,
    project: String,
    active: bool,
    conditions: Vec<ConditionRow>,
    actions: Vec<ActionRow>,
    groups: String,
    projects: String,
}

/// A time rule's wait as the editor shows it.
pub(super) struct WaitBox {
    since: Vec<Opt>,
    hours: String,
    business_hours: bool,
}

/// The moments a wait counts from: the ticket's own, after which it ends, then the SLA targets, before which
/// it ends (stored as `before`).
const SINCE: [&str; 6] = [
    "status_changed",
    "updated",
    "created",
    "resolved",
    "first_response_due",
    "resolution_due",
];

/// A moment a wait counts from, in words.
fn since_name(lang: Lang, since: &str) -> String {
    match since {
        "status_changed" => lang.t("rules-since-status-changed"),
        "updated" => lang.t("rules-since-updated"),
        "created" => lang.t("rules-since-created"),
        "resolved" => lang.t("rules-since-resolved"),
        "first_response_due" => lang.t("rules-before-first-response-due"),
        "resolution_due" => lang.t("rules-before-resolution-due"),
        other => other.to_string(),
    }
}

impl WaitBox {
    /// The box for a stored or posted wait.
    pub(super) fn of(lang: Lang, wait: &Value) -> WaitBox {
        WaitBox {
            since: options(
                lang,
                &SINCE,
                since_name,
                wait["since"]
                    .as_str()
                    .or_else(|| wait["before"].as_str())
                    .unwrap_or("status_changed"),
            ),
            hours: wait["hours"]
                .as_i64()
                .map(|h| h.to_string())
                .or_else(|| wait["hours"].as_str().map(str::to_string))
                .unwrap_or_default(),
            business_hours: wait["business_hours"] == true,
        }
    }
}

/// What kind of rule the editor edits.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// Run on ticket writes.
    Trigger,
    /// Run when a wait has passed.
    TimeRule,
}

/// A saved rule as the editor reads it.
pub(super) struct Saved {
    pub(super) id: i32,
    pub(super) name: String,
    pub(super) project_id: Option<i32>,
    pub(super) active: bool,
    pub(super) conditions: Value,
    pub(super) actions: Value,
    pub(super) wait: Value,
}

impl Saved {
    fn trigger(t: &trigger::Model) -> Saved {
        Saved {
            id: t.id,
            name: t.name.clone(),
            project_id: t.project_id,
            active: t.active,
            conditions: t.conditions.clone(),
            actions: t.actions.clone(),
            wait: Value::Null,
        }
    }
}

/// Names of groups, projects and people, both ways, for the value boxes.
struct Names {
    groups: HashMap<i32, String>,
    projects: HashMap<i32, String>,
    people: HashMap<i32, String>,
    chats: HashMap<i32, String>,
    webhooks: HashMap<i32, String>,
    assets: HashMap<i32, String>,
}

impl Names {
    async fn read(
        state: &AppState,
        actor: &Actor,
        people: Vec<i32>,
        assets: Vec<i32>,
    ) -> AppResult<Names> {
        let db = &state.db.conn;
        Ok(Names {
            assets: assets::get_many(db, actor, &assets)
                .await?
                .into_iter()
                .map(|(id, a)| (id, a.name))
                .collect(),
            groups: users::list_groups(db, Take::All)
                .await?
                .into_iter()
                .map(|g| (g.id, g.name))
                .collect(),
            projects: projects::list(db)
                .await?
                .into_iter()
                .map(|p| (p.id, p.name))
                .collect(),
            people: users::people(db, actor, people)
                .await?
                .into_iter()
                .map(|(id, u)| (id, u.username))
                .collect(),
            chats: chat::list(&state.db, actor)
                .await?
                .into_iter()
                .map(|d| (d.id, d.name))
                .collect(),
            webhooks: webhooks::list(&state.db, actor, Take::All)
                .await?
                .into_iter()
                .map(|w| (w.id, w.url))
                .collect(),
        })
    }

    /// How a stored value of `field` reads in a box.
    fn show(&self, field: &str, value: &Value) -> String {
        let named = |names: &HashMap<i32, String>, id: i64| {
            i32::try_from(id)
                .ok()
                .and_then(|id| names.get(&id).cloned())
                .unwrap_or_else(|| id.to_string())
        };
        match value {
            Value::Null => "none".to_string(),
            Value::Array(items) => items
                .iter()
                .map(|v| self.show(field, v))
                .collect::<Vec<_>>()
                .join(", "),
            Value::Number(n) => match (field, n.as_i64()) {
                ("ticket.assigned_group" | "actor.group" | "assigned_group", Some(id)) => {
                    named(&self.groups, id)
                }
                ("ticket.project" | "project", Some(id)) => named(&self.projects, id),
                ("chat", Some(id)) => named(&self.chats, id),
                ("webhook", Some(id)) => named(&self.webhooks, id),
                ("asset", Some(id)) => named(&self.assets, id),
                ("ticket.assigned_to" | "ticket.requester" | "assigned_to", Some(id)) => {
                    named(&self.people, id)
                }
                _ => n.to_string(),
            },
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

/// Every id a stored rule names as a person (for [`Names::read`]), user custom fields' values included.
fn people_named(t: &Saved, fields: &Defined) -> Vec<i32> {
    named_as(t, fields, "assigned_to")
}

/// Every id a stored rule names as an asset (asset custom fields' values).
fn assets_named(t: &Saved, fields: &Defined) -> Vec<i32> {
    named_as(t, fields, "asset")
}

/// Every id a stored rule's conditions and actions give where [`Names::show`] reads `kind` (`assigned_to`
/// for people, `asset`).
fn named_as(t: &Saved, fields: &Defined, kind: &str) -> Vec<i32> {
    let person_fields: &[&str] = if kind == "assigned_to" {
        &["ticket.assigned_to", "ticket.requester"]
    } else {
        &[]
    };
    let person = |field: &str| {
        person_fields.contains(&field)
            || field
                .strip_prefix(FIELD_PREFIX)
                .is_some_and(|key| shown_as(fields, key, "") == kind)
    };
    let ids = |v: &Value| -> Vec<i32> {
        match v {
            Value::Array(items) => items
                .iter()
                .filter_map(|i| i.as_i64()?.try_into().ok())
                .collect(),
            other => other
                .as_i64()
                .and_then(|i| i.try_into().ok())
                .into_iter()
                .collect(),
        }
    };
    let mut out = Vec::new();
    for list in ["all", "any"] {
        for c in t.conditions[list].as_array().into_iter().flatten() {
            if person(c["field"].as_str().unwrap_or_default()) {
                out.extend(ids(&c["value"]));
            }
        }
    }
    for a in t.actions.as_array().into_iter().flatten() {
        let of_kind = a["set_field"]
            .as_str()
            .is_some_and(|key| shown_as(fields, key, "") == kind);
        if of_kind || (kind == "assigned_to" && a["set"] == "assigned_to") {
            out.extend(ids(&a["value"]));
        }
        if kind == "assigned_to" {
            out.extend(ids(&a["notify"]["user"]));
        }
    }
    out
}

/// A typed value box as the rule language's JSON for `field` (a condition's field, or an action's `set`).
async fn read_value(state: &AppState, actor: &Actor, field: &str, text: &str) -> AppResult<Value> {
    let text = text.trim();
    let db = &state.db.conn;
    if text.eq_ignore_ascii_case("none") || (text.is_empty() && field == "due_date") {
        return Ok(Value::Null);
    }
    if let Ok(n) = text.parse::<i64>() {
        if !matches!(field, "ticket.title" | "ticket.description") {
            return Ok(json!(n));
        }
    }
    let lower = text.to_lowercase();
    let by_name = |names: Vec<(i32, String)>, what: &str| -> AppResult<Value> {
        names
            .into_iter()
            .find(|(_, n)| n.to_lowercase() == lower)
            .map(|(id, _)| json!(id))
            .ok_or_else(|| AppError::bad_request(format!("there is no {what} named \"{text}\"")))
    };
    match field {
        "ticket.assigned_group" | "actor.group" | "assigned_group" => by_name(
            users::list_groups(db, Take::All)
                .await?
                .into_iter()
                .map(|g| (g.id, g.name))
                .collect(),
            "group",
        ),
        "webhook" => by_name(
            webhooks::list(&state.db, actor, Take::All)
                .await?
                .into_iter()
                .map(|w| (w.id, w.url))
                .collect(),
            "webhook endpoint",
        ),
        "chat" => by_name(
            chat::list(&state.db, actor)
                .await?
                .into_iter()
                .map(|d| (d.id, d.name))
                .collect(),
            "chat channel",
        ),
        "ticket.project" | "project" => by_name(
            projects::list(db)
                .await?
                .into_iter()
                .map(|p| (p.id, p.name))
                .collect(),
            "project",
        ),
        "ticket.assigned_to" | "ticket.requester" | "assigned_to" => {
            match users::find_assignable(db, actor, text).await? {
                Some(u) => Ok(json!(u.id)),
                None => Err(AppError::bad_request(format!(
                    "there is no active account named \"{text}\""
                ))),
            }
        }
        "comment.internal" | "time.business_hours" => match lower.as_str() {
            "true" | "yes" => Ok(json!(true)),
            "false" | "no" => Ok(json!(false)),
            _ => Err(AppError::bad_request(format!(
                "{field} is \"yes\" or \"no\""
            ))),
        },
        _ => Ok(json!(text)),
    }
}

/// The rows of a posted editor as the rule's conditions and actions.
pub(super) async fn rule_of(
    state: &AppState,
    actor: &Actor,
    form: &Form,
) -> AppResult<(Value, Value)> {
    let values = |name: &str| form.all(name);
    let defined = state.custom_fields.active(&state.db.conn).await?;
    let (lists, fields, operators, texts) = (
        values("cond_list"),
        values("cond_field"),
        values("cond_op"),
        values("cond_value"),
    );
    let (mut all, mut any) = (Vec::new(), Vec::new());
    for (i, field) in fields.iter().enumerate() {
        if field.is_empty() {
            continue;
        }
        let operator = operators.get(i).map(String::as_str).unwrap_or("is");
        let text = texts.get(i).map(String::as_str).unwrap_or("");
        let mut condition = json!({"field": field, "operator": operator});
        if let Some(key) = field.strip_prefix(FIELD_PREFIX) {
            condition["value"] = if operator == "one_of" {
                let items = text.split(',').filter(|s| !s.trim().is_empty());
                let mut values = Vec::new();
                for item in items {
                    values.push(field_value(state, actor, &defined, key, item, true).await?);
                }
                Value::Array(values)
            } else {
                field_value(state, actor, &defined, key, text, true).await?
            };
        } else if operator != "changed" {
            condition["value"] = if operator == "one_of" {
                let mut items = Vec::new();
                for item in text.split(',').filter(|s| !s.trim().is_empty()) {
                    items.push(read_value(state, actor, field, item).await?);
                }
                Value::Array(items)
            } else {
                read_value(state, actor, field, text).await?
            };
        }
        if lists.get(i).map(String::as_str) == Some("any") {
            any.push(condition);
        } else {
            all.push(condition);
        }
    }
    let (kinds, texts) = (values("act_kind"), values("act_value"));
    let mut actions = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        let text = texts.get(i).map(String::as_str).unwrap_or("");
        actions.push(match kind.as_str() {
            "" => continue,
            set_field if set_field.starts_with(SET_FIELD) => {
                let key = &set_field[SET_FIELD.len()..];
                let value = field_value(state, actor, &defined, key, text, false).await?;
                json!({"set_field": key, "value": value})
            }
            "comment" | "note" => json!({"comment": text, "internal": kind == "note"}),
            "add_tags" | "remove_tags" => {
                let names: Vec<&str> = text
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .collect();
                json!({ kind.as_str(): names })
            }
            "assign_least_loaded" | "assign_round_robin" => {
                let how = kind.trim_start_matches("assign_");
                match text.trim() {
                    "" => json!({ "assign": how }),
                    name => json!({
                        "assign": how,
                        "group": read_value(state, actor, "assigned_group", name).await?,
                    }),
                }
            }
            notify if notify.starts_with("notify_") => {
                let mut lines = text.lines();
                let to = match notify {
                    "notify_group" | "notify_user" | "notify_chat" | "notify_webhook" => {
                        let field = match notify {
                            "notify_group" => "assigned_group",
                            "notify_chat" => "chat",
                            "notify_webhook" => "webhook",
                            _ => "assigned_to",
                        };
                        let key = notify.trim_start_matches("notify_");
                        let name = lines.next().unwrap_or_default();
                        json!({ key: read_value(state, actor, field, name).await? })
                    }
                    other => json!(other.trim_start_matches("notify_")),
                };
                let subject = lines.next().unwrap_or_default();
                let body = lines.collect::<Vec<_>>().join("\n");
                json!({"notify": to, "subject": subject, "body": body})
            }
            set => json!({"set": set, "value": read_value(state, actor, set, text).await?}),
        });
    }
    Ok((json!({"all": all, "any": any}), Value::Array(actions)))
}

/// A condition row of the editor: `field` and `operator` chosen, `value` in its box.
fn condition_row(
    lang: Lang,
    kind: Kind,
    defined: &Defined,
    any: bool,
    field: &str,
    operator: &str,
    value: String,
) -> ConditionRow {
    // A time rule looks only at the ticket as it stands: no event, actor or change.
    let (fields, operators): (&[&str], &[&str]) = match kind {
        Kind::Trigger => (&FIELDS, &OPERATORS),
        Kind::TimeRule => (&FIELDS[WRITE_ONLY..], &OPERATORS[..7]),
    };
    ConditionRow {
        any,
        fields: with_fields(
            lang,
            options(lang, fields, field_name, field),
            defined,
            false,
            field,
        ),
        operators: options(lang, operators, operator_name, operator),
        value,
    }
}

/// An action row of the editor: action `kind` (or the custom field's `set_field:<key>`) chosen, `value` in
/// its box.
fn action_row(
    lang: Lang,
    defined: &Defined,
    kind: &str,
    field_kind: &str,
    value: String,
) -> ActionRow {
    ActionRow {
        kinds: with_fields(
            lang,
            options(lang, &ACTIONS, action_name, kind),
            defined,
            true,
            field_kind,
        ),
        value,
    }
}

/// The editor's rows as `form` posted them, each box as typed, with blank rows to fill: what a
/// refused form shows again when its rows could not be read.
fn typed_rows(
    lang: Lang,
    kind: Kind,
    defined: &Defined,
    form: &Form,
) -> (Vec<ConditionRow>, Vec<ActionRow>) {
    let values = |name: &str| form.all(name);
    let (lists, fields, operators, texts) = (
        values("cond_list"),
        values("cond_field"),
        values("cond_op"),
        values("cond_value"),
    );
    let at = |list: &[String], i: usize| list.get(i).cloned().unwrap_or_default();
    let condition_rows: Vec<ConditionRow> = fields
        .iter()
        .enumerate()
        .filter(|(_, field)| !field.is_empty())
        .map(|(i, field)| {
            let any = lists.get(i).map(String::as_str) == Some("any");
            condition_row(
                lang,
                kind,
                defined,
                any,
                field,
                &at(&operators, i),
                at(&texts, i),
            )
        })
        .collect();
    let (kinds, texts) = (values("act_kind"), values("act_value"));
    let action_rows: Vec<ActionRow> = kinds
        .iter()
        .enumerate()
        .filter(|(_, kind)| !kind.is_empty())
        .map(|(i, kind)| {
            let (kind, field_kind) = if kind.starts_with(SET_FIELD) {
                ("", kind.as_str())
            } else {
                (kind.as_str(), "")
            };
            action_row(lang, defined, kind, field_kind, at(&texts, i))
        })
        .collect();
    with_blanks(lang, kind, defined, condition_rows, action_rows)
}

/// The editor's rows for stored conditions and actions, with blank rows to fill.
fn rows(
    lang: Lang,
    kind: Kind,
    names: &Names,
    defined: &Defined,
    conditions: &Value,
    actions: &Value,
) -> (Vec<ConditionRow>, Vec<ActionRow>) {
    let mut condition_rows = Vec::new();
    for (list, any) in [("all", false), ("any", true)] {
        for c in conditions[list].as_array().into_iter().flatten() {
            let field = c["field"].as_str().unwrap_or_default();
            let value = c
                .get("value")
                .map(|v| {
                    let key = field.strip_prefix(FIELD_PREFIX).unwrap_or_default();
                    names.show(shown_as(defined, key, field), v)
                })
                .unwrap_or_default();
            let operator = c["operator"].as_str().unwrap_or_default();
            condition_rows.push(condition_row(
                lang, kind, defined, any, field, operator, value,
            ));
        }
    }
    let mut action_rows = Vec::new();
    for a in actions.as_array().into_iter().flatten() {
        // A custom field's action is chosen among the fields' options (`set_field:<key>`), not the actions'.
        let mut field_kind = String::new();
        let (kind, value) = if let Some(text) = a.get("comment") {
            let kind = if a["internal"] == true {
                "note"
            } else {
                "comment"
            };
            (kind, text.as_str().unwrap_or_default().to_string())
        } else if let Some((kind, names)) = ["add_tags", "remove_tags"]
            .into_iter()
            .find_map(|k| a.get(k).map(|names| (k, names)))
        {
            let names: Vec<&str> = names
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            (kind, names.join(", "))
        } else if let Some(how) = a.get("assign") {
            let kind = if how == "round_robin" {
                "assign_round_robin"
            } else {
                "assign_least_loaded"
            };
            let group = match &a["group"] {
                Value::Null => String::new(),
                id => names.show("assigned_group", id),
            };
            (kind, group)
        } else if let Some(to) = a.get("notify") {
            let (kind, first) = match to {
                Value::Object(o) if o.contains_key("group") => (
                    "notify_group",
                    Some(names.show("assigned_group", &o["group"])),
                ),
                Value::Object(o) if o.contains_key("chat") => {
                    ("notify_chat", Some(names.show("chat", &o["chat"])))
                }
                Value::Object(o) if o.contains_key("webhook") => {
                    ("notify_webhook", Some(names.show("webhook", &o["webhook"])))
                }
                Value::Object(o) => ("notify_user", Some(names.show("assigned_to", &o["user"]))),
                Value::String(w) if w == "requester" => ("notify_requester", None),
                Value::String(w) if w == "assignee" => ("notify_assignee", None),
                _ => ("notify_assigned_group", None),
            };
            let mut lines: Vec<String> = first.into_iter().collect();
            lines.push(a["subject"].as_str().unwrap_or_default().to_string());
            lines.push(a["body"].as_str().unwrap_or_default().to_string());
            (kind, lines.join("\n"))
        } else if let Some(key) = a.get("set_field").and_then(Value::as_str) {
            field_kind = format!("{SET_FIELD}{key}");
            ("", names.show(shown_as(defined, key, ""), &a["value"]))
        } else {
            let set = a["set"].as_str().unwrap_or_default();
            (set, names.show(set, &a["value"]))
        };
        action_rows.push(action_row(lang, defined, kind, &field_kind, value));
    }
    with_blanks(lang, kind, defined, condition_rows, action_rows)
}

/// `conditions` and `actions` followed by the blank rows an editor offers to fill.
fn with_blanks(
    lang: Lang,
    kind: Kind,
    defined: &Defined,
    mut conditions: Vec<ConditionRow>,
    mut actions: Vec<ActionRow>,
) -> (Vec<ConditionRow>, Vec<ActionRow>) {
    let blank = || condition_row(lang, kind, defined, false, "", "is", String::new());
    conditions.extend(std::iter::repeat_with(blank).take(BLANK_CONDITIONS));
    let blank = || action_row(lang, defined, "", "", String::new());
    actions.extend(std::iter::repeat_with(blank).take(BLANK_ACTIONS));
    (conditions, actions)
}

/// The editor for `t` (none: a new rule of `kind`), with rows for `conditions` and `actions`.
pub(super) async fn editor(
    state: &AppState,
    user: &PageUser,
    kind: Kind,
    t: Option<&Saved>,
    conditions: &Value,
    actions: &Value,
) -> PageResult<TriggerPage> {
    let defined = state.custom_fields.active(&state.db.conn).await?;
    let people = t.map(|t| people_named(t, &defined)).unwrap_or_default();
    let assets = t.map(|t| assets_named(t, &defined)).unwrap_or_default();
    let names = Names::read(state, &user.actor, people, assets).await?;
    let lang = user.lang;
    let (conditions, actions) = rows(lang, kind, &names, &defined, conditions, actions);
    let mut groups: Vec<&str> = names.groups.values().map(String::as_str).collect();
    groups.sort_unstable();
    let mut project_names: Vec<&str> = names.projects.values().map(String::as_str).collect();
    project_names.sort_unstable();
    let (base, section, new_title, add, remove) = match kind {
        Kind::Trigger => (
            "/admin/triggers/",
            "triggers",
            lang.t("rules-new-trigger"),
            lang.t("rules-add-trigger"),
            lang.t("rules-remove-trigger"),
        ),
        Kind::TimeRule => (
            "/admin/time-rules/",
            "time-rules",
            lang.t("rules-new-time-rule"),
            lang.t("rules-add-time-rule"),
            lang.t("rules-remove-time-rule"),
        ),
    };
    Ok(TriggerPage {
        layout: Layout::for_user(user),
        section,
        flash: None,
        form_error: String::new(),
        base,
        new_title,
        add,
        remove,
        wait: (kind == Kind::TimeRule).then(|| {
            WaitBox::of(
                lang,
                &t.map_or_else(|| json!({"hours": 72}), |t| t.wait.clone()),
            )
        }),
        id: t.map(|t| t.id),
        name: t.map(|t| t.name.clone()).unwrap_or_default(),
        project: t
            .and_then(|t| t.project_id)
            .map(|id| names.show("project", &json!(id)))
            .unwrap_or_default(),
        active: t.is_none_or(|t| t.active),
        conditions,
        actions,
        groups: groups.join(", "),
        projects: project_names.join(", "),
    })
}

/// What a redirect back to a page says.
#[derive(Deserialize, Default)]
pub struct Shown {
    done: Option<String>,
}

fn flash(lang: Lang, done: Option<&str>) -> Option<String> {
    done.map(|d| match d {
        "created" => lang.t("rules-trigger-added"),
        "deleted" => lang.t("rules-trigger-removed"),
        "moved" => lang.t("rules-order-changed"),
        _ => lang.t("rules-saved"),
    })
}

/// `GET /admin/triggers/`.
#[utoipa::path(get, path = "/admin/triggers/", tag = "pages", operation_id = "pageAdminTriggers",
    summary = "Automation triggers in the order they run (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn triggers_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let found = triggers::list(&state.db, &user.actor).await?;
    let projects: HashMap<i32, String> = projects::list(&state.db.conn)
        .await?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    let count = found.len();
    let listed = found
        .into_iter()
        .enumerate()
        .map(|(i, t)| Listed {
            id: t.id,
            project: t
                .project_id
                .map(|p| projects.get(&p).cloned().unwrap_or_else(|| p.to_string()))
                .unwrap_or_else(|| user.lang.t("rules-every-ticket")),
            active: t.active,
            conditions: ["all", "any"]
                .iter()
                .map(|l| t.conditions[l].as_array().map_or(0, Vec::len))
                .sum(),
            actions: t.actions.as_array().map_or(0, Vec::len),
            first: i == 0,
            last: i + 1 == count,
            name: t.name,
        })
        .collect();
    let page = TriggersPage {
        layout: Layout::for_user(&user),
        section: "triggers",
        flash: flash(user.lang, shown.done.as_deref()),
        listed,
    };
    Ok(html(StatusCode::OK, &page))
}

/// `GET /admin/triggers/new/`.
#[utoipa::path(get, path = "/admin/triggers/new/", tag = "pages", operation_id = "pageAdminNewTrigger",
    summary = "The editor for a new trigger (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn new_trigger_page(
    State(state): State<AppState>,
    user: PageUser,
) -> PageResult<Response> {
    crate::service::users::Admin::of(&user.actor)?;
    let page = editor(&state, &user, Kind::Trigger, None, &json!({}), &json!([])).await?;
    Ok(html(StatusCode::OK, &page))
}

/// The posted name, project and switch, read from the form.
pub(super) async fn settings(
    state: &AppState,
    actor: &Actor,
    form: &crate::web::pages::Form,
) -> AppResult<(String, Option<i32>, bool)> {
    let project = match form.get("project").trim() {
        "" => None,
        name => Some(
            read_value(state, actor, "project", name)
                .await?
                .as_i64()
                .and_then(|id| i32::try_from(id).ok())
                .ok_or_else(|| AppError::field("project", "choose a project by name"))?,
        ),
    };
    Ok((
        form.get("name").to_string(),
        project,
        form.get("active") == "true",
    ))
}

/// The editor again, with what was posted and why it was refused.
pub(super) async fn refused(
    state: &AppState,
    user: &PageUser,
    kind: Kind,
    t: Option<&Saved>,
    form: &Form,
    err: AppError,
) -> PageResult<Response> {
    let Some((message, _)) = messages(&err) else {
        return Err(err.into());
    };
    // Rows as posted: read when they can be, else each box as it was typed.
    let read = rule_of(state, &user.actor, form).await.ok();
    let (conditions, actions) = read.clone().unwrap_or_else(|| (json!({}), json!([])));
    let mut page = editor(state, user, kind, t, &conditions, &actions).await?;
    if read.is_none() {
        let defined = state.custom_fields.active(&state.db.conn).await?;
        (page.conditions, page.actions) = typed_rows(user.lang, kind, &defined, form);
    }
    if page.wait.is_some() {
        page.wait = Some(WaitBox::of(
            user.lang,
            &json!({
                "since": form.get("since"),
                "hours": form.get("hours"),
                "business_hours": form.get("business_hours") == "true",
            }),
        ));
    }
    page.form_error = message;
    page.name = form.get("name").to_string();
    page.project = form.get("project").to_string();
    page.active = form.get("active") == "true";
    Ok(html(err.status(), &page))
}

/// `POST /admin/triggers/` (form: `name`, `project`, `active`, condition and action rows).
#[utoipa::path(post, path = "/admin/triggers/", tag = "pages", operation_id = "pageAdminCreateTrigger",
    summary = "Add a trigger from the editor's rows (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Added: to the trigger's page"), (status = 400, description = "The editor with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_trigger(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let form = user.form(&body)?;
    crate::service::users::Admin::of(&user.actor)?;
    let made = async {
        let (name, project_id, active) = settings(&state, &user.actor, &form).await?;
        let (conditions, actions) = rule_of(&state, &user.actor, &form).await?;
        let input = NewTrigger {
            name,
            project_id,
            position: None,
            active: Some(active),
            conditions,
            actions,
        };
        triggers::create(&state.db, &state.triggers, &user.actor, input).await
    }
    .await;
    match made {
        Ok(t) => {
            Ok(Redirect::to(&format!("/admin/triggers/{}/?done=created", t.id)).into_response())
        }
        Err(err) => refused(&state, &user, Kind::Trigger, None, &form, err).await,
    }
}

/// `GET /admin/triggers/<id>/`.
#[utoipa::path(get, path = "/admin/triggers/{id}/", tag = "pages", operation_id = "pageAdminTrigger",
    summary = "One trigger in the editor (administrators only).",
    params(("id" = i32, Path, description = "Trigger id")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn trigger_page(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    Query(shown): Query<Shown>,
) -> PageResult<Response> {
    let id = path_id(&id, "trigger")?;
    let t = Saved::trigger(&triggers::get(&state.db, &user.actor, id).await?);
    let mut page = editor(
        &state,
        &user,
        Kind::Trigger,
        Some(&t),
        &t.conditions,
        &t.actions,
    )
    .await?;
    page.flash = flash(user.lang, shown.done.as_deref());
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/triggers/<id>/` (the editor's form).
#[utoipa::path(post, path = "/admin/triggers/{id}/", tag = "pages", operation_id = "pageAdminUpdateTrigger",
    summary = "Change a trigger from the editor's rows (administrators only).",
    params(("id" = i32, Path, description = "Trigger id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Saved: back to the trigger"), (status = 400, description = "The editor with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn update_trigger(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "trigger")?;
    let form = user.form(&body)?;
    let current = Saved::trigger(&triggers::get(&state.db, &user.actor, id).await?);
    let saved = async {
        let (name, project_id, active) = settings(&state, &user.actor, &form).await?;
        let (conditions, actions) = rule_of(&state, &user.actor, &form).await?;
        let patch = TriggerPatch {
            name: Some(name),
            project_id: Some(project_id),
            position: None,
            active: Some(active),
            conditions: Some(conditions),
            actions: Some(actions),
        };
        triggers::update(&state.db, &state.triggers, &user.actor, id, patch).await
    }
    .await;
    match saved {
        Ok(_) => Ok(Redirect::to(&format!("/admin/triggers/{id}/?done=saved")).into_response()),
        Err(err) => refused(&state, &user, Kind::Trigger, Some(&current), &form, err).await,
    }
}

/// `POST /admin/triggers/<id>/move/` (form: `direction` = `up` or `down`).
#[utoipa::path(post, path = "/admin/triggers/{id}/move/", tag = "pages", operation_id = "pageAdminMoveTrigger",
    summary = "Run a trigger one place earlier or later (administrators only).",
    params(("id" = i32, Path, description = "Trigger id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Moved: to the triggers")),
    security(("session" = [], "csrf" = [])))]
pub async fn move_trigger(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "trigger")?;
    let form = user.form(&body)?;
    let mut order: Vec<i32> = triggers::list(&state.db, &user.actor)
        .await?
        .iter()
        .map(|t| t.id)
        .collect();
    let at = order
        .iter()
        .position(|t| *t == id)
        .ok_or_else(|| AppError::not_found("trigger"))?;
    let to = match form.get("direction") {
        "up" => at.checked_sub(1),
        "down" => Some(at + 1).filter(|to| *to < order.len()),
        _ => return Err(AppError::field("direction", "up or down").into()),
    };
    if let Some(to) = to {
        order.swap(at, to);
        triggers::reorder(&state.db, &state.triggers, &user.actor, &order).await?;
    }
    Ok(Redirect::to("/admin/triggers/?done=moved").into_response())
}

/// `POST /admin/triggers/<id>/delete/`.
#[utoipa::path(post, path = "/admin/triggers/{id}/delete/", tag = "pages", operation_id = "pageAdminDeleteTrigger",
    summary = "Remove a trigger (administrators only); what it did stays in the tickets' history.",
    params(("id" = i32, Path, description = "Trigger id")),
    responses((status = 303, description = "Removed: to the triggers")),
    security(("session" = [], "csrf" = [])))]
pub async fn delete_trigger(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "trigger")?;
    user.form(&body)?;
    triggers::delete(&state.db, &state.triggers, &user.actor, id).await?;
    Ok(Redirect::to("/admin/triggers/?done=deleted").into_response())
}
