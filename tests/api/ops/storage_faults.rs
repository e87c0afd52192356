//! The database refusing writes (a full disk, a read-only database): 503 with the error body, nothing
//! acknowledged lost, and writes work again once the fault is gone.
use crate::db_test;
use crate::support::helpers::TestApp;
use deskgraph::config::Config;
use sea_orm::{ConnectionTrait, DbBackend};
use serde_json::json;

/// One pooled connection, so a setting made on it holds for every request.
fn one_connection(config: &mut Config) {
    config.db_pool_size = 1;
}

async fn sql(app: &TestApp, statement: &str) {
    app.state
        .db
        .conn
        .execute_unprepared(statement)
        .await
        .unwrap();
}

/// The first column of a SQLite pragma's answer.
async fn pragma<T: sea_orm::TryGetable>(app: &TestApp, name: &str) -> T {
    let statement = sea_orm::Statement::from_string(DbBackend::Sqlite, format!("PRAGMA {name}"));
    let row = app
        .state
        .db
        .conn
        .query_one_raw(statement)
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index(0).unwrap()
}

/// Make the database refuse writes: SQLite may not grow past its current pages (a full disk);
/// PostgreSQL's session turns read-only (as on a standby).
async fn break_storage(app: &TestApp) {
    match app.state.db.conn.get_database_backend() {
        DbBackend::Postgres => {
            sql(app, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY").await
        }
        _ => {
            let pages: i64 = pragma(app, "page_count").await;
            sql(app, &format!("PRAGMA max_page_count = {pages}")).await;
        }
    }
}

async fn mend_storage(app: &TestApp) {
    match app.state.db.conn.get_database_backend() {
        DbBackend::Postgres => {
            sql(app, "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE").await
        }
        _ => sql(app, "PRAGMA max_page_count = 1073741823").await,
    }
}

db_test!(
    a_refusing_database_answers_503_and_loses_nothing,
    one_connection
);
async fn a_refusing_database_answers_503_and_loses_nothing(app: &TestApp) {
    let alice = app.user("alice").await;
    let mut acknowledged = Vec::new();
    let ticket = |i: usize| json!({"title": format!("Disk {i}"), "description": "x".repeat(4000)});
    let first = app
        .post("/api/tickets/", Some(&alice.token), ticket(0))
        .await;
    assert_eq!(first.status, 201, "{}", first.text);
    acknowledged.push(first.json["id"].clone());

    break_storage(app).await;
    // A full disk lets writes go on until the last free page is used.
    let refused = loop {
        let i = acknowledged.len();
        assert!(i < 100, "the database never refused a write");
        let created = app
            .post("/api/tickets/", Some(&alice.token), ticket(i))
            .await;
        match created.status.as_u16() {
            201 => acknowledged.push(created.json["id"].clone()),
            _ => break created,
        }
    };
    assert_eq!(refused.status, 503, "{}", refused.text);
    assert_eq!(refused.json["code"], "unavailable");
    assert_eq!(
        refused.json["error"],
        "the service cannot store changes right now; try again later"
    );
    let gql = json!({
        "query": "mutation($d: String) { createTicket(input: {title: \"Disk\", description: $d}) { ticket { id } } }",
        "variables": {"d": "x".repeat(4000)},
    });
    let answer = app.post("/graphql", Some(&alice.token), gql).await;
    assert_eq!(
        answer.json["errors"][0]["extensions"]["code"], "INTERNAL",
        "{}",
        answer.text
    );
    // Reads still answer.
    let list = app.get("/api/tickets/", Some(&alice.token)).await;
    assert_eq!(list.status, 200);

    mend_storage(app).await;
    let again = app
        .post("/api/tickets/", Some(&alice.token), ticket(999))
        .await;
    assert_eq!(again.status, 201, "{}", again.text);
    acknowledged.push(again.json["id"].clone());
    let list = app
        .get("/api/tickets/?page_size=100", Some(&alice.token))
        .await;
    let mut ids: Vec<_> = list.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].clone())
        .collect();
    ids.sort_by_key(|v| v.as_i64());
    assert_eq!(ids, acknowledged, "exactly the acknowledged tickets");
    let numbers: Vec<String> = list.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["ticket_number"].as_str().unwrap_or_default().to_string())
        .collect();
    let mut numbers = numbers;
    numbers.sort();
    let expected: Vec<String> = (1..=acknowledged.len())
        .map(|n| format!("TKT-{n:03}"))
        .collect();
    assert_eq!(numbers, expected, "numbers without gaps");
    if app.state.db.conn.get_database_backend() == DbBackend::Sqlite {
        assert_eq!(pragma::<String>(app, "integrity_check").await, "ok");
    }
}
