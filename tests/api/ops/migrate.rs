//! `deskgraph migrate`, as an operator runs it on a new database and again on an up-to-date one: every
//! migration applies through the command's own connection pool (the tests' databases are made another way).
//! And every migration's `down`, which an operator rolling back a release runs: all the way down leaves an
//! empty schema that every migration applies to again.
use migration::{Migrator, MigratorTrait};
use std::process::Command;

fn migrate(url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_deskgraph"))
        .arg("migrate")
        .env("DATABASE_URL", url)
        .env_remove("DESKGRAPH_REDIS_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn assert_migrates(url: &str) {
    for run in ["new", "up-to-date"] {
        let out = migrate(url);
        assert!(
            out.status.success(),
            "migrate on a {run} database: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn migrate_applies_every_migration_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("new.db").display());
    assert_migrates(&url);
}

/// A new PostgreSQL database named after `what` and this process, given to `check`, dropped after; nothing (but
/// a notice) when no PostgreSQL is configured.
fn with_postgres(what: &str, check: impl FnOnce(&str)) {
    let Ok(server) = std::env::var("DESKGRAPH_TEST_POSTGRES_URL") else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let name = format!("dg_test_{what}_{}", std::process::id());
    let psql = |sql: &str| {
        let status = Command::new("psql")
            .args(["-X", "-q", &format!("{server}/postgres"), "-c", sql])
            .status()
            .unwrap();
        assert!(status.success(), "{sql}");
    };
    psql(&format!("DROP DATABASE IF EXISTS {name}"));
    psql(&format!("CREATE DATABASE {name}"));
    check(&format!("{server}/{name}"));
    psql(&format!("DROP DATABASE {name} WITH (FORCE)"));
}

#[test]
fn migrate_applies_every_migration_on_postgres() {
    with_postgres("migrate", assert_migrates);
}

/// Up, all the way down, and up again.
fn assert_goes_down_and_up(url: &str) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let db = sea_orm::Database::connect(url).await.unwrap();
        Migrator::up(&db, None).await.unwrap();
        let applied = Migrator::get_applied_migrations(&db).await.unwrap().len();
        assert_eq!(applied, Migrator::migrations().len());
        Migrator::down(&db, None)
            .await
            .unwrap_or_else(|e| panic!("down: {e}"));
        assert!(Migrator::get_applied_migrations(&db)
            .await
            .unwrap()
            .is_empty());
        Migrator::up(&db, None)
            .await
            .unwrap_or_else(|e| panic!("up after down: {e}"));
        assert!(Migrator::get_pending_migrations(&db)
            .await
            .unwrap()
            .is_empty());
    });
}

#[test]
fn every_migration_goes_down_and_up_again_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("round.db").display()
    );
    assert_goes_down_and_up(&url);
}

#[test]
fn every_migration_goes_down_and_up_again_on_postgres() {
    with_postgres("round_trip", assert_goes_down_and_up);
}
