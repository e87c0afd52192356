//! Tickets read together with the users and project they name, in one statement: the list page and the
//! detail show them on every ticket, and a second and third round trip per request cost more than the join.
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppResult;
use crate::service::comments::can_read_internal;
use crate::service::PageRequest;
use entity::{comment, project, ticket, user};
use sea_orm::sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, IntoIden, JoinType, Query, SubQueryStatement,
};
use sea_orm::{
    ConnectionTrait, DbErr, EntityTrait, Iterable, QueryResult, QuerySelect, QueryTrait, Select,
};
use std::collections::HashMap;

/// Table aliases of the joined records.
const REQUESTER: &str = "rq";
const ASSIGNEE: &str = "asg";
const PROJECT: &str = "prj";

/// Tickets with the requesters, assignees and projects they name, by id.
#[derive(Debug, Default)]
pub struct TicketsWithRefs {
    /// The tickets, in the order of the query.
    pub tickets: Vec<ticket::Model>,
    /// Requesters and assignees.
    pub people: HashMap<i32, user::Model>,
    /// Projects (archived ones included: tickets keep their project).
    pub projects: HashMap<i32, project::Model>,
    /// Each ticket's live comments, when asked for.
    pub comment_counts: HashMap<i32, CommentCounts>,
    /// The total selected beside the rows, when one was asked for and a row came back to carry it.
    pub total: Option<u64>,
}

/// A ticket's live comments: public ones, and all (internal included).
#[derive(Debug, Clone, Copy, Default)]
pub struct CommentCounts {
    /// Public comments.
    pub public: u64,
    /// Public and internal comments.
    pub all: u64,
}

impl CommentCounts {
    /// How many of them `actor` may read on `t` (internal ones only where the one rule allows).
    pub fn visible_to(&self, actor: &Actor, t: &ticket::Model) -> u64 {
        if can_read_internal(actor, t) {
            self.all
        } else {
            self.public
        }
    }
}

/// A record decoded from consecutive columns by position. Decoding by name costs a formatted,
/// prefixed column name and a hash lookup per value, which was a fifth of the list page's CPU.
trait Positional: Sized {
    /// Field names in declaration order, which must be the entity's column order (a test checks).
    const FIELDS: &'static [&'static str];
    /// Decode from the columns starting at `start`.
    fn at(res: &QueryResult, start: usize) -> Result<Self, DbErr>;
}

fn take(next: &mut usize) -> usize {
    let at = *next;
    *next += 1;
    at
}

macro_rules! positional {
    ($model:ty { $($field:ident),+ $(,)? }) => {
        impl Positional for $model {
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),+];
            fn at(res: &QueryResult, start: usize) -> Result<Self, DbErr> {
                let mut next = start;
                Ok(Self { $($field: res.try_get_by_index(take(&mut next))?),+ })
            }
        }
    };
}

positional!(ticket::Model {
    id,
    number,
    ticket_number,
    title,
    description,
    status,
    priority,
    requester_id,
    assignee_id,
    assigned_group_id,
    project_id,
    due_date,
    created_at,
    updated_at,
    first_responded_at,
    resolved_at,
    closed_at,
    archived_at,
    archived_by_id,
});
positional!(user::Model {
    id,
    username,
    full_name,
    email,
    password_hash,
    is_staff,
    is_superuser,
    is_active,
    created_at,
});
positional!(project::Model {
    id,
    name,
    description,
    created_at,
    updated_at,
    archived_at,
});

const TICKET_AT: usize = 0;
const REQUESTER_AT: usize = TICKET_AT + <ticket::Model as Positional>::FIELDS.len();
const ASSIGNEE_AT: usize = REQUESTER_AT + <user::Model as Positional>::FIELDS.len();
const PROJECT_AT: usize = ASSIGNEE_AT + <user::Model as Positional>::FIELDS.len();
/// Where the optional columns start: the comment counts (two), then the total.
const EXTRAS_AT: usize = PROJECT_AT + <project::Model as Positional>::FIELDS.len();

/// Which optional columns a statement selects.
#[derive(Clone, Copy)]
struct Extras {
    comment_counts: bool,
    total: bool,
}

struct Row {
    ticket: ticket::Model,
    requester: Option<user::Model>,
    assignee: Option<user::Model>,
    project: Option<project::Model>,
    comment_counts: Option<CommentCounts>,
    total: Option<i64>,
}

/// The joined record at `start`, or `None` when the LEFT JOIN found nothing.
fn joined<M: Positional>(res: &QueryResult, start: usize) -> Result<Option<M>, DbErr> {
    // The key column (first) tells a missing row apart without decoding, and failing on, its NULLs.
    if res.try_get_by_index::<Option<i32>>(start)?.is_none() {
        return Ok(None);
    }
    M::at(res, start).map(Some)
}

impl Row {
    fn decode(res: &QueryResult, extras: Extras) -> Result<Self, DbErr> {
        let mut at = EXTRAS_AT;
        let comment_counts = if extras.comment_counts {
            let counts = CommentCounts {
                public: count_at(res, at)?,
                all: count_at(res, at + 1)?,
            };
            at += 2;
            Some(counts)
        } else {
            None
        };
        Ok(Row {
            ticket: ticket::Model::at(res, TICKET_AT)?,
            requester: joined(res, REQUESTER_AT)?,
            assignee: joined(res, ASSIGNEE_AT)?,
            project: joined(res, PROJECT_AT)?,
            comment_counts,
            total: match extras.total {
                true => res.try_get_by_index::<Option<i64>>(at)?,
                false => None,
            },
        })
    }
}

fn count_at(res: &QueryResult, at: usize) -> Result<u64, DbErr> {
    Ok(u64::try_from(res.try_get_by_index::<i64>(at)?).unwrap_or(0))
}

/// `count(*)` of the ticket's live comments, public ones only unless `internal`.
fn comment_count(internal: bool) -> Expr {
    let mut count = Query::select();
    count
        .expr(Func::count(Expr::col(Asterisk)))
        .from(comment::Entity)
        .and_where(
            Expr::col((comment::Entity, comment::Column::TicketId))
                .equals((ticket::Entity, ticket::Column::Id)),
        )
        .and_where(Expr::col((comment::Entity, comment::Column::IsDeleted)).eq(false));
    if !internal {
        count.and_where(
            Expr::col((comment::Entity, comment::Column::CommentType))
                .eq(CommentType::Public.as_str()),
        );
    }
    Expr::SubQuery(None, Box::new(SubQueryStatement::from(count)))
}

/// Join `E` as `alias` on `alias.id = tickets.<on>` and select all its columns, in column order.
fn join_all<E: EntityTrait>(
    mut select: Select<ticket::Entity>,
    alias: &str,
    on: ticket::Column,
) -> Select<ticket::Entity> {
    let table = Alias::new(alias).into_iden();
    let query = QueryTrait::query(&mut select);
    query.join_as(
        JoinType::LeftJoin,
        E::default(),
        table.clone(),
        Expr::col((table.clone(), Alias::new("id"))).equals((ticket::Entity, on)),
    );
    for column in E::Column::iter() {
        query.expr(Expr::col((table.clone(), column)));
    }
    select
}

/// Run a ticket query, reading the requester, assignee and project of every row in the same statement.
/// With `page`, only that page of the query's rows; with `comment_counts`, each ticket's comment counts;
/// with `total`, that expression is selected beside them.
pub async fn fetch(
    db: &impl ConnectionTrait,
    select: Select<ticket::Entity>,
    page: Option<PageRequest>,
    comment_counts: bool,
    total: Option<Expr>,
) -> AppResult<TicketsWithRefs> {
    let extras = Extras {
        comment_counts,
        total: total.is_some(),
    };
    // Positions are what the decoder reads: the ticket's own columns first, whatever the caller selected.
    let select = select.select_only().columns(ticket::Column::iter());
    let select = join_all::<user::Entity>(select, REQUESTER, ticket::Column::RequesterId);
    let select = join_all::<user::Entity>(select, ASSIGNEE, ticket::Column::AssigneeId);
    let mut select = join_all::<project::Entity>(select, PROJECT, ticket::Column::ProjectId);
    if comment_counts {
        select = select.expr(comment_count(false)).expr(comment_count(true));
    }
    if let Some(total) = total {
        select = select.expr(total);
    }
    let backend = db.get_database_backend();
    let statement = match page {
        Some(page) => page.statement(select, backend),
        None => select.build(backend),
    };
    let rows = db.query_all_raw(statement).await?;
    let mut out = TicketsWithRefs {
        tickets: Vec::with_capacity(rows.len()),
        ..TicketsWithRefs::default()
    };
    for res in &rows {
        let row = Row::decode(res, extras)?;
        for person in [row.requester, row.assignee].into_iter().flatten() {
            out.people.insert(person.id, person);
        }
        if let Some(total) = row.total {
            out.total = Some(u64::try_from(total).unwrap_or(0));
        }
        if let Some(project) = row.project {
            out.projects.insert(project.id, project);
        }
        if let Some(counts) = row.comment_counts {
            out.comment_counts.insert(row.ticket.id, counts);
        }
        out.tickets.push(row.ticket);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<C: sea_orm::IdenStatic + Iterable>() -> Vec<&'static str> {
        C::iter().map(|c| c.as_str()).collect()
    }

    #[test]
    fn positional_fields_follow_the_entity_column_order() {
        assert_eq!(
            <ticket::Model as Positional>::FIELDS,
            names::<ticket::Column>()
        );
        assert_eq!(<user::Model as Positional>::FIELDS, names::<user::Column>());
        assert_eq!(
            <project::Model as Positional>::FIELDS,
            names::<project::Column>()
        );
    }
}
