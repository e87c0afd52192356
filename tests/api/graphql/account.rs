//! GraphQL sign-in, API tokens, users and what needs authentication.
use crate::db_test;
use crate::support::graphql::{data, first_code};
use crate::support::helpers::TestApp;
use serde_json::{json, Value};

const LOGIN: &str =
    "mutation($u: String!, $p: String!) { login(input: {username: $u, password: $p}) {
    token expiresAt user { username } } }";

async fn unauthenticated_requests_may_only_log_in_and_introspect(app: &TestApp) {
    app.user("rita").await;
    let me = app.graphql(None, "{ me { username } }", json!({})).await;
    assert_eq!(first_code(&me), "UNAUTHENTICATED");
    let tickets = app
        .graphql(None, "{ tickets { totalCount } }", json!({}))
        .await;
    assert_eq!(first_code(&tickets), "UNAUTHENTICATED");
    let bad_token = app
        .graphql(
            Some("dg_not-a-real-token"),
            "{ me { username } }",
            json!({}),
        )
        .await;
    assert_eq!(first_code(&bad_token), "UNAUTHENTICATED");
    let schema = app
        .graphql(None, "{ __schema { queryType { name } } }", json!({}))
        .await;
    assert_eq!(data(&schema)["__schema"]["queryType"]["name"], "Query");

    let wrong = app
        .graphql(None, LOGIN, json!({"u": "rita", "p": "nope"}))
        .await;
    assert_eq!(first_code(&wrong), "UNAUTHENTICATED");
    let ok = app
        .graphql(None, LOGIN, json!({"u": "rita", "p": "rita-password"}))
        .await;
    let login = &data(&ok)["login"];
    assert_eq!(login["user"]["username"], "rita");
    assert!(login["expiresAt"].is_string());
    let jwt = login["token"].as_str().unwrap();
    let me = app
        .graphql(Some(jwt), "{ me { username } }", json!({}))
        .await;
    assert_eq!(data(&me)["me"]["username"], "rita");
}
db_test!(unauthenticated_requests_may_only_log_in_and_introspect);

async fn api_tokens_can_be_created_and_revoked(app: &TestApp) {
    let rita = app.user("rita").await;
    let created = app
        .graphql(
            Some(&rita.token),
            r#"mutation { createApiToken(input: {name: "laptop", expiresInDays: 30}) {
                token apiToken { id name expiresAt revokedAt } } }"#,
            json!({}),
        )
        .await;
    let payload = &data(&created)["createApiToken"];
    assert_eq!(payload["apiToken"]["name"], "laptop");
    assert!(payload["apiToken"]["expiresAt"].is_string());
    assert_eq!(payload["apiToken"]["revokedAt"], Value::Null);
    let secret = payload["token"].as_str().unwrap().to_string();
    let token_id = payload["apiToken"]["id"].clone();

    let me = app
        .graphql(
            Some(&secret),
            "{ me { username } apiTokens { name } }",
            json!({}),
        )
        .await;
    assert_eq!(data(&me)["me"]["username"], "rita");
    assert_eq!(
        data(&me)["apiTokens"],
        json!([{"name": "laptop"}, {"name": "test"}])
    );

    let bad_days = app
        .graphql(
            Some(&rita.token),
            r#"mutation { createApiToken(input: {name: "x", expiresInDays: 0}) { token } }"#,
            json!({}),
        )
        .await;
    assert_eq!(first_code(&bad_days), "BAD_USER_INPUT");

    // Someone else cannot revoke it, and cannot tell it exists.
    let oscar = app.user("oscar").await;
    let revoke =
        "mutation($id: ID!) { revokeApiToken(input: {id: $id}) { apiToken { revokedAt } } }";
    let foreign = app
        .graphql(Some(&oscar.token), revoke, json!({"id": token_id}))
        .await;
    assert_eq!(first_code(&foreign), "NOT_FOUND");
    let revoked = app
        .graphql(Some(&rita.token), revoke, json!({"id": token_id}))
        .await;
    assert!(data(&revoked)["revokeApiToken"]["apiToken"]["revokedAt"].is_string());
    let after = app
        .graphql(Some(&secret), "{ me { username } }", json!({}))
        .await;
    assert_eq!(first_code(&after), "UNAUTHENTICATED");
}
db_test!(api_tokens_can_be_created_and_revoked);

async fn users_directory_and_email_visibility(app: &TestApp) {
    let rita = app.user("rita").await;
    let oscar = app.user("oscar").await;
    let agent = app.agent("adam").await;
    let users = "{ users(first: 2) { nodes { username email groups { name } } pageInfo { hasNextPage } totalCount } }";
    let forbidden = app.graphql(Some(&rita.token), users, json!({})).await;
    assert_eq!(first_code(&forbidden), "FORBIDDEN");
    let listed = app.graphql(Some(&agent.token), users, json!({})).await;
    assert_eq!(
        data(&listed)["users"],
        json!({"nodes": [
            {"username": "adam", "email": "adam@example.com", "groups": [{"name": "Agents"}]},
            {"username": "oscar", "email": "oscar@example.com", "groups": []}],
            "pageInfo": {"hasNextPage": true}, "totalCount": 3})
    );
    let node = "query($id: ID!) { node(id: $id) { ... on User { username email } } }";
    let oscar_id = crate::support::graphql::gid("User", oscar.id);
    // Rita shares no ticket with Oscar: his account does not exist for her.
    let by_rita = app
        .graphql(Some(&rita.token), node, json!({"id": oscar_id}))
        .await;
    assert_eq!(
        by_rita["data"]["node"],
        serde_json::Value::Null,
        "{by_rita}"
    );
    assert_eq!(first_code(&by_rita), "NOT_FOUND");
    let by_self = app
        .graphql(Some(&oscar.token), node, json!({"id": oscar_id}))
        .await;
    assert_eq!(data(&by_self)["node"]["email"], "oscar@example.com");
    let groups = app
        .graphql(Some(&rita.token), "{ groups { name } }", json!({}))
        .await;
    assert_eq!(data(&groups)["groups"], json!([{"name": "Agents"}]));
}
db_test!(users_directory_and_email_visibility);
