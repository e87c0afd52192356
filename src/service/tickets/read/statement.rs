//! Building a ticket read's one statement: the tickets, the people and project they name (LEFT JOINs) and
//! the total beside them, selected in the order the decoder reads them.
use super::total::Total;
use super::{Joined, People};
use crate::service::PageRequest;
use entity::{project, ticket, user};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, IntoIden, JoinType};
use sea_orm::{
    DbBackend, EntityTrait, Iterable, QuerySelect, QueryTrait, Select, Statement, Value,
};

/// Table aliases of the joined records.
const REQUESTER: &str = "rq";
const ASSIGNEE: &str = "asg";
const PROJECT: &str = "prj";

/// Join `E` as `alias` on `alias.id = tickets.<on>` and select `columns` of it, in that order.
fn join<E: EntityTrait>(
    mut select: Select<ticket::Entity>,
    alias: &str,
    on: ticket::Column,
    columns: impl IntoIterator<Item = E::Column>,
) -> Select<ticket::Entity> {
    let table = Alias::new(alias).into_iden();
    let query = QueryTrait::query(&mut select);
    query.join_as(
        JoinType::LeftJoin,
        E::default(),
        table.clone(),
        Expr::col((table.clone(), Alias::new("id"))).equals((ticket::Entity, on)),
    );
    for column in columns {
        query.expr(Expr::col((table.clone(), column)));
    }
    select
}

/// Join a user as `alias` on `tickets.<on>`, whole or only the username.
fn join_person(
    select: Select<ticket::Entity>,
    alias: &str,
    on: ticket::Column,
    people: People,
) -> Select<ticket::Entity> {
    match people {
        People::Records => join::<user::Entity>(select, alias, on, user::Column::iter()),
        People::Usernames => join::<user::Entity>(select, alias, on, [user::Column::Username]),
    }
}

/// The statement reading `select` with what `joined` names and the `total` columns, in the order
/// [`super::decode::decode`] reads them.
pub(super) fn statement(
    select: Select<ticket::Entity>,
    page: Option<PageRequest>,
    joined: Joined,
    total: Option<&Total>,
    backend: DbBackend,
) -> Statement {
    // Positions are what the decoder reads: the ticket's own columns first, whatever the caller selected.
    let mut select = select.select_only().columns(ticket::Column::iter());
    if let Some(people) = joined.people {
        select = join_person(select, REQUESTER, ticket::Column::RequesterId, people);
        select = join_person(select, ASSIGNEE, ticket::Column::AssigneeId, people);
    }
    if joined.project {
        let columns = project::Column::iter();
        select = join::<project::Entity>(select, PROJECT, ticket::Column::ProjectId, columns);
    }
    if let Some(total) = total {
        for column in total.columns() {
            select = select.expr(column);
        }
    }
    match page {
        Some(page) => page.statement(select, backend),
        None => select.build(backend),
    }
}

/// The statement reading one ticket by id, and the position of the id among its values: a template
/// in which only the id changes from one read to the next.
pub(super) fn by_id(joined: Joined, backend: DbBackend) -> Option<(Statement, usize)> {
    // Built with a marker id, to find which value the id is.
    let marker = i32::MIN;
    let built = statement(
        ticket::Entity::find_by_id(marker),
        None,
        joined,
        None,
        backend,
    );
    let values = built
        .values
        .as_ref()
        .map(|v| v.0.as_slice())
        .unwrap_or_default();
    let at: Vec<usize> = (0..values.len())
        .filter(|&i| values[i] == Value::Int(Some(marker)))
        .collect();
    match at.as_slice() {
        [at] => Some((built, *at)),
        _ => None,
    }
}

/// `template` (from [`by_id`]) for the ticket `id`.
pub(super) fn with_id((mut statement, at): (Statement, usize), id: i32) -> Statement {
    if let Some(value) = statement.values.as_mut().and_then(|v| v.0.get_mut(at)) {
        *value = Value::Int(Some(id));
    }
    statement
}
