//! Tickets' values: read for any number of tickets in constant statements, checked and written inside the
//! ticket's own transaction, and the required ones checked as a ticket moves on.
use super::value::{parse, FieldValue};
use super::{defs, rank, Field, MAX_EDITS};
use crate::auth::Actor;
use crate::domain::Workflow;
use crate::error::{AppError, AppResult, FieldErrors};
use crate::service::comments::can_read_internal;
use crate::service::tickets::counters;
use crate::service::{assets, audit, events, users, WriteDeps};
use chrono::Utc;
use entity::values::{FieldKind, StatusCategory, TicketStatus};
use entity::{ticket, ticket_field_choice, ticket_field_value};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder, Set,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A ticket's fields as one viewer sees them: each field the ticket carries that they may read, by
/// position, with its value (none when unset).
pub type Shown = Vec<(Arc<Field>, Option<FieldValue>)>;

/// Values as a client sent them: key and JSON value (null clears).
pub type RawEdits = Vec<(String, Value)>;

/// What a write changed: each field's key and its value before (none: it had none).
pub type Changed = Vec<(String, Option<FieldValue>)>;

/// The active fields, read once for a write: its checks and its required fields.
#[derive(Debug, Clone, Default)]
pub struct Defined(Vec<Arc<Field>>);

impl Defined {
    /// Whether none is defined.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fields, by position.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Field>> {
        self.0.iter()
    }

    /// Only the fields named by `keys` (what the rules ask about).
    pub fn only(&self, keys: &std::collections::BTreeSet<String>) -> Defined {
        Defined(
            self.0
                .iter()
                .filter(|f| keys.contains(&f.key))
                .cloned()
                .collect(),
        )
    }

    /// Read them (most callers go through [`super::KnownFields`], which remembers them).
    pub async fn load(db: &impl ConnectionTrait) -> AppResult<Defined> {
        Ok(Defined(
            defs::active(db).await?.into_iter().map(Arc::new).collect(),
        ))
    }
}

/// One checked value to set.
#[derive(Debug, Clone)]
pub struct FieldEdit {
    field: Arc<Field>,
    value: Option<FieldValue>,
}

/// What decides which fields of a ticket a viewer sees: its project, and whether they may read its internal
/// comments (then team-only fields too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TicketScope {
    /// The ticket.
    pub id: i32,
    /// Its project.
    pub project_id: Option<i32>,
    /// Whether the viewer reads its team-only fields.
    pub internal: bool,
}

impl TicketScope {
    /// The scope of `t` (one the actor may see) for the actor.
    pub fn of(actor: &Actor, t: &ticket::Model) -> Self {
        TicketScope {
            id: t.id,
            project_id: t.project_id,
            internal: can_read_internal(actor, t),
        }
    }
}

/// The fields of each of `tickets` (ones the actor may see) as the actor sees them, in at most three
/// statements for any number of tickets and fields.
pub async fn of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    fields: &Defined,
    tickets: &[&ticket::Model],
) -> AppResult<HashMap<i32, Shown>> {
    let scopes: Vec<TicketScope> = tickets.iter().map(|t| TicketScope::of(actor, t)).collect();
    of_scopes(db, fields, &scopes).await
}

/// [`of_tickets`] for tickets known by their scopes (the caller checked that the viewer sees them).
pub async fn of_scopes(
    db: &impl ConnectionTrait,
    fields: &Defined,
    scopes: &[TicketScope],
) -> AppResult<HashMap<i32, Shown>> {
    let mut out: HashMap<i32, Shown> = HashMap::new();
    for t in scopes {
        out.insert(t.id, unfilled(fields, t));
    }
    let fields = &fields.0;
    let ticket_ids: Vec<i32> = out
        .iter()
        .filter(|(_, shown)| !shown.is_empty())
        .map(|(id, _)| *id)
        .collect();
    if ticket_ids.is_empty() {
        return Ok(out);
    }
    let stored = stored_values(db, &ticket_ids, fields).await?;
    for (ticket_id, shown) in out.iter_mut() {
        for (field, value) in shown.iter_mut() {
            *value = stored.get(&(*ticket_id, field.id)).cloned();
        }
    }
    Ok(out)
}

/// The fields of `fields` a ticket of scope `t` carries, without their values yet.
fn unfilled(fields: &Defined, t: &TicketScope) -> Shown {
    fields
        .0
        .iter()
        .filter(|f| f.applies_to(t.project_id) && (!f.team_only || t.internal))
        .map(|f| (f.clone(), None))
        .collect()
}

/// [`of_scopes`] for a ticket not written yet, whose only values are the `edits` it is being made with:
/// nothing is read.
pub fn of_new(fields: &Defined, t: &TicketScope, edits: &[FieldEdit]) -> Shown {
    let mut shown = unfilled(fields, t);
    for (field, value) in shown.iter_mut() {
        *value = edits
            .iter()
            .find(|e| e.field.id == field.id)
            .and_then(|e| e.value.clone());
    }
    shown
}

/// What [`write`] returns for a ticket not written yet, made with `edits`: each field given a value, with
/// none before.
pub fn set_on_new(edits: &[FieldEdit]) -> Changed {
    edits
        .iter()
        .filter(|e| e.value.is_some())
        .map(|e| (e.field.key.clone(), None))
        .collect()
}

/// The fields of one ticket the actor may see, as [`of_tickets`].
pub async fn of_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    fields: &Defined,
    t: &ticket::Model,
) -> AppResult<Shown> {
    Ok(of_tickets(db, actor, fields, &[t])
        .await?
        .remove(&t.id)
        .unwrap_or_default())
}

/// The stored values of `fields` on `ticket_ids`, by (ticket, field): one statement, and one more when a
/// multiple-choice field is among them.
async fn stored_values(
    db: &impl ConnectionTrait,
    ticket_ids: &[i32],
    fields: &[Arc<Field>],
) -> AppResult<HashMap<(i32, i32), FieldValue>> {
    let kinds: HashMap<i32, FieldKind> = fields.iter().map(|f| (f.id, f.kind)).collect();
    let mut out = HashMap::new();
    let rows = ticket_field_value::Entity::find()
        .filter(ticket_field_value::Column::TicketId.is_in(ticket_ids.iter().copied()))
        .filter(ticket_field_value::Column::FieldId.is_in(kinds.keys().copied()))
        .all(db)
        .await?;
    for row in rows {
        if let Some(v) = kinds.get(&row.field_id).and_then(|k| from_row(*k, &row)) {
            out.insert((row.ticket_id, row.field_id), v);
        }
    }
    let multi: Vec<&Arc<Field>> = fields
        .iter()
        .filter(|f| f.kind == FieldKind::MultiChoice)
        .collect();
    if !multi.is_empty() {
        let rows = ticket_field_choice::Entity::find()
            .filter(ticket_field_choice::Column::TicketId.is_in(ticket_ids.iter().copied()))
            .filter(ticket_field_choice::Column::FieldId.is_in(multi.iter().map(|f| f.id)))
            .order_by_asc(ticket_field_choice::Column::Choice)
            .all(db)
            .await?;
        let mut picked: HashMap<(i32, i32), Vec<String>> = HashMap::new();
        for row in rows {
            picked
                .entry((row.ticket_id, row.field_id))
                .or_default()
                .push(row.choice);
        }
        for ((ticket_id, field_id), mut chosen) in picked {
            if let Some(f) = multi.iter().find(|f| f.id == field_id) {
                chosen.sort_by_key(|c| f.choices.iter().position(|x| x == c));
            }
            out.insert((ticket_id, field_id), FieldValue::MultiChoice(chosen));
        }
    }
    Ok(out)
}

fn from_row(kind: FieldKind, row: &ticket_field_value::Model) -> Option<FieldValue> {
    match kind {
        FieldKind::Text => row.text_value.clone().map(FieldValue::Text),
        FieldKind::Choice => row.text_value.clone().map(FieldValue::Choice),
        FieldKind::LongText => row.long_value.clone().map(FieldValue::LongText),
        FieldKind::Number => row.number_value.map(FieldValue::Number),
        FieldKind::Date => row.date_value.map(FieldValue::Date),
        FieldKind::Datetime => row.time_value.map(FieldValue::Datetime),
        FieldKind::Boolean => row.bool_value.map(FieldValue::Boolean),
        FieldKind::User => row.ref_id.map(FieldValue::User),
        FieldKind::Asset => row.ref_id.map(FieldValue::Asset),
        FieldKind::MultiChoice => None,
    }
}

/// The row storing `value` of `field_id` on ticket `t` (multiple choices are stored as choice rows).
fn to_row(t: &ticket::Model, field_id: i32, value: &FieldValue) -> ticket_field_value::ActiveModel {
    let mut row = ticket_field_value::ActiveModel {
        ticket_id: Set(t.id),
        field_id: Set(field_id),
        ticket_created_at: Set(t.created_at),
        text_value: Set(None),
        long_value: Set(None),
        number_value: Set(None),
        date_value: Set(None),
        time_value: Set(None),
        bool_value: Set(None),
        ref_id: Set(None),
    };
    match value {
        FieldValue::Text(s) | FieldValue::Choice(s) => row.text_value = Set(Some(s.clone())),
        FieldValue::LongText(s) => row.long_value = Set(Some(s.clone())),
        FieldValue::Number(n) => row.number_value = Set(Some(*n)),
        FieldValue::Date(d) => row.date_value = Set(Some(*d)),
        FieldValue::Datetime(t) => row.time_value = Set(Some(*t)),
        FieldValue::Boolean(b) => row.bool_value = Set(Some(*b)),
        FieldValue::User(id) | FieldValue::Asset(id) => row.ref_id = Set(Some(*id)),
        FieldValue::MultiChoice(_) => {}
    }
    row
}

/// Check `raw` for a ticket in project `project_id` (`t`, when it exists: whose team-only fields the actor
/// may read; a new ticket's are the team's): each key names a field the ticket carries and the actor may
/// set, each value fits its field, users named are active and assets visible. Every bad key is named in one
/// 400, as `custom_fields.<key>`; a field the actor may not see is as unknown as one that does not exist.
pub async fn prepare(
    db: &impl ConnectionTrait,
    actor: &Actor,
    fields: &Defined,
    project_id: Option<i32>,
    t: Option<&ticket::Model>,
    raw: &RawEdits,
) -> AppResult<Vec<FieldEdit>> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    if raw.len() > MAX_EDITS {
        return Err(AppError::field(
            "custom_fields",
            format!("at most {MAX_EDITS} fields at once"),
        ));
    }
    let may_read = |f: &Field| match t {
        Some(t) => f.readable(actor, t),
        None => !f.team_only || actor.is_team(),
    };
    let mut errors = FieldErrors::new();
    let mut edits: Vec<FieldEdit> = Vec::new();
    for (key, value) in raw {
        let name = format!("custom_fields.{key}");
        let Some(field) = fields
            .0
            .iter()
            .find(|f| &f.key == key && f.applies_to(project_id) && may_read(f))
        else {
            errors
                .entry(name)
                .or_default()
                .push("no such field on this ticket".into());
            continue;
        };
        let parsed = match parse(field.kind, &field.choices, value) {
            Ok(v) => v,
            Err(why) => {
                errors.entry(name).or_default().push(why);
                continue;
            }
        };
        let missing = match &parsed {
            // Only people the actor may see can be named, so the answer tells nothing of the others.
            Some(FieldValue::User(id))
                if users::get_visible(db, actor, *id).await.is_err()
                    || !users::active_user_exists(db, *id).await? =>
            {
                Some(format!("user {id} does not exist"))
            }
            Some(FieldValue::Asset(id)) if assets::get(db, actor, *id).await.is_err() => {
                Some(format!("asset {id} does not exist"))
            }
            _ => None,
        };
        if let Some(why) = missing {
            errors.entry(name).or_default().push(why);
            continue;
        }
        edits.retain(|e| e.field.id != field.id);
        edits.push(FieldEdit {
            field: field.clone(),
            value: parsed,
        });
    }
    if !errors.is_empty() {
        let names: Vec<&str> = errors.keys().map(String::as_str).collect();
        return Err(AppError::Validation {
            message: format!("invalid fields: {}", names.join(", ")),
            fields: errors,
        });
    }
    Ok(edits)
}

/// Check a rule's `set_field` values (`raw`, key and canonical JSON, in order) for `t`, as the service: each
/// names an active field `t` carries (team-only ones too), the value fits it, a user named is active and an
/// asset exists. Returns the edits (a later value for the same field replaces an earlier one) and, for each
/// value left out, its key and why, for the caller to log: a rule's action that does not fit is skipped.
pub(crate) async fn prepare_for_rule(
    db: &impl ConnectionTrait,
    fields: &Defined,
    t: &ticket::Model,
    raw: &[(&str, &Value)],
) -> AppResult<(Vec<FieldEdit>, Vec<(String, String)>)> {
    let mut edits: Vec<FieldEdit> = Vec::new();
    let mut skipped = Vec::new();
    for (key, value) in raw {
        let Some(field) = fields
            .0
            .iter()
            .find(|f| f.key == *key && f.applies_to(t.project_id))
        else {
            skipped.push((key.to_string(), "no such field on this ticket".to_string()));
            continue;
        };
        let parsed = match parse(field.kind, &field.choices, value) {
            Ok(v) => v,
            Err(why) => {
                skipped.push((key.to_string(), why));
                continue;
            }
        };
        let gone = match &parsed {
            Some(FieldValue::User(id)) => !users::active_user_exists(db, *id).await?,
            Some(FieldValue::Asset(id)) => entity::asset::Entity::find_by_id(*id)
                .one(db)
                .await?
                .is_none_or(|a| a.archived_at.is_some()),
            _ => false,
        };
        if gone {
            skipped.push((key.to_string(), "what it names is gone".to_string()));
            continue;
        }
        edits.retain(|e| e.field.id != field.id);
        edits.push(FieldEdit {
            field: field.clone(),
            value: parsed,
        });
    }
    Ok((edits, skipped))
}

/// Set `edits` on `t` (locked by the caller, in `txn`), by `author` (none: the service; `via`: the rule that
/// acts): the rows, audit records (the team-only changes in an internal one, so the requester's history
/// leaves them out; marked `via` the rule), a `ticket.updated` webhook naming `custom_fields.<key>` for each
/// change, and a move of the list generation so remembered totals filtered by a field are taken again. The
/// keys that changed, each with its value before.
pub(crate) async fn write(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    author: Option<i32>,
    via: Option<&crate::service::automation::Via>,
    t: &ticket::Model,
    edits: &[FieldEdit],
) -> AppResult<Changed> {
    if edits.is_empty() {
        return Ok(Vec::new());
    }
    let fields: Vec<Arc<Field>> = edits.iter().map(|e| e.field.clone()).collect();
    let current = stored_values(txn, &[t.id], &fields).await?;
    let changed: Vec<&FieldEdit> = edits
        .iter()
        .filter(|e| current.get(&(t.id, e.field.id)) != e.value.as_ref())
        .collect();
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i32> = changed.iter().map(|e| e.field.id).collect();
    ticket_field_value::Entity::delete_many()
        .filter(ticket_field_value::Column::TicketId.eq(t.id))
        .filter(ticket_field_value::Column::FieldId.is_in(ids.iter().copied()))
        .exec(txn)
        .await?;
    if changed
        .iter()
        .any(|e| e.field.kind == FieldKind::MultiChoice)
    {
        ticket_field_choice::Entity::delete_many()
            .filter(ticket_field_choice::Column::TicketId.eq(t.id))
            .filter(ticket_field_choice::Column::FieldId.is_in(ids.iter().copied()))
            .exec(txn)
            .await?;
    }
    let mut rows = Vec::new();
    let mut choices = Vec::new();
    for e in &changed {
        match &e.value {
            Some(FieldValue::MultiChoice(picked)) => {
                choices.extend(picked.iter().map(|c| ticket_field_choice::ActiveModel {
                    ticket_id: Set(t.id),
                    field_id: Set(e.field.id),
                    choice: Set(c.clone()),
                    ticket_created_at: Set(t.created_at),
                }))
            }
            Some(v) => rows.push(to_row(t, e.field.id, v)),
            None => {}
        }
    }
    if !rows.is_empty() {
        ticket_field_value::Entity::insert_many(rows)
            .exec_without_returning(txn)
            .await?;
    }
    if !choices.is_empty() {
        ticket_field_choice::Entity::insert_many(choices)
            .exec_without_returning(txn)
            .await?;
    }
    let mut public = Map::new();
    let mut internal = Map::new();
    for e in &changed {
        let old = current
            .get(&(t.id, e.field.id))
            .map_or(Value::Null, FieldValue::to_json);
        let new = e.value.as_ref().map_or(Value::Null, FieldValue::to_json);
        let side = if e.field.team_only {
            &mut internal
        } else {
            &mut public
        };
        side.insert(e.field.input_name(), Value::Array(vec![old, new]));
    }
    for (mut changes, is_internal) in [(public, false), (internal, true)] {
        if changes.is_empty() {
            continue;
        }
        if let Some(via) = via {
            changes.insert(
                "via".into(),
                serde_json::to_value(via).map_err(AppError::internal)?,
            );
        }
        audit::record(
            txn,
            audit::Entry::new(author, "ticket", t.id, "fields")
                .ticket(t.id)
                .internal(is_internal)
                .changes(Value::Object(changes)),
        )
        .await?;
    }
    let names: Vec<String> = changed.iter().map(|e| e.field.input_name()).collect();
    events::fields_changed(txn, state.config, t, &names, via).await?;
    ticket::Entity::update_many()
        .col_expr(ticket::Column::UpdatedAt, Expr::value(Utc::now()))
        .filter(ticket::Column::Id.eq(t.id))
        .exec(txn)
        .await?;
    counters::on_clock_moved(txn).await?;
    Ok(changed
        .iter()
        .map(|e| {
            (
                e.field.key.clone(),
                current.get(&(t.id, e.field.id)).cloned(),
            )
        })
        .collect())
}

/// Refuse a ticket that lacks a value the actor could give: each field `t` carries that the actor may read,
/// required from a category `t` has reached, when `t` has just reached it (`before`: the status it came
/// from; none for a new ticket) or the field was among `edits`. One 400 naming every such key.
pub(crate) async fn check_required(
    db: &impl ConnectionTrait,
    actor: &Actor,
    fields: &Defined,
    t: &ticket::Model,
    before: Option<TicketStatus>,
    edits: &[FieldEdit],
) -> AppResult<()> {
    let reached = rank(t.status.category());
    let was = before.map(|s| rank(s.category()));
    let fields: Vec<Arc<Field>> = fields
        .0
        .iter()
        .filter(|f| f.applies_to(t.project_id) && f.readable(actor, t))
        .filter(|f| {
            f.required_from.is_some_and(|from| {
                let from = rank(from);
                from <= reached
                    && (was.is_none_or(|w| w < from) || edits.iter().any(|e| e.field.id == f.id))
            })
        })
        .cloned()
        .collect();
    if fields.is_empty() {
        return Ok(());
    }
    let stored = stored_values(db, &[t.id], &fields).await?;
    let mut errors = FieldErrors::new();
    for f in fields
        .iter()
        .filter(|f| !stored.contains_key(&(t.id, f.id)))
    {
        let why = match f.required_from {
            Some(StatusCategory::Done) => "this field is required to resolve or close the ticket",
            Some(StatusCategory::InProgress) => "this field is required once work starts",
            _ => "this field is required",
        };
        errors.insert(f.input_name(), vec![why.to_string()]);
    }
    if errors.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = errors.keys().map(String::as_str).collect();
    Err(AppError::Validation {
        message: format!("required fields missing: {}", names.join(", ")),
        fields: errors,
    })
}
