//! Shared set-up for the GraphQL tests: tickets, projects and comments written straight through the services.
use crate::support::attachments::{multipart, BOUNDARY};
use crate::support::helpers::{TestApp, TestResponse, TestUser};
use axum::body::Body;
use axum::http::{header, Method, Request};
use axum::Router;
use deskgraph::service::tickets::{self, NewTicket};
use entity::project;
use serde_json::{json, Value};

/// Open a ticket as `user` through the service.
pub async fn ticket_as(app: &TestApp, user: &TestUser, input: NewTicket) -> entity::ticket::Model {
    let actor = app.actor(user).await;
    tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        input,
    )
    .await
    .unwrap()
}

/// Open a ticket titled `title` as `user`.
pub async fn simple_ticket(app: &TestApp, user: &TestUser, title: &str) -> entity::ticket::Model {
    ticket_as(
        app,
        user,
        NewTicket {
            title: title.to_string(),
            ..Default::default()
        },
    )
    .await
}

/// A project row.
pub async fn project(app: &TestApp, name: &str) -> project::Model {
    app.project(name).await
}

/// A comment row of `kind` ("public" or "internal") on `ticket_id`.
pub async fn comment(app: &TestApp, ticket_id: i32, author: i32, kind: &str, deleted: bool) {
    app.comment_row(ticket_id, author, kind, deleted).await;
    // Written beside the service, so counted as a bulk load is.
    deskgraph::service::comments::recount(&app.state.db.conn, ticket_id)
        .await
        .unwrap();
}

/// Global id of `kind` `id`, as clients see it.
pub fn gid(kind: &str, id: i32) -> String {
    deskgraph::graphql::ids::encode(kind, id).to_string()
}

/// The `extensions.code` of the first error, panicking with the body when there is none.
pub fn first_code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {body}"))
}

/// Assert a response has no errors and return its data.
pub fn data(body: &Value) -> &Value {
    assert!(body.get("errors").is_none(), "unexpected errors: {body}");
    &body["data"]
}

/// A GraphQL multipart request (operations, map, one file) as `user`, with or without the preflight header.
pub async fn add_over_multipart(
    app: &TestApp,
    user: &TestUser,
    variables: Value,
    filename: &str,
    bytes: &[u8],
    preflight: bool,
) -> TestResponse {
    let operations = json!({ "query": ADD, "variables": variables }).to_string();
    let map = json!({ "0": ["variables.input.file"] }).to_string();
    let body = multipart(&[
        ("operations", None, operations.as_bytes()),
        ("map", None, map.as_bytes()),
        ("0", Some(filename), bytes),
    ]);
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header(header::AUTHORIZATION, format!("Bearer {}", user.token));
    if preflight {
        builder = builder.header("apollo-require-preflight", "true");
    }
    app.send(builder.body(Body::from(body)).unwrap()).await
}

/// The global id of `t`.
pub fn ticket_id(t: &entity::ticket::Model) -> String {
    deskgraph::graphql::ids::encode("Ticket", t.id).0
}

/// POST a GraphQL document to `router` as `user`.
pub(crate) async fn ask(
    app: &TestApp,
    router: &Router,
    user: &TestUser,
    query: &str,
    vars: &Value,
) -> TestResponse {
    let body = json!({ "query": query, "variables": vars });
    let request = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::AUTHORIZATION, format!("Bearer {}", user.token))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send_to(router, request).await
}

pub const ADD: &str = r#"mutation($input: AddAttachmentInput!) { addAttachment(input: $input) {
  attachment { id databaseId filename contentType size url uploadedBy { username } createdAt } } }"#;
