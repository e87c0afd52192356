//! Ticket status and priority, comment type and asset kind are stored as text and read back as enums.
//! A stored value outside its set (written behind the service's back) fails the read as an internal
//! error at every door, with the generic body and nothing of the value shown; a client's value outside
//! the set is refused at each door with its documented 400 body.
use crate::db_test;
use crate::support::graphql::{first_code, gid};
use crate::support::helpers::{TestApp, TestResponse};
use crate::support::world::{add, login, world};
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};

async fn raw(app: &TestApp, sql: String) {
    let db = &app.state.db.conn;
    db.execute_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap();
}

fn assert_internal(resp: &TestResponse, what: &str) {
    assert_eq!(
        resp.status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "{what}: {}",
        resp.text
    );
    assert_eq!(
        resp.json,
        json!({"error": "internal error", "code": "internal_error", "details": {}}),
        "{what}"
    );
}

fn assert_graphql_internal(body: &Value) {
    assert_eq!(first_code(body), "INTERNAL", "{body}");
    assert_eq!(body["errors"][0]["message"], "internal error", "{body}");
    assert!(!body.to_string().contains("bogus"), "{body}");
}

const TICKET: &str = "query($id: ID) { ticket(id: $id) { title status priority } }";
const LIST: &str = "{ tickets(first: 10) { edges { node { title status } } } }";

async fn a_stored_value_outside_its_set_is_an_internal_error(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let agent = app.as_user(&w.agent);
    let detail = format!("/api/tickets/{id}/");
    raw(
        app,
        format!("UPDATE tickets SET status = 'bogus' WHERE id = {id}"),
    )
    .await;

    // REST: the detail (one ticket read) and the list (the positional read path) both refuse the row.
    assert_internal(&agent.get(&detail).await, "detail");
    assert_internal(&agent.get("/api/tickets/").await, "list");
    // GraphQL: the read fails, not a field of it.
    let vars = json!({"id": gid("Ticket", id)});
    assert_graphql_internal(&app.as_user(&w.agent).graphql(TICKET, vars.clone()).await);
    assert_graphql_internal(&app.as_user(&w.agent).graphql(LIST, json!({})).await);
    // The web page: a 500 that does not show the value.
    let browser = login(app, &w.agent).await;
    let page = browser.page(app, &format!("/tickets/{id}/")).await;
    assert_eq!(page.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(!page.text.contains("bogus"));

    // A bad priority likewise; with the row mended everything reads again (nothing was cached broken).
    raw(
        app,
        format!("UPDATE tickets SET status = 'new', priority = 'bogus' WHERE id = {id}"),
    )
    .await;
    assert_internal(&agent.get(&detail).await, "priority");
    raw(
        app,
        format!("UPDATE tickets SET priority = 'high' WHERE id = {id}"),
    )
    .await;
    let mended = agent.get(&detail).await;
    assert_eq!(mended.status, StatusCode::OK, "{}", mended.text);
    assert_eq!(
        (&mended.json["status"], &mended.json["priority"]),
        (&json!("new"), &json!("high"))
    );
    let data = app.as_user(&w.agent).graphql_data(TICKET, vars).await;
    assert_eq!(data["ticket"]["priority"], "HIGH");

    // Comments and assets go through the same typed columns.
    let c = add(app, &w.agent, id, "hello", CommentType::Public).await;
    raw(
        app,
        format!(
            "UPDATE comments SET comment_type = 'bogus' WHERE id = {}",
            c.id
        ),
    )
    .await;
    assert_internal(
        &agent.get(&format!("/api/tickets/{id}/comments/")).await,
        "comments",
    );
    let asset = agent
        .post(
            "/api/assets/",
            json!({"name": "Laptop", "type": "hardware"}),
        )
        .await;
    assert_eq!(asset.status, StatusCode::CREATED, "{}", asset.text);
    let asset_id = asset.json["id"].as_i64().unwrap();
    raw(
        app,
        format!("UPDATE assets SET asset_type = 'bogus' WHERE id = {asset_id}"),
    )
    .await;
    assert_internal(
        &agent.get(&format!("/api/assets/{asset_id}/")).await,
        "asset",
    );
}
db_test!(a_stored_value_outside_its_set_is_an_internal_error);

/// The 400 body: `summary` is `<field>: <message>` for one value, or `invalid fields: <field>` where the
/// door checks a whole body before answering.
fn validation(summary: &str, field: &str, message: &str) -> Value {
    json!({"error": summary, "code": "validation_error", "details": {field: [message]}})
}

const STATUSES: &str = "new, open, in_progress, on_hold, blocked, resolved, closed";
const PRIORITIES: &str = "low, medium, high, critical";

async fn each_door_refuses_an_unknown_status_or_priority(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let agent = app.as_user(&w.agent);
    let bad_status = format!("\"bogus\" is not one of: {STATUSES}");
    let bad_priority = format!("\"urgent\" is not one of: {PRIORITIES}");

    // REST: the create and patch bodies and the list's query.
    let created = agent
        .post("/api/tickets/", json!({"title": "x", "priority": "urgent"}))
        .await;
    assert_eq!(created.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        created.json,
        validation("invalid fields: priority", "priority", &bad_priority)
    );
    let patched = agent
        .patch(&format!("/api/tickets/{id}/"), json!({"status": "bogus"}))
        .await;
    assert_eq!(patched.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        patched.json,
        validation("invalid fields: status", "status", &bad_status)
    );
    let listed = agent.get("/api/tickets/?priority=urgent").await;
    assert_eq!(listed.status, StatusCode::BAD_REQUEST);
    let summary = format!("priority: {bad_priority}");
    assert_eq!(listed.json, validation(&summary, "priority", &bad_priority));

    // GraphQL: the enum refuses the value before any resolver runs.
    let moved = app
        .as_user(&w.agent)
        .graphql(
            "mutation($input: ChangeTicketStatusInput!) { changeTicketStatus(input: $input) { ticket { status } } }",
            json!({"input": {"id": gid("Ticket", id), "status": "BOGUS"}}),
        )
        .await;
    let message = moved["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("\"TicketStatus\" does not contain the value \"BOGUS\""),
        "{moved}"
    );

    // Web pages: the status form and the new-ticket form answer 400 with the message on the page.
    let browser = login(app, &w.agent).await;
    let resp = browser
        .form(
            app,
            &format!("/tickets/{id}/status/"),
            &[("status", "bogus")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert!(
        resp.text.contains("is not one of: new, open"),
        "{}",
        resp.text
    );
    let resp = browser
        .form(
            app,
            "/tickets/new/",
            &[("title", "x"), ("priority", "urgent")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert!(resp.text.contains("choose a priority"), "{}", resp.text);

    // Nothing moved.
    let after = agent.get(&format!("/api/tickets/{id}/")).await;
    assert_eq!(after.json["status"], "new");
}
db_test!(each_door_refuses_an_unknown_status_or_priority);
