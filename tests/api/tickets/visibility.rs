//! Who sees a ticket, who may change which of its fields, and what its comment count reveals.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::tickets::{create_ticket, path_of};
use axum::http::StatusCode;
use deskgraph::service::users;
use serde_json::json;

async fn visibility_and_change_rights(app: &TestApp) {
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let dan = app.user("dan").await; // assignee, not on the team
    let erin = app.user_with("erin", &["Network"], false, false).await;
    let agent = app.agent("carol").await;
    let network = users::ensure_group(&app.state.db.conn, "Network")
        .await
        .unwrap();
    let t = create_ticket(app, &alice, json!({"title": "Mine"})).await;
    let path = path_of(&t);

    // Another requester: 404 everywhere, absent from lists and counts.
    assert_error(
        &app.as_user(&bob).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&bob).patch(&path, json!({"title": "x"})).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&bob).delete(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let list = app.as_user(&bob).get("/api/tickets/").await.json;
    assert_eq!(list["count"], 0);
    assert_eq!(list["results"], json!([]));
    let by_number = app.as_user(&bob).get("/api/tickets/?q=TKT-001").await.json;
    assert_eq!(by_number["count"], 0);

    // The requester may change title, description and priority only.
    let ok = app
        .as_user(&alice)
        .patch(
            &path,
            json!({"title": "Mine!", "description": "more", "priority": "low"}),
        )
        .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    for body in [
        json!({"status": "open"}),
        json!({"assigned_to": dan.id}),
        json!({"title": "x", "status": "open"}),
    ] {
        let resp = app.as_user(&alice).patch(&path, body).await;
        assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    }
    let d = app.as_user(&alice).get(&path).await.json;
    assert_eq!(
        (d["title"].clone(), d["status"].clone()),
        (json!("Mine!"), json!("new"))
    );

    // The assignee (not on the team) sees and changes it, status included.
    assert_error(
        &app.as_user(&dan).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let assign = app
        .as_user(&agent)
        .patch(&path, json!({"assigned_to": dan.id}))
        .await;
    assert_eq!(assign.status, StatusCode::OK, "{}", assign.text);
    assert_eq!(app.as_user(&dan).get(&path).await.status, StatusCode::OK);
    assert_eq!(
        app.as_user(&dan).get("/api/tickets/").await.json["count"],
        1
    );
    let moved = app
        .as_user(&dan)
        .patch(&path, json!({"status": "in_progress"}))
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    assert_eq!(moved.json["status"], "in_progress");
    // ...but may not archive it.
    assert_error(
        &app.as_user(&dan).delete(&path).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );

    // A member of the assigned group sees and changes it.
    assert_error(
        &app.as_user(&erin).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let group = app
        .as_user(&agent)
        .patch(&path, json!({"assigned_group": network.id}))
        .await;
    assert_eq!(group.status, StatusCode::OK, "{}", group.text);
    assert_eq!(app.as_user(&erin).get(&path).await.status, StatusCode::OK);
    let held = app
        .as_user(&erin)
        .patch(&path, json!({"status": "on_hold", "assigned_to": null}))
        .await;
    assert_eq!(held.status, StatusCode::OK, "{}", held.text);
    // Unassigned now: dan lost access, erin keeps it through the group.
    assert_error(
        &app.as_user(&dan).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_eq!(app.as_user(&erin).get(&path).await.status, StatusCode::OK);
}
db_test!(visibility_and_change_rights);

async fn comments_count_follows_comment_visibility(app: &TestApp) {
    let alice = app.user("alice").await;
    let dan = app.user("dan").await;
    let agent = app.agent("carol").await;
    let t = create_ticket(
        app,
        &agent,
        json!({"title": "Chatty", "assigned_to": dan.id, "requester": alice.id}),
    )
    .await;
    let id = t["id"].as_i64().unwrap() as i32;
    for (kind, deleted) in [
        ("public", false),
        ("public", false),
        ("internal", false),
        ("public", true),
        ("internal", true),
    ] {
        app.comment_row(id, agent.id, kind, deleted).await;
    }
    // Written beside the service, so counted as a bulk load is.
    deskgraph::service::comments::recount(&app.state.db.conn, id)
        .await
        .unwrap();
    let path = path_of(&t);
    for (who, expected) in [(&alice, 2), (&dan, 3), (&agent, 3)] {
        let d = app.as_user(who).get(&path).await;
        assert_eq!(d.json["comments_count"], expected, "{}", who.username);
    }
}
db_test!(comments_count_follows_comment_visibility);
