//! Creating, editing and deleting comments over REST: permissions, shapes, history, validation.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::world::{add, plain_ticket, texts, world};
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use entity::ticket;
use sea_orm::EntityTrait;
use serde_json::json;

async fn create_shapes_and_permissions(app: &TestApp) {
    let w = world(app).await;
    let path = format!("/api/tickets/{}/comments/", w.ticket.id);
    let resp = app
        .post(
            &path,
            Some(&w.owner.token),
            json!({"content": "<p>Hello</p>"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let body = resp.json.as_object().unwrap();
    let mut keys: Vec<&str> = body.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "author",
            "comment_type",
            "content",
            "created_at",
            "id",
            "ticket"
        ]
    );
    assert_eq!(resp.json["ticket"], w.ticket.id);
    assert_eq!(resp.json["author"], "owner");
    assert_eq!(resp.json["content"], "<p>Hello</p>");
    assert_eq!(resp.json["comment_type"], "public");
    assert!(resp.json["created_at"].as_str().unwrap().ends_with('Z'));

    // The requester may not write internal comments; the assignee and the group may.
    let internal = json!({"content": "note", "comment_type": "internal"});
    let resp = app
        .post(&path, Some(&w.owner.token), internal.clone())
        .await;
    assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    for user in [&w.assignee, &w.grouper, &w.agent] {
        let resp = app.post(&path, Some(&user.token), internal.clone()).await;
        assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
        assert_eq!(resp.json["comment_type"], "internal");
    }
    // Someone who cannot see the ticket learns nothing; nobody signed in is 401.
    let resp = app
        .post(&path, Some(&w.other.token), json!({"content": "hi"}))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    let resp = app.post(&path, None, json!({"content": "hi"})).await;
    assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");
    assert_eq!(
        resp.headers["www-authenticate"],
        "Bearer realm=\"deskgraph\""
    );
    let resp = app
        .post(
            "/api/tickets/99999/comments/",
            Some(&w.agent.token),
            json!({"content": "hi"}),
        )
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");

    // The alternative path creates in the same shape.
    let resp = app
        .post(
            &format!("/tickets/{}/comment/", w.ticket.id),
            Some(&w.owner.token),
            json!({"content": "alt"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    assert_eq!(resp.json["author"], "owner");
    // Errors of the shared layers on the alternative paths come in the REST shape too.
    let resp = app
        .request(
            axum::http::Method::PUT,
            &format!("/tickets/{}/comment/", w.ticket.id),
            Some(&w.owner.token),
            None,
        )
        .await;
    assert_error(&resp, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let list = app.get(&path, Some(&w.owner.token)).await;
    assert_eq!(texts(&list.json, "content"), ["<p>Hello</p>", "alt"]);
    let first = &list.json[0];
    assert_eq!(
        first["author"],
        json!({"id": w.owner.id, "username": "owner", "full_name": "Owner Example"})
    );
    assert_eq!(first["edit_count"], 0);
    assert_eq!(first["ticket"], w.ticket.id);
    assert!(first["updated_at"].as_str().unwrap().ends_with('Z'));
}
db_test!(create_shapes_and_permissions);

async fn first_public_team_comment_marks_first_response(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let responded = || async {
        ticket::Entity::find_by_id(t)
            .one(&app.state.db.conn)
            .await
            .unwrap()
            .unwrap()
            .first_responded_at
    };
    add(app, &w.owner, t, "requester", CommentType::Public).await;
    add(app, &w.agent, t, "internal", CommentType::Internal).await;
    assert_eq!(responded().await, None);
    let first = add(app, &w.agent, t, "public", CommentType::Public).await;
    assert_eq!(responded().await, Some(first.created_at));
    add(app, &w.staff, t, "later", CommentType::Public).await;
    assert_eq!(responded().await, Some(first.created_at));
}
db_test!(first_public_team_comment_marks_first_response);

async fn comment_of_another_ticket_is_404(app: &TestApp) {
    let w = world(app).await;
    let elsewhere = plain_ticket(app, &w.owner).await;
    let c = add(app, &w.owner, w.ticket.id, "here", CommentType::Public).await;
    for path in [
        format!("/api/tickets/{}/comments/{}/", elsewhere.id, c.id),
        format!("/tickets/{}/comment/{}/", elsewhere.id, c.id),
    ] {
        let resp = app
            .patch(&path, Some(&w.owner.token), json!({"content": "moved"}))
            .await;
        assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
        let resp = app.delete(&path, Some(&w.owner.token)).await;
        assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    }
    let resp = app
        .delete("/api/tickets/abc/comments/1/", Some(&w.owner.token))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
}
db_test!(comment_of_another_ticket_is_404);

async fn bodies_are_sanitised_and_validated(app: &TestApp) {
    let w = world(app).await;
    let path = format!("/api/tickets/{}/comments/", w.ticket.id);
    let dirty = r#"<p onclick="steal()">Hi <script>alert(1)</script><a href="javascript:alert(2)">bad</a> <a href="https://example.com">ok</a> <strong>b</strong> <em>i</em></p><ul><li>x</li></ul><pre><code>c</code></pre>"#;
    let resp = app
        .post(&path, Some(&w.owner.token), json!({"content": dirty}))
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let content = resp.json["content"].as_str().unwrap();
    for gone in ["onclick", "<script", "alert(1)", "javascript:"] {
        assert!(!content.contains(gone), "{gone} in {content}");
    }
    for kept in [
        r#"<a href="https://example.com" rel="noopener noreferrer">ok</a>"#,
        "<strong>b</strong>",
        "<em>i</em>",
        "<ul><li>x</li></ul>",
        "<pre><code>c</code></pre>",
    ] {
        assert!(content.contains(kept), "{kept} missing in {content}");
    }

    let huge = "a".repeat(64 * 1024 + 1);
    for bad in [
        "",
        "   \n ",
        "<script>x</script>",
        "<p> </p>",
        huge.as_str(),
    ] {
        let resp = app
            .post(&path, Some(&w.owner.token), json!({"content": bad}))
            .await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
        assert!(resp.json["details"]["content"].is_array(), "{}", resp.text);
    }
    let resp = app
        .post(
            &path,
            Some(&w.owner.token),
            json!({"content": "ok", "comment_type": "secret"}),
        )
        .await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        resp.json["details"]["comment_type"].is_array(),
        "{}",
        resp.text
    );
    let resp = app.post(&path, Some(&w.owner.token), json!({})).await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    let resp = app
        .post(&path, Some(&w.owner.token), json!({"content": 5}))
        .await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");

    let c = add(app, &w.owner, w.ticket.id, "fine", CommentType::Public).await;
    let edit = format!("/api/tickets/{}/comments/{}/", w.ticket.id, c.id);
    for bad in [
        json!({"content": "<script>x</script>"}),
        json!({"comment_type": "loud"}),
    ] {
        let resp = app.patch(&edit, Some(&w.owner.token), bad).await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    }
    let resp = app.get(&path, Some(&w.owner.token)).await;
    assert_eq!(resp.json.as_array().unwrap().len(), 2);
    assert_eq!(resp.json[1]["edit_count"], 0);
}
db_test!(bodies_are_sanitised_and_validated);

/// Replies sent at once on one ticket all land: the requester's answers to a ticket that waits for them
/// (each may move it back to open) and a team member's comment that a trigger acts on. None is lost to the
/// row's locks waiting on each other; the ticket is moved once.
async fn replies_at_once_on_one_ticket_all_land(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("agnes").await;
    let root = app.admin("root").await;
    let rule = app
        .as_user(&root)
        .post(
            "/api/automation/triggers/",
            json!({
                "name": "Answered",
                "conditions": {"all": [
                    {"field": "event", "operator": "is", "value": "comment_added"},
                    {"field": "actor.role", "operator": "one_of", "value": ["agent", "requester"]}
                ]},
                "actions": [{"add_tags": ["answered"]}]
            }),
        )
        .await;
    assert_eq!(rule.status, StatusCode::CREATED, "{}", rule.text);
    for round in 0..6 {
        let t = app
            .as_user(&rita)
            .create_ticket(json!({"title": format!("Dock {round}")}))
            .await;
        let id = t["id"].as_i64().unwrap();
        let held = app
            .as_user(&agent)
            .patch(&format!("/api/tickets/{id}/"), json!({"status": "on_hold"}))
            .await;
        assert_eq!(held.status, StatusCode::OK, "{}", held.text);
        let path = format!("/api/tickets/{id}/comments/");
        let (a, b, c) = tokio::join!(
            app.as_user(&rita)
                .post(&path, json!({"content": "Still broken."})),
            app.as_user(&rita)
                .post(&path, json!({"content": "Also the charger."})),
            app.as_user(&agent)
                .post(&path, json!({"content": "Looking now."})),
        );
        for r in [&a, &b, &c] {
            assert_eq!(r.status, StatusCode::CREATED, "round {round}: {}", r.text);
        }
        let after = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/"))
            .await;
        assert_eq!(after.json["status"], "open", "{}", after.text);
        let comments = app.as_user(&agent).get(&path).await;
        assert_eq!(
            comments.json.as_array().map(Vec::len),
            Some(3),
            "{}",
            comments.text
        );
        let history = app
            .as_user(&agent)
            .graphql_data(
                "query($n: Int!) { ticket(databaseId: $n) { history(first: 50) { nodes { action changes } } } }",
                json!({"n": id}),
            )
            .await;
        let reopened = history["ticket"]["history"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["changes"]["status"] == json!(["on_hold", "open"]))
            .count();
        assert_eq!(reopened, 1, "{history}");
    }
}
db_test!(replies_at_once_on_one_ticket_all_land);
