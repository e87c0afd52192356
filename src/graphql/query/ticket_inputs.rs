//! The `tickets` connection's filter and ordering inputs, and how each becomes the service's.
use crate::domain::{Priority, StatusCategory, TicketStatus};
use crate::error::AppError;
use crate::graphql::ids;
use crate::service::sla::SlaState;
use crate::service::tags;
use crate::service::tickets::{self, AssigneeFilter as ServiceAssignee, TicketSort};
use async_graphql::{Enum, InputObject, ID};

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
    pub(crate) fn into_service(self) -> Result<tickets::TicketFilter, AppError> {
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
}

impl From<TicketOrder> for tickets::TicketOrder {
    fn from(order: TicketOrder) -> Self {
        tickets::TicketOrder {
            sort: match order.field {
                TicketOrderField::CreatedAt => TicketSort::CreatedAt,
                TicketOrderField::UpdatedAt => TicketSort::UpdatedAt,
                TicketOrderField::DueDate => TicketSort::DueDate,
                TicketOrderField::Number => TicketSort::Number,
                TicketOrderField::SlaDueAt => TicketSort::SlaDue,
            },
            descending: order.direction == OrderDirection::Desc,
        }
    }
}
