//! Counters of live tickets, for exact list totals without scanning the tickets table.
//!
//! `ticket_counts` keeps one row per counted shape of live (non-archived) tickets — `all`,
//! `status:<status>` and `requester:<id>` — and every write that changes membership (create, status
//! change, archive, restore) adjusts it in its own transaction with a row-level `n = n + delta`, so the
//! counters are exact under concurrent writers. Its `generation` row moves forward with every write to
//! a ticket. How totals are read from them is `read::total`.
use crate::domain::TicketStatus;
use crate::error::{AppError, AppResult};
use entity::ticket;
use sea_orm::sea_query::{Alias, Expr, ExprTrait, InsertStatement, OnConflict, Query};
use sea_orm::ConnectionTrait;

/// The scope counting every live ticket.
pub(super) const ALL: &str = "all";

/// The scope whose `n` counts writes to tickets (see the module documentation); never summed as a total.
pub(super) const GENERATION: &str = "generation";

pub(super) fn status_scope(status: TicketStatus) -> String {
    format!("status:{status}")
}

pub(super) fn requester_scope(id: i32) -> String {
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
        (status_scope(t.status), delta),
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

/// The statement counting a change of a live ticket's status from `from` to `to`, for the updating
/// transaction (after it locked the ticket's row) to run with its other writes (`crate::db::run_together`).
pub fn on_updated(from: TicketStatus, to: TicketStatus) -> AppResult<Option<InsertStatement>> {
    let mut deltas = Vec::new();
    if from != to {
        deltas = vec![(status_scope(from), -1), (status_scope(to), 1)];
    }
    adjustment(written(deltas))
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
