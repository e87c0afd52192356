//! What the serving pool does with a connection it hands out or gets back, so that no borrower inherits
//! another's state and none holds a connection past the statement timeout:
//! - PostgreSQL: a connection given back inside a transaction block is closed, not pooled. sqlx 0.9 can
//!   lose track of a transaction whose `BEGIN` was under way when its future was dropped (the server has
//!   begun it, sqlx counts none): pooled, the next borrower's statements would run inside it, holding its
//!   locks, and a single-statement write would never commit. Closing the connection ends (rolls back)
//!   that transaction on the server.
//! - SQLite: each borrow gets a fresh clock in the connection's progress handler, which interrupts the
//!   borrow's statements once they have run longer than the statement timeout (PostgreSQL has its own
//!   `statement_timeout`).
use futures_util::future::BoxFuture;
use sea_orm::sqlx::pool::PoolConnectionMetadata;
use sea_orm::sqlx::postgres::PgConnection;
use sea_orm::sqlx::sqlite::SqliteConnection;
use sea_orm::sqlx::Row;
use std::time::{Duration, Instant};

/// Whether the connection is outside any transaction block: in one begun by an earlier statement,
/// `now()` is that transaction's start, while `statement_timestamp()` is this statement's. Sent as a
/// simple query, which is its own implicit transaction when outside any (both times are then one value).
const OUTSIDE_TRANSACTION: &str = "SELECT pg_catalog.now() = pg_catalog.statement_timestamp()";

/// The PostgreSQL `after_release` hook: keep the connection only when it is outside any transaction.
/// The statement first waits out whatever the last borrower left under way (sqlx finishes a dropped
/// statement before the next), so it sees the state that borrower left.
pub(super) fn pg_outside_transaction(
    conn: &mut PgConnection,
    _meta: PoolConnectionMetadata,
) -> BoxFuture<'_, Result<bool, sea_orm::sqlx::Error>> {
    Box::pin(async move {
        let row = sea_orm::sqlx::raw_sql(OUTSIDE_TRANSACTION)
            .fetch_one(&mut *conn)
            .await?;
        let outside: bool = row.try_get(0)?;
        if !outside {
            metrics::counter!("db_connections_closed_in_transaction_total").increment(1);
            tracing::warn!("a pooled connection came back inside a transaction; closed");
        }
        Ok(outside)
    })
}

/// VM instructions between two calls of the progress handler: frequent enough to stop a statement within
/// a millisecond or so of the limit, rare enough to cost nothing measurable.
const PROGRESS_OPS: i32 = 10_000;

/// The SQLite `after_connect` and `after_release` hook: a fresh statement clock for the next borrow.
pub(super) fn sqlite_rearm(
    conn: &mut SqliteConnection,
    limit: Duration,
) -> BoxFuture<'_, Result<(), sea_orm::sqlx::Error>> {
    Box::pin(async move {
        conn.lock_handle()
            .await?
            .set_progress_handler(PROGRESS_OPS, borrow_clock(limit));
        Ok(())
    })
}

/// A progress handler that lets one borrow's statements run for `limit`, counted from the first time it
/// is called (a borrow that never runs a long statement never starts it), and interrupts them after that
/// (`SQLITE_INTERRUPT`, which rolls back the statement, and the transaction when it was writing).
fn borrow_clock(limit: Duration) -> impl FnMut() -> bool + Send + 'static {
    let mut started: Option<Instant> = None;
    move || {
        let now = Instant::now();
        now.duration_since(*started.get_or_insert(now)) < limit
    }
}

#[cfg(test)]
mod tests {
    use super::borrow_clock;
    use std::time::Duration;

    #[test]
    fn the_clock_starts_at_the_first_call_and_stops_past_the_limit() {
        let mut clock = borrow_clock(Duration::from_millis(30));
        assert!(clock());
        std::thread::sleep(Duration::from_millis(10));
        assert!(clock());
        std::thread::sleep(Duration::from_millis(30));
        assert!(!clock());
        assert!(
            !clock(),
            "once past the limit, the rest of the borrow stays stopped"
        );
    }
}
