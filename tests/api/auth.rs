//! Authentication: API tokens, JWTs, and what happens without them.
use crate::db_test;
use crate::helpers::{assert_error, TestApp};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use chrono::Utc;
use deskgraph::service::tokens;
use entity::api_token;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
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
            json!({"username": "alice", "password": "alice-password"}),
        )
        .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
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

async fn revoked_and_expired_api_tokens_are_refused(app: &TestApp) {
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    assert_eq!(
        app.get("/api/tickets/", Some(&alice.token)).await.status,
        StatusCode::OK
    );
    tokens::revoke_by_name(&app.state.db, alice.id, "test")
        .await
        .unwrap();
    let revoked = app.get("/api/tickets/", Some(&alice.token)).await;
    assert_error(&revoked, StatusCode::UNAUTHORIZED, "unauthenticated");

    assert_eq!(
        app.get("/api/tickets/", Some(&bob.token)).await.status,
        StatusCode::OK
    );
    let record = api_token::Entity::find()
        .filter(api_token::Column::UserId.eq(bob.id))
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let mut active: api_token::ActiveModel = record.into();
    active.expires_at = Set(Some(Utc::now() - chrono::Duration::hours(1)));
    active.update(&app.state.db.conn).await.unwrap();
    let expired = app.get("/api/tickets/", Some(&bob.token)).await;
    assert_error(&expired, StatusCode::UNAUTHORIZED, "unauthenticated");
    let post = app
        .post("/api/tickets/", Some(&bob.token), json!({"title": "x"}))
        .await;
    assert_error(&post, StatusCode::UNAUTHORIZED, "unauthenticated");
}
db_test!(revoked_and_expired_api_tokens_are_refused);
