//! Building a ticket read's one statement: the tickets, the people and project they name (LEFT JOINs) and
//! the total beside them, selected in the order the decoder reads them.
use super::total::Total;
use super::{Joined, People};
use crate::service::PageRequest;
use entity::{attachment, project, sla_policy, ticket, ticket_sla, user};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, IntoIden, JoinType, Query};
use sea_orm::{
    DbBackend, EntityTrait, Iterable, QuerySelect, QueryTrait, Select, Statement, Value,
};

/// Table aliases of the joined records.
const REQUESTER: &str = "rq";
const ASSIGNEE: &str = "asg";
const PROJECT: &str = "prj";
const CLOCK: &str = "clk";
const POLICY: &str = "pol";

/// Join `E` as `alias` on `alias.<key> = <to>` and select `columns` of it, in that order.
fn join_on<E: EntityTrait>(
    mut select: Select<ticket::Entity>,
    alias: &str,
    key: &str,
    to: Expr,
    columns: impl IntoIterator<Item = E::Column>,
) -> Select<ticket::Entity> {
    let table = Alias::new(alias).into_iden();
    let query = QueryTrait::query(&mut select);
    query.join_as(
        JoinType::LeftJoin,
        E::default(),
        table.clone(),
        Expr::col((table.clone(), Alias::new(key))).eq(to),
    );
    for column in columns {
        query.expr(Expr::col((table.clone(), column)));
    }
    select
}

/// Join `E` as `alias` on `alias.id = tickets.<on>` and select `columns` of it, in that order.
fn join<E: EntityTrait>(
    select: Select<ticket::Entity>,
    alias: &str,
    on: ticket::Column,
    columns: impl IntoIterator<Item = E::Column>,
) -> Select<ticket::Entity> {
    join_on::<E>(
        select,
        alias,
        "id",
        Expr::col((ticket::Entity, on)),
        columns,
    )
}

/// Join the ticket's clock and the clock's policy, whole.
fn join_clock(select: Select<ticket::Entity>) -> Select<ticket::Entity> {
    let ticket_id = Expr::col((ticket::Entity, ticket::Column::Id));
    let select = join_on::<ticket_sla::Entity>(
        select,
        CLOCK,
        "ticket_id",
        ticket_id,
        ticket_sla::Column::iter(),
    );
    let policy_id = Expr::col((Alias::new(CLOCK), ticket_sla::Column::PolicyId));
    join_on::<sla_policy::Entity>(select, POLICY, "id", policy_id, sla_policy::Column::iter())
}

/// 1 when the ticket has a live attachment, 0 otherwise (an index probe on `attachments.ticket_id`).
fn has_attachments() -> Expr {
    let live = Query::select()
        .expr(Expr::val(1))
        .from(attachment::Entity)
        .and_where(
            Expr::col((attachment::Entity, attachment::Column::TicketId))
                .equals((ticket::Entity, ticket::Column::Id)),
        )
        .and_where(Expr::col((attachment::Entity, attachment::Column::DeletedAt)).is_null())
        .to_owned();
    Expr::case(Expr::exists(live), 1).finally(0).into()
}

/// Join a user as `alias` on `tickets.<on>`, whole or only the username. A whole record comes without
/// its password hash (an empty string in its place): no read of people needs it (`users::seen_by` would
/// blank it anyway), and two hashes per row were a sizeable share of a page's bytes.
fn join_person(
    select: Select<ticket::Entity>,
    alias: &str,
    on: ticket::Column,
    people: People,
) -> Select<ticket::Entity> {
    match people {
        People::Records => {
            let mut select = join::<user::Entity>(select, alias, on, []);
            for column in user::Column::iter() {
                select = match column {
                    user::Column::PasswordHash => select.expr(Expr::cust("''")),
                    column => select.expr(Expr::col((Alias::new(alias), column))),
                };
            }
            select
        }
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
    if joined.sla {
        select = join_clock(select);
    }
    if joined.attachments {
        select = select.expr(has_attachments());
    }
    if joined.tags {
        select = select.expr(crate::service::tags::names_column(backend));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_people_come_without_their_password_hashes() {
        let built = statement(
            ticket::Entity::find(),
            None,
            Joined::REFS,
            None,
            DbBackend::Postgres,
        );
        let sql = built.sql;
        assert!(sql.contains(r#""rq"."username""#), "{sql}");
        assert!(sql.contains(r#""asg"."full_name""#), "{sql}");
        assert!(!sql.contains("password_hash"), "{sql}");
    }
}
