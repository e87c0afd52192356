//! Exact list totals, read from the counters (`tickets::counters`) when a filter matches a counted shape,
//! otherwise by an index-served `count(*)`.
//!
//! Those other counts (text search above all: every match is visited) are remembered per instance in
//! [`Remembered`], with the tickets *generation* they were taken at: a row of `ticket_counts` that every
//! write to a ticket moves forward in its own transaction. A statement reading the generation and a count
//! reads both from one snapshot, and generations are taken one at a time under the row's lock, so one
//! generation number names one set of committed ticket writes: a count remembered at generation `g` is
//! exact for any later statement that reads `g`. The page's statement reads the generation beside its rows;
//! only when it moved is the count taken again, in a statement of its own, so a remembered count costs no
//! extra statement while tickets stay as they were and is never stale, on one instance or many.
use super::filter::{visible_query, TicketFilter};
use crate::domain::{TicketStatus, Workflow};
use crate::error::{AppError, AppResult};
use crate::service::tickets::counters::{requester_scope, status_scope, ALL, GENERATION};
use crate::service::tickets::rules::{self, Viewer};
use entity::ticket;
use moka::sync::Cache;
use sea_orm::sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, PostgresQueryBuilder, Query, SelectStatement,
    SubQueryStatement,
};
use sea_orm::{ColumnTrait, ConnectionTrait, QuerySelect, QueryTrait};
use sha2::{Digest, Sha256};
use std::time::Duration;

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

/// The counted shape matching this viewer and filter, if any.
fn counted(viewer: &Viewer, filter: &TicketFilter) -> Option<Counted> {
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
        || !filter.tags_all.is_empty()
        || !filter.tags_any.is_empty()
        || !filter.fields.is_empty()
    {
        return None;
    }
    let statuses = admitted_statuses(filter);
    match (filter.requester_id, statuses) {
        // Visible ∧ requested by me = requested by me, for anyone.
        (Some(id), None) if viewer.team || id == viewer.id => {
            Some(Counted::Scopes(vec![requester_scope(id)]))
        }
        (None, None) if viewer.team => Some(Counted::Scopes(vec![ALL.to_string()])),
        (None, Some(statuses)) if viewer.team => Some(Counted::Scopes(
            statuses.iter().map(|s| status_scope(*s)).collect(),
        )),
        // Group visibility has no counter; such members take the index-served count.
        (None, None) if viewer.groups.is_empty() => Some(Counted::OwnPlusAssigned(viewer.id)),
        _ => None,
    }
}

fn sub_query(select: SelectStatement) -> Expr {
    Expr::SubQuery(None, Box::new(SubQueryStatement::from(select)))
}

/// How many visible, live tickets match `filter`, as an expression: the counters when the shape is
/// counted, otherwise one `count(*)` the ticket indexes serve. Uncorrelated, so a statement evaluates it once
/// however many rows it returns: a list page selects it beside its rows and needs no second statement.
pub fn total_expr(viewer: &Viewer, filter: &TicketFilter, prefix: &str) -> Expr {
    let counts = Alias::new("ticket_counts");
    let scope = Alias::new("scope");
    let n = Alias::new("n");
    let total = match counted(viewer, filter) {
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
            visible_query(viewer, filter, prefix)
                .select_only()
                .expr(Expr::col(Asterisk).count())
                .into_query(),
        ),
    };
    // PostgreSQL sums BIGINTs into NUMERIC.
    total.cast_as(Alias::new("BIGINT"))
}

/// Counts of uncounted shapes remembered with the generation they were taken at (see the module
/// documentation), each under the SHA-256 of its SQL: a search string is part of that SQL and may be as
/// long as a request body, so keys of a fixed size keep the entries' memory bounded by their number.
/// Cheap to clone; clones share the entries.
#[derive(Clone, Debug, Default)]
pub struct Remembered(Option<Cache<Key, (i64, u64)>>);

/// The SHA-256 of a count's SQL.
type Key = [u8; 32];

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
    cache: Cache<Key, (i64, u64)>,
    /// The hash of the count's own SQL with every value written in: what it counts, for whom.
    key: Key,
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
        viewer: &Viewer,
        filter: &TicketFilter,
        prefix: &str,
    ) -> Self {
        let count = total_expr(viewer, filter, prefix);
        let recall = match (&remembered.0, counted(viewer, filter)) {
            (Some(cache), None) => {
                let sql = Query::select()
                    .expr(count.clone())
                    .to_string(PostgresQueryBuilder);
                let key: Key = Sha256::digest(sql.as_bytes()).into();
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

    /// The columns a page selects: the count; or the generation and the count, which is NULL while a count
    /// is remembered. A page statement never carries a count it does not take: PostgreSQL estimates a
    /// statement's cost with all of it, and a count's estimate for the values given differs from the generic
    /// one by a hair either way, so a page that carried it was planned again on every request whenever the
    /// hair fell against the generic plan (`BENCHMARKS.md`). When the generation moved, [`Total::read`] says
    /// so and the count is taken by [`Total::fetch`], one more statement.
    pub fn columns(&self) -> Vec<Expr> {
        self.columns_with(|_| Expr::cust("NULL").cast_as(Alias::new("BIGINT")))
    }

    /// The columns [`Total::fetch`] selects on their own: the count, or the generation and the count taken
    /// only when the generation moved from the remembered one.
    fn fetched_columns(&self) -> Vec<Expr> {
        self.columns_with(|at| {
            let unless_moved: Expr = Expr::case(generation().eq(at), Expr::cust("NULL"))
                .finally(self.count.clone())
                .into();
            unless_moved.cast_as(Alias::new("BIGINT"))
        })
    }

    /// The count alone; or the generation and the count, which `remembered` (given the generation the count
    /// was remembered at) replaces while a count is remembered.
    fn columns_with(&self, remembered: impl FnOnce(i64) -> Expr) -> Vec<Expr> {
        let Some(recall) = &self.recall else {
            return vec![self.count.clone()];
        };
        let count = match recall.known {
            None => self.count.clone(),
            Some((at, _)) => remembered(at),
        };
        vec![generation(), count]
    }

    /// The total from the values the columns read, in order (`None` for SQL NULL), or `None` when the
    /// count was not taken and the remembered one is stale; a fresh count is remembered.
    pub fn read(&self, values: &[Option<i64>]) -> Option<u64> {
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        match &self.recall {
            None => values.first().copied().flatten().map(n),
            Some(recall) => match (
                values.first().copied().flatten(),
                values.get(1).copied().flatten(),
            ) {
                (at, Some(count)) => {
                    if let Some(at) = at {
                        recall.cache.insert(recall.key, (at, n(count)));
                    }
                    Some(n(count))
                }
                // NULL count: remembered, and good while the generation is the remembered one.
                (Some(at), None) => recall
                    .known
                    .filter(|(known_at, _)| *known_at == at)
                    .map(|(_, count)| count),
                (None, None) => None,
            },
        }
    }

    /// Select the total on its own, in one statement, and read it.
    pub async fn fetch(&self, db: &impl ConnectionTrait) -> AppResult<u64> {
        let columns = self.fetched_columns();
        let mut select = Query::select();
        for column in &columns {
            select.expr(column.clone());
        }
        let Some(row) = db.query_one(&select).await? else {
            return Ok(0);
        };
        let values = (0..columns.len())
            .map(|i| row.try_get_by_index::<Option<i64>>(i))
            .collect::<Result<Vec<_>, _>>()?;
        self.read(&values)
            .ok_or_else(|| AppError::internal(anyhow::anyhow!("a list total read as NULL")))
    }

    /// What, besides the viewer and filter it was made for, decides [`Total::columns`]: whether the count is
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

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::DbBackend;
    use sea_orm::QueryTrait;

    fn requester() -> Viewer {
        Viewer {
            id: 7,
            team: false,
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
