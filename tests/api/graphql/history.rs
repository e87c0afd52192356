//! `Ticket.history` and the administrators' `auditEvents`.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid};
use crate::support::helpers::TestApp;
use crate::support::world::{actor, add, world};
use deskgraph::domain::{CommentType, TicketStatus};
use deskgraph::service::comments::{self, CommentPatch};
use deskgraph::service::tickets::{self, TicketPatch};
use serde_json::{json, Value};

const HISTORY: &str = r#"query($id: ID!, $after: String) { ticket(id: $id) {
  history(first: 3, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    nodes { id action entityType entityId changes actor { username } createdAt }
  }
} }"#;

/// Every history entry of the ticket as `token` sees it, following the pages.
async fn history(app: &TestApp, token: &str, ticket_id: i32) -> Vec<Value> {
    let mut after = Value::Null;
    let mut out = Vec::new();
    loop {
        let body = app
            .graphql(
                Some(token),
                HISTORY,
                json!({"id": gid("Ticket", ticket_id), "after": after}),
            )
            .await;
        let page = data(&body)["ticket"]["history"].clone();
        out.extend(page["nodes"].as_array().unwrap().iter().cloned());
        if page["pageInfo"]["hasNextPage"] != true {
            return out;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
}

fn summary(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            format!(
                "{}.{}",
                e["entityType"].as_str().unwrap(),
                e["action"].as_str().unwrap()
            )
        })
        .collect()
}

db_test!(history_records_every_action_in_order);
async fn history_records_every_action_in_order(app: &TestApp) {
    let w = world(app).await;
    let (agent, owner) = (actor(app, &w.agent).await, actor(app, &w.owner).await);
    let t = w.ticket.id;
    let patch = TicketPatch {
        title: Some("Printer still on fire".into()),
        ..Default::default()
    };
    tickets::update(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &owner,
        t,
        patch,
    )
    .await
    .unwrap();
    tickets::change_status(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        t,
        TicketStatus::Open,
    )
    .await
    .unwrap();
    tickets::archive(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        t,
    )
    .await
    .unwrap();
    tickets::restore(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        t,
    )
    .await
    .unwrap();
    let c = add(app, &w.owner, t, "help", CommentType::Public).await;
    let edit = CommentPatch {
        body: Some("help please".into()),
        comment_type: None,
    };
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &owner,
        c.id,
        edit,
    )
    .await
    .unwrap();
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &owner,
        c.id,
    )
    .await
    .unwrap();

    let entries = history(app, &w.owner.token, t).await;
    assert_eq!(
        summary(&entries),
        [
            "ticket.create",
            "ticket.update",
            "ticket.status_change",
            "ticket.archive",
            "ticket.restore",
            "comment.create",
            "comment.update",
            "comment.delete",
        ]
    );
    assert_eq!(
        entries[1]["changes"]["title"],
        json!(["Printer on fire", "Printer still on fire"])
    );
    assert_eq!(entries[1]["actor"]["username"], "owner");
    assert_eq!(entries[2]["changes"]["status"], json!(["new", "open"]));
    assert_eq!(entries[2]["actor"]["username"], "agent");
    assert_eq!(entries[5]["entityId"], c.id);
    assert_eq!(
        entries[6]["changes"]["body"],
        json!(["help", "help please"])
    );

    // Someone who cannot see the ticket has no history of it.
    let body = app
        .graphql(
            Some(&w.other.token),
            HISTORY,
            json!({"id": gid("Ticket", t)}),
        )
        .await;
    assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
}

const NODE: &str =
    r#"query($id: ID!) { node(id: $id) { id ... on AuditEvent { action changes } } }"#;

db_test!(internal_entries_stay_with_those_who_may_read_them);
async fn internal_entries_stay_with_those_who_may_read_them(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let note = add(app, &w.agent, t, "SECRET note", CommentType::Internal).await;
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &w.agent).await,
        note.id,
    )
    .await
    .unwrap();
    let team_view = history(app, &w.grouper.token, t).await;
    assert_eq!(
        summary(&team_view),
        ["ticket.create", "comment.create", "comment.delete"]
    );
    let owner_view = history(app, &w.owner.token, t).await;
    assert_eq!(summary(&owner_view), ["ticket.create"]);
    // The entry's own node answers as the history does.
    let secret_id = team_view[1]["id"].clone();
    let body = app
        .graphql(Some(&w.owner.token), NODE, json!({"id": secret_id}))
        .await;
    assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
    assert!(!body.to_string().contains("SECRET"), "{body}");
    let body = app
        .graphql(Some(&w.assignee.token), NODE, json!({"id": secret_id}))
        .await;
    assert_eq!(
        data(&body)["node"]["changes"]["body"],
        json!([null, "SECRET note"])
    );
    let body = app
        .graphql(
            Some(&w.other.token),
            NODE,
            json!({"id": owner_view[0]["id"]}),
        )
        .await;
    assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
}

const LOG: &str = r#"query($filter: AuditEventFilter) { auditEvents(filter: $filter, first: 50) {
  totalCount nodes { action entityType entityId actor { username } }
} }"#;

db_test!(audit_log_is_for_admins_only);
async fn audit_log_is_for_admins_only(app: &TestApp) {
    let w = world(app).await;
    let c = add(
        app,
        &w.agent,
        w.ticket.id,
        "SECRET note",
        CommentType::Internal,
    )
    .await;
    for user in [&w.owner, &w.assignee, &w.agent, &w.staff] {
        let body = app.graphql(Some(&user.token), LOG, json!({})).await;
        assert_eq!(first_code(&body), "FORBIDDEN", "{}: {body}", user.username);
        assert!(!body.to_string().contains("SECRET"));
    }
    let body = app.graphql(None, LOG, json!({})).await;
    assert_eq!(first_code(&body), "UNAUTHENTICATED", "{body}");

    // Newest first; filters narrow it.
    let body = app.graphql(Some(&w.admin.token), LOG, json!({})).await;
    let log = &data(&body)["auditEvents"];
    assert_eq!(log["nodes"][0]["entityType"], "comment");
    assert_eq!(log["nodes"][0]["entityId"], c.id);
    // The world's ticket was opened by the agent, for its owner.
    let filter = json!({"filter": {"entityType": "ticket", "action": "create", "actorId": gid("User", w.agent.id)}});
    let body = app.graphql(Some(&w.admin.token), LOG, filter).await;
    assert_eq!(
        data(&body)["auditEvents"],
        json!({"totalCount": 1, "nodes": [
            {"action": "create", "entityType": "ticket", "entityId": w.ticket.id, "actor": {"username": "agent"}}
        ]})
    );
    let filter = json!({"filter": {"entityType": "comment", "entityId": c.id}});
    let body = app.graphql(Some(&w.admin.token), LOG, filter).await;
    assert_eq!(data(&body)["auditEvents"]["totalCount"], 1);
}
