//! Connecting to SQLite or PostgreSQL, migrating, write transactions and statement counting.
mod checkin;
pub mod generation;
pub mod listen;
pub mod remembered;
pub mod viewer_gate;

use crate::error::{AppError, AppResult};
use migration::{Migrator, MigratorTrait};
use sea_orm::sea_query::{
    Alias, CommonTableExpression, DeleteStatement, InsertStatement, SelectStatement,
    SubQueryStatement, UpdateStatement, WithClause,
};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend,
    DbErr, FromQueryResult, QueryResult, RuntimeErr, SqliteTransactionMode, Statement,
    TransactionOptions, TransactionTrait,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a pooled connection may sit idle before it is tested (pinged) on checkout.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(1);

/// The database handle shared by the whole service.
#[derive(Clone, Debug)]
pub struct Db {
    /// The connection pool.
    pub conn: DatabaseConnection,
    statements: Arc<AtomicU64>,
}

/// How long commands and tests wait for a connection.
const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

impl Db {
    /// Connect to `url` with at most `pool_size` connections.
    pub async fn connect(url: &str, pool_size: u32) -> anyhow::Result<Self> {
        Db::connect_with(url, pool_size, None).await
    }

    /// [`Db::connect`], stopping any statement that runs longer than `statement_timeout`: PostgreSQL's
    /// `statement_timeout`, and on SQLite an interrupt once one use of a connection has run that long
    /// (`checkin`). Such a pool also closes a PostgreSQL connection given back inside a transaction.
    pub async fn connect_with(
        url: &str,
        pool_size: u32,
        statement_timeout: Option<Duration>,
    ) -> anyhow::Result<Self> {
        Db::open(url, pool_size, statement_timeout, DEFAULT_ACQUIRE_TIMEOUT).await
    }

    /// [`Db::connect_with`], for serving (`DESKGRAPH_STATEMENT_TIMEOUT_MS`): a request that cannot get a
    /// connection within `acquire_timeout` (the pool is busy, or the server is down or restarting) fails
    /// with 503 `unavailable` instead of waiting out the request timeout.
    pub async fn connect_serving(
        url: &str,
        pool_size: u32,
        statement_timeout: Duration,
        acquire_timeout: Duration,
    ) -> anyhow::Result<Self> {
        Db::open(url, pool_size, Some(statement_timeout), acquire_timeout).await
    }

    async fn open(
        url: &str,
        pool_size: u32,
        statement_timeout: Option<Duration>,
        acquire_timeout: Duration,
    ) -> anyhow::Result<Self> {
        let limit = statement_timeout;
        let statement_timeout = statement_timeout.map(|t| format!("{}ms", t.as_millis()));
        let mut options = ConnectOptions::new(url.to_string());
        options
            .max_connections(pool_size)
            .min_connections(1)
            .connect_timeout(Duration::from_secs(10))
            .acquire_timeout(acquire_timeout)
            .sqlx_logging(false)
            // sqlx pings a connection (a round trip) on every checkout by default, doubling the round trips of a
            // one-statement request. As HikariCP does (its 500 ms "alive bypass window"), a connection used
            // within the last moment is handed out untested; sqlx also pings every connection on release, off
            // the request's path, and closes one that does not answer.
            .test_before_acquire_if_idle_for(IDLE_BEFORE_PING)
            // The planner's default assumes random reads cost four times sequential ones (spinning disks);
            // with SSDs and a cached working set that makes it scan every ticket for a text search the
            // trigram indexes answer in a tenth of the time.
            .map_sqlx_postgres_opts(move |opts| {
                let opts = opts.options([("random_page_cost", "1.1")]);
                match &statement_timeout {
                    Some(timeout) => opts.options([("statement_timeout", timeout.as_str())]),
                    None => opts,
                }
            })
            .map_sqlx_sqlite_opts(|opts| {
                opts.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                    .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(30))
                    .foreign_keys(true)
            });
        if let Some(limit) = limit {
            options
                .map_sqlx_postgres_pool_opts(|opts| {
                    opts.after_release(checkin::pg_outside_transaction)
                })
                .map_sqlx_sqlite_pool_opts(move |opts| {
                    opts.after_connect(move |conn, _| checkin::sqlite_rearm(conn, limit))
                        .after_release(move |conn, _| {
                            let rearm = checkin::sqlite_rearm(conn, limit);
                            Box::pin(async move { rearm.await.map(|()| true) })
                        })
                });
        }
        let mut conn = Database::connect(options).await?;
        let statements = Arc::new(AtomicU64::new(0));
        let counter = statements.clone();
        conn.set_metric_callback(move |_info| {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        Ok(Db { conn, statements })
    }

    /// Apply every pending migration.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        Migrator::up(&self.conn, None).await?;
        Ok(())
    }

    /// Apply every pending migration to the database at `url` over one connection of its own: on SQLite a
    /// second pooled connection can still see the schema as it was before a migration's earlier statement
    /// (a trigger dropped and created again in two statements failed so).
    pub async fn migrate_at(url: &str) -> anyhow::Result<()> {
        let db = Db::connect(url, 1).await?;
        db.migrate().await?;
        db.conn.close().await?;
        Ok(())
    }

    /// Whether every known migration has been applied.
    pub async fn migrations_applied(&self) -> anyhow::Result<bool> {
        Ok(Migrator::get_pending_migrations(&self.conn)
            .await?
            .is_empty())
    }

    /// Which engine this is.
    pub fn backend(&self) -> DbBackend {
        self.conn.get_database_backend()
    }

    /// Start a transaction that will write. On SQLite it takes the write lock up front
    /// (`BEGIN IMMEDIATE`), so concurrent writers queue instead of failing with "database is locked".
    pub async fn begin_write(&self) -> AppResult<DatabaseTransaction> {
        let options = TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        };
        Ok(self.conn.begin_with_options(options).await?)
    }

    /// The rows of a read. On PostgreSQL it runs with sqlx on SeaORM's own pool, bound by SeaORM's own
    /// binder: SeaORM's query path moved its large futures around (a third of a detail's instructions
    /// were `memcpy`) for nothing the joined reads use. Counted in [`Db::statement_count`] like the rest.
    ///
    /// A connection that turns out to be gone (the server restarted or ended it while it sat in the pool
    /// untested, see [`IDLE_BEFORE_PING`]) is dropped and the read tried again on another, so that reads
    /// still ride out a database restart without an error.
    pub async fn read(&self, statement: Statement) -> Result<Vec<QueryResult>, DbErr> {
        self.rows(statement, false).await
    }

    /// [`Db::read`] for a statement that finds at most one row (the first is kept). sqlx's single-row
    /// path skips the two boxed row streams of its many-rows path (≈ 15k instructions of copying).
    pub async fn read_one(&self, statement: Statement) -> Result<Option<QueryResult>, DbErr> {
        Ok(self.rows(statement, true).await?.into_iter().next())
    }

    async fn rows(&self, statement: Statement, one: bool) -> Result<Vec<QueryResult>, DbErr> {
        if self.backend() != DbBackend::Postgres {
            return self.conn.query_all_raw(statement).await;
        }
        let pool = self.conn.get_postgres_connection_pool();
        let values = statement.values.unwrap_or(sea_orm::Values(Vec::new()));
        // Every pooled connection may be gone at once; one more try opens a fresh one.
        let mut tries = pool.options().get_max_connections() + 1;
        loop {
            tries -= 1;
            let query = sea_orm::sqlx::query_with(
                sea_orm::sqlx::AssertSqlSafe(statement.sql.as_str()),
                sea_query_sqlx::SqlxValues(values.clone()),
            );
            self.statements.fetch_add(1, Ordering::Relaxed);
            let rows = if one {
                query.fetch_optional(pool).await.map(Vec::from_iter)
            } else {
                query.fetch_all(pool).await
            };
            match rows {
                Ok(rows) => return Ok(rows.into_iter().map(QueryResult::from).collect()),
                Err(err) if tries > 0 && connection_lost(&err) => {
                    tracing::info!(error = %err, "database connection lost; read tried again");
                }
                Err(err) => return Err(DbErr::Query(RuntimeErr::SqlxError(Arc::new(err)))),
            }
        }
    }

    /// Number of SQL statements run through this handle so far (for tests and benchmarks).
    pub fn statement_count(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> bool {
        self.conn
            .query_one_raw(Statement::from_string(self.backend(), "SELECT 1"))
            .await
            .is_ok()
    }
}

/// Whether `err` means the connection itself is gone rather than that the statement failed: an I/O error,
/// or PostgreSQL's classes 08 (connection exception) and 57P (the server shutting down or ending sessions).
fn connection_lost(err: &sea_orm::sqlx::Error) -> bool {
    match err {
        sea_orm::sqlx::Error::Io(_) => true,
        sea_orm::sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}

/// Run `main` (an insert with `RETURNING`) and the `rest` of one change's inserts, returning what
/// `main` returns. PostgreSQL gets a single statement, `rest` riding along as data-modifying CTEs, so a
/// transaction holding hot row locks spends one round trip on all its rows (foreign keys are checked
/// at the end of the statement, so `rest` may refer to `main`'s row). SQLite, in process and with one
/// writer, runs `main` first and then each of `rest`.
pub async fn insert_together<M: FromQueryResult, W: Into<Write>>(
    db: &impl ConnectionTrait,
    main: InsertStatement,
    rest: Vec<W>,
) -> AppResult<M> {
    let rest: Vec<Write> = rest.into_iter().map(Into::into).collect();
    let backend = db.get_database_backend();
    if backend == DbBackend::Postgres && !rest.is_empty() {
        let statement = backend.build(&main.with(ctes(rest)));
        return M::find_by_statement(statement)
            .one(db)
            .await?
            .ok_or_else(|| AppError::internal(anyhow::anyhow!("insert returned no row")));
    }
    let inserted = M::find_by_statement(backend.build(&main))
        .one(db)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("insert returned no row")))?;
    execute_each(db, rest).await?;
    Ok(inserted)
}

/// One write of a change that [`run_together`] can carry: an insert (upserts included), an update or a delete.
pub enum Write {
    /// An insert or upsert.
    Insert(InsertStatement),
    /// An update.
    Update(UpdateStatement),
    /// A delete.
    Delete(DeleteStatement),
}

impl From<InsertStatement> for Write {
    fn from(s: InsertStatement) -> Self {
        Write::Insert(s)
    }
}

impl From<UpdateStatement> for Write {
    fn from(s: UpdateStatement) -> Self {
        Write::Update(s)
    }
}

impl From<DeleteStatement> for Write {
    fn from(s: DeleteStatement) -> Self {
        Write::Delete(s)
    }
}

impl From<Write> for SubQueryStatement {
    fn from(w: Write) -> Self {
        match w {
            Write::Insert(s) => s.into(),
            Write::Update(s) => s.into(),
            Write::Delete(s) => s.into(),
        }
    }
}

/// Run one change's `writes`, in one statement on PostgreSQL (all but the last riding along as data-modifying
/// CTEs, as in [`insert_together`]), one after the other on SQLite. No two of them may change the same row: the
/// CTEs of one statement see the same snapshot, and which change of a row twice wins is not defined.
pub async fn run_together<W: Into<Write>>(
    db: &impl ConnectionTrait,
    writes: Vec<W>,
) -> AppResult<()> {
    let mut writes: Vec<Write> = writes.into_iter().map(Into::into).collect();
    let backend = db.get_database_backend();
    if backend == DbBackend::Postgres && writes.len() > 1 {
        if let Some(main) = writes.pop() {
            let with = ctes(writes);
            let statement = match main {
                Write::Insert(s) => backend.build(&s.with(with)),
                Write::Update(s) => backend.build(&s.with(with)),
                Write::Delete(s) => backend.build(&s.with(with)),
            };
            db.execute_raw(statement).await?;
        }
        return Ok(());
    }
    execute_each(db, writes).await
}

/// [`run_together`], and then `read` (the first column of its rows), in the writes' one statement on
/// PostgreSQL: the writes all ride along as CTEs of the select. The statement's snapshot is taken when it starts,
/// after every lock the transaction holds, so `read` sees what writers who held those locks committed, but not
/// the writes themselves (one snapshot): it must not read what they change. `None` on SQLite, where the writes
/// run one after the other and a read would be a statement of its own: the caller reads when it needs to.
pub async fn run_together_reading<T: sea_orm::TryGetable, W: Into<Write>>(
    db: &impl ConnectionTrait,
    writes: Vec<W>,
    read: SelectStatement,
) -> AppResult<Option<Vec<T>>> {
    let writes: Vec<Write> = writes.into_iter().map(Into::into).collect();
    let backend = db.get_database_backend();
    if backend != DbBackend::Postgres {
        execute_each(db, writes).await?;
        return Ok(None);
    }
    let statement = backend.build(&read.with(ctes(writes)));
    let rows = db.query_all_raw(statement).await?;
    let read = rows
        .iter()
        .map(|row| row.try_get_by_index::<T>(0))
        .collect::<Result<Vec<T>, DbErr>>()?;
    Ok(Some(read))
}

/// Run `writes` one after the other.
async fn execute_each(db: &impl ConnectionTrait, writes: Vec<Write>) -> AppResult<()> {
    for write in writes {
        match write {
            Write::Insert(s) => db.execute(&s).await?,
            Write::Update(s) => db.execute(&s).await?,
            Write::Delete(s) => db.execute(&s).await?,
        };
    }
    Ok(())
}

/// `writes` as the CTEs `w0`, `w1`, … of one statement.
fn ctes<W: Into<SubQueryStatement>>(writes: Vec<W>) -> WithClause {
    let mut with = WithClause::new();
    for (i, write) in writes.into_iter().enumerate() {
        with.cte(
            CommonTableExpression::new()
                .query(write)
                .table_name(Alias::new(format!("w{i}")))
                .to_owned(),
        );
    }
    with
}
