//! Exact list totals without scanning the tickets table.
//!
//! `ticket_counts` keeps one row per counted shape of live (non-archived) tickets — `all`,
//! `status:<status>` and `requester:<id>` — and every write that changes membership (create, status
//! change, archive, restore) adjusts it in its own transaction with a row-level `n = n + delta`, so the
//! counters are exact under concurrent writers. A list total whose filter matches a counted shape reads
//! one or a few counter rows; any other filter falls back to an index-served `count(*)`.
//!
//! Those other counts (text search above all: every match is visited) are remembered per instance in
//! [`Remembered`], with the tickets *generation* they were taken at: a row of `ticket_counts` that every
//! write to a ticket moves forward in its own transaction. A statement reading the generation and a count
//! reads both from one snapshot, and generations are taken one at a time under the row's lock, so one
//! generation number names one set of committed ticket writes: a count remembered at generation `g` is
//! exact for any later statement that reads `g`. The page's statement reads the generation and counts
//! again only when it moved, so a remembered count costs no extra statement and is never stale, on one
//! instance or many.
use super::{rules, visible_query, TicketFilter};
use crate::auth::Actor;
use crate::domain::TicketStatus;
use crate::error::{AppError, AppResult};
use entity::ticket;
use moka::sync::Cache;
use sea_orm::sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, InsertStatement, OnConflict, PostgresQueryBuilder,
    Query, SelectStatement, SubQueryStatement,
};
use sea_orm::{ColumnTrait, ConnectionTrait, QuerySelect, QueryTrait};
use std::time::Duration;

const ALL: &str = "all";

/// The scope whose `n` counts writes to tickets (see the module documentation); never summed as a total.
const GENERATION: &str = "generation";

fn status_scope(status: &str) -> String {
    format!("status:{status}")
}

fn requester_scope(id: i32) -> String {
    format!("requester:{id}")
}

/// The one statement adding `delta` to each scope, or `None` when nothing changes. Scopes are sorted so
/// concurrent writers lock counter rows in the same order and cannot deadlock.
fn adjustment(mut deltas: Vec<(String, i64)>) -> AppResult<Option<InsertStatement>> {
    deltas.retain(|(_, d)| *d != 0);
    if deltas.is_empty() {
        return Ok(None);
    }
    deltas.sort();
    let table = Alias::new("ticket_counts");
    let n = Alias::new("n");
    let mut insert = Query::insert();
    insert
        .into_table(table.clone())
        .columns([Alias::new("scope"), n.clone()]);
    for (scope, delta) in deltas {
        insert
            .values([scope.into(), delta.into()])
            .map_err(AppError::internal)?;
    }
    insert.on_conflict(
        OnConflict::column(Alias::new("scope"))
            .value(
                n.clone(),
                Expr::col((table, n.clone())).add(Expr::col((Alias::new("excluded"), n))),
            )
            .to_owned(),
    );
    Ok(Some(insert))
}

async fn adjust(db: &impl ConnectionTrait, deltas: Vec<(String, i64)>) -> AppResult<()> {
    if let Some(statement) = adjustment(deltas)? {
        db.execute(&statement).await?;
    }
    Ok(())
}

fn membership(t: &ticket::Model, delta: i64) -> Vec<(String, i64)> {
    vec![
        (ALL.to_string(), delta),
        (status_scope(&t.status), delta),
        (requester_scope(t.requester_id), delta),
    ]
}

/// `deltas` plus one more write to tickets. The generation only ever moves forward, whatever the write
/// (an archive and its restore must not bring an old generation back).
fn written(mut deltas: Vec<(String, i64)>) -> Vec<(String, i64)> {
    deltas.push((GENERATION.to_string(), 1));
    deltas
}

/// The statement counting a new live ticket, for its creating transaction
/// (`crate::db::insert_together`).
pub fn on_created(t: &ticket::Model) -> AppResult<InsertStatement> {
    adjustment(written(membership(t, 1)))?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("a new ticket changes no counter")))
}

/// A live ticket was archived (call inside the archiving transaction, with the row as it was).
pub async fn on_archived(db: &impl ConnectionTrait, t: &ticket::Model) -> AppResult<()> {
    adjust(db, written(membership(t, -1))).await
}

/// An archived ticket was restored (call inside the restoring transaction).
pub async fn on_restored(db: &impl ConnectionTrait, t: &ticket::Model) -> AppResult<()> {
    adjust(db, written(membership(t, 1))).await
}

/// A live ticket changed, its status from `from` to `to` (call inside the updating transaction, after
/// locking the ticket's row).
pub async fn on_updated(db: &impl ConnectionTrait, from: &str, to: &str) -> AppResult<()> {
    let mut deltas = Vec::new();
    if from != to {
        deltas = vec![(status_scope(from), -1), (status_scope(to), 1)];
    }
    adjust(db, written(deltas)).await
}

/// An SLA clock's state changed without a ticket write (an event happened, a first response stopped a
/// target): lists filtered by SLA state must count again.
pub async fn on_clock_moved(db: &impl ConnectionTrait) -> AppResult<()> {
    adjust(db, written(Vec::new())).await
}

/// Recompute every counter from the tickets table (after bulk loads such as `deskgraph seed`), and move
/// the generation on: counts remembered before the load no longer hold.
pub async fn rebuild(db: &impl ConnectionTrait) -> AppResult<()> {
    db.execute_unprepared(&format!(
        "DELETE FROM ticket_counts WHERE scope <> '{GENERATION}'"
    ))
    .await?;
    adjust(db, written(Vec::new())).await?;
    for sql in [
        "INSERT INTO ticket_counts (scope, n) \
         SELECT 'all', count(*) FROM tickets WHERE archived_at IS NULL",
        "INSERT INTO ticket_counts (scope, n) \
         SELECT 'status:' || status, count(*) FROM tickets WHERE archived_at IS NULL GROUP BY status",
        "INSERT INTO ticket_counts (scope, n) \
         SELECT 'requester:' || CAST(requester_id AS TEXT), count(*) FROM tickets \
         WHERE archived_at IS NULL GROUP BY requester_id",
    ] {
        db.execute_unprepared(sql).await?;
    }
    Ok(())
}

/// How a total can be read from the counters.
#[derive(Debug, PartialEq, Eq)]
enum Counted {
    /// The sum of these scopes (empty: nothing can match).
    Scopes(Vec<String>),
    /// A plain requester's view: their own tickets plus those assigned to them that others requested.
    OwnPlusAssigned(i32),
}

/// Statuses a filter admits, or `None` when it does not restrict status.
fn admitted_statuses(filter: &TicketFilter) -> Option<Vec<TicketStatus>> {
    if filter.statuses.is_empty() && filter.status_category.is_none() {
        return None;
    }
    Some(
        TicketStatus::ALL
            .iter()
            .copied()
            .filter(|s| filter.statuses.is_empty() || filter.statuses.contains(s))
            .filter(|s| filter.status_category.is_none_or(|c| s.category() == c))
            .collect(),
    )
}

/// The counted shape matching this actor and filter, if any.
fn counted(actor: &Actor, filter: &TicketFilter) -> Option<Counted> {
    let has_text = filter
        .query
        .as_deref()
        .is_some_and(|q| !q.trim().is_empty());
    if has_text
        || !filter.priorities.is_empty()
        || filter.assignee.is_some()
        || filter.project_id.is_some()
        || filter.sla.is_some()
        || filter.in_my_groups
    {
        return None;
    }
    let statuses = admitted_statuses(filter);
    match (filter.requester_id, statuses) {
        // Visible ∧ requested by me = requested by me, for anyone.
        (Some(id), None) if actor.is_team() || id == actor.id() => {
            Some(Counted::Scopes(vec![requester_scope(id)]))
        }
        (None, None) if actor.is_team() => Some(Counted::Scopes(vec![ALL.to_string()])),
        (None, Some(statuses)) if actor.is_team() => Some(Counted::Scopes(
            statuses.iter().map(|s| status_scope(s.as_str())).collect(),
        )),
        // Group visibility has no counter; such members take the index-served count.
        (None, None) if actor.group_ids().is_empty() => Some(Counted::OwnPlusAssigned(actor.id())),
        _ => None,
    }
}

fn sub_query(select: SelectStatement) -> Expr {
    Expr::SubQuery(None, Box::new(SubQueryStatement::from(select)))
}

/// How many visible, live tickets match `filter`, as an expression: the counters when the shape is
/// counted, otherwise one `count(*)` the ticket indexes serve. Uncorrelated, so a statement evaluates it once
/// however many rows it returns: a list page selects it beside its rows and needs no second statement.
pub fn total_expr(actor: &Actor, filter: &TicketFilter, prefix: &str) -> Expr {
    let counts = Alias::new("ticket_counts");
    let scope = Alias::new("scope");
    let n = Alias::new("n");
    let total = match counted(actor, filter) {
        Some(Counted::Scopes(scopes)) if scopes.is_empty() => Expr::val(0i64),
        Some(Counted::Scopes(scopes)) => sub_query(
            Query::select()
                .expr(Func::coalesce([Expr::col(n).sum(), Expr::val(0i64)]))
                .from(counts)
                .and_where(Expr::col(scope).is_in(scopes))
                .to_owned(),
        ),
        // Literals, not bound values, as in `rules::visible_to`: the requester's page is then planned once.
        Some(Counted::OwnPlusAssigned(id)) => {
            let own = Query::select()
                .column(n)
                .from(counts)
                // `requester:<integer>`: no quote can reach the literal.
                .and_where(Expr::col(scope).eq(Expr::cust(format!("'{}'", requester_scope(id)))))
                .to_owned();
            let column = |c: ticket::Column| Expr::col((ticket::Entity, c));
            let assigned_by_others = Query::select()
                .expr(Expr::col(Asterisk).count())
                .from(ticket::Entity)
                .and_where(column(ticket::Column::AssigneeId).eq(rules::id_literal(id)))
                .and_where(column(ticket::Column::RequesterId).ne(rules::id_literal(id)))
                .and_where(ticket::Column::ArchivedAt.is_null())
                .to_owned();
            Expr::expr(Func::coalesce([sub_query(own), Expr::cust("0")]))
                .add(sub_query(assigned_by_others))
        }
        None => sub_query(
            visible_query(actor, filter, prefix)
                .select_only()
                .expr(Expr::col(Asterisk).count())
                .into_query(),
        ),
    };
    // PostgreSQL sums BIGINTs into NUMERIC.
    total.cast_as(Alias::new("BIGINT"))
}

/// Counts of uncounted shapes remembered with the generation they were taken at (see the module
/// documentation). Cheap to clone; clones share the entries.
#[derive(Clone, Debug, Default)]
pub struct Remembered(Option<Cache<String, (i64, u64)>>);

impl Remembered {
    /// Remember at most `capacity` counts (0: none). An entry unused for an hour is dropped.
    pub fn new(capacity: u64) -> Self {
        Remembered((capacity > 0).then(|| {
            Cache::builder()
                .max_capacity(capacity)
                .time_to_idle(Duration::from_secs(3600))
                .build()
        }))
    }
}

/// The generation tickets are at, as a scalar subquery (NULL before the first write).
fn generation() -> Expr {
    sub_query(
        Query::select()
            .column(Alias::new("n"))
            .from(Alias::new("ticket_counts"))
            .and_where(Expr::col(Alias::new("scope")).eq(Expr::cust(format!("'{GENERATION}'"))))
            .to_owned(),
    )
}

/// A count remembered for one shape.
struct Recall {
    cache: Cache<String, (i64, u64)>,
    /// The count's own SQL with every value written in: what it counts, for whom.
    key: String,
    /// `(generation, count)` as last taken.
    known: Option<(i64, u64)>,
}

/// How a list reads its total: [`Total::columns`] are selected (beside a page's rows, or alone) and
/// [`Total::read`] turns what they read into the total.
pub struct Total {
    count: Expr,
    recall: Option<Recall>,
}

impl Total {
    /// The total of visible, live tickets matching `filter`: from the counters when the shape is counted,
    /// otherwise a count that is taken again only when the generation moved.
    pub fn new(
        remembered: &Remembered,
        actor: &Actor,
        filter: &TicketFilter,
        prefix: &str,
    ) -> Self {
        let count = total_expr(actor, filter, prefix);
        let recall = match (&remembered.0, counted(actor, filter)) {
            (Some(cache), None) => {
                let key = Query::select()
                    .expr(count.clone())
                    .to_string(PostgresQueryBuilder);
                let known = cache.get(&key);
                Some(Recall {
                    cache: cache.clone(),
                    key,
                    known,
                })
            }
            _ => None,
        };
        Total { count, recall }
    }

    /// The columns to select: the count; or the generation and the count, which is NULL (and not taken)
    /// while the generation is the remembered one.
    pub fn columns(&self) -> Vec<Expr> {
        let Some(recall) = &self.recall else {
            return vec![self.count.clone()];
        };
        let count = match recall.known {
            None => self.count.clone(),
            Some((at, _)) => {
                let unless_moved: Expr = Expr::case(generation().eq(at), Expr::cust("NULL"))
                    .finally(self.count.clone())
                    .into();
                unless_moved.cast_as(Alias::new("BIGINT"))
            }
        };
        vec![generation(), count]
    }

    /// The total from the values [`Total::columns`] read, in order (`None` for SQL NULL); a fresh count
    /// is remembered.
    pub fn read(&self, values: &[Option<i64>]) -> AppResult<u64> {
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        let found = match &self.recall {
            None => values.first().copied().flatten().map(n),
            Some(recall) => match (
                values.first().copied().flatten(),
                values.get(1).copied().flatten(),
            ) {
                (at, Some(count)) => {
                    if let Some(at) = at {
                        recall.cache.insert(recall.key.clone(), (at, n(count)));
                    }
                    Some(n(count))
                }
                // NULL count: the generation is still the remembered one.
                (Some(at), None) => recall
                    .known
                    .filter(|(known_at, _)| *known_at == at)
                    .map(|(_, count)| count),
                (None, None) => None,
            },
        };
        found.ok_or_else(|| AppError::internal(anyhow::anyhow!("a list total read as NULL")))
    }

    /// Select the columns on their own and read the total.
    pub async fn fetch(&self, db: &impl ConnectionTrait) -> AppResult<u64> {
        let mut select = Query::select();
        for column in self.columns() {
            select.expr(column);
        }
        let Some(row) = db.query_one(&select).await? else {
            return Ok(0);
        };
        let values = (0..self.columns_len())
            .map(|i| row.try_get_by_index::<Option<i64>>(i))
            .collect::<Result<Vec<_>, _>>()?;
        self.read(&values)
    }

    /// What, besides the actor and filter it was made for, decides [`Total::columns`]: whether the count is
    /// remembered, and at which generation.
    pub fn shape(&self) -> Option<Option<i64>> {
        self.recall
            .as_ref()
            .map(|recall| recall.known.map(|(at, _)| at))
    }

    /// How many columns [`Total::columns`] selects.
    pub fn columns_len(&self) -> usize {
        if self.recall.is_some() {
            2
        } else {
            1
        }
    }
}

/// How many visible, live tickets match `filter` (see [`Total`]).
pub async fn total(
    db: &crate::db::Db,
    actor: &Actor,
    filter: &TicketFilter,
    prefix: &str,
) -> AppResult<u64> {
    Total::new(&db.remembered, actor, filter, prefix)
        .fetch(&db.conn)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use entity::user;
    use sea_orm::DbBackend;

    fn requester() -> Actor {
        Actor {
            user: user::Model {
                id: 7,
                username: "rita".into(),
                full_name: String::new(),
                email: None,
                password_hash: String::new(),
                is_staff: false,
                is_superuser: false,
                is_active: true,
                created_at: chrono::Utc::now(),
            },
            groups: Vec::new(),
        }
    }

    /// A bound value in a requester's list statement makes PostgreSQL plan it at every execution.
    #[test]
    fn a_requesters_page_and_total_bind_no_values() {
        let actor = requester();
        let filter = TicketFilter::default();
        let select = visible_query(&actor, &filter, "TKT").expr(total_expr(&actor, &filter, "TKT"));
        let statement = select.build(DbBackend::Postgres);
        let bound = statement.values.as_ref().map_or(0, |v| v.0.len());
        assert_eq!(bound, 0, "{}", statement.sql);
        assert!(statement.sql.contains("'requester:7'"), "{}", statement.sql);
    }
}
