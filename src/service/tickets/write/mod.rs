//! Ticket changes, each with its audit record, counters and outbox rows in one transaction: `create`,
//! `update` (field changes), `status` (workflow moves and their lifecycle dates) and `archive`
//! (archive and restore). The input values and their checks live here.
mod archive;
mod create;
mod merge;
mod split;
mod status;
pub(in crate::service) mod triggered;
mod update;

pub use archive::{archive, restore};
pub use create::{create, create_along, Along, KEY_FIELD};
pub use merge::{
    merge, merge_many, merged_into, MergeTarget, Merged, MergedInto, MergedMany, MAX_MERGED_AT_ONCE,
};
pub use split::{split, SplitOff};
pub(in crate::service) use status::on_requester_reply;
pub use status::{change_status, change_status_noting};
pub(in crate::service) use update::publish_change;
pub use update::{preview, update};

use crate::domain::{Priority, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::sanitize::sanitize_html;
use crate::service::idempotency::IdempotencyKey;
use crate::service::{custom_fields, text, users};
use chrono::NaiveDate;
use entity::{group, project};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};

/// `at` as the database keeps it: to the microsecond.
fn to_micros(at: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Utc> {
    use chrono::Timelike;
    at.with_nanosecond(at.nanosecond() / 1_000 * 1_000)
        .unwrap_or(at)
}

/// `t`'s times as the database keeps them, so that a ticket written and then answered from memory reads as it
/// will be read back.
fn as_stored(t: &mut entity::ticket::Model) {
    t.updated_at = to_micros(t.updated_at);
    t.resolved_at = t.resolved_at.map(to_micros);
    t.closed_at = t.closed_at.map(to_micros);
    t.status_changed_at = t.status_changed_at.map(to_micros);
}

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
    /// The client's idempotency key: sent again with it, the create answers the first ticket
    /// (`service::idempotency`).
    pub idempotency_key: Option<IdempotencyKey>,
    /// Custom field values, by key (`service::custom_fields`).
    pub custom_fields: custom_fields::RawEdits,
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
    /// Custom field values to set, by key (null clears one).
    pub custom_fields: Option<custom_fields::RawEdits>,
}

impl TicketPatch {
    /// Names of the fields this patch sets (REST spelling).
    pub fn fields(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let checks: [(&'static str, bool); 9] = [
            ("title", self.title.is_some()),
            ("description", self.description.is_some()),
            ("priority", self.priority.is_some()),
            ("status", self.status.is_some()),
            ("project", self.project_id.is_some()),
            ("assigned_to", self.assignee_id.is_some()),
            ("assigned_group", self.assigned_group_id.is_some()),
            ("due_date", self.due_date.is_some()),
            ("custom_fields", self.custom_fields.is_some()),
        ];
        for (name, set) in checks {
            if set {
                out.push(name);
            }
        }
        out
    }
}

/// A description with only the allowed HTML left.
fn clean_description(description: &str) -> AppResult<String> {
    Ok(sanitize_html(&text::description(description)?)
        .trim()
        .to_string())
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

/// How [`relock`] locks the ticket's row.
#[derive(Debug, Clone, Copy)]
enum Lock {
    /// `FOR UPDATE`: the write that changes the ticket takes its turn before reading it.
    Write,
    /// `FOR NO KEY UPDATE`, for a write inside a comment's transaction, which already holds the row's key-share
    /// lock (`comments::landing`), as a concurrent comment may: two upgrades to `FOR UPDATE` would wait on each
    /// other's key-share lock, a deadlock. This lock still queues writers of the row one after the other.
    UnderComment,
}

/// The ticket's row, read again and locked in the write's transaction, so that concurrent changes are neither
/// lost nor mis-audited and counters move from what the row really holds; archived rows only when `archived`
/// (restore). SQLite's write transaction holds the whole database, so the lock is PostgreSQL's only.
async fn relock(
    txn: &sea_orm::DatabaseTransaction,
    id: i32,
    lock: Lock,
    archived: bool,
) -> AppResult<entity::ticket::Model> {
    use sea_orm::sea_query::LockType;
    use sea_orm::QuerySelect;
    let kind = match lock {
        Lock::Write => LockType::Update,
        Lock::UnderComment => LockType::NoKeyUpdate,
    };
    entity::ticket::Entity::find_by_id(id)
        .lock(kind)
        .one(txn)
        .await?
        .filter(|t| archived || t.archived_at.is_none())
        .ok_or_else(|| AppError::not_found("ticket"))
}
