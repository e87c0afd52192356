//! The audit trail: one record per change, written in the change's own transaction; reading it
//! (ticket history, the administrators' log) lives in `read`.
mod read;
pub mod story;

use crate::error::AppResult;
use chrono::Utc;
use entity::audit_event;
pub use read::{count, get_visible, list, ticket_history, ticket_history_count, AuditFilter};
use sea_orm::sea_query::InsertStatement;
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, QueryTrait, Set};
use serde_json::{json, Map, Value};

/// One audit record to write.
#[derive(Debug, Clone)]
pub struct Entry {
    actor_id: Option<i32>,
    entity_type: &'static str,
    entity_id: i32,
    action: &'static str,
    ticket_id: Option<i32>,
    changes: Value,
    is_internal: bool,
}

impl Entry {
    /// An entry for `action` on `entity_type` `entity_id` by `actor_id`.
    pub fn new(
        actor_id: Option<i32>,
        entity_type: &'static str,
        entity_id: i32,
        action: &'static str,
    ) -> Self {
        Entry {
            actor_id,
            entity_type,
            entity_id,
            action,
            ticket_id: None,
            changes: json!({}),
            is_internal: false,
        }
    }

    /// The ticket this entry belongs to (for ticket history).
    pub fn ticket(mut self, ticket_id: i32) -> Self {
        self.ticket_id = Some(ticket_id);
        self
    }

    /// `{field: [old, new]}`.
    pub fn changes(mut self, changes: Value) -> Self {
        self.changes = changes;
        self
    }

    /// Mark the entry as concerning an internal comment.
    pub fn internal(mut self, is_internal: bool) -> Self {
        self.is_internal = is_internal;
        self
    }
}

/// Builds `{field: [old, new]}` for the fields that actually changed.
#[derive(Debug, Default)]
pub struct Changes(Map<String, Value>);

impl Changes {
    /// Start empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record `field` when `old != new`.
    pub fn diff<T: PartialEq + serde::Serialize>(&mut self, field: &str, old: &T, new: &T) {
        if old != new {
            self.0.insert(field.to_string(), json!([old, new]));
        }
    }

    /// The `keys` whose values differ between two snapshots of a record (`None`: it did not exist yet, or
    /// no longer does).
    pub fn between(before: Option<&Value>, after: Option<&Value>, keys: &[&str]) -> Self {
        let mut changes = Self::new();
        for key in keys {
            let pick = |v: Option<&Value>| v.map_or(Value::Null, |v| v[*key].clone());
            changes.diff(key, &pick(before), &pick(after));
        }
        changes
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The changes as JSON.
    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }
}

impl From<Entry> for audit_event::ActiveModel {
    fn from(entry: Entry) -> Self {
        audit_event::ActiveModel {
            actor_id: Set(entry.actor_id),
            entity_type: Set(entry.entity_type.to_string()),
            entity_id: Set(entry.entity_id),
            ticket_id: Set(entry.ticket_id),
            action: Set(entry.action.to_string()),
            changes: Set(entry.changes),
            is_internal: Set(entry.is_internal),
            created_at: Set(Utc::now()),
            ..Default::default()
        }
    }
}

/// Write `entry` on `db` (normally the change's transaction).
pub async fn record(db: &impl ConnectionTrait, entry: Entry) -> AppResult<audit_event::Model> {
    Ok(audit_event::ActiveModel::from(entry).insert(db).await?)
}

/// The insert that writes `entry`, for a change that sends its rows together
/// (`crate::db::insert_together`).
pub fn insert_of(entry: Entry) -> InsertStatement {
    audit_event::Entity::insert(audit_event::ActiveModel::from(entry)).into_query()
}

/// The one insert that writes `entries` in their order (none when there are none), so that their ids follow
/// it as their history reads.
pub fn insert_all_of(entries: Vec<Entry>) -> Option<InsertStatement> {
    if entries.is_empty() {
        return None;
    }
    let rows = entries.into_iter().map(audit_event::ActiveModel::from);
    Some(audit_event::Entity::insert_many(rows).into_query())
}
