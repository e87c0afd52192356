//! Authentication: API tokens, JWTs, and what happens without them.
use crate::db_test;
use crate::support::helpers::{assert_error, cache_for_one_second_on_sqlite, TestApp};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use chrono::Utc;
use deskgraph::service::tokens;
use entity::api_token;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

async fn version_requires_nothing_but_tokens_are_checked(app: &TestApp) {
    let alice = app.user("alice").await;
    let ok = app.get("/api/version/", Some(&alice.token)).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json, json!({"version": "0.6.0", "api": "0.6.0"}));
}
db_test!(version_requires_nothing_but_tokens_are_checked);

async fn missing_or_bad_credentials_are_401(app: &TestApp) {
    let alice = app.user("alice").await;
    let none = app.get("/api/tickets/", None).await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        none.json,
        json!({"error": "authentication credentials were not provided", "code": "unauthenticated", "details": {}})
    );
    for token in ["garbage", "dg_not-a-real-token", "a.b.c"] {
        let resp = app.get("/api/tickets/", Some(token)).await;
        assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");
    }
    let basic = Request::builder()
        .method(Method::GET)
        .uri("/api/tickets/")
        .header(header::AUTHORIZATION, format!("Token {}", alice.token))
        .body(Body::empty())
        .unwrap();
    assert_error(
        &app.send(basic).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    // Every ticket route asks, writes included, and nothing is created.
    let post = app.post("/api/tickets/", None, json!({"title": "x"})).await;
    assert_error(&post, StatusCode::UNAUTHORIZED, "unauthenticated");
    assert_error(
        &app.patch("/api/tickets/1/", None, json!({"title": "x"}))
            .await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    assert_error(
        &app.delete("/api/tickets/1/", Some("garbage")).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    assert_error(
        &app.get("/api/tickets/1/", None).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    let list = app.get("/api/tickets/", Some(&alice.token)).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.json["count"], 0);
}
db_test!(missing_or_bad_credentials_are_401);

async fn jwt_login_and_expiry(app: &TestApp) {
    let alice = app.user("alice").await;
    let wrong = app
        .post(
            "/api/auth/token/",
            None,
            json!({"username": "alice", "password": "nope"}),
        )
        .await;
    assert_error(&wrong, StatusCode::UNAUTHORIZED, "unauthenticated");
    let unknown = app
        .post(
            "/api/auth/token/",
            None,
            json!({"username": "nobody", "password": "nope"}),
        )
        .await;
    assert_error(&unknown, StatusCode::UNAUTHORIZED, "unauthenticated");
    let malformed = app
        .post("/api/auth/token/", None, json!({"username": 5}))
        .await;
    assert_error(&malformed, StatusCode::BAD_REQUEST, "validation_error");
    let broken = Request::builder()
        .method(Method::POST)
        .uri("/api/auth/token/")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{\"username\": \"alice\","))
        .unwrap();
    assert_error(
        &app.send(broken).await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );
    let ok = app
        .post(
            "/api/auth/token/",
            None,
            json!({"username": "alice", "password": "alice-password", "remember": true}),
        )
        .await;
    assert_eq!(
        ok.status,
        StatusCode::OK,
        "unknown fields are ignored: {}",
        ok.text
    );
    assert_eq!(ok.json["user"]["id"], alice.id);
    let token = ok.json["token"].as_str().unwrap().to_string();
    assert!(ok.json["expires_at"].as_str().unwrap().ends_with('Z'));

    let created = app
        .post("/api/tickets/", Some(&token), json!({"title": "Via JWT"}))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let list = app.get("/api/tickets/", Some(&token)).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
    assert_eq!(list.json["results"][0]["requester"], "alice");

    let (expired, _) = app
        .state
        .jwt
        .issue_at(alice.id, Utc::now() - chrono::Duration::hours(2))
        .unwrap();
    let refused = app.get("/api/tickets/", Some(&expired)).await;
    assert_error(&refused, StatusCode::UNAUTHORIZED, "unauthenticated");
    // Change the first character of the signature: a real bit flip, unlike its last character.
    let (head, signature) = token.rsplit_once('.').unwrap();
    let first = if signature.starts_with('A') { 'B' } else { 'A' };
    let tampered = format!("{head}.{first}{}", &signature[1..]);
    let refused = app.get("/api/tickets/", Some(&tampered)).await;
    assert_error(&refused, StatusCode::UNAUTHORIZED, "unauthenticated");
}
db_test!(jwt_login_and_expiry);

/// Make every token of `user_id` expire at `at`, behind the service's back.
async fn expire_tokens_of(app: &TestApp, user_id: i32, at: chrono::DateTime<Utc>) {
    api_token::Entity::update_many()
        .col_expr(api_token::Column::ExpiresAt, Expr::value(at))
        .filter(api_token::Column::UserId.eq(user_id))
        .exec(&app.state.db.conn)
        .await
        .unwrap();
}

async fn revoked_and_expired_api_tokens_are_refused(app: &TestApp) {
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    assert_eq!(
        app.get("/api/tickets/", Some(&alice.token)).await.status,
        StatusCode::OK
    );
    tokens::revoke_by_name(&app.state.db, &app.state.auth_cache, alice.id, "test")
        .await
        .unwrap();
    let revoked = app.get("/api/tickets/", Some(&alice.token)).await;
    assert_error(&revoked, StatusCode::UNAUTHORIZED, "unauthenticated");

    expire_tokens_of(app, bob.id, Utc::now() - chrono::Duration::hours(1)).await;
    let expired = app.get("/api/tickets/", Some(&bob.token)).await;
    assert_error(&expired, StatusCode::UNAUTHORIZED, "unauthenticated");
    let post = app
        .post("/api/tickets/", Some(&bob.token), json!({"title": "x"}))
        .await;
    assert_error(&post, StatusCode::UNAUTHORIZED, "unauthenticated");

    // A token that expires while its answer is cached stops working all the same.
    let carol = app.user("carol").await;
    expire_tokens_of(
        app,
        carol.id,
        Utc::now() + chrono::Duration::milliseconds(1500),
    )
    .await;
    assert_eq!(
        app.get("/api/tickets/", Some(&carol.token)).await.status,
        StatusCode::OK
    );
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let expired = app.get("/api/tickets/", Some(&carol.token)).await;
    assert_error(&expired, StatusCode::UNAUTHORIZED, "unauthenticated");
}
db_test!(revoked_and_expired_api_tokens_are_refused);

/// Every instance keeps recently resolved tokens; revoking on one must stop the token on the others.
/// PostgreSQL instances tell each other at once (the cache lifetime here is far longer than the wait);
/// on SQLite, where one process serves a file, the short lifetime configured below bounds it.
async fn a_token_revoked_on_one_instance_stops_working_on_another(app: &TestApp) {
    let alice = app.user("alice").await;
    let (_, second) = app.second_instance().await;
    let get_on_second = || {
        let request = Request::builder()
            .uri("/api/tickets/")
            .header(header::AUTHORIZATION, format!("Bearer {}", alice.token))
            .body(Body::empty())
            .unwrap();
        app.send_to(&second, request)
    };
    assert_eq!(get_on_second().await.status, StatusCode::OK);
    assert_eq!(
        app.get("/api/tickets/", Some(&alice.token)).await.status,
        StatusCode::OK
    );
    let tokens = app
        .graphql(Some(&alice.token), "{ apiTokens { id } }", json!({}))
        .await;
    let id = tokens["data"]["apiTokens"][0]["id"].clone();
    let revoked = app
        .graphql(
            Some(&alice.token),
            "mutation($id: ID!) { revokeApiToken(input: {id: $id}) { apiToken { revokedAt } } }",
            json!({ "id": id }),
        )
        .await;
    assert!(revoked["data"]["revokeApiToken"]["apiToken"]["revokedAt"].is_string());
    assert_error(
        &app.get("/api/tickets/", Some(&alice.token)).await,
        StatusCode::UNAUTHORIZED,
        "unauthenticated",
    );
    let mut status = StatusCode::OK;
    for _ in 0..50 {
        status = get_on_second().await.status;
        if status == StatusCode::UNAUTHORIZED {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

db_test!(
    a_token_revoked_on_one_instance_stops_working_on_another,
    cache_for_one_second_on_sqlite
);
