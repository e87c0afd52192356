//! Bounded database work: a statement past `DESKGRAPH_STATEMENT_TIMEOUT_MS` answers 503 `timeout` and the
//! pool serves on; a write whose client leaves still commits; a PostgreSQL connection given back inside a
//! transaction is never handed out again.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use deskgraph::db::Db;
use deskgraph::seed::{seed, SeedOptions};
use sea_orm::{
    ConnectionTrait, Database, DatabaseTransaction, EntityTrait, PaginatorTrait, Statement,
    TransactionTrait,
};
use serde_json::json;
use std::time::{Duration, Instant};

async fn send(
    app: &TestApp,
    router: &Router,
    method: Method,
    path: &str,
    token: &str,
) -> crate::support::helpers::TestResponse {
    let mut request = Request::builder()
        .method(method.clone())
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {token}"));
    let body = if method == Method::POST {
        request = request.header(header::CONTENT_TYPE, "application/json");
        Body::from(json!({"title": "Bounded"}).to_string())
    } else {
        Body::empty()
    };
    app.send_to(router, request.body(body).unwrap()).await
}

/// Another session that holds what a ticket create needs: the ticket-number counter's row lock on
/// PostgreSQL, the write lock on SQLite. Rolled back when dropped.
async fn hold_creates(app: &TestApp) -> DatabaseTransaction {
    if app.is_postgres() {
        let other = Database::connect(&app.state.config.database_url)
            .await
            .unwrap();
        let txn = other.begin().await.unwrap();
        txn.query_one_raw(Statement::from_string(
            txn.get_database_backend(),
            "SELECT value FROM counters WHERE name = 'ticket_number' FOR UPDATE",
        ))
        .await
        .unwrap();
        txn
    } else {
        let other = Db::connect(&app.state.config.database_url, 1)
            .await
            .unwrap();
        other.begin_write().await.unwrap()
    }
}

async fn a_statement_past_the_timeout_answers_503_and_the_pool_serves_on(app: &TestApp) {
    let ava = app.agent("ava").await;
    // PostgreSQL: a create waits on a lock another session holds. SQLite: a text search scans every ticket.
    let limit = if app.is_postgres() { 300 } else { 5 };
    let (_, router) = app
        .serving_instance_with(|c| {
            c.statement_timeout_ms = limit;
            c.db_pool_size = 2;
        })
        .await;
    let graphql = |document: &str| {
        Request::builder()
            .method(Method::POST)
            .uri("/graphql")
            .header(header::AUTHORIZATION, format!("Bearer {}", ava.token))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(json!({ "query": document }).to_string()))
            .unwrap()
    };
    let (rest, door) = if app.is_postgres() {
        let held = hold_creates(app).await;
        let rest = send(app, &router, Method::POST, "/api/tickets/", &ava.token).await;
        let create = "mutation { createTicket(input: {title: \"Bounded\"}) { ticket { id } } }";
        let door = app.send_to(&router, graphql(create)).await;
        held.rollback().await.unwrap();
        (rest, door)
    } else {
        let options = SeedOptions {
            tickets: 20_000,
            users: 5,
            projects: 2,
            comments_per_ticket: 0,
            password: "seed-password".into(),
            random_seed: 3,
            open_share: None,
            sla_policies: false,
        };
        seed(&app.state, &options).await.unwrap();
        let started = Instant::now();
        let path = "/api/tickets/?q=no%20such%20words";
        let rest = send(app, &router, Method::GET, path, &ava.token).await;
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        let count =
            "{ tickets(first: 0, filter: {query: \"still no such words\"}) { totalCount } }";
        let door = app.send_to(&router, graphql(count)).await;
        (rest, door)
    };
    assert_error(&rest, StatusCode::SERVICE_UNAVAILABLE, "timeout");
    let error = &door.json["errors"][0];
    assert_eq!(error["extensions"]["code"], "INTERNAL", "{}", door.text);
    assert_eq!(
        error["message"],
        "the request took too long and was abandoned"
    );
    // More requests than the pool has connections: none inherits the stopped statement.
    for _ in 0..5 {
        let listed = send(
            app,
            &router,
            Method::GET,
            "/api/tickets/?limit=1",
            &ava.token,
        )
        .await;
        assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);
        let created = send(app, &router, Method::POST, "/api/tickets/", &ava.token).await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    }
}
db_test!(a_statement_past_the_timeout_answers_503_and_the_pool_serves_on);

async fn a_write_runs_to_its_end_after_its_client_leaves(app: &TestApp) {
    let ava = app.agent("ava").await;
    // The token's first use records itself (a write): done before the lock is taken.
    let listed = app.get("/api/tickets/", Some(&ava.token)).await;
    assert_eq!(listed.status, StatusCode::OK);
    let held = hold_creates(app).await;
    let request = app.post(
        "/api/tickets/",
        Some(&ava.token),
        json!({"title": "Left behind"}),
    );
    let gone = tokio::time::timeout(Duration::from_millis(300), request).await;
    assert!(
        gone.is_err(),
        "the client gave up before the create could commit"
    );
    held.rollback().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let conn = &app.state.db.conn;
    while entity::ticket::Entity::find().count(conn).await.unwrap() == 0 {
        assert!(Instant::now() < deadline, "the create did not finish");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listed = app.get("/api/tickets/", Some(&ava.token)).await;
    assert_eq!(
        listed.json["results"][0]["title"], "Left behind",
        "{}",
        listed.text
    );
    let audited = conn
        .query_one_raw(Statement::from_string(
            conn.get_database_backend(),
            "SELECT count(*) FROM audit_events WHERE entity_type = 'ticket' AND action = 'create'",
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get_by_index::<i64>(0)
        .unwrap();
    assert_eq!(audited, 1, "committed with its audit record");
}
db_test!(a_write_runs_to_its_end_after_its_client_leaves);

/// sqlx 0.9 can hand a connection back to the pool inside a transaction it does not know of (a `BEGIN`
/// dropped while under way). The serving pool closes such a connection: the next borrower's single-statement
/// write commits, instead of running inside the stale transaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_connection_given_back_inside_a_transaction_is_not_pooled() {
    let Some(app) = TestApp::postgres().await else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let url = app.state.config.database_url.clone();
    let second = Duration::from_secs(5);
    let db = Db::connect_serving(&url, 1, second, second).await.unwrap();
    {
        let mut conn = db
            .conn
            .get_postgres_connection_pool()
            .acquire()
            .await
            .unwrap();
        // A raw `BEGIN`: the server is in a transaction, sqlx counts none, as after the dropped `BEGIN`.
        sea_orm::sqlx::raw_sql("BEGIN")
            .execute(&mut *conn)
            .await
            .unwrap();
    }
    db.conn
        .execute_unprepared("INSERT INTO settings (key, value) VALUES ('probe', 'written')")
        .await
        .unwrap();
    let other = Database::connect(&url).await.unwrap();
    let seen = entity::setting::Entity::find_by_id("probe".to_string())
        .one(&other)
        .await
        .unwrap();
    assert_eq!(
        seen.map(|s| s.value),
        Some("written".into()),
        "the write committed"
    );
    let stale = other
        .query_one_raw(Statement::from_string(
            other.get_database_backend(),
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
             AND state LIKE 'idle in transaction%'",
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get_by_index::<i64>(0)
        .unwrap();
    assert_eq!(stale, 0, "no session left idle in a transaction");
    other.close().await.unwrap();
    db.conn.close().await.unwrap();
    app.cleanup().await;
}

/// A query's root fields whose turn comes after the request's time limit fail with the timeout instead of
/// reading on (a POST runs on after its client left).
async fn root_fields_past_the_time_limit_do_not_start(app: &TestApp) {
    let ann = app.user("ann").await;
    let (state, _) = app
        .second_instance_with(|c| c.request_timeout_seconds = 0)
        .await;
    let schema = deskgraph::graphql::build_schema(state.clone());
    let actor = std::sync::Arc::new(app.actor(&ann).await);
    let ctx = deskgraph::graphql::context::RequestContext::new(
        state,
        deskgraph::auth::middleware::Auth::Actor(actor),
    );
    let request =
        async_graphql::Request::new("{ a: me { username } b: me { username } }").data(ctx);
    let answer = serde_json::to_value(schema.execute(request).await).unwrap();
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{answer}");
    for error in errors {
        assert_eq!(error["extensions"]["code"], "INTERNAL", "{answer}");
        assert_eq!(
            error["message"],
            "the request took too long and was abandoned"
        );
    }
}
db_test!(root_fields_past_the_time_limit_do_not_start);
