//! Bad input at every door: control characters in text, and out-of-range cursors, pages and ids, are a
//! clear 4xx naming the field, never a 500 (issue 16, items 12 and 13).
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use crate::support::login::{sign_in_request, Door};
use crate::support::world::{login, web, world};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};

/// A REST 400 `validation_error` whose details name `field`.
fn assert_field(resp: &TestResponse, field: &str) {
    assert_error(resp, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        resp.json["details"][field].is_array(),
        "{field} not named: {}",
        resp.text
    );
}

/// A GraphQL BAD_USER_INPUT naming `field`.
fn assert_gql_field(body: &Value, field: &str) {
    let ext = &body["errors"][0]["extensions"];
    assert_eq!(ext["code"], "BAD_USER_INPUT", "{body}");
    assert!(ext["fields"][field].is_array(), "{field} not named: {body}");
}

const CREATE: &str = "mutation($t: String!, $d: String) { createTicket(input: {title: $t, description: $d}) { ticket { id } } }";

async fn control_characters_are_refused_at_every_door(app: &TestApp) {
    let w = world(app).await;
    let token = Some(w.owner.token.as_str());
    let agent = Some(w.agent.token.as_str());
    let tickets = "/api/tickets/";
    let one = format!("/api/tickets/{}/", w.ticket.id);

    // The PostgreSQL NUL case of the issue, on create and on change.
    for title in [
        "\u{0}",
        "VPN\u{0}down",
        "bell\u{7}",
        "esc\u{1b}[31m",
        "del\u{7f}",
        "two\nlines",
    ] {
        let resp = app.post(tickets, token, json!({"title": title})).await;
        assert_field(&resp, "title");
        let resp = app.patch(&one, token, json!({"title": title})).await;
        assert_field(&resp, "title");
    }
    let resp = app
        .post(
            tickets,
            token,
            json!({"title": "ok", "description": "a\u{0}b"}),
        )
        .await;
    assert_field(&resp, "description");
    // Multi-line fields keep tab, newline and carriage return.
    let resp = app
        .post(
            tickets,
            token,
            json!({"title": "Printer", "description": "line one\r\n\tline two"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let resp = app.get(&format!("{tickets}?q=%00"), token).await;
    assert_field(&resp, "q");

    // Comments, through REST and the web door.
    let comments = format!("/api/tickets/{}/comments/", w.ticket.id);
    let resp = app
        .post(&comments, token, json!({"content": "hi\u{0}"}))
        .await;
    assert_field(&resp, "content");
    let resp = app
        .post(
            &comments,
            token,
            json!({"content": "line one\nline two\ttab"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let browser = login(app, &w.owner).await;
    let resp = web(
        app,
        Method::POST,
        &format!("/tickets/{}/comments/add/", w.ticket.id),
        Some(&browser.session),
        Some(&browser.csrf),
        Some(json!({"body": "web\u{0}"})),
    )
    .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(resp.text.contains("body"), "{}", resp.text);

    // Inventory and projects (team members).
    let resp = app
        .post(
            "/api/assets/",
            agent,
            json!({"name": "lap\u{1}top", "type": "hardware"}),
        )
        .await;
    assert_field(&resp, "name");
    let resp = app.get("/api/assets/?search=%00", agent).await;
    assert_field(&resp, "search");

    // GraphQL inputs and search.
    let body = app.graphql(token, CREATE, json!({"t": "\u{0}"})).await;
    assert_gql_field(&body, "title");
    let body = app
        .graphql(token, CREATE, json!({"t": "fine", "d": "\u{8}"}))
        .await;
    assert_gql_field(&body, "description");
    let body = app
        .graphql(
            token,
            "query($q: String) { tickets(filter: {query: $q}) { totalCount } }",
            json!({"q": "\u{0}"}),
        )
        .await;
    assert_gql_field(&body, "query");

    // Sign-in usernames, at every door that takes a password.
    let resp = app
        .send(sign_in_request(Door::Rest, "owner\u{0}", "x"))
        .await;
    assert_field(&resp, "username");
    let resp = app
        .send(sign_in_request(Door::GraphQl, "owner\u{0}", "x"))
        .await;
    assert_gql_field(&resp.json, "username");
    for door in [Door::WebJson, Door::WebForm] {
        let resp = app.send(sign_in_request(door, "owner\u{0}", "x")).await;
        assert!(
            resp.status.is_client_error() || resp.status == StatusCode::OK,
            "{door:?}: {} {}",
            resp.status,
            resp.text
        );
        assert!(!resp.status.is_server_error(), "{door:?}: {}", resp.text);
    }

    // Nothing with a control character was stored.
    let resp = app.get(&format!("{tickets}?limit=100"), token).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(!resp.text.contains("\\u0000"), "{}", resp.text);
}
db_test!(control_characters_are_refused_at_every_door);

fn cursor(offset: &str) -> String {
    STANDARD.encode(format!("cursor:{offset}"))
}

async fn huge_cursors_pages_and_ids_are_4xx(app: &TestApp) {
    let w = world(app).await;
    let token = Some(w.owner.token.as_str());
    let huge = [
        "18446744073709551615",
        "9223372036854775807",
        "9223372036854775806",
        "99999999999999999999999",
        "-1",
    ];
    for n in huge {
        for (args, field) in [
            (format!("first: 5, after: \"{}\"", cursor(n)), "after"),
            (format!("last: 5, before: \"{}\"", cursor(n)), "before"),
            (format!("last: 5, after: \"{}\"", cursor(n)), "after"),
        ] {
            let query = format!("{{ tickets({args}) {{ edges {{ cursor }} totalCount }} }}");
            let body = app.graphql(token, &query, json!({})).await;
            assert_gql_field(&body, field);
        }
        let query = format!(
            "{{ ticket(databaseId: {}) {{ comments(first: 5, after: \"{}\") {{ edges {{ cursor }} }} }} }}",
            w.ticket.id,
            cursor(n)
        );
        let body = app.graphql(token, &query, json!({})).await;
        assert_gql_field(&body, "after");
        let body = app
            .graphql(
                token,
                &format!(
                    "{{ projects(first: 5, after: \"{}\") {{ nodes {{ id }} }} }}",
                    cursor(n)
                ),
                json!({}),
            )
            .await;
        assert_gql_field(&body, "after");
    }
    // The largest cursor accepted still answers (an empty page), on both databases.
    let big = cursor(&((i64::MAX as u64) / 2).to_string());
    let body = app
        .graphql(
            token,
            &format!("{{ tickets(first: 100, after: \"{big}\") {{ edges {{ cursor }} }} }}"),
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
    assert_eq!(body["data"]["tickets"]["edges"], json!([]), "{body}");

    for query in [
        "page=99999999999999999999",
        "page=92233720368547758",
        "page=-1",
        "page=0",
        "limit=18446744073709551616",
        "limit=-5",
        "limit=1e3",
    ] {
        let resp = app.get(&format!("/api/tickets/?{query}"), token).await;
        assert!(
            resp.status == StatusCode::BAD_REQUEST || resp.status == StatusCode::OK,
            "{query}: {} {}",
            resp.status,
            resp.text
        );
        if resp.status == StatusCode::BAD_REQUEST {
            assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
        }
    }
    for path in [
        "/api/tickets/99999999999999999999/",
        "/api/tickets/2147483648/",
        "/api/tickets/-1/",
        "/api/tickets/99999999999999999999/comments/",
        "/api/projects/99999999999999999999/",
        "/api/assets/99999999999999999999/",
        "/tickets/99999999999999999999/comment/",
    ] {
        let resp = app.get(path, token).await;
        assert!(
            resp.status == StatusCode::NOT_FOUND || resp.status == StatusCode::BAD_REQUEST,
            "{path}: {} {}",
            resp.status,
            resp.text
        );
    }
    let browser = login(app, &w.owner).await;
    for path in [
        "/tickets/99999999999999999999/",
        "/tickets/99999999999999999999/comments/",
    ] {
        let resp = web(app, Method::GET, path, Some(&browser.session), None, None).await;
        assert!(
            resp.status == StatusCode::NOT_FOUND || resp.status == StatusCode::BAD_REQUEST,
            "{path}: {} {}",
            resp.status,
            resp.text
        );
    }
}
db_test!(huge_cursors_pages_and_ids_are_4xx);
