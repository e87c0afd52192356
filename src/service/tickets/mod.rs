//! Tickets: reading (one, lists with filters and counts) here; changes in `write`; permissions in `rules`.
pub mod counts;
mod joined;
pub mod rules;
pub mod totals;
pub mod write;

pub use joined::{CommentCounts, Joined, People, TicketsWithRefs};
pub use write::{archive, change_status, create, restore, update, NewTicket, TicketPatch};

use crate::auth::Actor;
use crate::db::Db;
use crate::domain::{parse_ticket_number, Priority, StatusCategory, TicketStatus};
use crate::error::{AppError, AppResult};
use crate::service::sla::{self, SlaState};
use crate::service::{text, users, PageRequest};
use entity::ticket;
use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, FromQueryResult, Order, QueryFilter,
    QueryOrder, Select,
};

/// Which assignee a list is restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, Default)]
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
}

impl TicketFilter {
    /// The search text follows the control-character rule of every text field.
    fn check(&self) -> AppResult<()> {
        text::single_line("query", self.query.as_deref().unwrap_or(""))
    }
}

/// Sort key of ticket lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
}

/// Ordering of ticket lists; ties break on id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A ticket the actor may see and that is not archived (404 otherwise).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    let found = ticket::Entity::find_by_id(id).one(db).await?;
    match found {
        Some(t) if t.archived_at.is_none() && rules::can_see(actor, &t) => Ok(t),
        _ => Err(AppError::not_found("ticket")),
    }
}

/// Like [`get`], with what `joined` names of the ticket (people, project, comment counts) read in the
/// same statement (in the second value's maps; its ticket list is left empty).
pub async fn get_with_refs(
    db: &Db,
    actor: &Actor,
    id: i32,
    joined: Joined,
) -> AppResult<(ticket::Model, TicketsWithRefs)> {
    let mut found = joined::fetch_by_id(db, id, joined).await?;
    match found.tickets.pop() {
        Some(t) if t.archived_at.is_none() && rules::can_see(actor, &t) => {
            Ok((t, seen_by(actor, found)))
        }
        _ => Err(AppError::not_found("ticket")),
    }
}

/// `found` with its people as the actor may see them (they are named by tickets the actor can see).
fn seen_by(actor: &Actor, mut found: TicketsWithRefs) -> TicketsWithRefs {
    found.people = std::mem::take(&mut found.people)
        .into_iter()
        .map(|(id, u)| (id, users::seen_by(actor, u)))
        .collect();
    found
}

/// Look a ticket up by its number in any spelling (`TKT-042`, `tkt-42`, `42`).
pub async fn get_by_number(
    db: &impl ConnectionTrait,
    actor: &Actor,
    number: &str,
    prefix: &str,
) -> AppResult<ticket::Model> {
    let n = parse_ticket_number(number, prefix).ok_or_else(|| AppError::not_found("ticket"))?;
    let found = ticket::Entity::find()
        .filter(ticket::Column::Number.eq(n))
        .one(db)
        .await?;
    match found {
        Some(t) if t.archived_at.is_none() && rules::can_see(actor, &t) => Ok(t),
        _ => Err(AppError::not_found("ticket")),
    }
}

/// Like [`get`], but also returns archived tickets to team members (for restore).
pub async fn get_including_archived(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i32,
) -> AppResult<ticket::Model> {
    let found = ticket::Entity::find_by_id(id).one(db).await?;
    match found {
        Some(t) if t.archived_at.is_none() && rules::can_see(actor, &t) => Ok(t),
        Some(t) if t.archived_at.is_some() && rules::can_archive(actor) => Ok(t),
        _ => Err(AppError::not_found("ticket")),
    }
}

/// The visible, non-archived tickets matching `filter`, as a query to page through.
pub fn visible_query(actor: &Actor, filter: &TicketFilter, prefix: &str) -> Select<ticket::Entity> {
    let mut select = ticket::Entity::find()
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::visible_to(actor));
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
        Some(AssigneeFilter::Me) => select.filter(ticket::Column::AssigneeId.eq(actor.id())),
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
        select = select.filter(ticket::Column::AssignedGroupId.is_in(actor.group_ids()));
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
    };
    select
        .order_by(column, direction.clone())
        .order_by(ticket::Column::Id, direction)
}

/// One page of visible tickets, with the total when asked for.
pub async fn list(
    db: &Db,
    actor: &Actor,
    filter: &TicketFilter,
    order: TicketOrder,
    page: PageRequest,
    prefix: &str,
) -> AppResult<(Vec<ticket::Model>, Option<u64>)> {
    filter.check()?;
    let total = if page.with_total {
        Some(totals::total(db, actor, filter, prefix).await?)
    } else {
        None
    };
    let select = ordered(visible_query(actor, filter, prefix), order);
    let items = ticket::Model::find_by_statement(page.statement(select, db.backend()))
        .all(&db.conn)
        .await?;
    Ok((items, total))
}

/// Like [`list`], with what `joined` names of every ticket (people, project, comment counts) and the
/// total when asked for, read in the same statement.
pub async fn list_with_refs(
    db: &Db,
    actor: &Actor,
    filter: &TicketFilter,
    order: TicketOrder,
    page: PageRequest,
    prefix: &str,
    joined: Joined,
) -> AppResult<(TicketsWithRefs, Option<u64>)> {
    filter.check()?;
    let total = page
        .with_total
        .then(|| totals::Total::new(&db.remembered, actor, filter, prefix));
    let backend = db.backend();
    // Everything the statement is built from, values included (`filter` and the actor's visibility whole).
    let key = format!(
        "{backend:?}|{}|{}|{:?}|{prefix}|{filter:?}|{order:?}|{page:?}|{joined:?}|{:?}",
        actor.is_team(),
        actor.id(),
        actor.group_ids(),
        total.as_ref().map(totals::Total::shape),
    );
    let statement = joined::remembered(key, || {
        let select = ordered(visible_query(actor, filter, prefix), order);
        joined::statement(select, Some(page), joined, total.as_ref(), backend)
    });
    let found = seen_by(
        actor,
        joined::read(db, statement, joined, total.as_ref()).await?,
    );
    let total = match (total, found.total) {
        (None, _) => None,
        (Some(_), Some(n)) => Some(n),
        // No row came back to carry it: an empty first page means there is nothing at all,
        // a page past the end has to ask.
        (Some(_), None) if page.offset == 0 && page.limit > 0 => Some(0),
        (Some(total), None) => Some(total.fetch(&db.conn).await?),
    };
    Ok((found, total))
}

/// How many visible, non-archived tickets match `filter` (for connection totals and backward paging).
pub async fn count(db: &Db, actor: &Actor, filter: &TicketFilter, prefix: &str) -> AppResult<u64> {
    filter.check()?;
    totals::total(db, actor, filter, prefix).await
}
