//! Adding, changing and deleting policies (administrators only); each change re-clocks the open tickets
//! it may move, in the background.
use super::cache::KnownPolicies;
use super::hours::{calendar_of, hours_json, CalendarInput};
use super::{get, require_admin};
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::{Priority, TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use chrono::Utc;
use entity::{group, project, sla_policy};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use serde_json::{json, Value};

/// Longest target accepted: a year of business minutes.
const MAX_MINUTES: i32 = 366 * 24 * 60;

/// Fields of a new policy.
#[derive(Debug, Clone, Default)]
pub struct NewPolicy {
    /// Unique, 1-200 characters.
    pub name: String,
    /// The priority matched.
    pub priority: Option<Priority>,
    /// Only tickets of this project, when set.
    pub project_id: Option<i32>,
    /// Only tickets assigned to this group, when set.
    pub group_id: Option<i32>,
    /// Business minutes until the first response.
    pub first_response_minutes: i32,
    /// Business minutes until resolution.
    pub resolution_minutes: i32,
    /// Business hours.
    pub calendar: CalendarInput,
    /// Statuses that stop the clock; `on_hold` and `blocked` when absent.
    pub pause_statuses: Option<Vec<TicketStatus>>,
}

/// A partial change of a policy; `Some(None)` clears the project or group.
#[derive(Debug, Clone, Default)]
pub struct PolicyPatch {
    /// New name.
    pub name: Option<String>,
    /// New priority.
    pub priority: Option<Priority>,
    /// New project restriction.
    pub project_id: Option<Option<i32>>,
    /// New group restriction.
    pub group_id: Option<Option<i32>>,
    /// New first-response target.
    pub first_response_minutes: Option<i32>,
    /// New resolution target.
    pub resolution_minutes: Option<i32>,
    /// New calendar.
    pub calendar: Option<CalendarInput>,
    /// New pause statuses.
    pub pause_statuses: Option<Vec<TicketStatus>>,
}

const DEFAULT_PAUSE: [TicketStatus; 2] = [TicketStatus::OnHold, TicketStatus::Blocked];

fn check_minutes(field: &str, minutes: i32) -> AppResult<i32> {
    if (1..=MAX_MINUTES).contains(&minutes) {
        Ok(minutes)
    } else {
        Err(AppError::field(
            field,
            format!("must be between 1 and {MAX_MINUTES} minutes"),
        ))
    }
}

async fn check_refs(
    db: &impl ConnectionTrait,
    project_id: Option<i32>,
    group_id: Option<i32>,
) -> AppResult<()> {
    if let Some(id) = project_id {
        if project::Entity::find_by_id(id).count(db).await? == 0 {
            return Err(AppError::field(
                "project",
                format!("project {id} does not exist"),
            ));
        }
    }
    if let Some(id) = group_id {
        if group::Entity::find_by_id(id).count(db).await? == 0 {
            return Err(AppError::field(
                "group",
                format!("group {id} does not exist"),
            ));
        }
    }
    Ok(())
}

async fn check_name_free(
    db: &impl ConnectionTrait,
    name: &str,
    except: Option<i32>,
) -> AppResult<()> {
    let mut q = sla_policy::Entity::find().filter(sla_policy::Column::Name.eq(name));
    if let Some(id) = except {
        q = q.filter(sla_policy::Column::Id.ne(id));
    }
    if q.count(db).await? > 0 {
        return Err(AppError::field(
            "name",
            "a policy with this name already exists",
        ));
    }
    Ok(())
}

fn statuses_json(statuses: &[TicketStatus]) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for s in statuses {
        if matches!(s.category(), crate::domain::StatusCategory::Done) {
            continue;
        }
        if !names.contains(&s.as_str()) {
            names.push(s.as_str());
        }
    }
    json!(names)
}

/// Add a policy; administrators only. New tickets use it at once; the open tickets of its priority are
/// re-clocked in the background, in batches (`reclock`).
pub async fn create(
    db: &Db,
    known: &KnownPolicies,
    actor: &Actor,
    input: NewPolicy,
) -> AppResult<sla_policy::Model> {
    require_admin(actor)?;
    let conn = &db.conn;
    let name = crate::service::text::required_line("name", &input.name)?;
    let priority = input
        .priority
        .ok_or_else(|| AppError::field("priority", "this field is required"))?;
    let first = check_minutes("firstResponseMinutes", input.first_response_minutes)?;
    let resolution = check_minutes("resolutionMinutes", input.resolution_minutes)?;
    let calendar = calendar_of(&input.calendar)?;
    check_refs(conn, input.project_id, input.group_id).await?;
    check_name_free(conn, &name, None).await?;
    let pause = input.pause_statuses.unwrap_or(DEFAULT_PAUSE.to_vec());
    let now = Utc::now();
    let row = sla_policy::ActiveModel {
        name: Set(name),
        priority: Set(priority),
        project_id: Set(input.project_id),
        group_id: Set(input.group_id),
        first_response_minutes: Set(first),
        resolution_minutes: Set(resolution),
        time_zone: Set(calendar.time_zone().to_string()),
        hours: Set(hours_json(&calendar)),
        holidays: Set(json!(calendar
            .holidays()
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect::<Vec<_>>())),
        pause_statuses: Set(statuses_json(&pause)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    let txn = db.begin_write().await?;
    let saved = row.insert(&txn).await?;
    crate::service::sla::reclock::schedule(&txn, [saved.priority]).await?;
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", saved.id, "create")
            .changes(json!({"name": [null, saved.name]})),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(saved)
}

/// Change a policy; administrators only. The open tickets of its old and new priority are re-clocked in
/// the background, in batches (`reclock`).
pub async fn update(
    db: &Db,
    known: &KnownPolicies,
    actor: &Actor,
    id: i32,
    patch: PolicyPatch,
) -> AppResult<sla_policy::Model> {
    require_admin(actor)?;
    let conn = &db.conn;
    let current = get(conn, id)
        .await?
        .ok_or_else(|| AppError::not_found("SLA policy"))?;
    let mut active: sla_policy::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        let name = crate::service::text::required_line("name", name)?;
        check_name_free(conn, &name, Some(id)).await?;
        active.name = Set(name);
    }
    if let Some(p) = patch.priority {
        active.priority = Set(p);
    }
    let project_id = patch.project_id.unwrap_or(current.project_id);
    let group_id = patch.group_id.unwrap_or(current.group_id);
    check_refs(conn, project_id, group_id).await?;
    active.project_id = Set(project_id);
    active.group_id = Set(group_id);
    if let Some(m) = patch.first_response_minutes {
        active.first_response_minutes = Set(check_minutes("firstResponseMinutes", m)?);
    }
    if let Some(m) = patch.resolution_minutes {
        active.resolution_minutes = Set(check_minutes("resolutionMinutes", m)?);
    }
    if let Some(c) = &patch.calendar {
        let calendar = calendar_of(c)?;
        active.time_zone = Set(calendar.time_zone().to_string());
        active.hours = Set(hours_json(&calendar));
        active.holidays = Set(json!(calendar
            .holidays()
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect::<Vec<_>>()));
    }
    if let Some(s) = &patch.pause_statuses {
        active.pause_statuses = Set(statuses_json(s));
    }
    active.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let saved = active.update(&txn).await?;
    // A new name changes no clock.
    let clocks_move = sla_policy::Model {
        name: current.name.clone(),
        updated_at: current.updated_at,
        ..saved.clone()
    } != current;
    if clocks_move {
        crate::service::sla::reclock::schedule(&txn, [current.priority, saved.priority]).await?;
    }
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", id, "update")
            .changes(json!({"name": [current.name, saved.name]})),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(saved)
}

/// Delete a policy; administrators only. The open tickets of its priority are re-clocked in the
/// background: to another matching policy, or to no due times and no policy. Resolved and closed tickets
/// keep their clocks, naming no policy.
pub async fn delete(db: &Db, known: &KnownPolicies, actor: &Actor, id: i32) -> AppResult<()> {
    require_admin(actor)?;
    let txn = db.begin_write().await?;
    let current = get(&txn, id)
        .await?
        .ok_or_else(|| AppError::not_found("SLA policy"))?;
    sla_policy::Entity::delete_by_id(id).exec(&txn).await?;
    crate::service::sla::reclock::schedule(&txn, [current.priority]).await?;
    crate::service::audit::record(
        &txn,
        crate::service::audit::Entry::new(Some(actor.id()), "sla_policy", id, "delete")
            .changes(json!({"name": [current.name, null]})),
    )
    .await?;
    txn.commit().await?;
    known.changed(db).await;
    Ok(())
}
