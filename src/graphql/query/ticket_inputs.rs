//! The `tickets` connection's filter and ordering inputs, and how each becomes the service's.
use crate::auth::Actor;
use crate::domain::{Priority, StatusCategory, TicketStatus};
use crate::error::AppError;
use crate::graphql::ids;
use crate::service::custom_fields::{self, FieldFilterInput, FieldOp};
use crate::service::sla::SlaState;
use crate::service::tags;
use crate::service::tickets::{self, AssigneeFilter as ServiceAssignee, TicketSort};
use async_graphql::{Enum, InputObject, Json, ID};
use sea_orm::ConnectionTrait;

/// Whose tickets, by assignee.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum AssigneeFilter {
    /// Assigned to the viewer.
    Me,
    /// Assigned to anyone.
    Any,
    /// Unassigned.
    None,
}

/// Narrows a ticket list; every field given must match.
#[derive(InputObject, Default)]
pub struct TicketFilter {
    /// Text in title or description, or a ticket number in any spelling.
    query: Option<String>,
    /// Any of these statuses.
    status: Option<Vec<TicketStatus>>,
    /// Any of these priorities.
    priority: Option<Vec<Priority>>,
    /// Assigned to me, to anyone, or to nobody.
    assignee: Option<AssigneeFilter>,
    /// Assigned to this user.
    assignee_id: Option<ID>,
    /// Raised by this user.
    requester_id: Option<ID>,
    /// In this project.
    project_id: Option<ID>,
    /// Status category.
    status_category: Option<StatusCategory>,
    /// Service-level state.
    sla: Option<SlaFilter>,
    /// By tag (the team's filter: refused for requesters).
    tags: Option<TagFilter>,
    /// By custom fields, every condition met (team-only fields: the team's filter).
    fields: Option<Vec<FieldFilter>>,
}

/// A condition on a custom field: give exactly one of `is`, `atLeast`, `atMost` and `isSet`. Values are
/// written as `TicketField` values read (a multiple-choice `is` takes a list: the ticket holds each).
#[derive(InputObject)]
pub struct FieldFilter {
    /// The field's key.
    key: String,
    /// Equal to.
    is: Option<Json<serde_json::Value>>,
    /// At least (numbers, dates and moments).
    at_least: Option<Json<serde_json::Value>>,
    /// At most (numbers, dates and moments).
    at_most: Option<Json<serde_json::Value>>,
    /// Has a value (true) or none (false).
    is_set: Option<bool>,
}

impl FieldFilter {
    fn into_service(self) -> Result<FieldFilterInput, AppError> {
        let mut given = [
            self.is.map(|v| (FieldOp::Is, v.0)),
            self.at_least.map(|v| (FieldOp::AtLeast, v.0)),
            self.at_most.map(|v| (FieldOp::AtMost, v.0)),
            self.is_set
                .map(|b| (FieldOp::Set, serde_json::Value::Bool(b))),
        ]
        .into_iter()
        .flatten();
        match (given.next(), given.next()) {
            (Some((op, value)), None) => Ok(FieldFilterInput {
                key: self.key,
                op,
                value,
            }),
            _ => Err(AppError::field(
                &format!("fields.{}", self.key),
                "give exactly one of is, atLeast, atMost and isSet",
            )),
        }
    }
}

/// Tickets by their tags; names are normalised as tags are (trimmed, lowercase).
#[derive(InputObject, Default)]
pub struct TagFilter {
    /// Carrying at least one of these.
    any: Option<Vec<String>>,
    /// Carrying every one of these.
    all: Option<Vec<String>>,
}

/// Tickets by the state of their service-level clock.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum SlaFilter {
    /// A first-response or resolution target was breached.
    Breached,
    /// A running target has used 80 % of its time and is not breached yet.
    AtRisk,
    /// A target is running (the clock has a due time).
    Running,
}

impl From<SlaFilter> for SlaState {
    fn from(f: SlaFilter) -> SlaState {
        match f {
            SlaFilter::Breached => SlaState::Breached,
            SlaFilter::AtRisk => SlaState::AtRisk,
            SlaFilter::Running => SlaState::Running,
        }
    }
}

impl TicketFilter {
    /// The service's filter, its field conditions checked against what the actor may filter on.
    pub(crate) async fn into_service(
        self,
        db: &impl ConnectionTrait,
        known: &custom_fields::KnownFields,
        actor: &Actor,
    ) -> Result<tickets::TicketFilter, AppError> {
        let fields: Vec<FieldFilterInput> = self
            .fields
            .unwrap_or_default()
            .into_iter()
            .map(FieldFilter::into_service)
            .collect::<Result<_, _>>()?;
        let fields = if fields.is_empty() {
            Vec::new()
        } else {
            custom_fields::resolve_filters(actor, &*known.active(db).await?, &fields)?
        };
        if self.assignee.is_some() && self.assignee_id.is_some() {
            return Err(AppError::field(
                "assigneeId",
                "give either assignee or assigneeId",
            ));
        }
        let assignee = match (self.assignee, self.assignee_id) {
            (Some(AssigneeFilter::Me), _) => Some(ServiceAssignee::Me),
            (Some(AssigneeFilter::Any), _) => Some(ServiceAssignee::Any),
            (Some(AssigneeFilter::None), _) => Some(ServiceAssignee::Nobody),
            (None, Some(id)) => Some(ServiceAssignee::User(ids::decode(
                &id,
                "User",
                "assigneeId",
            )?)),
            (None, None) => None,
        };
        let tags = self.tags.unwrap_or_default();
        Ok(tickets::TicketFilter {
            query: self.query,
            statuses: self.status.unwrap_or_default(),
            priorities: self.priority.unwrap_or_default(),
            status_category: self.status_category,
            assignee,
            requester_id: ids::decode_opt(self.requester_id.as_ref(), "User", "requesterId")?,
            project_id: ids::decode_opt(self.project_id.as_ref(), "Project", "projectId")?,
            sla: self.sla.map(Into::into),
            in_my_groups: false,
            tags_all: tags::normalise_all("tags.all", &tags.all.unwrap_or_default())?,
            tags_any: tags::normalise_all("tags.any", &tags.any.unwrap_or_default())?,
            fields,
        })
    }
}

/// Sort keys of ticket lists.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TicketOrderField {
    /// Creation time.
    CreatedAt,
    /// Last change.
    UpdatedAt,
    /// Due date.
    DueDate,
    /// Ticket number.
    Number,
    /// The next SLA due time (tickets without a running clock come last in either direction).
    SlaDueAt,
    /// The value of the custom field `fieldKey` (tickets without one come last in either direction; not long
    /// text or multiple choices).
    CustomField,
}

/// Sort direction.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum OrderDirection {
    /// Ascending.
    Asc,
    /// Descending.
    Desc,
}

/// Ordering of ticket lists (default: newest first).
#[derive(InputObject)]
pub struct TicketOrder {
    /// Key.
    field: TicketOrderField,
    /// Direction.
    direction: OrderDirection,
    /// The custom field's key, with `field: CUSTOM_FIELD`.
    field_key: Option<String>,
}

impl TicketOrder {
    /// The service's order; a custom field is checked against what the actor may filter on.
    pub(crate) async fn into_service(
        self,
        db: &impl ConnectionTrait,
        known: &custom_fields::KnownFields,
        actor: &Actor,
    ) -> Result<tickets::TicketOrder, AppError> {
        let sort = match (self.field, self.field_key) {
            (TicketOrderField::CustomField, Some(key)) => TicketSort::Field(
                custom_fields::sort_by(actor, &*known.active(db).await?, &key).map_err(|_| {
                    AppError::field("fieldKey", format!("no field {key:?} orders a list"))
                })?,
            ),
            (TicketOrderField::CustomField, None) | (_, Some(_)) => {
                return Err(AppError::field(
                    "fieldKey",
                    "give fieldKey with CUSTOM_FIELD, and only then",
                ))
            }
            (TicketOrderField::CreatedAt, None) => TicketSort::CreatedAt,
            (TicketOrderField::UpdatedAt, None) => TicketSort::UpdatedAt,
            (TicketOrderField::DueDate, None) => TicketSort::DueDate,
            (TicketOrderField::Number, None) => TicketSort::Number,
            (TicketOrderField::SlaDueAt, None) => TicketSort::SlaDue,
        };
        Ok(tickets::TicketOrder {
            sort,
            descending: self.direction == OrderDirection::Desc,
        })
    }
}
