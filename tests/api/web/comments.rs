//! The web comment endpoints: CSRF and session checks, shapes, permissions.
use crate::db_test;
use crate::support::helpers::assert_web_error;
use crate::support::helpers::TestApp;
use crate::support::world::{add, login, web, world};
use axum::http::{Method, StatusCode};
use deskgraph::domain::CommentType;
use serde_json::json;

async fn csrf_and_session_are_required(app: &TestApp) {
    let w = world(app).await;
    let c = add(app, &w.owner, w.ticket.id, "mine", CommentType::Public).await;
    let browser = login(app, &w.owner).await;
    let add_path = format!("/tickets/{}/comments/add/", w.ticket.id);
    let edit_path = format!("/tickets/comments/{}/edit/", c.id);
    let delete_path = format!("/tickets/comments/{}/delete/", c.id);
    let body = Some(json!({"body": "new"}));
    for (method, path) in [
        (Method::POST, &add_path),
        (Method::PATCH, &edit_path),
        (Method::DELETE, &delete_path),
    ] {
        for csrf in [None, Some("wrong"), Some("")] {
            let resp = web(
                app,
                method.clone(),
                path,
                Some(&browser.session),
                csrf,
                body.clone(),
            )
            .await;
            assert_web_error(&resp, StatusCode::FORBIDDEN);
        }
        let resp = web(
            app,
            method.clone(),
            path,
            None,
            Some(&browser.csrf),
            body.clone(),
        )
        .await;
        assert_web_error(&resp, StatusCode::UNAUTHORIZED);
        let resp = web(
            app,
            method.clone(),
            path,
            Some("forged"),
            Some(&browser.csrf),
            body.clone(),
        )
        .await;
        assert_web_error(&resp, StatusCode::UNAUTHORIZED);
        // A Bearer token is no web session.
        let resp = app
            .request(method.clone(), path, Some(&w.owner.token), body.clone())
            .await;
        assert_web_error(&resp, StatusCode::UNAUTHORIZED);
    }
    // Nothing happened.
    let resp = browser
        .get(app, &format!("/tickets/{}/comments/", w.ticket.id))
        .await;
    assert_eq!(resp.json["comments"].as_array().unwrap().len(), 1);
    assert_eq!(resp.json["comments"][0]["body"], "mine");
}
db_test!(csrf_and_session_are_required);

async fn web_comment_round_trip(app: &TestApp) {
    let w = world(app).await;
    let owner = login(app, &w.owner).await;
    let agent = login(app, &w.agent).await;
    let staff = login(app, &w.staff).await;
    let t = w.ticket.id;
    let resp = owner
        .send(
            app,
            Method::POST,
            &format!("/tickets/{t}/comments/add/"),
            Some(json!({"body": "<b>hi</b><script>x()</script>", "comment_type": "public"})),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let comment = &resp.json["comment"];
    assert_eq!(resp.json["success"], true);
    assert_eq!(comment["body"], "<b>hi</b>");
    assert_eq!(comment["author"], "Owner Example");
    assert_eq!(comment["comment_type"], "public");
    assert_eq!(comment["is_internal"], false);
    let created = comment["created_at"].as_str().unwrap().to_string();
    let parsed = chrono::NaiveDateTime::parse_from_str(&created, "%b %d, %Y %H:%M");
    assert!(parsed.is_ok(), "{created}");
    let mut keys: Vec<&str> = comment
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "author",
            "body",
            "comment_type",
            "created_at",
            "id",
            "is_internal"
        ]
    );
    let id = comment["id"].as_i64().unwrap();

    let resp = owner
        .send(
            app,
            Method::POST,
            &format!("/tickets/{t}/comments/add/"),
            Some(json!({"body": "psst", "comment_type": "internal"})),
        )
        .await;
    assert_web_error(&resp, StatusCode::FORBIDDEN);
    for bad in [
        json!({"body": "  "}),
        json!({"body": "x", "comment_type": "shout"}),
        json!({}),
    ] {
        let resp = owner
            .send(
                app,
                Method::POST,
                &format!("/tickets/{t}/comments/add/"),
                Some(bad),
            )
            .await;
        assert_web_error(&resp, StatusCode::BAD_REQUEST);
    }
    let resp = agent
        .send(
            app,
            Method::POST,
            &format!("/tickets/{t}/comments/add/"),
            Some(json!({"body": "team only", "comment_type": "internal"})),
        )
        .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    assert_eq!(resp.json["comment"]["is_internal"], true);
    assert_eq!(resp.json["comment"]["author"], "Agent Example");

    // The agent may not edit the owner's comment; staff may.
    let edit = format!("/tickets/comments/{id}/edit/");
    let resp = agent
        .send(app, Method::PATCH, &edit, Some(json!({"body": "nope"})))
        .await;
    assert_web_error(&resp, StatusCode::FORBIDDEN);
    let resp = staff
        .send(
            app,
            Method::PATCH,
            &edit,
            Some(json!({"body": "<i>fixed</i>", "comment_type": "public"})),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["success"], true);
    let edited = &resp.json["comment"];
    assert_eq!(edited["body"], "<i>fixed</i>");
    assert_eq!(edited["author"], "Owner Example");
    assert_eq!(edited["author_username"], "owner");
    assert_eq!(edited["is_edited"], true);
    assert!(edited["edited_at"].is_string());
    assert_eq!(edited["can_edit"], true);
    assert_eq!(edited["can_delete"], true);

    let list = owner.get(app, &format!("/tickets/{t}/comments/")).await;
    assert_eq!(list.json["success"], true);
    let items = list.json["comments"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{}", list.text);
    assert!(!list.text.contains("team only"));
    let mut keys: Vec<&str> = items[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "author",
            "author_username",
            "body",
            "can_delete",
            "can_edit",
            "comment_type",
            "created_at",
            "edited_at",
            "id",
            "is_edited",
            "is_internal",
            "updated_at"
        ]
    );
    assert_eq!(items[0]["can_edit"], true);
    let agent_view = agent.get(app, &format!("/tickets/{t}/comments/")).await;
    let agent_items = agent_view.json["comments"].as_array().unwrap();
    assert_eq!(agent_items.len(), 2);
    assert_eq!(agent_items[0]["can_edit"], false);
    assert_eq!(agent_items[0]["can_delete"], false);
    assert_eq!(agent_items[1]["can_edit"], true);
    assert_eq!(agent_items[1]["is_edited"], false);
    assert_eq!(agent_items[1]["edited_at"], serde_json::Value::Null);

    let delete = format!("/tickets/comments/{id}/delete/");
    let resp = agent.send(app, Method::DELETE, &delete, None).await;
    assert_web_error(&resp, StatusCode::FORBIDDEN);
    let resp = owner.send(app, Method::DELETE, &delete, None).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(
        resp.json,
        json!({"success": true, "message": "Comment deleted"})
    );
    let resp = owner.send(app, Method::DELETE, &delete, None).await;
    assert_web_error(&resp, StatusCode::NOT_FOUND);
    let resp = owner
        .send(app, Method::PATCH, &edit, Some(json!({"body": "again"})))
        .await;
    assert_web_error(&resp, StatusCode::NOT_FOUND);
    let list = owner.get(app, &format!("/tickets/{t}/comments/")).await;
    assert_eq!(list.json["comments"], json!([]));
}
db_test!(web_comment_round_trip);
