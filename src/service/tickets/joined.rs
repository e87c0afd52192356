//! Tickets read together with the users and project they name, in one statement: the list page and the
//! detail show them on every ticket, and a second and third round trip per request cost more than the join.
use super::totals::Total;
use crate::auth::Actor;
use crate::db::Db;
use crate::error::AppResult;
use crate::service::comments::{can_read_internal, counted};
use crate::service::PageRequest;
use entity::{comment, project, ticket, user};
use moka::sync::Cache;
use sea_orm::sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, IntoIden, JoinType, Query, SubQueryStatement,
};
use sea_orm::sqlx::{self, Row as _};
use sea_orm::{
    DbBackend, DbErr, EntityTrait, Iterable, QueryResult, QuerySelect, QueryTrait, Select,
    Statement, TryGetable, Value,
};
use std::sync::{LazyLock, RwLock};

/// Table aliases of the joined records.
const REQUESTER: &str = "rq";
const ASSIGNEE: &str = "asg";
const PROJECT: &str = "prj";
const COUNTS: &str = "cc";

/// Tickets with the requesters, assignees and projects they name, by id.
#[derive(Debug, Default)]
pub struct TicketsWithRefs {
    /// The tickets, in the order of the query.
    pub tickets: Vec<ticket::Model>,
    /// Requesters and assignees, when read whole ([`People::Records`]).
    pub people: crate::FastMap<i32, user::Model>,
    /// Usernames of requesters and assignees, when only those were read ([`People::Usernames`]).
    pub usernames: crate::FastMap<i32, String>,
    /// Projects (archived ones included: tickets keep their project).
    pub projects: crate::FastMap<i32, project::Model>,
    /// Each ticket's live comments, when asked for.
    pub comment_counts: crate::FastMap<i32, CommentCounts>,
    /// The total selected beside the rows, when one was asked for and a row came back to carry it.
    pub total: Option<u64>,
}

/// What a joined read brings besides the tickets: only what the caller shows, since every value
/// costs decoding (the REST list page shows two usernames of the 30 columns of people and project).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Joined {
    /// How much of the requesters and assignees.
    pub people: People,
    /// The tickets' projects.
    pub project: bool,
    /// Each ticket's comment counts.
    pub comment_counts: bool,
}

/// How much of the requesters and assignees a joined read brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum People {
    /// Whole user records, in [`TicketsWithRefs::people`].
    Records,
    /// Usernames only, in [`TicketsWithRefs::usernames`].
    Usernames,
}

impl Joined {
    /// People and project, whole.
    pub const REFS: Joined = Joined {
        people: People::Records,
        project: true,
        comment_counts: false,
    };
    /// Usernames of requester and assignee only.
    pub const USERNAMES: Joined = Joined {
        people: People::Usernames,
        project: false,
        comment_counts: false,
    };

    /// The same, with comment counts when `counts`.
    pub fn with_comment_counts(self, counts: bool) -> Joined {
        Joined {
            comment_counts: counts,
            ..self
        }
    }
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
        self.counted(can_read_internal(actor, t))
    }

    /// All of them with `with_internal`, otherwise the public ones.
    pub fn counted(&self, with_internal: bool) -> u64 {
        if with_internal {
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

/// One column value by position. On PostgreSQL it is read straight from the row without sqlx's per-value
/// type check (the column types are the migrations' own, and the decoding tests run on PostgreSQL) and
/// without SeaORM's formatted error for every NULL, together a third of a joined page's decoding;
/// elsewhere it goes through SeaORM.
trait Cell: Sized {
    fn cell(res: &QueryResult, at: usize) -> Result<Self, DbErr>;
}

impl<T> Cell for T
where
    T: TryGetable + for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    fn cell(res: &QueryResult, at: usize) -> Result<Self, DbErr> {
        match res.try_as_pg_row() {
            Some(row) => row
                .try_get_unchecked::<T, usize>(at)
                .map_err(|e| DbErr::Type(format!("column {at}: {e}"))),
            None => res.try_get_by_index(at),
        }
    }
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
                Ok(Self { $($field: Cell::cell(res, take(&mut next))?),+ })
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

const TICKET_WIDTH: usize = <ticket::Model as Positional>::FIELDS.len();
const USER_WIDTH: usize = <user::Model as Positional>::FIELDS.len();

/// Which optional columns a statement selects.
#[derive(Clone, Copy)]
struct Extras {
    joined: Joined,
    /// How many total columns follow.
    total: usize,
}

/// A requester or assignee as read.
enum Person {
    Record(user::Model),
    Username(String),
}

struct Row {
    ticket: ticket::Model,
    requester: Option<Person>,
    assignee: Option<Person>,
    project: Option<project::Model>,
    comment_counts: Option<CommentCounts>,
    total: Vec<Option<i64>>,
}

/// The joined record at `start`, or `None` when the LEFT JOIN found nothing.
fn joined<M: Positional>(res: &QueryResult, start: usize) -> Result<Option<M>, DbErr> {
    // The key column (first) tells a missing row apart without decoding, and failing on, its NULLs.
    if <Option<i32>>::cell(res, start)?.is_none() {
        return Ok(None);
    }
    M::at(res, start).map(Some)
}

impl Row {
    fn decode(res: &QueryResult, extras: Extras) -> Result<Self, DbErr> {
        let joined_with = extras.joined;
        let ticket = ticket::Model::at(res, 0)?;
        let mut at = TICKET_WIDTH;
        let person = |at: &mut usize| -> Result<Option<Person>, DbErr> {
            match joined_with.people {
                People::Records => {
                    let found = joined::<user::Model>(res, *at)?.map(Person::Record);
                    *at += USER_WIDTH;
                    Ok(found)
                }
                People::Usernames => {
                    let found = <Option<String>>::cell(res, *at)?;
                    *at += 1;
                    Ok(found.map(Person::Username))
                }
            }
        };
        let requester = person(&mut at)?;
        let assignee = person(&mut at)?;
        let project = if joined_with.project {
            let found = joined(res, at)?;
            at += <project::Model as Positional>::FIELDS.len();
            found
        } else {
            None
        };
        let comment_counts = if joined_with.comment_counts {
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
            ticket,
            requester,
            assignee,
            project,
            comment_counts,
            total: (at..at + extras.total)
                .map(|i| <Option<i64>>::cell(res, i))
                .collect::<Result<_, _>>()?,
        })
    }
}

fn count_at(res: &QueryResult, at: usize) -> Result<u64, DbErr> {
    Ok(u64::try_from(i64::cell(res, at)?).unwrap_or(0))
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
        .cond_where(counted(internal));
    Expr::SubQuery(None, Box::new(SubQueryStatement::from(count)))
}

/// On PostgreSQL, both counts of [`comment_count`] (public, then all) from one scan of the ticket's
/// comments in a `LATERAL` subquery rather than two correlated ones: the counts were half of a 20-ticket
/// page's database time, and this saves about 40 % of that (pgbench). SQLite has no `LATERAL`.
fn comment_counts_lateral(mut select: Select<ticket::Entity>) -> Select<ticket::Entity> {
    let alias = Alias::new(COUNTS).into_iden();
    let (public, all) = (Alias::new("public"), Alias::new("every"));
    let mut counts = Query::select();
    counts
        .expr_as(
            Func::count(Expr::case(counted(false), Expr::val(1))),
            public.clone(),
        )
        .expr_as(Func::count(Expr::col(Asterisk)), all.clone())
        .from(comment::Entity)
        .and_where(
            Expr::col((comment::Entity, comment::Column::TicketId))
                .equals((ticket::Entity, ticket::Column::Id)),
        )
        .cond_where(counted(true));
    let query = QueryTrait::query(&mut select);
    // An aggregate without GROUP BY yields exactly one row, so the join keeps every ticket.
    query.join_lateral(JoinType::LeftJoin, counts, alias.clone(), Expr::val(true));
    query.expr(Expr::col((alias.clone(), public)));
    query.expr(Expr::col((alias, all)));
    select
}

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

/// The statement reading `select` with what `joined` names (see [`fetch`]).
pub fn statement(
    select: Select<ticket::Entity>,
    page: Option<PageRequest>,
    joined: Joined,
    total: Option<&Total>,
    backend: DbBackend,
) -> Statement {
    // Positions are what the decoder reads: the ticket's own columns first, whatever the caller selected.
    let select = select.select_only().columns(ticket::Column::iter());
    let select = join_person(
        select,
        REQUESTER,
        ticket::Column::RequesterId,
        joined.people,
    );
    let mut select = join_person(select, ASSIGNEE, ticket::Column::AssigneeId, joined.people);
    if joined.project {
        let columns = project::Column::iter();
        select = join::<project::Entity>(select, PROJECT, ticket::Column::ProjectId, columns);
    }
    if joined.comment_counts {
        select = if backend == DbBackend::Postgres {
            comment_counts_lateral(select)
        } else {
            select.expr(comment_count(false)).expr(comment_count(true))
        };
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

/// Statements reading one ticket by id, per backend and [`Joined`], with the position of the id among
/// their values: only the id differs from one detail to the next, and building the statement was a fifth
/// of a detail request's CPU.
type ByIdStatements = Vec<((DbBackend, Joined), (Statement, usize))>;
static BY_ID: RwLock<ByIdStatements> = RwLock::new(Vec::new());

/// The ticket with this id (live or archived, whoever may see it) with what `joined` names of it, in
/// one statement; the caller decides who may see it.
pub async fn fetch_by_id(db: &Db, id: i32, joined: Joined) -> AppResult<TicketsWithRefs> {
    let backend = db.backend();
    let key = (backend, joined);
    let known = BY_ID.read().ok().and_then(|shapes| {
        shapes
            .iter()
            .find(|(shape, _)| *shape == key)
            .map(|(_, found)| found.clone())
    });
    let statement = match known {
        Some((mut statement, at)) => {
            if let Some(value) = statement.values.as_mut().and_then(|v| v.0.get_mut(at)) {
                *value = Value::Int(Some(id));
            }
            statement
        }
        None => {
            // Built once with a marker id, to find which value the id is.
            let marker = i32::MIN;
            let select = ticket::Entity::find_by_id(marker);
            let built = statement(select, None, joined, None, backend);
            let values = built
                .values
                .as_ref()
                .map(|v| v.0.as_slice())
                .unwrap_or_default();
            let at: Vec<usize> = (0..values.len())
                .filter(|&i| values[i] == Value::Int(Some(marker)))
                .collect();
            if let ([at], Ok(mut shapes)) = (at.as_slice(), BY_ID.write()) {
                shapes.push((key, (built, *at)));
            }
            statement(ticket::Entity::find_by_id(id), None, joined, None, backend)
        }
    };
    let row = db.read_one(statement).await?;
    decode(row.as_slice(), joined, None)
}

/// Statements already built, by a key naming everything they were built from (values included): most
/// requests ask for one of a few pages, and building one was a fifth of a request's CPU.
static BUILT: LazyLock<Cache<String, Statement>> = LazyLock::new(|| Cache::new(2048));

/// The statement for `key`, built by `build` only when this key has not been seen lately. `key` must name
/// every input of `build` (see `tickets::list_with_refs`).
pub fn remembered(key: String, build: impl FnOnce() -> Statement) -> Statement {
    if let Some(statement) = BUILT.get(&key) {
        return statement;
    }
    let statement = build();
    BUILT.insert(key, statement.clone());
    statement
}

/// Run a statement built by [`statement`] on the service's pool, through [`Db::read`], and decode its
/// rows.
pub async fn read(
    db: &Db,
    statement: Statement,
    joined: Joined,
    total: Option<&Total>,
) -> AppResult<TicketsWithRefs> {
    let rows = db.read(statement).await?;
    decode(&rows, joined, total)
}

fn decode(
    rows: &[QueryResult],
    joined: Joined,
    total: Option<&Total>,
) -> AppResult<TicketsWithRefs> {
    let extras = Extras {
        joined,
        total: total.map_or(0, Total::columns_len),
    };
    let mut out = TicketsWithRefs {
        tickets: Vec::with_capacity(rows.len()),
        ..TicketsWithRefs::default()
    };
    for res in rows {
        let row = Row::decode(res, extras)?;
        let named = [
            (Some(row.ticket.requester_id), row.requester),
            (row.ticket.assignee_id, row.assignee),
        ];
        for (id, person) in named {
            match (id, person) {
                (_, Some(Person::Record(u))) => {
                    out.people.insert(u.id, u);
                }
                (Some(id), Some(Person::Username(name))) => {
                    out.usernames.insert(id, name);
                }
                _ => {}
            }
        }
        if let (Some(total), None) = (total, out.total) {
            out.total = Some(total.read(&row.total)?);
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
