//! The `/api/tickets/` contract: exact shapes, errors, visibility, archive and concurrent numbering.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::tickets::{create_ticket, keys, path_of, result_ids as ids};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use serde_json::{json, Value};

fn sorted(list: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    out.sort();
    out
}

async fn create_and_read_shapes(app: &TestApp) {
    let alice = app.user("alice").await;
    let carol = app.agent("carol").await;
    let proj = app.project("Network").await;
    let resp = app
        .as_user(&carol)
        .post(
            "/api/tickets/",
            json!({"title": "  Printer on fire ", "description": "<p>Help</p><script>x()</script>",
                   "priority": "high", "project": proj.id, "assigned_to": carol.id,
                   "due_date": "2026-12-01", "unknown": true, "requester": alice.id}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let created = resp.json;
    assert_eq!(
        keys(&created),
        sorted(&[
            "id",
            "ticket_number",
            "title",
            "status",
            "priority",
            "created_at"
        ])
    );
    assert_eq!(created["ticket_number"], "TKT-001");
    assert_eq!(created["title"], "Printer on fire");
    assert_eq!(created["status"], "new");
    assert_eq!(created["priority"], "high");
    assert!(created["created_at"].as_str().unwrap().ends_with('Z'));

    let detail = app.as_user(&alice).get(&path_of(&created)).await;
    assert_eq!(detail.status, StatusCode::OK, "{}", detail.text);
    let d = detail.json;
    assert_eq!(
        d,
        json!({
            "id": created["id"], "ticket_number": "TKT-001", "title": "Printer on fire",
            "description": "<p>Help</p>", "status": "new", "status_category": "todo", "priority": "high",
            "requester": {"id": alice.id, "username": "alice", "full_name": "Alice Example"},
            "assigned_to": {"id": carol.id, "username": "carol", "full_name": "Carol Example"},
            "project": {"id": proj.id, "name": "Network"},
            "created_at": created["created_at"], "updated_at": d["updated_at"],
            "due_date": "2026-12-01", "comments_count": 0, "attachments": [], "sla": null,
        })
    );
    assert!(d["updated_at"].as_str().unwrap().ends_with('Z'));

    let list = app.as_user(&alice).get("/api/tickets/").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
    assert_eq!(
        list.json,
        json!({"count": 1, "next": null, "previous": null, "results": [{
            "id": created["id"], "ticket_number": "TKT-001", "title": "Printer on fire",
            "description": "<p>Help</p>", "status": "new", "priority": "high",
            "requester": "alice", "assigned_to": "carol",
            "created_at": created["created_at"], "updated_at": d["updated_at"],
        }]})
    );

    // Minimal create: defaults, nulls in the detail.
    let bare = create_ticket(app, &alice, json!({"title": "Bare"})).await;
    assert_eq!(bare["ticket_number"], "TKT-002");
    assert_eq!(bare["priority"], "medium");
    let d = app.as_user(&alice).get(&path_of(&bare)).await.json;
    assert_eq!(d["assigned_to"], Value::Null);
    assert_eq!(d["project"], Value::Null);
    assert_eq!(d["due_date"], Value::Null);
    assert_eq!(d["description"], "");
    let list = app.as_user(&alice).get("/api/tickets/").await.json;
    assert_eq!(list["results"][0]["assigned_to"], Value::Null);
}
db_test!(create_and_read_shapes);

async fn create_errors_name_their_fields(app: &TestApp) {
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let agent = app.agent("carol").await;
    let missing = app
        .as_user(&alice)
        .post("/api/tickets/", json!({"priority": "high"}))
        .await;
    assert_error(&missing, StatusCode::BAD_REQUEST, "validation_error");
    assert_eq!(
        missing.json["details"],
        json!({"title": ["this field is required"]})
    );
    let several = app
        .as_user(&alice)
        .post(
            "/api/tickets/",
            json!({"title": 5, "priority": "urgent", "project": "x", "due_date": "2026-13-01",
                   "assigned_to": [1]}),
        )
        .await;
    assert_error(&several, StatusCode::BAD_REQUEST, "validation_error");
    assert_eq!(
        keys(&several.json["details"]),
        sorted(&["title", "priority", "project", "due_date", "assigned_to"])
    );
    assert_eq!(
        several.json["details"]["title"],
        json!(["must be a string"])
    );
    let blank = app
        .as_user(&alice)
        .post("/api/tickets/", json!({"title": "   "}))
        .await;
    assert_error(&blank, StatusCode::BAD_REQUEST, "validation_error");
    assert!(blank.json["details"]["title"].is_array());
    let ghost = app
        .as_user(&agent)
        .post("/api/tickets/", json!({"title": "x", "assigned_to": 9999}))
        .await;
    assert_error(&ghost, StatusCode::BAD_REQUEST, "validation_error");
    assert!(ghost.json["details"]["assigned_to"].is_array());
    let not_object = app
        .as_user(&alice)
        .post("/api/tickets/", json!(["title"]))
        .await;
    assert_error(&not_object, StatusCode::BAD_REQUEST, "validation_error");
    // Only the team opens tickets for someone else.
    let for_bob = app
        .as_user(&alice)
        .post("/api/tickets/", json!({"title": "x", "requester": bob.id}))
        .await;
    assert_error(&for_bob, StatusCode::FORBIDDEN, "forbidden");
    let made = create_ticket(
        app,
        &agent,
        json!({"title": "for bob", "requester": bob.id}),
    )
    .await;
    let seen = app.as_user(&bob).get(&path_of(&made)).await;
    assert_eq!(seen.status, StatusCode::OK);
    assert_eq!(seen.json["requester"]["username"], "bob");
    // Nothing was created by the refused requests.
    let list = app.as_user(&agent).get("/api/tickets/").await.json;
    assert_eq!(list["count"], 1);
}
db_test!(create_errors_name_their_fields);

async fn malformed_json_is_400(app: &TestApp) {
    let alice = app.user("alice").await;
    for raw in ["{\"title\": ", "", "not json"] {
        let req = Request::builder()
            .method(Method::POST)
            .uri("/api/tickets/")
            .header(header::AUTHORIZATION, format!("Bearer {}", alice.token))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(raw))
            .unwrap();
        let resp = app.send(req).await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    }
}
db_test!(malformed_json_is_400);

async fn update_shapes_and_errors(app: &TestApp) {
    let agent = app.agent("carol").await;
    let alice = app.user("alice").await;
    let t = create_ticket(
        app,
        &agent,
        json!({"title": "Old", "assigned_to": agent.id, "due_date": "2026-12-01", "requester": alice.id}),
    )
    .await;
    let path = path_of(&t);
    let resp = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"title": "New", "status": "open", "priority": "critical", "junk": {"a": 1}}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(
        keys(&resp.json),
        sorted(&[
            "id",
            "ticket_number",
            "title",
            "status",
            "priority",
            "updated_at"
        ])
    );
    assert_eq!(resp.json["title"], "New");
    assert_eq!(resp.json["status"], "open");
    assert_eq!(resp.json["priority"], "critical");
    assert_eq!(resp.json["ticket_number"], "TKT-001");
    assert_ne!(resp.json["updated_at"], Value::Null);

    // null clears nullable fields.
    let cleared = app
        .as_user(&agent)
        .patch(&path, json!({"assigned_to": null, "due_date": null}))
        .await;
    assert_eq!(cleared.status, StatusCode::OK, "{}", cleared.text);
    let d = app.as_user(&agent).get(&path).await.json;
    assert_eq!(d["assigned_to"], Value::Null);
    assert_eq!(d["due_date"], Value::Null);

    // PUT behaves as PATCH, and a whole detail object sent back is accepted.
    let mut whole = app.as_user(&agent).get(&path).await.json;
    whole["title"] = json!("Via PUT");
    whole["assigned_to"] = json!({"id": agent.id, "username": "carol", "full_name": "x"});
    let put = app
        .request(Method::PUT, &path, Some(&agent.token), Some(whole))
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    assert_eq!(put.json["title"], "Via PUT");
    let d = app.as_user(&agent).get(&path).await.json;
    assert_eq!(d["assigned_to"]["id"], agent.id);
    assert_eq!(d["status"], "open");

    for (body, field) in [
        (json!({"priority": "urgent"}), "priority"),
        (json!({"title": null}), "title"),
        (json!({"status": 5}), "status"),
        (json!({"status": "bogus"}), "status"),
        (json!({"project": 9999}), "project"),
        (json!({"due_date": "tomorrow"}), "due_date"),
        (json!({"title": "x".repeat(201)}), "title"),
    ] {
        let resp = app.as_user(&agent).patch(&path, body.clone()).await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
        assert!(
            resp.json["details"][field].is_array(),
            "{body}: {}",
            resp.text
        );
    }
    assert_eq!(
        app.as_user(&agent).get(&path).await.json["title"],
        "Via PUT"
    );

    for bad in [
        "/api/tickets/abc/",
        "/api/tickets/0/",
        "/api/tickets/99999/",
    ] {
        assert_error(
            &app.as_user(&agent).get(bad).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
        assert_error(
            &app.as_user(&agent).patch(bad, json!({"title": "x"})).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
        assert_error(
            &app.as_user(&agent).delete(bad).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
    }
}
db_test!(update_shapes_and_errors);

async fn archive_hides_and_restore_brings_back(app: &TestApp) {
    let agent = app.agent("carol").await;
    let alice = app.user("alice").await;
    let t = create_ticket(app, &alice, json!({"title": "Gone soon"})).await;
    let path = path_of(&t);
    let refused = app.as_user(&alice).delete(&path).await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    let deleted = app.as_user(&agent).delete(&path).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(deleted.text, "");
    for who in [&agent, &alice] {
        assert_error(
            &app.as_user(who).get(&path).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
        let list = app.as_user(who).get("/api/tickets/").await.json;
        assert_eq!(list["count"], 0);
        assert_eq!(list["results"], json!([]));
    }
    assert_error(
        &app.as_user(&agent)
            .patch(&path, json!({"title": "x"}))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&agent).delete(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    let actor = deskgraph::auth::load_actor(&app.state.db.conn, agent.id)
        .await
        .unwrap()
        .unwrap();
    let id = t["id"].as_i64().unwrap() as i32;
    deskgraph::service::tickets::restore(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
    )
    .await
    .unwrap();
    assert_eq!(app.as_user(&alice).get(&path).await.status, StatusCode::OK);
    let list = app.as_user(&alice).get("/api/tickets/").await.json;
    assert_eq!(ids(&list), vec![i64::from(id)]);
}
db_test!(archive_hides_and_restore_brings_back);

/// 64 creates of one account at once queue for its share of the pool; on a busy machine (many tests at once)
/// the default second's wait can pass, and this test is about the numbers, not the share.
fn patient(config: &mut deskgraph::config::Config) {
    config.viewer.queue_ms = 60_000;
}

async fn concurrent_creates_get_consecutive_numbers(app: &TestApp) {
    let alice = app.user("alice").await;
    let requests = (0..64).map(|i| {
        app.as_user(&alice)
            .post("/api/tickets/", json!({"title": format!("Ticket {i}")}))
    });
    let responses = futures_util::future::join_all(requests).await;
    let mut numbers: Vec<String> = responses
        .iter()
        .map(|r| {
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
            r.json["ticket_number"].as_str().unwrap().to_string()
        })
        .collect();
    numbers.sort();
    let expected: Vec<String> = (1..=64).map(|n| format!("TKT-{n:03}")).collect();
    assert_eq!(numbers, expected);
    let list = app
        .as_user(&alice)
        .get("/api/tickets/?limit=100")
        .await
        .json;
    assert_eq!(list["count"], 64);
}
db_test!(concurrent_creates_get_consecutive_numbers, patient);
