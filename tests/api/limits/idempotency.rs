//! Idempotent creates: `Idempotency-Key` on `POST /api/tickets/`, `idempotencyKey` on GraphQL `createTicket`.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use chrono::{Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, Statement};
use serde_json::{json, Value};

/// `POST /api/tickets/` as `token`, with `keys` as its `Idempotency-Key` header(s).
pub async fn create_with_keys(
    app: &TestApp,
    token: &str,
    keys: &[&str],
    body: Value,
) -> TestResponse {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/api/tickets/")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json");
    for key in keys {
        request = request.header("Idempotency-Key", *key);
    }
    app.send(request.body(Body::from(body.to_string())).unwrap())
        .await
}

async fn tickets(app: &TestApp) -> u64 {
    entity::ticket::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap()
}

async fn audit_creates(app: &TestApp) -> i64 {
    let conn = &app.state.db.conn;
    let row = conn
        .query_one_raw(Statement::from_string(
            conn.get_database_backend(),
            "SELECT count(*) FROM audit_events WHERE entity_type = 'ticket' AND action = 'create'",
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index::<i64>(0).unwrap()
}

async fn a_retried_rest_create_answers_the_first_ticket(app: &TestApp) {
    let ann = app.user("ann").await;
    let body = json!({"title": "Printer jammed", "priority": "high"});
    let first = create_with_keys(app, &ann.token, &["2f6c1a9e-retry"], body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    let again = create_with_keys(app, &ann.token, &["2f6c1a9e-retry"], body.clone()).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    assert_eq!(again.text, first.text, "the same answer, byte for byte");
    // The ticket changes meanwhile: the retry still answers what the create answered.
    let id = first.json["id"].as_i64().unwrap();
    let agent = app.agent("ava").await;
    let patched = app
        .patch(
            &format!("/api/tickets/{id}/"),
            Some(&agent.token),
            json!({"title": "Printer fixed"}),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    let later = create_with_keys(app, &ann.token, &["2f6c1a9e-retry"], body).await;
    assert_eq!(later.text, first.text);
    assert_eq!(tickets(app).await, 1);
    assert_eq!(audit_creates(app).await, 1);
    // Without a key, the same body is a new ticket.
    let unkeyed = app
        .post(
            "/api/tickets/",
            Some(&ann.token),
            json!({"title": "Printer jammed", "priority": "high"}),
        )
        .await;
    assert_eq!(unkeyed.status, StatusCode::CREATED);
    assert_ne!(unkeyed.json["id"], first.json["id"]);
}
db_test!(a_retried_rest_create_answers_the_first_ticket);

const CREATE: &str = "mutation($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id ticketNumber title } } }";

async fn a_retried_graphql_create_answers_the_first_ticket(app: &TestApp) {
    let ann = app.user("ann").await;
    let input = json!({"input": {"title": "VPN down", "idempotencyKey": "vpn-01HF3"}});
    let first = app.graphql(Some(&ann.token), CREATE, input.clone()).await;
    assert!(first["errors"].is_null(), "{first}");
    let again = app.graphql(Some(&ann.token), CREATE, input).await;
    assert_eq!(again, first);
    assert_eq!(tickets(app).await, 1);
    // The key space is the account's, whichever door: REST with the same input and key is the same create.
    let rest = create_with_keys(
        app,
        &ann.token,
        &["vpn-01HF3"],
        json!({"title": "VPN down"}),
    )
    .await;
    assert_eq!(rest.status, StatusCode::CREATED, "{}", rest.text);
    assert_eq!(
        rest.json["ticket_number"],
        first["data"]["createTicket"]["ticket"]["ticketNumber"]
    );
    assert_eq!(tickets(app).await, 1);
}
db_test!(a_retried_graphql_create_answers_the_first_ticket);

async fn a_key_reused_for_another_request_is_a_conflict(app: &TestApp) {
    let ann = app.user("ann").await;
    let first = create_with_keys(app, &ann.token, &["k-1"], json!({"title": "Mouse"})).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let other = create_with_keys(app, &ann.token, &["k-1"], json!({"title": "Keyboard"})).await;
    assert_error(&other, StatusCode::CONFLICT, "conflict");
    assert!(
        other.json["details"]["Idempotency-Key"].is_array(),
        "{}",
        other.text
    );
    let graphql = app
        .graphql(
            Some(&ann.token),
            CREATE,
            json!({"input": {"title": "Keyboard", "idempotencyKey": "k-1"}}),
        )
        .await;
    let error = &graphql["errors"][0];
    assert_eq!(error["extensions"]["code"], "BAD_USER_INPUT", "{graphql}");
    assert!(
        error["extensions"]["fields"]["idempotencyKey"].is_array(),
        "{graphql}"
    );
    assert!(graphql["data"].is_null() || graphql["data"]["createTicket"].is_null());
    assert_eq!(tickets(app).await, 1);
}
db_test!(a_key_reused_for_another_request_is_a_conflict);

async fn another_accounts_key_is_its_own(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.user("bob").await;
    let body = json!({"title": "Screen flickers"});
    let anns = create_with_keys(app, &ann.token, &["shared-key"], body.clone()).await;
    let bobs = create_with_keys(app, &bob.token, &["shared-key"], body.clone()).await;
    assert_eq!(anns.status, StatusCode::CREATED);
    assert_eq!(bobs.status, StatusCode::CREATED);
    assert_ne!(
        anns.json["id"], bobs.json["id"],
        "bob gets his own ticket, not ann's"
    );
    let bob_other = create_with_keys(app, &bob.token, &["shared-key"], json!({"title": "x"})).await;
    assert_error(&bob_other, StatusCode::CONFLICT, "conflict");
    assert_eq!(tickets(app).await, 2);
}
db_test!(another_accounts_key_is_its_own);

async fn invalid_keys_are_a_400_naming_the_header_or_field(app: &TestApp) {
    let ann = app.user("ann").await;
    let long = "k".repeat(256);
    for bad in ["", "has space", long.as_str()] {
        let response = create_with_keys(app, &ann.token, &[bad], json!({"title": "t"})).await;
        assert_error(&response, StatusCode::BAD_REQUEST, "validation_error");
        assert!(
            response.json["details"]["Idempotency-Key"].is_array(),
            "{}",
            response.text
        );
    }
    let twice = create_with_keys(app, &ann.token, &["a", "b"], json!({"title": "t"})).await;
    assert_error(&twice, StatusCode::BAD_REQUEST, "validation_error");
    let graphql = app
        .graphql(
            Some(&ann.token),
            CREATE,
            json!({"input": {"title": "t", "idempotencyKey": "no spaces please"}}),
        )
        .await;
    let error = &graphql["errors"][0];
    assert_eq!(error["extensions"]["code"], "BAD_USER_INPUT", "{graphql}");
    assert!(
        error["extensions"]["fields"]["idempotencyKey"].is_array(),
        "{graphql}"
    );
    assert_eq!(tickets(app).await, 0);
}
db_test!(invalid_keys_are_a_400_naming_the_header_or_field);

async fn concurrent_creates_with_one_key_make_one_ticket(app: &TestApp) {
    let ann = app.user("ann").await;
    let body = json!({"title": "Race"});
    for round in 0..5 {
        let key = format!("race-{round}");
        let keys = [key.as_str()];
        let sends = (0..6).map(|_| create_with_keys(app, &ann.token, &keys, body.clone()));
        let answers = futures_util::future::join_all(sends).await;
        for answer in &answers {
            assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
            assert_eq!(answer.text, answers[0].text);
        }
    }
    assert_eq!(tickets(app).await, 5);
    assert_eq!(audit_creates(app).await, 5);
}
db_test!(concurrent_creates_with_one_key_make_one_ticket);

async fn an_expired_key_creates_again_and_the_sweep_removes_old_keys(app: &TestApp) {
    let ann = app.user("ann").await;
    let body = json!({"title": "Old"});
    let first = create_with_keys(app, &ann.token, &["old-key"], body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let conn = &app.state.db.conn;
    let aged = Utc::now() - Duration::hours(25);
    conn.execute(
        &sea_orm::sea_query::Query::update()
            .table(entity::idempotency_key::Entity)
            .value(entity::idempotency_key::Column::CreatedAt, aged)
            .to_owned(),
    )
    .await
    .unwrap();
    let again = create_with_keys(app, &ann.token, &["old-key"], body).await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_ne!(
        again.json["id"], first.json["id"],
        "a day later the key is free"
    );
    create_with_keys(app, &ann.token, &["other-key"], json!({"title": "New"})).await;
    conn.execute(
        &sea_orm::sea_query::Query::update()
            .table(entity::idempotency_key::Entity)
            .value(entity::idempotency_key::Column::CreatedAt, aged)
            .and_where(entity::idempotency_key::Column::Key.eq("other-key"))
            .to_owned(),
    )
    .await
    .unwrap();
    let swept = deskgraph::service::idempotency::sweep(conn, Utc::now())
        .await
        .unwrap();
    assert_eq!(swept, 1);
    let left = entity::idempotency_key::Entity::find()
        .count(conn)
        .await
        .unwrap();
    assert_eq!(left, 1);
}
db_test!(an_expired_key_creates_again_and_the_sweep_removes_old_keys);
