//! Custom fields: the fields admins define, for every ticket or for one project's, and tickets' values of
//! them, typed.
//!
//! A field's values are stored in the column of its kind (`ticket_field_values`), multiple choices one row
//! each (`ticket_field_choices`), so that a filter on a field is a read of a partial index. Team-only fields
//! are read and set by those who may read a ticket's internal comments, and filtered on by the team; to
//! anyone else they do not exist, through any door: an unknown key and a team-only one answer alike.
//! Archiving a field hides it and keeps its values; restoring it brings them back.
mod defs;
mod filter;
mod known;
mod value;
mod values;

pub use defs::{create, get, list, update, FieldListFilter, FieldPatch, NewField};
pub(crate) use filter::{condition, sort_value, walk};
pub use filter::{
    query_input, resolve_filters, sort_by, FieldCondition, FieldFilterInput, FieldOp, FieldSort,
    MAX_FILTERS,
};
pub use known::KnownFields;
pub use value::{from_query_text, parse, FieldValue, MAX_LONG_TEXT_CHARS, MAX_TEXT_CHARS};
pub(crate) use values::{check_required, prepare_for_rule, write};
pub use values::{
    of_new, of_scopes, of_ticket, of_tickets, prepare, set_on_new, Changed, Defined, FieldEdit,
    RawEdits, Shown, TicketScope,
};

use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::comments::can_read_internal;
use chrono::{DateTime, Utc};
use entity::custom_field;
use entity::ticket;
use entity::values::{FieldKind, StatusCategory};

/// Longest key, in characters.
pub const MAX_KEY_CHARS: usize = 50;
/// Most choices of one field.
pub const MAX_CHOICES: usize = 200;
/// Longest choice, in characters.
pub const MAX_CHOICE_CHARS: usize = 100;
/// Most field values set in one request.
pub const MAX_EDITS: usize = 100;

/// A field's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Id.
    pub id: i32,
    /// The name clients use.
    pub key: String,
    /// What people read.
    pub label: String,
    /// The type of its values.
    pub kind: FieldKind,
    /// The project whose tickets carry it; none: every ticket.
    pub project_id: Option<i32>,
    /// The allowed values of choice fields.
    pub choices: Vec<String>,
    /// From which status category on a value is required; none: never.
    pub required_from: Option<StatusCategory>,
    /// Seen and set by the team only.
    pub team_only: bool,
    /// Order among the fields.
    pub position: i32,
    /// When it was archived.
    pub archived_at: Option<DateTime<Utc>>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
}

impl Field {
    fn of(m: custom_field::Model) -> AppResult<Field> {
        let choices: Vec<String> = serde_json::from_str(&m.choices).map_err(AppError::internal)?;
        Ok(Field {
            id: m.id,
            key: m.key,
            label: m.label,
            kind: m.kind,
            project_id: m.project_id,
            choices,
            required_from: m.required_from,
            team_only: m.team_only,
            position: m.position,
            archived_at: m.archived_at,
            created_at: m.created_at,
        })
    }

    /// Whether ticket `t` carries this (active) field: it is every ticket's, or `t`'s project's.
    pub fn applies_to(&self, project_id: Option<i32>) -> bool {
        self.archived_at.is_none() && self.project_id.is_none_or(|p| project_id == Some(p))
    }

    /// Whether the actor may read and set this field on ticket `t` (one they can see).
    pub fn readable(&self, actor: &Actor, t: &ticket::Model) -> bool {
        !self.team_only || can_read_internal(actor, t)
    }

    /// The error key naming this field in a write.
    fn input_name(&self) -> String {
        format!("custom_fields.{}", self.key)
    }
}

/// Order of the status categories: a field required from one is required in the later ones too.
fn rank(c: StatusCategory) -> u8 {
    match c {
        StatusCategory::Todo => 0,
        StatusCategory::InProgress => 1,
        StatusCategory::Done => 2,
    }
}
