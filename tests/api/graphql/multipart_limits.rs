//! The JSON parts of a GraphQL multipart request (`operations`, `map`) have the JSON body limit (1 MiB),
//! answered with a 413 in the GraphQL error shape; the file keeps the upload limit.
use crate::db_test;
use crate::support::attachments::{multipart, BOUNDARY};
use crate::support::graphql::{add_over_multipart, ticket_id};
use crate::support::helpers::{TestApp, TestResponse, TestUser};
use crate::support::world::world;
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use serde_json::json;

const MIB: usize = 1024 * 1024;

async fn send(app: &TestApp, user: &TestUser, operations: &str, map: &str) -> TestResponse {
    let body = multipart(&[
        ("operations", None, operations.as_bytes()),
        ("map", None, map.as_bytes()),
        ("0", Some("f.txt"), b"some words"),
    ]);
    let request = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header(header::AUTHORIZATION, format!("Bearer {}", user.token))
        .header("apollo-require-preflight", "true")
        .body(Body::from(body))
        .unwrap();
    app.send(request).await
}

fn assert_too_large(resp: &TestResponse) {
    assert_eq!(resp.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", resp.text);
    let message = resp.json["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("`operations` and `map`"), "{message}");
}

async fn operations_and_map_are_capped(app: &TestApp) {
    let w = world(app).await;
    let query = "mutation($input: AddAttachmentInput!) { addAttachment(input: $input) { attachment { size } } }";
    let vars = json!({ "input": { "ticketId": ticket_id(&w.ticket), "file": null } });
    let map = json!({ "0": ["variables.input.file"] }).to_string();
    let operations = |pad: usize| {
        json!({ "query": query, "variables": vars, "extensions": { "pad": "x".repeat(pad) } })
            .to_string()
    };
    // Just under the limit, with the rest of the body: accepted.
    let resp = send(app, &w.owner, &operations(MIB - 1000), &map).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["data"]["addAttachment"]["attachment"]["size"], 10);
    // Over it in `operations`, or in `map`: refused before anything runs.
    assert_too_large(&send(app, &w.owner, &operations(MIB + 10), &map).await);
    let big_map = json!({ "0": ["variables.input.file"], "pad": ["x".repeat(MIB)] }).to_string();
    assert_too_large(&send(app, &w.owner, &operations(0), &big_map).await);
    let list = app
        .get(
            &format!("/api/tickets/{}/attachments/", w.ticket.id),
            Some(&w.owner.token),
        )
        .await;
    assert_eq!(list.json.as_array().map(Vec::len), Some(1));
    // A file larger than the JSON limit still goes through.
    let bytes: Vec<u8> = (0..3 * MIB).map(|i| (i % 251) as u8).collect();
    let resp = add_over_multipart(app, &w.owner, vars.clone(), "big.bin", &bytes, true).await;
    assert_eq!(
        resp.json["data"]["addAttachment"]["attachment"]["size"],
        bytes.len(),
        "{}",
        resp.text
    );
}
db_test!(operations_and_map_are_capped);
