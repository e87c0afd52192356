//! Connecting to SQLite or PostgreSQL, migrating, write transactions and statement counting.
use crate::error::{AppError, AppResult};
use migration::{Migrator, MigratorTrait};
use sea_orm::sea_query::{
    Alias, CommonTableExpression, InsertStatement, SubQueryStatement, UpdateStatement, WithClause,
};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend,
    FromQueryResult, SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The database handle shared by the whole service.
#[derive(Clone, Debug)]
pub struct Db {
    /// The connection pool.
    pub conn: DatabaseConnection,
    statements: Arc<AtomicU64>,
}

impl Db {
    /// Connect to `url` with at most `pool_size` connections.
    pub async fn connect(url: &str, pool_size: u32) -> anyhow::Result<Self> {
        let mut options = ConnectOptions::new(url.to_string());
        options
            .max_connections(pool_size)
            .min_connections(1)
            .connect_timeout(Duration::from_secs(10))
            .acquire_timeout(Duration::from_secs(30))
            .sqlx_logging(false)
            // The planner's default assumes random reads cost four times sequential ones (spinning disks);
            // with SSDs and a cached working set that makes it scan every ticket for a text search the
            // trigram indexes answer in a tenth of the time.
            .map_sqlx_postgres_opts(|opts| opts.options([("random_page_cost", "1.1")]))
            .map_sqlx_sqlite_opts(|opts| {
                opts.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                    .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(30))
                    .foreign_keys(true)
            });
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

/// A statement that rides along with an insert in [`insert_together`].
#[derive(Debug)]
pub enum AlsoWrite {
    /// Another insert.
    Insert(InsertStatement),
    /// An update.
    Update(UpdateStatement),
}

impl From<InsertStatement> for AlsoWrite {
    fn from(insert: InsertStatement) -> Self {
        AlsoWrite::Insert(insert)
    }
}

impl From<UpdateStatement> for AlsoWrite {
    fn from(update: UpdateStatement) -> Self {
        AlsoWrite::Update(update)
    }
}

/// Run `main` (an insert with `RETURNING`) and the `rest` of one change's writes, returning what
/// `main` returns. PostgreSQL gets a single statement, `rest` riding along as data-modifying CTEs, so a
/// transaction (above all one holding hot row locks) spends one round trip on all its rows; foreign keys
/// are checked at the end of the statement, so `rest` may refer to `main`'s row, and no two of them may
/// change the same row. SQLite, in process and with one writer, runs `main` first and then each of `rest`.
pub async fn insert_together<M: FromQueryResult>(
    db: &impl ConnectionTrait,
    main: InsertStatement,
    rest: Vec<AlsoWrite>,
) -> AppResult<M> {
    let backend = db.get_database_backend();
    if backend == DbBackend::Postgres && !rest.is_empty() {
        let mut with = WithClause::new();
        for (i, also) in rest.into_iter().enumerate() {
            let query = match also {
                AlsoWrite::Insert(insert) => SubQueryStatement::from(insert),
                AlsoWrite::Update(update) => SubQueryStatement::from(update),
            };
            with.cte(
                CommonTableExpression::new()
                    .query(query)
                    .table_name(Alias::new(format!("w{i}")))
                    .to_owned(),
            );
        }
        let statement = backend.build(&main.with(with));
        return M::find_by_statement(statement)
            .one(db)
            .await?
            .ok_or_else(|| AppError::internal(anyhow::anyhow!("insert returned no row")));
    }
    let inserted = M::find_by_statement(backend.build(&main))
        .one(db)
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("insert returned no row")))?;
    for also in rest {
        match also {
            AlsoWrite::Insert(insert) => db.execute(&insert).await?,
            AlsoWrite::Update(update) => db.execute(&update).await?,
        };
    }
    Ok(inserted)
}

/// The id the next row of `table` (an auto-increment `id`) will get, reserved inside a write
/// transaction, so that rows written together with it can name it.
pub async fn next_id(db: &impl ConnectionTrait, table: &'static str) -> AppResult<i32> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => format!("SELECT nextval(pg_get_serial_sequence('{table}', 'id'))"),
        // AUTOINCREMENT tables never reuse ids, and the transaction holds the write lock.
        _ => format!(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '{table}'), 0), \
             coalesce((SELECT max(id) FROM {table}), 0)) + 1"
        ),
    };
    let row = db
        .query_one_raw(Statement::from_string(backend, sql))
        .await?
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("no next id for {table}")))?;
    i32::try_from(row.try_get_by_index::<i64>(0)?).map_err(AppError::internal)
}
