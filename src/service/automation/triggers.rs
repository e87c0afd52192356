//! Triggers: administrators' rules that change a ticket when a write to it matches. Managing them
//! (administrators only, each change in the audit trail) and reading them compiled for the writes.
use super::evaluate::Facts;
use super::known::KnownTriggers;
use super::language::{actions_to_json, parse_actions, Action, Conditions, NotifyTarget};
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::{audit, text, users};
use chrono::Utc;
use entity::{group, project, trigger};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use serde_json::{json, Value as Json};

/// Triggers at most: each write is matched against every active one.
pub const MAX_TRIGGERS: u64 = 500;

/// A trigger as the writes use it: its conditions and actions parsed.
#[derive(Clone, Debug)]
pub struct Trigger {
    /// Its id.
    pub id: i32,
    /// Its name, as the history and webhooks show it.
    pub name: String,
    /// Only tickets of this project, when set.
    pub project_id: Option<i32>,
    /// When it fires.
    pub conditions: Conditions,
    /// What it does, in order.
    pub actions: Vec<Action>,
    /// `trigger`, or `time_rule` for a time rule run through the same code.
    pub kind: &'static str,
}

impl Trigger {
    /// Parse a stored row.
    pub fn from_row(row: &trigger::Model) -> AppResult<Trigger> {
        Ok(Trigger {
            id: row.id,
            name: row.name.clone(),
            project_id: row.project_id,
            conditions: Conditions::parse(&row.conditions)?,
            actions: parse_actions(&row.actions)?,
            kind: "trigger",
        })
    }

    /// Whether it fires for `facts`: in its project, when it has one, and its conditions hold.
    pub fn fires(&self, facts: &Facts<'_>) -> bool {
        self.project_id
            .is_none_or(|p| facts.after.project_id == Some(p))
            && self.conditions.hold(facts)
    }

    /// Whether it may read the ticket's tags: asks about them or changes them.
    pub fn touches_tags(&self) -> bool {
        self.conditions.uses_tags() || self.actions.iter().any(Action::edits_tags)
    }

    /// [`Trigger::fires`] judged before the ticket's tags and custom field values are read: `None` when its
    /// conditions on those decide (see [`Conditions::hold_unread`]).
    pub fn fires_unread(&self, facts: &Facts<'_>) -> Option<bool> {
        if self
            .project_id
            .is_some_and(|p| facts.after.project_id != Some(p))
        {
            return Some(false);
        }
        self.conditions.hold_unread(facts)
    }
}

/// The active triggers in evaluation order (position, then id). A stored rule that no longer parses (written
/// by hand) is left out and logged rather than stopping every write.
pub(super) async fn active(db: &impl ConnectionTrait) -> AppResult<Vec<Trigger>> {
    let rows = trigger::Entity::find()
        .filter(trigger::Column::Active.eq(true))
        .order_by_asc(trigger::Column::Position)
        .order_by_asc(trigger::Column::Id)
        .all(db)
        .await?;
    Ok(rows
        .iter()
        .filter_map(|row| match Trigger::from_row(row) {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::warn!(trigger = row.id, error = %e, "stored trigger does not parse; skipped");
                None
            }
        })
        .collect())
}

/// Fields of a new trigger.
#[derive(Debug, Clone)]
pub struct NewTrigger {
    /// 1-200 characters.
    pub name: String,
    /// Only tickets of this project.
    pub project_id: Option<i32>,
    /// Where it goes in the order; last when absent.
    pub position: Option<i32>,
    /// Defaults to true.
    pub active: Option<bool>,
    /// `{"all": [...], "any": [...]}`.
    pub conditions: Json,
    /// `[{"set": ..., "value": ...}, {"comment": ...}]`.
    pub actions: Json,
}

/// A change to a trigger; absent fields stay.
#[derive(Debug, Clone, Default)]
pub struct TriggerPatch {
    /// New name.
    pub name: Option<String>,
    /// New project scope, or none.
    pub project_id: Option<Option<i32>>,
    /// New position.
    pub position: Option<i32>,
    /// Switch on or off.
    pub active: Option<bool>,
    /// New conditions.
    pub conditions: Option<Json>,
    /// New actions.
    pub actions: Option<Json>,
}

pub(super) fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden("only administrators may manage rules"))
    }
}

/// A field error at `path` unless project `id` exists and is not archived.
pub async fn check_project(db: &impl ConnectionTrait, path: &str, id: i32) -> AppResult<()> {
    let live = project::Entity::find_by_id(id)
        .filter(project::Column::ArchivedAt.is_null())
        .count(db)
        .await?
        > 0;
    if live {
        Ok(())
    } else {
        Err(AppError::field(
            path,
            format!("project {id} does not exist"),
        ))
    }
}

/// What the actions name exists: a rule that assigns to nobody real is refused when saved, not skipped on
/// every write.
pub(super) async fn check_actions(db: &impl ConnectionTrait, actions: &[Action]) -> AppResult<()> {
    for (i, action) in actions.iter().enumerate() {
        let path = format!("actions[{i}].value");
        match action {
            Action::SetAssignee(Some(id)) if !users::active_user_exists(db, *id).await? => {
                return Err(AppError::field(&path, format!("user {id} does not exist")));
            }
            Action::SetGroup(Some(id))
            | Action::Assign {
                group: Some(id), ..
            } if group::Entity::find_by_id(*id).count(db).await? == 0 => {
                return Err(AppError::field(&path, format!("group {id} does not exist")));
            }
            Action::SetProject(Some(id)) => check_project(db, &path, *id).await?,
            Action::Notify {
                to: NotifyTarget::User(id),
                ..
            } if !users::active_user_exists(db, *id).await? => {
                let path = format!("actions[{i}].notify");
                return Err(AppError::field(&path, format!("user {id} does not exist")));
            }
            Action::Notify {
                to: NotifyTarget::Group(id),
                ..
            } if group::Entity::find_by_id(*id).count(db).await? == 0 => {
                let path = format!("actions[{i}].notify");
                return Err(AppError::field(&path, format!("group {id} does not exist")));
            }
            Action::Notify {
                to: NotifyTarget::Chat(id),
                ..
            } if entity::chat_destination::Entity::find_by_id(*id)
                .count(db)
                .await?
                == 0 =>
            {
                let path = format!("actions[{i}].notify");
                return Err(AppError::field(
                    &path,
                    format!("chat destination {id} does not exist"),
                ));
            }
            Action::Notify {
                to: NotifyTarget::Webhook(id),
                ..
            } if entity::webhook::Entity::find_by_id(*id).count(db).await? == 0 => {
                let path = format!("actions[{i}].notify");
                return Err(AppError::field(
                    &path,
                    format!("webhook endpoint {id} does not exist"),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Hold what `conditions` and `actions` say of custom fields to the active definitions (read only when they
/// name one): a 400 naming the path of an unknown key or a value of the wrong type.
pub(super) async fn type_fields(
    db: &impl ConnectionTrait,
    conditions: Option<&mut Conditions>,
    actions: &mut [Action],
) -> AppResult<()> {
    let conditions_name = conditions
        .as_ref()
        .is_some_and(|c| c.fields_named().next().is_some());
    let actions_name = actions.iter().any(Action::is_set_field);
    if !conditions_name && !actions_name {
        return Ok(());
    }
    let defined = crate::service::custom_fields::Defined::load(db).await?;
    if let Some(conditions) = conditions {
        super::fields::type_conditions(conditions, &defined)?;
    }
    super::fields::type_actions(actions, &defined)?;
    super::fields::check_named(db, actions, &defined).await
}

fn position_of(path: &str, position: i32) -> AppResult<i32> {
    if (0..=1_000_000).contains(&position) {
        Ok(position)
    } else {
        Err(AppError::field(path, "must be 0 to 1000000"))
    }
}

/// Every trigger (active or not) in evaluation order; administrators only.
pub async fn list(db: &Db, actor: &Actor) -> AppResult<Vec<trigger::Model>> {
    require_admin(actor)?;
    Ok(trigger::Entity::find()
        .order_by_asc(trigger::Column::Position)
        .order_by_asc(trigger::Column::Id)
        .limit(MAX_TRIGGERS)
        .all(&db.conn)
        .await?)
}

/// One trigger; administrators only.
pub async fn get(db: &Db, actor: &Actor, id: i32) -> AppResult<trigger::Model> {
    require_admin(actor)?;
    trigger::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("trigger"))
}

/// Save a new trigger, checked: a condition or action that does not fit is a 400 naming its path.
pub async fn create(
    db: &Db,
    known: &KnownTriggers,
    actor: &Actor,
    input: NewTrigger,
) -> AppResult<trigger::Model> {
    require_admin(actor)?;
    let name = text::required_line("name", &input.name)?;
    let mut conditions = Conditions::parse(&input.conditions)?;
    let mut actions = parse_actions(&input.actions)?;
    type_fields(&db.conn, Some(&mut conditions), &mut actions).await?;
    check_actions(&db.conn, &actions).await?;
    if let Some(p) = input.project_id {
        check_project(&db.conn, "project", p).await?;
    }
    let position = input
        .position
        .map(|p| position_of("position", p))
        .transpose()?;
    let now = Utc::now();
    let txn = db.begin_write().await?;
    if trigger::Entity::find().count(&txn).await? >= MAX_TRIGGERS {
        return Err(AppError::bad_request(format!(
            "there are {MAX_TRIGGERS} triggers already; delete one first"
        )));
    }
    let position = match position {
        Some(p) => p,
        None => {
            let last: Option<i32> = trigger::Entity::find()
                .select_only()
                .column_as(trigger::Column::Position.max(), "max")
                .into_tuple::<Option<i32>>()
                .one(&txn)
                .await?
                .flatten();
            last.map_or(1, |p| p.saturating_add(1))
        }
    };
    let created = trigger::ActiveModel {
        name: Set(name),
        project_id: Set(input.project_id),
        position: Set(position),
        active: Set(input.active.unwrap_or(true)),
        conditions: Set(conditions.to_json()),
        actions: Set(actions_to_json(&actions)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "trigger", created.id, "create").changes(json!({
            "name": [null, created.name],
            "project_id": [null, created.project_id],
            "position": [null, created.position],
            "active": [null, created.active],
            "conditions": [null, created.conditions],
            "actions": [null, created.actions],
        })),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(created)
}

/// Change a trigger, checked as [`create`] checks.
pub async fn update(
    db: &Db,
    known: &KnownTriggers,
    actor: &Actor,
    id: i32,
    patch: TriggerPatch,
) -> AppResult<trigger::Model> {
    let current = get(db, actor, id).await?;
    let mut changes = audit::Changes::new();
    let mut row: trigger::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        let name = text::required_line("name", name)?;
        changes.diff("name", &current.name, &name);
        row.name = Set(name);
    }
    if let Some(project) = patch.project_id {
        if let Some(p) = project.filter(|p| current.project_id != Some(*p)) {
            check_project(&db.conn, "project", p).await?;
        }
        changes.diff("project_id", &current.project_id, &project);
        row.project_id = Set(project);
    }
    if let Some(position) = patch.position {
        let position = position_of("position", position)?;
        changes.diff("position", &current.position, &position);
        row.position = Set(position);
    }
    if let Some(on) = patch.active {
        changes.diff("active", &current.active, &on);
        row.active = Set(on);
    }
    if let Some(raw) = &patch.conditions {
        let mut conditions = Conditions::parse(raw)?;
        type_fields(&db.conn, Some(&mut conditions), &mut []).await?;
        let conditions = conditions.to_json();
        changes.diff("conditions", &current.conditions, &conditions);
        row.conditions = Set(conditions);
    }
    if let Some(raw) = &patch.actions {
        let mut actions = parse_actions(raw)?;
        type_fields(&db.conn, None, &mut actions).await?;
        check_actions(&db.conn, &actions).await?;
        let actions = actions_to_json(&actions);
        changes.diff("actions", &current.actions, &actions);
        row.actions = Set(actions);
    }
    if changes.is_empty() {
        return Ok(current);
    }
    row.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let saved = row.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "trigger", id, "update").changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(saved)
}

/// Put the triggers named by `ids` first, in that order (positions 1, 2, …), and the others after them in
/// the order they had. An unknown or repeated id is a 400 on `ids`.
pub async fn reorder(
    db: &Db,
    known: &KnownTriggers,
    actor: &Actor,
    ids: &[i32],
) -> AppResult<Vec<trigger::Model>> {
    let all = list(db, actor).await?;
    for (i, id) in ids.iter().enumerate() {
        if !all.iter().any(|t| t.id == *id) {
            return Err(AppError::field(
                "ids",
                format!("trigger {id} does not exist"),
            ));
        }
        if ids[..i].contains(id) {
            return Err(AppError::field(
                "ids",
                format!("trigger {id} is named twice"),
            ));
        }
    }
    let rest = all.iter().map(|t| t.id).filter(|id| !ids.contains(id));
    let order: Vec<i32> = ids.iter().copied().chain(rest).collect();
    let txn = db.begin_write().await?;
    let mut moved = Vec::new();
    for (index, id) in order.iter().enumerate() {
        let position = i32::try_from(index + 1).map_err(AppError::internal)?;
        let was = all.iter().find(|t| t.id == *id).map(|t| t.position);
        if was != Some(position) {
            trigger::Entity::update_many()
                .col_expr(trigger::Column::Position, Expr::value(position))
                .filter(trigger::Column::Id.eq(*id))
                .exec(&txn)
                .await?;
            moved.push(json!({"id": id, "position": [was, position]}));
        }
    }
    if !moved.is_empty() {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "trigger", 0, "reorder")
                .changes(json!({ "moved": moved })),
        )
        .await?;
    }
    txn.commit().await?;
    known.changed(db).await;
    list(db, actor).await
}

/// Remove a trigger. What it did stays in the tickets' history.
pub async fn delete(db: &Db, known: &KnownTriggers, actor: &Actor, id: i32) -> AppResult<()> {
    let current = get(db, actor, id).await?;
    let txn = db.begin_write().await?;
    trigger::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "trigger", id, "delete")
            .changes(json!({ "name": [current.name, null] })),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(())
}
