//! `deskgraph migrate`, as an operator runs it on a new database and again on an up-to-date one: every
//! migration applies through the command's own connection pool (the tests' databases are made another way).
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

#[test]
fn migrate_applies_every_migration_on_postgres() {
    let Ok(server) = std::env::var("DESKGRAPH_TEST_POSTGRES_URL") else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let name = format!("dg_test_migrate_{}", std::process::id());
    let psql = |sql: &str| {
        let status = Command::new("psql")
            .args(["-X", "-q", &format!("{server}/postgres"), "-c", sql])
            .status()
            .unwrap();
        assert!(status.success(), "{sql}");
    };
    psql(&format!("DROP DATABASE IF EXISTS {name}"));
    psql(&format!("CREATE DATABASE {name}"));
    assert_migrates(&format!("{server}/{name}"));
    psql(&format!("DROP DATABASE {name} WITH (FORCE)"));
}
