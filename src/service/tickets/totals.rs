//! Exact list totals without scanning the tickets table.
//!
//! `ticket_counts` keeps one row per counted shape of live (non-archived) tickets — `all`,
//! `status:<status>` and `requester:<id>` — and every write that changes membership (create, status
//! change, archive, restore) adjusts it in its own transaction with a row-level `n = n + delta`, so the
//! counters are exact under concurrent writers. A list total whose filter matches a counted shape reads
//! one or a few counter rows; any other filter falls back to an index-served `count(*)`.
use super::{rules, visible_query, TicketFilter};
use crate::auth::Actor;
use crate::domain::TicketStatus;
use crate::error::{AppError, AppResult};
use entity::ticket;
use sea_orm::sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, InsertStatement, OnConflict, Query, SelectStatement,
    SubQueryStatement,
};
use sea_orm::{ColumnTrait, ConnectionTrait, QuerySelect, QueryTrait};

const ALL: &str = "all";

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

/// The statement counting a new live ticket, for its creating transaction
/// (`crate::db::insert_together`).
pub fn on_created(t: &ticket::Model) -> AppResult<InsertStatement> {
    adjustment(membership(t, 1))?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("a new ticket changes no counter")))
}

/// A live ticket was archived (call inside the archiving transaction, with the row as it was).
pub async fn on_archived(db: &impl ConnectionTrait, t: &ticket::Model) -> AppResult<()> {
    adjust(db, membership(t, -1)).await
}

/// An archived ticket was restored (call inside the restoring transaction).
pub async fn on_restored(db: &impl ConnectionTrait, t: &ticket::Model) -> AppResult<()> {
    adjust(db, membership(t, 1)).await
}

/// A live ticket moved from status `from` to `to` (call inside the updating transaction).
pub async fn on_status_changed(db: &impl ConnectionTrait, from: &str, to: &str) -> AppResult<()> {
    if from == to {
        return Ok(());
    }
    adjust(db, vec![(status_scope(from), -1), (status_scope(to), 1)]).await
}

/// Recompute every counter from the tickets table (after bulk loads such as `deskgraph seed`).
pub async fn rebuild(db: &impl ConnectionTrait) -> AppResult<()> {
    db.execute_unprepared("DELETE FROM ticket_counts").await?;
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

/// How many visible, live tickets match `filter` (see [`total_expr`]).
pub async fn total(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &TicketFilter,
    prefix: &str,
) -> AppResult<u64> {
    let select = Query::select()
        .expr(total_expr(actor, filter, prefix))
        .to_owned();
    let n = match db.query_one(&select).await? {
        Some(row) => row.try_get_by_index::<i64>(0)?,
        None => 0,
    };
    Ok(u64::try_from(n).unwrap_or(0))
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
