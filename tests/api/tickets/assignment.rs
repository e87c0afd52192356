//! Only the team assigns: a requester who sets every field they can send, through every door, neither
//! assigns anyone (themselves included) nor learns anything about the account or group named, and still
//! reads no internal note afterwards. The team may assign anyone active, and an assignee who is not staff
//! then reads the internal notes, as the rules give an assignee.
use crate::db_test;
use crate::support::graphql::gid;
use crate::support::helpers::{assert_error, TestApp, TestResponse, TestUser};
use crate::support::world::{add, login};
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use deskgraph::service::users;
use entity::ticket;
use sea_orm::{EntityTrait, PaginatorTrait};
use serde_json::{json, Value};

const CREATE: &str =
    "mutation($input: CreateTicketInput!) { createTicket(input: $input) { ticket { id } } }";
const UPDATE: &str =
    "mutation($input: UpdateTicketInput!) { updateTicket(input: $input) { ticket { id } } }";
const READ: &str = r#"query($id: ID!) { ticket(id: $id) { assignee { username } assignedGroup { name }
  viewerCanCommentInternally comments { nodes { body } } } }"#;

/// The marker of the agents' internal note.
const SECRET: &str = "ASSIGNMENT-SECRET-NOTE";

async fn tickets_in_database(app: &TestApp) -> u64 {
    ticket::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap()
}

/// A REST refusal that names `field` and nothing of the account or group named.
fn assert_refused_naming(resp: &TestResponse, field: &str, named: &[&str]) {
    assert_error(resp, StatusCode::FORBIDDEN, "forbidden");
    assert!(resp.json["details"][field].is_array(), "{}", resp.text);
    for secret in named {
        assert!(!resp.text.contains(secret), "{secret} in {}", resp.text);
    }
}

/// A GraphQL refusal that names `field` (`extensions.fields`).
fn assert_graphql_refused(body: &Value, field: &str) {
    let error = &body["errors"][0];
    assert_eq!(error["extensions"]["code"], "FORBIDDEN", "{body}");
    assert!(error["extensions"]["fields"][field].is_array(), "{body}");
    assert!(
        body["data"].is_null()
            || body["data"]["createTicket"].is_null()
            || body["data"]["updateTicket"].is_null()
    );
}

/// Everything `who` can read about ticket `t`, through REST, GraphQL and the web page.
async fn every_door(app: &TestApp, who: &TestUser, t: i32) -> String {
    let mut all = String::new();
    for path in [
        format!("/api/tickets/{t}/"),
        format!("/api/tickets/{t}/comments/"),
        format!("/tickets/{t}/comment/"),
    ] {
        all.push_str(&app.get(&path, Some(&who.token)).await.text);
    }
    let read = app
        .graphql(Some(&who.token), READ, json!({ "id": gid("Ticket", t) }))
        .await;
    all.push_str(&read.to_string());
    let browser = login(app, who).await;
    all.push_str(&browser.page(app, &format!("/tickets/{t}/")).await.text);
    all.push_str(
        &browser
            .get(app, &format!("/tickets/{t}/comments/"))
            .await
            .text,
    );
    all
}

async fn only_the_team_assigns(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.user_with("bob", &["Facilities"], false, false).await;
    let agent = app.agent("agent").await;
    let db = &app.state.db.conn;
    let agents = users::ensure_group(db, "Agents").await.unwrap();
    let facilities = users::ensure_group(db, "Facilities").await.unwrap();
    let before = tickets_in_database(app).await;

    // Create: every assignment a requester can send is refused, and nothing is created. An account that
    // exists and one that does not get the same answer.
    let mut answers = Vec::new();
    for who in [ann.id, bob.id, 999_999] {
        let resp = app
            .post(
                "/api/tickets/",
                Some(&ann.token),
                json!({"title": "Mine", "assigned_to": who}),
            )
            .await;
        assert_refused_naming(&resp, "assigned_to", &["bob", "Bob Example"]);
        answers.push(resp.text);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    for group in [agents.id, facilities.id, 999_999] {
        let resp = app
            .post(
                "/api/tickets/",
                Some(&ann.token),
                json!({"title": "Mine", "assigned_group": group}),
            )
            .await;
        assert_refused_naming(&resp, "assigned_group", &["Agents", "Facilities"]);
    }
    for input in [
        json!({"title": "Mine", "assigneeId": gid("User", ann.id)}),
        json!({"title": "Mine", "assigneeId": gid("User", bob.id)}),
        json!({"title": "Mine", "assignedGroupId": gid("Group", agents.id)}),
    ] {
        let field = if input.get("assigneeId").is_some() {
            "assigneeId"
        } else {
            "assignedGroupId"
        };
        let body = app
            .graphql(Some(&ann.token), CREATE, json!({ "input": input }))
            .await;
        assert_graphql_refused(&body, field);
        assert!(!body.to_string().contains("Bob Example"), "{body}");
    }
    assert_eq!(tickets_in_database(app).await, before);

    // Her own ticket, with the agents' internal note on it.
    let created = app
        .post(
            "/api/tickets/",
            Some(&ann.token),
            json!({"title": "Printer jams"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let t = created.json["id"].as_i64().unwrap() as i32;
    add(
        app,
        &agent,
        t,
        &format!("<p>{SECRET}</p>"),
        CommentType::Internal,
    )
    .await;

    // Update: every field a requester may not change, through REST (PATCH and PUT), GraphQL and the web
    // form; the fields she may change still change.
    for (field, value) in [
        ("assigned_to", json!(ann.id)),
        ("assigned_to", json!(bob.id)),
        ("assigned_group", json!(agents.id)),
        ("assigned_group", json!(facilities.id)),
        ("status", json!("in_progress")),
        ("due_date", json!("2030-01-01")),
    ] {
        for method in [axum::http::Method::PATCH, axum::http::Method::PUT] {
            let resp = app
                .request(
                    method,
                    &format!("/api/tickets/{t}/"),
                    Some(&ann.token),
                    Some(json!({ field: value.clone() })),
                )
                .await;
            assert_refused_naming(&resp, field, &["Bob Example"]);
        }
    }
    for (field, value) in [
        ("assigneeId", gid("User", ann.id)),
        ("assignedGroupId", gid("Group", agents.id)),
    ] {
        let input = json!({ "id": gid("Ticket", t), field: value });
        let body = app
            .graphql(Some(&ann.token), UPDATE, json!({ "input": input }))
            .await;
        assert_graphql_refused(&body, field);
    }
    let browser = login(app, &ann).await;
    let ann_id = ann.id.to_string();
    let resp = browser
        .form(
            app,
            &format!("/tickets/{t}/edit/"),
            &[("assigned_to", ann_id.as_str())],
        )
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    let resp = app
        .patch(
            &format!("/api/tickets/{t}/"),
            Some(&ann.token),
            json!({"title": "Printer jams daily", "priority": "high"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);

    // Nothing she sent assigned anyone, and no door shows her the internal note.
    let row = ticket::Entity::find_by_id(t)
        .one(db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((row.assignee_id, row.assigned_group_id), (None, None));
    let seen = every_door(app, &ann, t).await;
    assert!(!seen.contains(SECRET), "{seen}");
    let read = app
        .graphql(Some(&ann.token), READ, json!({ "id": gid("Ticket", t) }))
        .await;
    assert_eq!(
        read["data"]["ticket"]["viewerCanCommentInternally"], false,
        "{read}"
    );
    let internal = app
        .post(
            &format!("/api/tickets/{t}/comments/"),
            Some(&ann.token),
            json!({"content": "me too", "comment_type": "internal"}),
        )
        .await;
    assert_eq!(internal.status, StatusCode::FORBIDDEN, "{}", internal.text);

    // The team assigns her (a contractor, not staff): she now reads the note, as an assignee does.
    let resp = app
        .patch(
            &format!("/api/tickets/{t}/"),
            Some(&agent.token),
            json!({"assigned_to": ann.id}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert!(every_door(app, &ann, t).await.contains(SECRET));
}
db_test!(only_the_team_assigns);
