//! Editing and deleting comments over REST: who may, the edit history, soft deletion, the audit trail.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::world::{add, world};
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use sea_orm::EntityTrait;
use serde_json::json;

async fn edit_permissions_and_history(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let c = add(app, &w.owner, t, "<p>v1</p>", CommentType::Public).await;
    let path = format!("/api/tickets/{t}/comments/{}/", c.id);
    // Another requester cannot see it; an agent (team, not staff) sees it but may not edit it.
    let resp = app
        .patch(&path, Some(&w.other.token), json!({"content": "x"}))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    let resp = app
        .patch(&path, Some(&w.agent.token), json!({"content": "x"}))
        .await;
    assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");

    let resp = app
        .patch(&path, Some(&w.owner.token), json!({"content": "<p>v2</p>"}))
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["edit_count"], 1);
    let resp = app
        .patch(&path, Some(&w.staff.token), json!({"content": "<p>v3</p>"}))
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let resp = app
        .patch(
            &format!("/tickets/{t}/comment/{}/", c.id),
            Some(&w.admin.token),
            json!({"content": "<p>v4</p>", "comment_type": "internal"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["id"], c.id);
    assert_eq!(resp.json["content"], "<p>v4</p>");
    assert_eq!(resp.json["comment_type"], "internal");
    assert_eq!(resp.json["edit_count"], 3);
    let history = resp.json["edit_history"].as_array().unwrap();
    let previous: Vec<&str> = history
        .iter()
        .map(|e| e["previous_content"].as_str().unwrap())
        .collect();
    assert_eq!(previous, ["<p>v1</p>", "<p>v2</p>", "<p>v3</p>"]);
    let editors: Vec<&str> = history
        .iter()
        .map(|e| e["edited_by"].as_str().unwrap())
        .collect();
    assert_eq!(editors, ["owner", "staff", "admin"]);
    assert!(history[0]["edited_at"].as_str().unwrap().ends_with('Z'));

    // Now internal: the owner lost sight of it; the team sees the edited text.
    let resp = app
        .get(&format!("/api/tickets/{t}/comments/"), Some(&w.owner.token))
        .await;
    assert_eq!(resp.json, json!([]));
    let resp = app
        .patch(&path, Some(&w.owner.token), json!({"content": "mine"}))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");

    // Nothing changes: no history entry.
    let resp = app
        .patch(
            &path,
            Some(&w.admin.token),
            json!({"content": "<p>v4</p>", "comment_type": "internal"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["edit_count"], 3);
    assert_eq!(resp.json["edit_history"].as_array().unwrap().len(), 3);

    let resp = app.patch(&path, Some(&w.admin.token), json!({})).await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
}
db_test!(edit_permissions_and_history);

async fn delete_is_soft_and_final(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let mine = add(app, &w.owner, t, "owner's", CommentType::Public).await;
    let agents = add(app, &w.agent, t, "agent's", CommentType::Public).await;
    let path = |id: i32| format!("/api/tickets/{t}/comments/{id}/");
    let resp = app.delete(&path(agents.id), Some(&w.owner.token)).await;
    assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    let resp = app.delete(&path(mine.id), Some(&w.agent.token)).await;
    assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    let resp = app.delete(&path(mine.id), None).await;
    assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");

    let resp = app.delete(&path(mine.id), Some(&w.owner.token)).await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT);
    assert_eq!(resp.text, "");
    let resp = app
        .delete(
            &format!("/tickets/{t}/comment/{}/", agents.id),
            Some(&w.staff.token),
        )
        .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT);

    let resp = app
        .get(&format!("/api/tickets/{t}/comments/"), Some(&w.admin.token))
        .await;
    assert_eq!(resp.json, json!([]));
    let resp = app
        .get(&format!("/api/tickets/{t}/"), Some(&w.admin.token))
        .await;
    assert_eq!(resp.json["comments_count"], 0, "{}", resp.text);
    let resp = app
        .patch(
            &path(mine.id),
            Some(&w.admin.token),
            json!({"content": "back"}),
        )
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    let resp = app.delete(&path(mine.id), Some(&w.admin.token)).await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    // The row stays, marked deleted by its author.
    let row = entity::comment::Entity::find_by_id(mine.id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    assert!(row.is_deleted);
    assert_eq!(row.deleted_by_id, Some(w.owner.id));
    assert!(row.deleted_at.is_some());
}
db_test!(delete_is_soft_and_final);

async fn each_change_is_audited_with_its_visibility(app: &TestApp) {
    use entity::audit_event;
    use sea_orm::{ColumnTrait, QueryFilter, QueryOrder};
    let w = world(app).await;
    let t = w.ticket.id;
    let secret = add(app, &w.agent, t, "secret", CommentType::Internal).await;
    let public = add(app, &w.owner, t, "hello", CommentType::Public).await;
    let path = format!("/api/tickets/{t}/comments/{}/", public.id);
    let admin = Some(w.admin.token.as_str());
    assert_eq!(
        app.patch(&path, admin, json!({"content": "hello"}))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        app.patch(&path, admin, json!({"content": "hello!"}))
            .await
            .status,
        StatusCode::OK
    );
    let resp = app
        .delete(
            &format!("/api/tickets/{t}/comments/{}/", secret.id),
            Some(&w.agent.token),
        )
        .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT);
    let events = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.eq("comment"))
        .order_by_asc(audit_event::Column::Id)
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let summary: Vec<(i32, &str, bool, Option<i32>)> = events
        .iter()
        .map(|e| (e.entity_id, e.action.as_str(), e.is_internal, e.ticket_id))
        .collect();
    // The edit that changed nothing left no trace.
    assert_eq!(
        summary,
        [
            (secret.id, "create", true, Some(t)),
            (public.id, "create", false, Some(t)),
            (public.id, "update", false, Some(t)),
            (secret.id, "delete", true, Some(t)),
        ]
    );
    assert_eq!(events[2].changes, json!({"body": ["hello", "hello!"]}));
}
db_test!(each_change_is_audited_with_its_visibility);

/// A note edited while internal and then made public: the requester reads it, but none of its edits (each
/// earlier version was internal), so every door tells them of no edit at all; the team sees all three.
async fn edit_counts_count_only_the_versions_the_viewer_may_see(app: &TestApp) {
    use crate::support::graphql::gid;
    let w = world(app).await;
    let t = w.ticket.id;
    let c = add(app, &w.agent, t, "<p>draft</p>", CommentType::Internal).await;
    let path = format!("/api/tickets/{t}/comments/{}/", c.id);
    for body in [
        json!({"content": "<p>draft 2</p>"}),
        json!({"content": "<p>answer</p>"}),
        json!({"comment_type": "public"}),
    ] {
        let resp = app.patch(&path, Some(&w.staff.token), body).await;
        assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    }
    let query = r#"query($id: ID!) { node(id: $id) { ... on Comment { editCount isEdited editedAt
        editedBy { username } edits { previousBody } } } }"#;
    for (who, count) in [(&w.owner, 0), (&w.agent, 3)] {
        let list = app
            .get(&format!("/api/tickets/{t}/comments/"), Some(&who.token))
            .await;
        assert_eq!(list.json[0]["edit_count"], count, "{}", list.text);
        let node = app
            .graphql(
                Some(&who.token),
                query,
                json!({ "id": gid("Comment", c.id) }),
            )
            .await;
        let node = &node["data"]["node"];
        assert_eq!(node["editCount"], count, "{node}");
        assert_eq!(node["isEdited"], count > 0, "{node}");
        assert_eq!(
            node["edits"].as_array().unwrap().len(),
            count as usize,
            "{node}"
        );
        assert_eq!(node["editedAt"].is_null(), count == 0, "{node}");
        assert_eq!(node["editedBy"].is_null(), count == 0, "{node}");
        let browser = crate::support::world::login(app, who).await;
        let web = browser.get(app, &format!("/tickets/{t}/comments/")).await;
        assert_eq!(
            web.json["comments"][0]["is_edited"],
            count > 0,
            "{}",
            web.text
        );
        assert_eq!(web.json["comments"][0]["edited_at"].is_null(), count == 0);
    }
    // An edit the requester can see counts for them from then on.
    let resp = app
        .patch(
            &path,
            Some(&w.staff.token),
            json!({"content": "<p>final</p>"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let list = app
        .get(&format!("/api/tickets/{t}/comments/"), Some(&w.owner.token))
        .await;
    assert_eq!(list.json[0]["edit_count"], 1, "{}", list.text);
}
db_test!(edit_counts_count_only_the_versions_the_viewer_may_see);
