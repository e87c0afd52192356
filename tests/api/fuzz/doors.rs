//! No 5xx from fuzzed text (issue 16): generated hostile strings go into every text input of REST, GraphQL
//! and the web interface, on both databases; every answer is a success or a 4xx, never a 5xx or an
//! INTERNAL error.
use crate::db_test;
use crate::support::helpers::{TestApp, TestResponse};
use crate::support::login::{sign_in_request, Door};
use crate::support::world::{login, web, world};
use axum::http::Method;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};

/// Strings made of pieces that have broken text handling somewhere: control characters (NUL first),
/// SQL and LIKE metacharacters, odd Unicode, and lengths around the limits.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = proptest::prop_oneof![
        proptest::strategy::Just("\u{0}".to_string()),
        proptest::strategy::Just("\u{7f}".to_string()),
        proptest::strategy::Just("\t\r\n".to_string()),
        proptest::strategy::Just("%_\\".to_string()),
        proptest::strategy::Just("'; DROP TABLE tickets; --".to_string()),
        proptest::strategy::Just("\u{feff}\u{200b}\u{202e}".to_string()),
        proptest::strategy::Just("\u{ffff}\u{fffd}".to_string()),
        proptest::strategy::Just("🙂👩‍💻".to_string()),
        proptest::strategy::Just("<script>alert(1)</script>".to_string()),
        proptest::strategy::Just("TKT-99999999999999999999".to_string()),
        proptest::strategy::Just("x".repeat(201)),
        "[\\x00-\\x1f]{1,3}",
        "\\PC{0,12}",
        "\\PC{190,210}",
    ];
    proptest::collection::vec(piece, 0..6).prop_map(|p| p.concat())
}

/// A fixed sample of `count` strings (deterministic, so a failure reproduces), plus the empty one.
fn samples(count: usize) -> Vec<String> {
    let mut runner = TestRunner::deterministic();
    let strategy = hostile_text();
    let mut out = vec![String::new()];
    for _ in 0..count {
        match strategy.new_tree(&mut runner) {
            Ok(tree) => out.push(tree.current()),
            Err(e) => panic!("{e}"),
        }
    }
    out
}

fn assert_no_5xx(what: &str, input: &str, resp: &TestResponse) {
    assert!(
        !resp.status.is_server_error(),
        "{what} with {input:?}: {} {}",
        resp.status,
        resp.text
    );
}

fn assert_no_internal(what: &str, input: &str, body: &Value) {
    let internal = body["errors"]
        .as_array()
        .is_some_and(|errors| errors.iter().any(|e| e["extensions"]["code"] == "INTERNAL"));
    assert!(!internal, "{what} with {input:?}: {body}");
}

/// One REST or web call: what it is, method, path, bearer token, JSON body.
type Call<'a> = (&'a str, Method, String, Option<&'a str>, Option<Value>);

fn query_param(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

async fn fuzzed_text_never_gets_a_5xx(app: &TestApp) {
    let w = world(app).await;
    let owner = Some(w.owner.token.as_str());
    let agent = Some(w.agent.token.as_str());
    let admin = Some(w.admin.token.as_str());
    let ticket = format!("/api/tickets/{}/", w.ticket.id);
    let browser = login(app, &w.owner).await;
    for (n, text) in samples(24).into_iter().enumerate() {
        let text = text.as_str();
        let rest: [Call; 9] = [
            (
                "create ticket",
                Method::POST,
                "/api/tickets/".into(),
                owner,
                Some(json!({"title": text, "description": text})),
            ),
            (
                "change ticket",
                Method::PATCH,
                ticket.clone(),
                owner,
                Some(json!({"title": text, "description": text})),
            ),
            (
                "search tickets",
                Method::GET,
                format!("/api/tickets/?q={}", query_param(text)),
                owner,
                None,
            ),
            (
                "comment",
                Method::POST,
                format!("{ticket}comments/"),
                owner,
                Some(json!({"content": text})),
            ),
            (
                "create asset",
                Method::POST,
                "/api/assets/".into(),
                agent,
                Some(
                    json!({"name": text, "type": "hardware", "location": text, "serial_number": text, "description": text}),
                ),
            ),
            (
                "search assets",
                Method::GET,
                format!("/api/assets/?search={}", query_param(text)),
                agent,
                None,
            ),
            (
                "create project",
                Method::POST,
                "/api/projects/".into(),
                admin,
                Some(json!({"name": text, "description": text})),
            ),
            (
                "sign in",
                Method::POST,
                "/api/auth/token/".into(),
                None,
                Some(json!({"username": text, "password": text})),
            ),
            (
                "web queue",
                Method::GET,
                format!("/tickets/?q={}", query_param(text)),
                None,
                None,
            ),
        ];
        for (what, method, path, token, body) in rest {
            let resp = if what == "web queue" {
                web(app, method, &path, Some(&browser.session), None, None).await
            } else {
                app.request(method, &path, token, body).await
            };
            assert_no_5xx(what, text, &resp);
        }

        let graphql = [
            ("createTicket", owner, "mutation($t: String!) { createTicket(input: {title: $t, description: $t}) { ticket { id } } }"),
            ("tickets", owner, "query($t: String) { tickets(filter: {query: $t}) { totalCount } }"),
            ("users", agent, "query($t: String) { users(query: $t) { nodes { id } } }"),
            ("createProject", admin, "mutation($t: String!) { createProject(input: {name: $t, description: $t}) { project { id } } }"),
            ("createApiToken", owner, "mutation($t: String!) { createApiToken(input: {name: $t}) { token } }"),
            ("login", None, "mutation($t: String!) { login(input: {username: $t, password: $t}) { token } }"),
        ];
        for (i, (what, token, query)) in graphql.into_iter().enumerate() {
            if n == 0 && what != "login" {
                // The operations themselves are valid: a plain value goes through.
                let fine = format!("Plain value {i}");
                let body = app.graphql(token, query, json!({"t": fine})).await;
                assert!(body["errors"].is_null(), "{what}: {body}");
            }
            let body = app.graphql(token, query, json!({"t": text})).await;
            assert_no_internal(what, text, &body);
        }

        let resp = web(
            app,
            Method::POST,
            &format!("/tickets/{}/comments/add/", w.ticket.id),
            Some(&browser.session),
            Some(&browser.csrf),
            Some(json!({"body": text})),
        )
        .await;
        assert_no_5xx("web comment", text, &resp);
        for door in [Door::WebJson, Door::WebForm] {
            let resp = app.send(sign_in_request(door, text, text)).await;
            assert_no_5xx("web sign-in", text, &resp);
        }
    }
}
db_test!(fuzzed_text_never_gets_a_5xx);
