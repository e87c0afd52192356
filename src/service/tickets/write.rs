//! Ticket changes: create, update, status moves, archive and restore, each with its audit record in
//! one transaction.
use super::{counters, rules};
use crate::auth::Actor;
use crate::db::insert_together;
use crate::domain::{format_ticket_number, Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::notify::events;
use crate::notify::live::{LiveEvent, LiveKind};
use crate::notify::outbox;
use crate::sanitize::sanitize_html;
use crate::service::audit::{self, Changes};
use crate::service::WriteDeps;
use crate::service::{sla, text, users};
use chrono::{NaiveDate, Timelike, Utc};
use entity::{group, project, ticket, ticket_sla};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, IntoActiveModel,
    PaginatorTrait, QueryFilter, QuerySelect, QueryTrait, Set, Statement,
};
use serde_json::json;

/// Fields of a new ticket.
#[derive(Debug, Clone, Default)]
pub struct NewTicket {
    /// Required, 1-200 characters after trimming.
    pub title: String,
    /// HTML, sanitised.
    pub description: Option<String>,
    /// Defaults to medium.
    pub priority: Option<Priority>,
    /// Project id.
    pub project_id: Option<i32>,
    /// Assignee user id.
    pub assignee_id: Option<i32>,
    /// Assigned group id.
    pub assigned_group_id: Option<i32>,
    /// Due date.
    pub due_date: Option<NaiveDate>,
    /// Requester user id; only team members may name someone else.
    pub requester_id: Option<i32>,
}

/// A partial change; `Some(None)` clears a nullable field.
#[derive(Debug, Clone, Default)]
pub struct TicketPatch {
    /// New title.
    pub title: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New priority.
    pub priority: Option<Priority>,
    /// New status (workflow-checked).
    pub status: Option<TicketStatus>,
    /// New project or none.
    pub project_id: Option<Option<i32>>,
    /// New assignee or none.
    pub assignee_id: Option<Option<i32>>,
    /// New assigned group or none.
    pub assigned_group_id: Option<Option<i32>>,
    /// New due date or none.
    pub due_date: Option<Option<NaiveDate>>,
}

impl TicketPatch {
    /// Names of the fields this patch sets (REST spelling).
    pub fn fields(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let checks: [(&'static str, bool); 8] = [
            ("title", self.title.is_some()),
            ("description", self.description.is_some()),
            ("priority", self.priority.is_some()),
            ("status", self.status.is_some()),
            ("project", self.project_id.is_some()),
            ("assigned_to", self.assignee_id.is_some()),
            ("assigned_group", self.assigned_group_id.is_some()),
            ("due_date", self.due_date.is_some()),
        ];
        for (name, set) in checks {
            if set {
                out.push(name);
            }
        }
        out
    }
}

fn clean_title(title: &str) -> AppResult<String> {
    text::single_line("title", title)?;
    let title = title.trim();
    let len = title.chars().count();
    if len == 0 {
        return Err(AppError::field("title", "this field may not be blank"));
    }
    if len > 200 {
        return Err(AppError::field(
            "title",
            "ensure this field has no more than 200 characters",
        ));
    }
    Ok(title.to_string())
}

fn clean_description(description: &str) -> AppResult<String> {
    text::multi_line("description", description)?;
    if description.len() > 64 * 1024 {
        return Err(AppError::field(
            "description",
            "ensure this field has no more than 65536 bytes",
        ));
    }
    Ok(sanitize_html(description).trim().to_string())
}

async fn check_project(db: &impl ConnectionTrait, id: i32) -> AppResult<()> {
    let exists = project::Entity::find_by_id(id)
        .filter(project::Column::ArchivedAt.is_null())
        .count(db)
        .await?
        > 0;
    if exists {
        Ok(())
    } else {
        Err(AppError::field(
            "project",
            format!("project {id} does not exist"),
        ))
    }
}

async fn check_user(db: &impl ConnectionTrait, field: &str, id: i32) -> AppResult<()> {
    if users::active_user_exists(db, id).await? {
        Ok(())
    } else {
        Err(AppError::field(field, format!("user {id} does not exist")))
    }
}

async fn check_group(db: &impl ConnectionTrait, id: i32) -> AppResult<()> {
    if group::Entity::find_by_id(id).count(db).await? > 0 {
        Ok(())
    } else {
        Err(AppError::field(
            "assigned_group",
            format!("group {id} does not exist"),
        ))
    }
}

/// The next ticket number and the id the new row will have. Bumping the counter takes its row lock
/// (PostgreSQL) or holds the write lock (SQLite) until commit, so numbers are consecutive and a
/// rolled-back create gives its number back; everything else the create needs is read before it.
async fn reserve(db: &impl ConnectionTrait) -> AppResult<(i64, i32)> {
    let next_id = match db.get_database_backend() {
        DbBackend::Postgres => "nextval(pg_get_serial_sequence('tickets', 'id'))",
        // The table is AUTOINCREMENT: ids are never reused, and the writer holds the database lock.
        _ => {
            "max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'tickets'), 0), \
                 coalesce((SELECT max(id) FROM tickets), 0)) + 1"
        }
    };
    let stmt = Statement::from_string(
        db.get_database_backend(),
        format!(
            "UPDATE counters SET value = value + 1 WHERE name = 'ticket_number' \
             RETURNING value, {next_id}"
        ),
    );
    let row = db
        .query_one_raw(stmt)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("ticket_number counter missing")))?;
    let number = row.try_get_by_index::<i64>(0)?;
    let id = i32::try_from(row.try_get_by_index::<i64>(1)?).map_err(AppError::internal)?;
    Ok((number, id))
}

/// Now, to the microsecond both databases keep, so a row built here equals the row read back.
fn now_stored() -> chrono::DateTime<Utc> {
    let now = Utc::now();
    now.with_nanosecond(now.nanosecond() / 1_000 * 1_000)
        .unwrap_or(now)
}

/// Create a ticket (status `new`) with its number, counters, audit record and outbox rows, all
/// written in one statement on PostgreSQL while the number is locked.
pub async fn create(
    state: WriteDeps<'_>,
    actor: &Actor,
    input: NewTicket,
) -> AppResult<ticket::Model> {
    let title = clean_title(&input.title)?;
    let description = clean_description(input.description.as_deref().unwrap_or(""))?;
    let db = &state.db.conn;
    let requester_id = match input.requester_id {
        Some(id) if id != actor.id() => {
            if !actor.is_team() {
                return Err(AppError::forbidden(
                    "only team members may open tickets for someone else",
                ));
            }
            id
        }
        _ => actor.id(),
    };
    // One read of the people named: checked here, mailed by the outbox rows.
    let named = [Some(requester_id), input.assignee_id];
    let active = users::recipients(db, named.into_iter().flatten()).await?;
    let must_exist = |field: &str, id: i32| {
        if active.contains_key(&id) || id == actor.id() {
            Ok(())
        } else {
            Err(AppError::field(field, format!("user {id} does not exist")))
        }
    };
    must_exist("requester", requester_id)?;
    if let Some(id) = input.project_id {
        check_project(db, id).await?;
    }
    if let Some(id) = input.assignee_id {
        must_exist("assigned_to", id)?;
    }
    if let Some(id) = input.assigned_group_id {
        check_group(db, id).await?;
    }
    let announce = events::TicketCreated::prepare(
        db,
        state.config,
        actor,
        &active,
        requester_id,
        input.assignee_id,
    )
    .await?;
    let priority = input.priority.unwrap_or(Priority::Medium);
    let sla_policies = sla::policies::for_priority(db, priority.as_str()).await?;
    let now = now_stored();
    let txn = state.db.begin_write().await?;
    let (number, id) = reserve(&txn).await?;
    let new = ticket::Model {
        id,
        number,
        ticket_number: format_ticket_number(&state.config.ticket_prefix, number),
        title,
        description,
        status: TicketStatus::New.as_str().to_string(),
        priority: priority.as_str().to_string(),
        requester_id,
        assignee_id: input.assignee_id,
        assigned_group_id: input.assigned_group_id,
        project_id: input.project_id,
        due_date: input.due_date,
        created_at: now,
        updated_at: now,
        first_responded_at: None,
        resolved_at: None,
        closed_at: None,
        archived_at: None,
        archived_by_id: None,
        public_comment_count: 0,
        all_comment_count: 0,
    };
    let changes = json!({
        "ticket_number": [null, new.ticket_number],
        "title": [null, new.title],
        "status": [null, new.status],
        "priority": [null, new.priority],
        "requester_id": [null, new.requester_id],
        "assignee_id": [null, new.assignee_id],
        "assigned_group_id": [null, new.assigned_group_id],
        "project_id": [null, new.project_id],
    });
    let mut rest = vec![
        counters::on_created(&new)?,
        audit::insert_of(
            audit::Entry::new(Some(actor.id()), "ticket", id, "create")
                .ticket(id)
                .changes(changes),
        ),
    ];
    let mut rows = announce.rows(&new)?;
    if let Some((clock, checks)) = sla::on_created(sla_policies, &new) {
        rest.push(ticket_sla::Entity::insert(clock.into_active_model()).into_query());
        rows.extend(checks);
    }
    rest.extend(outbox::insert_of(rows));
    let mut insert = ticket::Entity::insert(ticket::ActiveModel::from(new)).into_query();
    insert.returning_all();
    let created: ticket::Model = insert_together(&txn, insert, rest).await?;
    txn.commit().await?;
    state
        .live
        .publish(state.db, LiveEvent::new(LiveKind::Created, created.id))
        .await;
    Ok(created)
}

fn check_patch_permission(
    actor: &Actor,
    current: &ticket::Model,
    patch: &TicketPatch,
) -> AppResult<()> {
    if rules::can_update_all(actor, current) {
        return Ok(());
    }
    if current.requester_id != actor.id() {
        return Err(AppError::forbidden("you may not change this ticket"));
    }
    let refused: Vec<&str> = patch
        .fields()
        .into_iter()
        .filter(|f| !rules::REQUESTER_FIELDS.contains(f))
        .collect();
    if refused.is_empty() {
        Ok(())
    } else {
        Err(AppError::forbidden(format!(
            "requesters may only change title, description and priority (not {})",
            refused.join(", ")
        )))
    }
}

fn check_transition(current: TicketStatus, next: TicketStatus) -> AppResult<()> {
    if current.can_move_to(next) {
        return Ok(());
    }
    Err(AppError::InvalidTransition {
        message: format!("cannot move a ticket from {current} to {next}"),
        allowed: current
            .allowed_next()
            .iter()
            .map(|s| s.as_str().to_string())
            .collect(),
    })
}

/// Apply a partial change, enforcing field permissions and the workflow.
pub async fn update(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    patch: TicketPatch,
) -> AppResult<ticket::Model> {
    let current = super::get(&state.db.conn, actor, id).await?;
    check_patch_permission(actor, &current, &patch)?;
    let title = patch.title.as_deref().map(clean_title).transpose()?;
    let description = patch
        .description
        .as_deref()
        .map(clean_description)
        .transpose()?;
    if let Some(Some(pid)) = patch.project_id {
        if current.project_id != Some(pid) {
            check_project(&state.db.conn, pid).await?;
        }
    }
    if let Some(Some(uid)) = patch.assignee_id {
        check_user(&state.db.conn, "assigned_to", uid).await?;
    }
    if let Some(Some(gid)) = patch.assigned_group_id {
        check_group(&state.db.conn, gid).await?;
    }
    let txn = state.db.begin_write().await?;
    // Re-read and lock inside the write transaction so concurrent changes are not lost or mis-audited,
    // and the status counters move from the status the row really had.
    let current = ticket::Entity::find_by_id(id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .filter(|t| t.archived_at.is_none())
        .ok_or_else(|| AppError::not_found("ticket"))?;
    let current_status = TicketStatus::from_db(&current.status)?;
    if let Some(next) = patch.status {
        check_transition(current_status, next)?;
    }
    let now = Utc::now();
    let mut changes = Changes::new();
    let mut next = current.clone();
    if let Some(t) = title {
        next.title = t;
    }
    if let Some(d) = description {
        next.description = d;
    }
    if let Some(p) = patch.priority {
        next.priority = p.as_str().to_string();
    }
    if let Some(s) = patch.status {
        next.status = s.as_str().to_string();
        if s != current_status {
            apply_lifecycle(&mut next, s, now);
        }
    }
    if let Some(v) = patch.project_id {
        next.project_id = v;
    }
    if let Some(v) = patch.assignee_id {
        next.assignee_id = v;
    }
    if let Some(v) = patch.assigned_group_id {
        next.assigned_group_id = v;
    }
    if let Some(v) = patch.due_date {
        next.due_date = v;
    }
    changes.diff("title", &current.title, &next.title);
    changes.diff("description", &current.description, &next.description);
    changes.diff("priority", &current.priority, &next.priority);
    changes.diff("status", &current.status, &next.status);
    changes.diff("project_id", &current.project_id, &next.project_id);
    changes.diff("assignee_id", &current.assignee_id, &next.assignee_id);
    changes.diff(
        "assigned_group_id",
        &current.assigned_group_id,
        &next.assigned_group_id,
    );
    changes.diff("due_date", &current.due_date, &next.due_date);
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(current);
    }
    next.updated_at = now;
    let status_only = patch.fields() == ["status"];
    let before = current.clone();
    let mut active: ticket::ActiveModel = current.into();
    active.title = Set(next.title.clone());
    active.description = Set(next.description.clone());
    active.priority = Set(next.priority.clone());
    active.status = Set(next.status.clone());
    active.project_id = Set(next.project_id);
    active.assignee_id = Set(next.assignee_id);
    active.assigned_group_id = Set(next.assigned_group_id);
    active.due_date = Set(next.due_date);
    active.resolved_at = Set(next.resolved_at);
    active.closed_at = Set(next.closed_at);
    active.updated_at = Set(now);
    let saved = active.update(&txn).await?;
    counters::on_updated(&txn, &before.status, &saved.status).await?;
    sla::on_updated(&txn, &before, &saved, now).await?;
    let action = if status_only {
        "status_change"
    } else {
        "update"
    };
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", id, action)
            .ticket(id)
            .changes(changes.into_value()),
    )
    .await?;
    events::ticket_changed(&txn, state.config, actor, &before, &saved).await?;
    txn.commit().await?;
    publish_change(state, &before, &saved).await;
    Ok(saved)
}

/// Live events of a committed change: `StatusChanged` when the status moved, `Updated` when any
/// other field did (both when both did).
async fn publish_change(state: WriteDeps<'_>, before: &ticket::Model, after: &ticket::Model) {
    if before.status != after.status {
        let event = LiveEvent::new(LiveKind::StatusChanged, after.id);
        state.live.publish(state.db, event).await;
    }
    let mut others = before.clone();
    others.status = after.status.clone();
    others.resolved_at = after.resolved_at;
    others.closed_at = after.closed_at;
    others.updated_at = after.updated_at;
    if others != *after {
        let event = LiveEvent::new(LiveKind::Updated, after.id);
        state.live.publish(state.db, event).await;
    }
}

fn apply_lifecycle(t: &mut ticket::Model, status: TicketStatus, now: chrono::DateTime<Utc>) {
    match status {
        TicketStatus::Resolved => t.resolved_at = Some(now),
        TicketStatus::Closed => {
            t.closed_at = Some(now);
            t.resolved_at.get_or_insert(now);
        }
        _ => {
            t.resolved_at = None;
            t.closed_at = None;
        }
    }
}

/// Move a ticket to `status` (team, assignee or assigned group; workflow-checked).
pub async fn change_status(
    state: WriteDeps<'_>,
    actor: &Actor,
    id: i32,
    status: TicketStatus,
) -> AppResult<ticket::Model> {
    update(
        state,
        actor,
        id,
        TicketPatch {
            status: Some(status),
            ..Default::default()
        },
    )
    .await
}

/// Archive (soft delete) a ticket; team members only.
pub async fn archive(state: WriteDeps<'_>, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    let current = super::get(&state.db.conn, actor, id).await?;
    if !rules::can_archive(actor) {
        return Err(AppError::forbidden("only team members may delete tickets"));
    }
    let now = Utc::now();
    let txn = state.db.begin_write().await?;
    // Locked re-read: a concurrent archive of the same ticket finds it archived and counts nothing twice.
    let current = ticket::Entity::find_by_id(current.id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .filter(|t| t.archived_at.is_none())
        .ok_or_else(|| AppError::not_found("ticket"))?;
    counters::on_archived(&txn, &current).await?;
    let mut active: ticket::ActiveModel = current.into();
    active.archived_at = Set(Some(now));
    active.archived_by_id = Set(Some(actor.id()));
    active.updated_at = Set(now);
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", id, "archive")
            .ticket(id)
            .changes(json!({"archived": [false, true]})),
    )
    .await?;
    events::ticket_deleted(&txn, state.config, &saved).await?;
    txn.commit().await?;
    Ok(saved)
}

/// Restore an archived ticket; team members only.
pub async fn restore(state: WriteDeps<'_>, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    if !rules::can_archive(actor) {
        return match super::get(&state.db.conn, actor, id).await {
            Ok(_) => Err(AppError::forbidden("only team members may restore tickets")),
            Err(e) => Err(e),
        };
    }
    let current = super::get_including_archived(&state.db.conn, actor, id).await?;
    if current.archived_at.is_none() {
        return Ok(current);
    }
    let txn = state.db.begin_write().await?;
    // Locked re-read: a concurrent restore of the same ticket finds it live and counts nothing twice.
    let current = ticket::Entity::find_by_id(id)
        .lock_exclusive()
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("ticket"))?;
    if current.archived_at.is_none() {
        txn.commit().await?;
        return Ok(current);
    }
    counters::on_restored(&txn, &current).await?;
    let mut active: ticket::ActiveModel = current.into();
    active.archived_at = Set(None);
    active.archived_by_id = Set(None);
    active.updated_at = Set(Utc::now());
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "ticket", id, "restore")
            .ticket(id)
            .changes(json!({"archived": [true, false]})),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}
