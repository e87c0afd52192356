//! Tickets read together with the users and project they name, in one statement: the list page and the
//! detail show them on every ticket, and a second and third round trip per request cost more than the join.
use crate::error::AppResult;
use crate::service::PageRequest;
use entity::{project, ticket, user};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, IntoIden, JoinType};
use sea_orm::{
    ConnectionTrait, DbErr, EntityTrait, FromQueryResult, Iterable, QueryResult, QuerySelect,
    QueryTrait, Select,
};
use std::collections::HashMap;

/// Table alias and column prefix of each joined record.
const REQUESTER: (&str, &str) = ("rq", "rq_");
const ASSIGNEE: (&str, &str) = ("asg", "asg_");
const PROJECT: (&str, &str) = ("prj", "prj_");

/// Tickets with the requesters, assignees and projects they name, by id.
#[derive(Debug, Default)]
pub struct TicketsWithRefs {
    /// The tickets, in the order of the query.
    pub tickets: Vec<ticket::Model>,
    /// Requesters and assignees.
    pub people: HashMap<i32, user::Model>,
    /// Projects (archived ones included: tickets keep their project).
    pub projects: HashMap<i32, project::Model>,
    /// The total selected beside the rows, when one was asked for and a row came back to carry it.
    pub total: Option<u64>,
}

struct Row {
    ticket: ticket::Model,
    requester: Option<user::Model>,
    assignee: Option<user::Model>,
    project: Option<project::Model>,
    total: Option<i64>,
}

/// The column the total is selected as.
const TOTAL: &str = "total_count";

/// The joined record under `alias`, or `None` when the LEFT JOIN found nothing.
fn joined<M: FromQueryResult>(
    res: &QueryResult,
    (_, pre): (&str, &str),
) -> Result<Option<M>, DbErr> {
    // Asking the key column first spares decoding (and failing on) every NULL column of a missing row.
    if res.try_get::<Option<i32>>(pre, "id")?.is_none() {
        return Ok(None);
    }
    M::from_query_result(res, pre).map(Some)
}

impl FromQueryResult for Row {
    fn from_query_result(res: &QueryResult, pre: &str) -> Result<Self, DbErr> {
        Ok(Row {
            ticket: ticket::Model::from_query_result(res, pre)?,
            requester: joined(res, REQUESTER)?,
            assignee: joined(res, ASSIGNEE)?,
            project: joined(res, PROJECT)?,
            // Only selected when asked for; absent otherwise.
            total: res.try_get::<Option<i64>>("", TOTAL).ok().flatten(),
        })
    }
}

/// Join `E` as `alias` on `alias.id = tickets.<on>` and select all its columns as `<alias>_<column>`.
fn join_all<E: EntityTrait>(
    mut select: Select<ticket::Entity>,
    (alias, pre): (&str, &str),
    on: ticket::Column,
) -> Select<ticket::Entity> {
    let table = Alias::new(alias).into_iden();
    QueryTrait::query(&mut select).join_as(
        JoinType::LeftJoin,
        E::default(),
        table.clone(),
        Expr::col((table.clone(), Alias::new("id"))).equals((ticket::Entity, on)),
    );
    for column in E::Column::iter() {
        let name = sea_orm::IdenStatic::as_str(&column).to_string();
        select = select.column_as(
            Expr::col((table.clone(), Alias::new(name.as_str()))),
            format!("{pre}{name}"),
        );
    }
    select
}

/// Run a ticket query, reading the requester, assignee and project of every row in the same statement.
/// With `page`, only that page of the query's rows; with `total`, that expression is selected beside them.
pub async fn fetch(
    db: &impl ConnectionTrait,
    select: Select<ticket::Entity>,
    page: Option<PageRequest>,
    total: Option<Expr>,
) -> AppResult<TicketsWithRefs> {
    let select = match total {
        Some(total) => select.expr_as(total, TOTAL),
        None => select,
    };
    let select = join_all::<user::Entity>(select, REQUESTER, ticket::Column::RequesterId);
    let select = join_all::<user::Entity>(select, ASSIGNEE, ticket::Column::AssigneeId);
    let select = join_all::<project::Entity>(select, PROJECT, ticket::Column::ProjectId);
    let rows = match page {
        Some(page) => {
            Row::find_by_statement(page.statement(select, db.get_database_backend()))
                .all(db)
                .await?
        }
        None => select.into_model::<Row>().all(db).await?,
    };
    let mut out = TicketsWithRefs {
        tickets: Vec::with_capacity(rows.len()),
        ..TicketsWithRefs::default()
    };
    for row in rows {
        for person in [row.requester, row.assignee].into_iter().flatten() {
            out.people.insert(person.id, person);
        }
        if let Some(total) = row.total {
            out.total = Some(u64::try_from(total).unwrap_or(0));
        }
        if let Some(project) = row.project {
            out.projects.insert(project.id, project);
        }
        out.tickets.push(row.ticket);
    }
    Ok(out)
}
