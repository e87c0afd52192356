//! The definitions: who sees which, and an admin's create, change, archive and restore.
use super::{Field, MAX_CHOICES, MAX_CHOICE_CHARS, MAX_KEY_CHARS};
use crate::auth::Actor;
use crate::error::{AppError, AppResult, OnConstraint};
use crate::service::{audit, projects, text};
use chrono::Utc;
use entity::values::{FieldKind, StatusCategory};
use entity::{custom_field, ticket_field_choice, ticket_field_value};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
use serde_json::json;

const KEY_TAKEN: &str = "a custom field with this key already exists";

/// What a field list asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct FieldListFilter {
    /// The fields a ticket of this project carries (every ticket's and the project's own); none: all.
    pub project_id: Option<i32>,
    /// Archived ones too (admins only; others get the active ones).
    pub include_archived: bool,
}

/// The fields the actor may see, by position: team-only ones for the team only, archived ones for admins who
/// ask. Anyone signed in may list them, so forms can be built.
pub async fn list(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: FieldListFilter,
) -> AppResult<Vec<Field>> {
    let mut select = custom_field::Entity::find();
    if !(filter.include_archived && actor.is_admin()) {
        select = select.filter(custom_field::Column::ArchivedAt.is_null());
    }
    if !actor.is_team() {
        select = select.filter(custom_field::Column::TeamOnly.eq(false));
    }
    if let Some(pid) = filter.project_id {
        select = select.filter(
            Condition::any()
                .add(custom_field::Column::ProjectId.is_null())
                .add(custom_field::Column::ProjectId.eq(pid)),
        );
    }
    select
        .order_by_asc(custom_field::Column::Position)
        .order_by_asc(custom_field::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(Field::of)
        .collect()
}

/// One field the actor may see (404 otherwise, as for an unknown id).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<Field> {
    let found = custom_field::Entity::find_by_id(id).one(db).await?;
    found
        .map(Field::of)
        .transpose()?
        .filter(|f| {
            (!f.team_only || actor.is_team()) && (f.archived_at.is_none() || actor.is_admin())
        })
        .ok_or_else(|| AppError::not_found("custom field"))
}

/// Every active field, unfiltered: the service applies each ticket's visibility to them.
pub(super) async fn active(db: &impl ConnectionTrait) -> AppResult<Vec<Field>> {
    custom_field::Entity::find()
        .filter(custom_field::Column::ArchivedAt.is_null())
        .order_by_asc(custom_field::Column::Position)
        .order_by_asc(custom_field::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(Field::of)
        .collect()
}

/// A new field.
#[derive(Debug, Clone)]
pub struct NewField {
    /// Lowercase letters, digits and `_`, starting with a letter; at most 50 characters; unique.
    pub key: String,
    /// 1–200 characters.
    pub label: String,
    /// The type of its values (fixed once made).
    pub kind: FieldKind,
    /// Only this project's tickets carry it (fixed once made).
    pub project_id: Option<i32>,
    /// The allowed values of a choice field (1–200 of them), none for other kinds.
    pub choices: Vec<String>,
    /// From which status category on a value is required.
    pub required_from: Option<StatusCategory>,
    /// Seen and set by the team only.
    pub team_only: bool,
    /// Where it appears among the others (lower first; default after the last).
    pub position: Option<i32>,
}

/// A change to a field; `None` leaves a value as it is.
#[derive(Debug, Clone, Default)]
pub struct FieldPatch {
    /// New label.
    pub label: Option<String>,
    /// New choices (a choice tickets hold may not be dropped).
    pub choices: Option<Vec<String>>,
    /// From which status category on a value is required (`Some(None)`: never).
    pub required_from: Option<Option<StatusCategory>>,
    /// Team only or everyone.
    pub team_only: Option<bool>,
    /// New position.
    pub position: Option<i32>,
    /// Archive (`true`: hidden, values kept) or restore (`false`).
    pub archived: Option<bool>,
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden("only admins manage custom fields"))
    }
}

fn check_key(key: &str) -> AppResult<String> {
    let key = key.trim();
    let mut chars = key.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && key.len() <= MAX_KEY_CHARS;
    if well_formed {
        Ok(key.to_string())
    } else {
        Err(AppError::field(
            "key",
            format!(
                "use 1-{MAX_KEY_CHARS} lowercase letters, digits and _, starting with a letter"
            ),
        ))
    }
}

fn check_choices(kind: FieldKind, raw: &[String]) -> AppResult<Vec<String>> {
    let takes_choices = matches!(kind, FieldKind::Choice | FieldKind::MultiChoice);
    if !takes_choices {
        if raw.is_empty() {
            return Ok(Vec::new());
        }
        return Err(AppError::field(
            "choices",
            format!("a {kind} field has no choices"),
        ));
    }
    if raw.is_empty() || raw.len() > MAX_CHOICES {
        return Err(AppError::field(
            "choices",
            format!("a {kind} field needs 1-{MAX_CHOICES} choices"),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for c in raw {
        let c = text::required_line("choices", c)?;
        if c.chars().count() > MAX_CHOICE_CHARS || c.contains(',') {
            return Err(AppError::field(
                "choices",
                format!("{c:?}: at most {MAX_CHOICE_CHARS} characters and no commas"),
            ));
        }
        if out.iter().any(|o| o.eq_ignore_ascii_case(&c)) {
            return Err(AppError::field("choices", format!("{c:?} is listed twice")));
        }
        out.push(c);
    }
    Ok(out)
}

/// Whether one more active field for `project_id` (none: every ticket's) keeps every project within `max`.
async fn check_room(
    db: &impl ConnectionTrait,
    project_id: Option<i32>,
    max: usize,
) -> AppResult<()> {
    let fields = active(db).await?;
    let global = fields.iter().filter(|f| f.project_id.is_none()).count();
    let busiest = match project_id {
        Some(pid) => fields.iter().filter(|f| f.project_id == Some(pid)).count(),
        None => {
            let mut per: std::collections::HashMap<i32, usize> = Default::default();
            for pid in fields.iter().filter_map(|f| f.project_id) {
                *per.entry(pid).or_default() += 1;
            }
            per.into_values().max().unwrap_or(0)
        }
    };
    if global + busiest + 1 > max {
        return Err(AppError::bad_request(format!(
            "a ticket may carry at most {max} custom fields; archive one first"
        )));
    }
    Ok(())
}

fn choices_json(choices: &[String]) -> AppResult<String> {
    serde_json::to_string(choices).map_err(AppError::internal)
}

/// Define a field (admins only): 400 naming the input field for a bad key, label, choices or project, or when
/// a ticket would carry more than `max` fields.
pub async fn create(
    db: &crate::db::Db,
    known: &super::KnownFields,
    actor: &Actor,
    input: NewField,
    max: usize,
) -> AppResult<Field> {
    require_admin(actor)?;
    let key = check_key(&input.key)?;
    let label = text::required_line("label", &input.label)?;
    let choices = check_choices(input.kind, &input.choices)?;
    if let Some(pid) = input.project_id {
        projects::get(&db.conn, pid)
            .await
            .map_err(|_| AppError::field("project", format!("project {pid} does not exist")))?;
    }
    let txn = db.begin_write().await?;
    check_room(&txn, input.project_id, max).await?;
    let position = match input.position {
        Some(p) => p,
        None => {
            let last: Option<i32> = custom_field::Entity::find()
                .select_only()
                .expr(sea_orm::sea_query::Func::max(Expr::col(
                    custom_field::Column::Position,
                )))
                .into_tuple()
                .one(&txn)
                .await?
                .flatten();
            last.map_or(0, |p| p.saturating_add(1))
        }
    };
    let now = Utc::now();
    let created = custom_field::ActiveModel {
        key: Set(key),
        label: Set(label),
        kind: Set(input.kind),
        project_id: Set(input.project_id),
        choices: Set(choices_json(&choices)?),
        required_from: Set(input.required_from),
        team_only: Set(input.team_only),
        position: Set(position),
        archived_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await
    .on_unique("key", KEY_TAKEN)?;
    let field = Field::of(created)?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "custom_field", field.id, "create")
            .changes(json!({ "key": [null, field.key], "kind": [null, field.kind] })),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(field)
}

/// Change a field (admins only). Its key, kind and project stay: values were stored under them. A choice
/// tickets hold may not be dropped (400 with how many hold it); a restore checks the room as a create does.
pub async fn update(
    db: &crate::db::Db,
    known: &super::KnownFields,
    actor: &Actor,
    id: i32,
    patch: FieldPatch,
    max: usize,
) -> AppResult<Field> {
    require_admin(actor)?;
    let label = patch
        .label
        .as_deref()
        .map(|l| text::required_line("label", l))
        .transpose()?;
    let txn = db.begin_write().await?;
    let current = custom_field::Entity::find_by_id(id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("custom field"))?;
    let field = Field::of(current.clone())?;
    let choices = patch
        .choices
        .as_deref()
        .map(|c| check_choices(field.kind, c))
        .transpose()?;
    if let Some(next) = &choices {
        for dropped in field.choices.iter().filter(|c| !next.contains(c)) {
            let held = holders_of_choice(&txn, &field, dropped).await?;
            if held > 0 {
                return Err(AppError::field(
                    "choices",
                    format!("{dropped:?} is held by {held} tickets; change them first"),
                ));
            }
        }
    }
    if patch.archived == Some(false) && current.archived_at.is_some() {
        check_room(&txn, current.project_id, max).await?;
    }
    let mut changes = audit::Changes::new();
    let mut active: custom_field::ActiveModel = current.clone().into();
    if let Some(label) = label {
        changes.diff("label", &current.label, &label);
        active.label = Set(label);
    }
    if let Some(choices) = choices {
        changes.diff("choices", &field.choices, &choices);
        active.choices = Set(choices_json(&choices)?);
    }
    if let Some(required_from) = patch.required_from {
        changes.diff("required_from", &current.required_from, &required_from);
        active.required_from = Set(required_from);
    }
    if let Some(team_only) = patch.team_only {
        changes.diff("team_only", &current.team_only, &team_only);
        active.team_only = Set(team_only);
    }
    if let Some(position) = patch.position {
        changes.diff("position", &current.position, &position);
        active.position = Set(position);
    }
    if let Some(archived) = patch.archived {
        let now_archived = current.archived_at.is_some();
        changes.diff("archived", &now_archived, &archived);
        if archived != now_archived {
            active.archived_at = Set(archived.then(Utc::now));
        }
    }
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(field);
    }
    active.updated_at = Set(Utc::now());
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "custom_field", id, "update")
            .changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Field::of(saved)
}

/// How many tickets hold `choice` in `field`.
async fn holders_of_choice(
    db: &impl ConnectionTrait,
    field: &Field,
    choice: &str,
) -> AppResult<u64> {
    Ok(if field.kind == FieldKind::MultiChoice {
        ticket_field_choice::Entity::find()
            .filter(ticket_field_choice::Column::FieldId.eq(field.id))
            .filter(ticket_field_choice::Column::Choice.eq(choice))
            .count(db)
            .await?
    } else {
        ticket_field_value::Entity::find()
            .filter(ticket_field_value::Column::FieldId.eq(field.id))
            .filter(ticket_field_value::Column::TextValue.eq(choice))
            .count(db)
            .await?
    })
}
