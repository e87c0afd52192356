//! What a ticket list asks for: filters, their SQL, and the order.
use crate::domain::{parse_ticket_number, Priority, StatusCategory, TicketStatus, Workflow};
use crate::error::AppResult;
use crate::service::sla::{self, SlaState};
use crate::service::tickets::rules::{self, Viewer};
use crate::service::{custom_fields, tags, text};
use entity::ticket;
use sea_orm::sea_query::{
    Alias, Expr, ExprTrait, Func, IntoIden, JoinType, LikeExpr, SimpleExpr, TableRef,
};
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, Order, QueryFilter, QueryOrder, QueryTrait, Select,
};

/// Which assignee a list is restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AssigneeFilter {
    /// Assigned to the caller.
    Me,
    /// Assigned to anyone.
    Any,
    /// Unassigned.
    Nobody,
    /// Assigned to this user id.
    User(i32),
}

/// Filters for ticket lists; every field narrows the result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TicketFilter {
    /// Text in title or description, or a ticket number in any spelling.
    pub query: Option<String>,
    /// Any of these statuses.
    pub statuses: Vec<TicketStatus>,
    /// Any of these priorities.
    pub priorities: Vec<Priority>,
    /// Status category.
    pub status_category: Option<StatusCategory>,
    /// Assignee restriction.
    pub assignee: Option<AssigneeFilter>,
    /// Requester id.
    pub requester_id: Option<i32>,
    /// Project id.
    pub project_id: Option<i32>,
    /// SLA state.
    pub sla: Option<SlaState>,
    /// Only tickets assigned to one of the caller's groups.
    pub in_my_groups: bool,
    /// Only tickets carrying every one of these tags (normalised names; the team's filter).
    pub tags_all: Vec<String>,
    /// Only tickets carrying at least one of these tags.
    pub tags_any: Vec<String>,
    /// Conditions on custom fields, checked against the viewer (`custom_fields::resolve_filters`).
    pub fields: Vec<custom_fields::FieldCondition>,
}

impl TicketFilter {
    /// The search text follows the control-character rule of every text field.
    /// Tags are the team's: a requester's tag filter is refused.
    pub(super) fn check(&self, viewer: &Viewer) -> AppResult<()> {
        text::single_line("query", self.query.as_deref().unwrap_or(""))?;
        tags::check_filter(viewer.team, &self.tags_all)?;
        tags::check_filter(viewer.team, &self.tags_any)
    }
}

/// Sort key of ticket lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TicketSort {
    /// Creation time (default).
    #[default]
    CreatedAt,
    /// Last change.
    UpdatedAt,
    /// Due date.
    DueDate,
    /// Ticket number.
    Number,
    /// The next SLA due time (tickets without a running clock last, either way).
    SlaDue,
    /// A custom field's value (tickets without one last, either way), checked by
    /// `custom_fields::sort_by`.
    Field(custom_fields::FieldSort),
}

/// Ordering of ticket lists; ties break on id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TicketOrder {
    /// Key.
    pub sort: TicketSort,
    /// Descending when true.
    pub descending: bool,
}

impl Default for TicketOrder {
    fn default() -> Self {
        TicketOrder {
            sort: TicketSort::CreatedAt,
            descending: true,
        }
    }
}

/// The visible, non-archived tickets matching `filter`, as a query to page through.
pub fn visible_query(
    viewer: &Viewer,
    filter: &TicketFilter,
    prefix: &str,
) -> Select<ticket::Entity> {
    let mut select = ticket::Entity::find()
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::visible_to_viewer(viewer));
    if let Some(q) = filter
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
    {
        select = select.filter(text_condition(q, prefix));
    }
    if !filter.statuses.is_empty() {
        select =
            select.filter(ticket::Column::Status.is_in(filter.statuses.iter().map(|s| s.as_str())));
    }
    if let Some(category) = filter.status_category {
        let statuses = TicketStatus::ALL
            .iter()
            .filter(|s| s.category() == category)
            .map(|s| s.as_str());
        select = select.filter(ticket::Column::Status.is_in(statuses));
    }
    if !filter.priorities.is_empty() {
        select = select
            .filter(ticket::Column::Priority.is_in(filter.priorities.iter().map(|p| p.as_str())));
    }
    select = match filter.assignee {
        None => select,
        Some(AssigneeFilter::Me) => select.filter(ticket::Column::AssigneeId.eq(viewer.id)),
        Some(AssigneeFilter::Any) => select.filter(ticket::Column::AssigneeId.is_not_null()),
        Some(AssigneeFilter::Nobody) => select.filter(ticket::Column::AssigneeId.is_null()),
        Some(AssigneeFilter::User(id)) => select.filter(ticket::Column::AssigneeId.eq(id)),
    };
    if let Some(id) = filter.requester_id {
        select = select.filter(ticket::Column::RequesterId.eq(id));
    }
    if let Some(id) = filter.project_id {
        select = select.filter(ticket::Column::ProjectId.eq(id));
    }
    if filter.in_my_groups {
        select =
            select.filter(ticket::Column::AssignedGroupId.is_in(viewer.groups.iter().copied()));
    }
    for name in &filter.tags_all {
        let one = std::slice::from_ref(name);
        select = select.filter(
            Expr::col((ticket::Entity, ticket::Column::Id))
                .in_subquery(tags::tickets_tagged_any(one)),
        );
    }
    if !filter.tags_any.is_empty() {
        select = select.filter(
            Expr::col((ticket::Entity, ticket::Column::Id))
                .in_subquery(tags::tickets_tagged_any(&filter.tags_any)),
        );
    }
    for c in &filter.fields {
        select = select.filter(custom_fields::condition(c));
    }
    if let Some(state) = filter.sla {
        select = select.filter(
            Expr::col((ticket::Entity, ticket::Column::Id)).in_subquery(sla::tickets_in(state)),
        );
    }
    select
}

fn text_condition(q: &str, prefix: &str) -> Condition {
    let escaped = q
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let pattern = format!("%{escaped}%");
    let like = |col: ticket::Column| {
        Expr::expr(Func::lower(Expr::col((ticket::Entity, col))))
            .like(LikeExpr::new(pattern.clone()).escape('\\'))
    };
    let mut any = Condition::any()
        .add(like(ticket::Column::Title))
        .add(like(ticket::Column::Description));
    if let Some(number) = parse_ticket_number(q, prefix) {
        any = any.add(ticket::Column::Number.eq(number));
    }
    any
}

/// The alias of the rows a created-order page walks.
const WALK: &str = "walk";

/// A condition of the filter that a page in creation order reads by walking, newest first (or oldest), the
/// rows that make it hold: a custom field's value, a multiple choice's pick or a tag, each of which carries
/// its ticket's creation time in an index after the value. Without it a filter holding for one ticket in
/// eight walks every ticket in order and probes each for the value. The walk is an inner join (one row per
/// ticket at most: each table's key holds the value); the rest of the filter applies as it would.
struct Walk {
    table: TableRef,
    held: SimpleExpr,
}

impl Walk {
    /// The first condition of `filter` that can be walked (a field equality, else a tag), and the filter
    /// left to apply beside it.
    fn of(filter: &TicketFilter) -> Option<(Walk, TicketFilter)> {
        let alias = Alias::new(WALK).into_iden();
        let mut rest = filter.clone();
        let field = filter
            .fields
            .iter()
            .enumerate()
            .find_map(|(at, c)| custom_fields::walk(c, &alias).map(|w| (at, w)));
        let (table, held) = match field {
            Some((at, (table, held, whole))) => {
                if whole {
                    rest.fields.remove(at);
                }
                (table, held)
            }
            None => match (filter.tags_all.first(), filter.tags_any.as_slice()) {
                (Some(name), _) => {
                    rest.tags_all.remove(0);
                    tags::walk(name, &alias)
                }
                (None, [name]) => {
                    rest.tags_any.clear();
                    tags::walk(name, &alias)
                }
                _ => return None,
            },
        };
        Some((Walk { table, held }, rest))
    }
}

/// The visible tickets matching `filter` in `order`, as a page's query: [`ordered`] [`visible_query`], or,
/// in creation order, walking one of the filter's conditions when one can be walked ([`Walk`]).
pub fn page_query(
    viewer: &Viewer,
    filter: &TicketFilter,
    order: TicketOrder,
    prefix: &str,
) -> Select<ticket::Entity> {
    let walk = match order.sort {
        TicketSort::CreatedAt => Walk::of(filter),
        _ => None,
    };
    let Some((walk, rest)) = walk else {
        return ordered(visible_query(viewer, filter, prefix), order);
    };
    let mut select = visible_query(viewer, &rest, prefix);
    let alias = Alias::new(WALK).into_iden();
    let on = Expr::col((alias.clone(), Alias::new("ticket_id")))
        .equals((ticket::Entity, ticket::Column::Id))
        .and(walk.held);
    QueryTrait::query(&mut select).join_as(JoinType::InnerJoin, walk.table, alias.clone(), on);
    let direction = if order.descending {
        Order::Desc
    } else {
        Order::Asc
    };
    select
        .order_by(
            Expr::col((alias.clone(), Alias::new("ticket_created_at"))),
            direction.clone(),
        )
        .order_by(Expr::col((alias, Alias::new("ticket_id"))), direction)
}

/// Apply an ordering to a ticket query.
pub fn ordered(select: Select<ticket::Entity>, order: TicketOrder) -> Select<ticket::Entity> {
    let direction = if order.descending {
        Order::Desc
    } else {
        Order::Asc
    };
    let column = match order.sort {
        TicketSort::CreatedAt => ticket::Column::CreatedAt,
        TicketSort::UpdatedAt => ticket::Column::UpdatedAt,
        TicketSort::DueDate => ticket::Column::DueDate,
        TicketSort::Number => ticket::Column::Number,
        TicketSort::SlaDue => {
            // NULLs sort differently on the two databases: order on "has none" first.
            return select
                .order_by(sla::due_at_of_ticket().is_null(), Order::Asc)
                .order_by(sla::due_at_of_ticket(), direction.clone())
                .order_by(ticket::Column::Id, direction);
        }
        TicketSort::Field(sort) => {
            return select
                .order_by(custom_fields::sort_value(sort).is_null(), Order::Asc)
                .order_by(custom_fields::sort_value(sort), direction.clone())
                .order_by(ticket::Column::Id, direction);
        }
    };
    select
        .order_by(column, direction.clone())
        .order_by(ticket::Column::Id, direction)
}
