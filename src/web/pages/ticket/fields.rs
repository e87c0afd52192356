//! Custom fields on the ticket page and the new-ticket form: one input per field by its kind, and the form
//! read back into the values that changed (`POST /tickets/<id>/fields/`).
use crate::auth::Actor;
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::service::custom_fields::{Field, FieldValue, RawEdits, Shown};
use crate::service::tickets::{self, TicketPatch};
use crate::service::{assets, users};
use crate::state::AppState;
use crate::web::pages::{display_name, Form, Lang, PageResult, PageUser};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use chrono_tz::Tz;
use entity::values::{FieldKind, StatusCategory};
use sea_orm::ConnectionTrait;
use serde_json::{json, Value};
use std::sync::Arc;

/// One option of a select or one checkbox.
pub struct FieldOption {
    /// Sent value.
    pub value: String,
    /// Shown text.
    pub label: String,
    /// Chosen now.
    pub chosen: bool,
}

/// A field as the page shows and edits it.
pub struct FieldInput {
    /// The form name: `cf.<key>` (checkboxes add `.<n>`).
    pub name: String,
    /// The element id.
    pub html_id: String,
    /// What people read.
    pub label: String,
    /// `text`, `textarea`, `number`, `date`, `datetime-local`, `select` or `checkboxes`.
    pub control: &'static str,
    /// The value in the control's own spelling.
    pub value: String,
    /// The value in words, for reading.
    pub shown: String,
    /// Options of a select or the checkboxes.
    pub options: Vec<FieldOption>,
    /// Why it may be required ("required", "required to resolve").
    pub required: String,
    /// The team's only.
    pub team_only: bool,
    /// Why the value was refused, when it was.
    pub error: String,
    /// What the label adds: the time zone a moment is typed and shown in, "(Europe/Berlin)".
    pub note: String,
}

fn required_words(f: &Field, lang: Lang) -> String {
    match f.required_from {
        Some(StatusCategory::Todo) => lang.t("ticket-field-required"),
        Some(StatusCategory::InProgress) => lang.t("ticket-field-required-start"),
        Some(StatusCategory::Done) => lang.t("ticket-field-required-resolve"),
        None => String::new(),
    }
}

/// The inputs of `shown`, the values read in words (user and asset names as the actor may see them) in
/// `lang`, moments in the reader's `zone`.
pub async fn inputs(
    db: &impl ConnectionTrait,
    actor: &Actor,
    shown: &Shown,
    lang: Lang,
    zone: Tz,
) -> Vec<FieldInput> {
    let mut out = Vec::with_capacity(shown.len());
    for (field, value) in shown {
        out.push(input(db, actor, field, value.as_ref(), lang, zone).await);
    }
    out
}

async fn input(
    db: &impl ConnectionTrait,
    actor: &Actor,
    field: &Arc<Field>,
    value: Option<&FieldValue>,
    lang: Lang,
    zone: Tz,
) -> FieldInput {
    let name = format!("cf.{}", field.key);
    let (control, text) = match (field.kind, value) {
        (FieldKind::LongText, v) => ("textarea", v.map(FieldValue::display)),
        (FieldKind::Number, v) => ("number", v.map(FieldValue::display)),
        (FieldKind::Date, v) => ("date", v.map(FieldValue::display)),
        (FieldKind::Datetime, Some(FieldValue::Datetime(t))) => (
            "datetime-local",
            Some(t.with_timezone(&zone).format(LOCAL_MINUTE).to_string()),
        ),
        (FieldKind::Datetime, _) => ("datetime-local", None),
        (FieldKind::Boolean | FieldKind::Choice, v) => ("select", v.map(FieldValue::display)),
        (FieldKind::MultiChoice, _) => ("checkboxes", None),
        (_, v) => ("text", v.map(FieldValue::display)),
    };
    let options = match field.kind {
        FieldKind::Boolean => [("yes", "ticket-field-yes"), ("no", "ticket-field-no")]
            .iter()
            .map(|(o, words)| FieldOption {
                value: (*o).to_string(),
                label: lang.t(words),
                chosen: text.as_deref() == Some(*o),
            })
            .collect(),
        FieldKind::Choice | FieldKind::MultiChoice => {
            let held: Vec<&str> = match value {
                Some(FieldValue::MultiChoice(v)) => v.iter().map(String::as_str).collect(),
                Some(FieldValue::Choice(c)) => vec![c.as_str()],
                _ => Vec::new(),
            };
            field
                .choices
                .iter()
                .map(|c| FieldOption {
                    value: c.clone(),
                    label: c.clone(),
                    chosen: held.contains(&c.as_str()),
                })
                .collect()
        }
        _ => Vec::new(),
    };
    let shown = match value {
        None => String::new(),
        Some(FieldValue::User(id)) => users::get_visible(db, actor, *id)
            .await
            .map(|u| display_name(&u))
            .unwrap_or_else(|_| lang.t1("ticket-field-user", "id", id)),
        Some(FieldValue::Asset(id)) => assets::get(db, actor, *id)
            .await
            .map(|a| a.name)
            .unwrap_or_else(|_| lang.t1("ticket-field-asset", "id", id)),
        Some(FieldValue::Datetime(t)) => {
            let at = t.with_timezone(&zone).format("%Y-%m-%d %H:%M").to_string();
            lang.texts(
                "ticket-field-datetime",
                [("at", &at), ("zone", zone.name())],
            )
        }
        Some(FieldValue::Boolean(yes)) => lang.t(if *yes {
            "ticket-field-yes"
        } else {
            "ticket-field-no"
        }),
        Some(v) => v.display(),
    };
    FieldInput {
        html_id: format!("cf-{}", field.key),
        name,
        label: field.label.clone(),
        control,
        value: text.unwrap_or_default(),
        shown,
        options,
        required: required_words(field, lang),
        team_only: field.team_only,
        error: String::new(),
        note: if control == "datetime-local" {
            lang.t1("ticket-field-zone", "zone", zone.name())
        } else {
            String::new()
        },
    }
}

/// The fields a new ticket carries (every ticket's, as the actor may set them), empty.
pub async fn for_new_ticket(state: &AppState, actor: &Actor) -> PageResult<Shown> {
    let defined = state.custom_fields.active(&state.db.conn).await?;
    Ok(defined
        .iter()
        .filter(|f| f.applies_to(None) && (!f.team_only || actor.is_team()))
        .map(|f| (f.clone(), None))
        .collect())
}

/// The inputs as the refused form sent them, each with its error (`custom_fields.<key>`).
pub fn refill(
    inputs: &mut [FieldInput],
    form: &Form,
    errors: &std::collections::BTreeMap<String, String>,
) {
    for f in inputs {
        if f.control == "checkboxes" {
            for (n, o) in f.options.iter_mut().enumerate() {
                o.chosen = form.opt(&format!("{}.{n}", f.name)).is_some();
            }
        } else if f.control == "select" {
            let sent = form.get(&f.name);
            for o in &mut f.options {
                o.chosen = o.value == sent;
            }
        } else {
            f.value = form.get(&f.name).to_string();
        }
        let key = f.name.trim_start_matches("cf.");
        if let Some(e) = errors.get(&format!("custom_fields.{key}")) {
            f.error = e.clone();
        }
    }
}

/// How a browser's `datetime-local` control spells a minute (no offset: the page names the zone).
const LOCAL_MINUTE: &str = "%Y-%m-%dT%H:%M";

/// The moment a `datetime-local` value names in `zone`, in UTC. A time the clocks skip (the hour a summer
/// time begins) is read an hour later, as the clocks then say; a time they pass twice is the first of them.
/// `None` when it is not such a value.
fn local_moment(raw: &str, zone: Tz) -> Option<chrono::DateTime<chrono::Utc>> {
    use chrono::TimeZone;
    let naive = chrono::NaiveDateTime::parse_from_str(raw, LOCAL_MINUTE)
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S"))
        .ok()?;
    zone.from_local_datetime(&naive)
        .earliest()
        .or_else(|| {
            zone.from_local_datetime(&(naive + chrono::Duration::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&chrono::Utc))
}

/// What the form says of field `f` as JSON, as the service parses it (a moment typed in the reader's `zone`):
/// `None` when the form did not send the field at all.
fn posted(form: &Form, f: &Field, zone: Tz) -> Option<Value> {
    let name = format!("cf.{}", f.key);
    if f.kind == FieldKind::MultiChoice {
        // Checkboxes send only the ticked ones; the hidden `cf.<key>` marks the field as on the form.
        form.opt(&name)?;
        let picked: Vec<&String> = f
            .choices
            .iter()
            .enumerate()
            .filter(|(n, _)| form.opt(&format!("{name}.{n}")).is_some())
            .map(|(_, c)| c)
            .collect();
        return Some(json!(picked));
    }
    let raw = form.opt(&name)?.trim();
    if raw.is_empty() {
        return Some(Value::Null);
    }
    Some(match f.kind {
        FieldKind::Number => raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| json!(raw), Value::Number),
        FieldKind::Boolean => match raw {
            "yes" => json!(true),
            "no" => json!(false),
            other => json!(other),
        },
        // The browser's control has no offset: the page names the zone it is typed in. Anything else goes
        // to the service as sent, which says what is wrong with it.
        FieldKind::Datetime => local_moment(raw, zone).map_or_else(
            || json!(raw),
            |t| json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        ),
        FieldKind::User | FieldKind::Asset => {
            raw.parse::<i64>().map_or_else(|_| json!(raw), |n| json!(n))
        }
        _ => json!(raw),
    })
}

/// The values the form changes among `shown` (the ticket's fields as the viewer sees them): only those that
/// differ from what the ticket holds, so saving the form writes no unchanged field.
pub async fn changed(
    db: &impl ConnectionTrait,
    actor: &Actor,
    form: &Form,
    shown: &Shown,
    zone: Tz,
) -> PageResult<RawEdits> {
    let mut edits = RawEdits::new();
    for (field, value) in shown {
        let Some(mut sent) = posted(form, field, zone) else {
            continue;
        };
        if matches!(field.kind, FieldKind::User) {
            if let Some(name) = sent.as_str().filter(|s| !s.is_empty()) {
                let found = users::find_assignable(db, actor, name)
                    .await
                    .ok()
                    .flatten()
                    .ok_or_else(|| {
                        AppError::field(
                            &format!("custom_fields.{}", field.key),
                            format!("no active user named {name:?}"),
                        )
                    })?;
                sent = json!(found.id);
            }
        }
        let now = value.as_ref().map_or(Value::Null, FieldValue::to_json);
        let same = match crate::service::custom_fields::parse(field.kind, &field.choices, &sent) {
            Ok(parsed) => parsed.as_ref() == value.as_ref(),
            Err(_) => false,
        };
        if !same && sent != now {
            edits.push((field.key.clone(), sent));
        }
    }
    Ok(edits)
}

/// `POST /tickets/<id>/fields/` (form): the custom fields of the ticket, `cf.<key>` each (those who may change
/// the ticket; team-only fields for the team and its workers).
#[utoipa::path(post, path = "/tickets/{id}/fields/", tag = "pages", operation_id = "pageSetTicketFields",
    summary = "Set a ticket's custom fields from its page (`cf.<key>` each; only changed values are written).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses(
        (status = 303, description = "Back to the ticket page"),
        (status = 400, description = "A value that does not fit its field: the ticket page again, the form open with what was typed and the message next to the field", content_type = "text/html", body = String),
        (status = 403, description = "May not change the ticket, or no CSRF token: error page", content_type = "text/html", body = String),
    ),
    security(("session" = [], "csrf" = [])))]
pub async fn set_fields(
    State(state): State<AppState>,
    Path(id): Path<String>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "ticket")?;
    let form = user.form(&body)?;
    let db = &state.db.conn;
    let t = tickets::get(db, &user.actor, id).await?;
    let defined = state.custom_fields.active(db).await?;
    let shown = crate::service::custom_fields::of_ticket(db, &user.actor, &defined, &t).await?;
    let saved = async {
        let edits = changed(db, &user.actor, &form, &shown, user.zone).await?;
        if edits.is_empty() {
            return Ok(false);
        }
        let patch = TicketPatch {
            custom_fields: Some(edits),
            ..Default::default()
        };
        let deps = state.write_deps(crate::domain::Channel::Web);
        tickets::update(deps, &user.actor, id, patch).await?;
        Ok(true)
    }
    .await;
    let outcome = match saved {
        Ok(false) => Ok(Redirect::to(&format!("/tickets/{id}/")).into_response()),
        Ok(true) => Ok(super::flash::back(id, &user.lang.t("ticket-flash-fields"))),
        Err(err) => Err(err),
    };
    super::or_again(&state, &user, id, super::PageForm::Fields, form, outcome).await
}
