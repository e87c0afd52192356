//! Shared set-up for the GraphQL tests: tickets, projects and comments written straight through the services.
use crate::helpers::{TestApp, TestUser};
use deskgraph::service::tickets::{self, NewTicket};
use entity::project;
use serde_json::Value;

/// Open a ticket as `user` through the service.
pub async fn ticket_as(app: &TestApp, user: &TestUser, input: NewTicket) -> entity::ticket::Model {
    let actor = app.actor(user).await;
    tickets::create(app.state.write_deps(), &actor, input)
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
