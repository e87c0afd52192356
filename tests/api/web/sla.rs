//! The agent's workspace in the browser: assign, prioritise, edit, the requester's limits, SLA badges,
//! history and the queue views, all through forms with the CSRF token.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::location;
use crate::support::world::{login, world};
use axum::http::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;

async fn current(app: &TestApp, id: i32) -> entity::ticket::Model {
    entity::ticket::Entity::find_by_id(id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap()
}

db_test!(an_agent_works_a_ticket_from_its_page);
async fn an_agent_works_a_ticket_from_its_page(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let path = format!("/tickets/{id}/");
    let edit = format!("/tickets/{id}/edit/");
    let agent = login(app, &w.agent).await;

    let resp = agent.page(app, &path).await;
    assert!(resp.text.contains("id=\"assign-to-me\""), "{}", resp.text);
    assert!(resp.text.contains("id=\"edit-assignee\""));
    // A forged form changes nothing.
    let agent_id = w.agent.id.to_string();
    let resp = agent
        .forged(app, &edit, &[("assigned_to", &agent_id)])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert_eq!(current(app, id).await.assignee_id, Some(w.assignee.id));

    // Assign to me, then raise the priority and set a due date and the group off.
    let resp = agent.form(app, &edit, &[("assigned_to", &agent_id)]).await;
    assert_eq!(location(&resp), path);
    assert_eq!(current(app, id).await.assignee_id, Some(w.agent.id));
    let resp = agent
        .form(
            app,
            &edit,
            &[
                ("title", "Printer on fire"),
                ("priority", "critical"),
                ("due_date", "2026-12-01"),
                ("assigned_group", ""),
            ],
        )
        .await;
    assert_eq!(location(&resp), path);
    let t = current(app, id).await;
    assert_eq!(t.priority, deskgraph::domain::Priority::Critical);
    assert_eq!(
        t.due_date.map(|d| d.to_string()).as_deref(),
        Some("2026-12-01")
    );
    assert_eq!(t.assigned_group_id, None);
    // Bad input is a 400 page, not a change.
    let resp = agent.form(app, &edit, &[("due_date", "tomorrow")]).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);

    // The history tab shows what happened, by whom.
    let resp = agent.page(app, &path).await;
    assert!(resp.text.contains("id=\"history\""));
    assert!(
        resp.text
            .contains("You raised the priority from Medium to Critical · <time"),
        "{}",
        resp.text
    );
    assert!(!resp.text.contains("priority: ["), "no raw change records");
    assert!(!resp.text.contains("id=\"assign-to-me\""), "already mine");
}

db_test!(a_requester_edits_only_what_the_rules_allow);
async fn a_requester_edits_only_what_the_rules_allow(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let edit = format!("/tickets/{id}/edit/");
    let owner = login(app, &w.owner).await;
    let resp = owner.page(app, &format!("/tickets/{id}/")).await;
    assert!(resp.text.contains("id=\"edit-title\""));
    assert!(
        !resp.text.contains("id=\"edit-assignee\""),
        "no assignment for requesters"
    );
    assert!(!resp.text.contains("id=\"assign-to-me\""));
    let resp = owner
        .form(
            app,
            &edit,
            &[
                ("title", "Printer still on fire"),
                ("description", "<p>Smoke</p>"),
                ("priority", "high"),
            ],
        )
        .await;
    assert_eq!(location(&resp), format!("/tickets/{id}/"));
    let t = current(app, id).await;
    assert_eq!(
        (t.title.as_str(), t.priority.as_str()),
        ("Printer still on fire", "high")
    );
    // A hand-made form naming a field she may not change is refused whole.
    let owner_id = w.owner.id.to_string();
    let resp = owner
        .form(
            app,
            &edit,
            &[("title", "Mine now"), ("assigned_to", &owner_id)],
        )
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let t = current(app, id).await;
    assert_eq!(
        (t.title.as_str(), t.assignee_id),
        ("Printer still on fire", Some(w.assignee.id))
    );
    // Someone who cannot see the ticket gets a 404.
    let other = login(app, &w.other).await;
    let resp = other.form(app, &edit, &[("title", "x")]).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
}

db_test!(queue_views_and_sla_badges);
async fn queue_views_and_sla_badges(app: &TestApp) {
    let w = world(app).await;
    let created = app
        .graphql(
            Some(&w.admin.token),
            "mutation($input: CreateSlaPolicyInput!) { createSlaPolicy(input: $input) { slaPolicy { id } } }",
            json!({"input": {"name": "Urgent", "priority": "CRITICAL", "firstResponseMinutes": 30, "resolutionMinutes": 120}}),
        )
        .await;
    assert!(created["errors"].is_null(), "{created}");
    let agent = login(app, &w.agent).await;
    let urgent = app
        .post(
            "/api/tickets/",
            Some(&w.owner.token),
            json!({"title": "Urgent one", "priority": "critical"}),
        )
        .await
        .json["id"]
        .as_i64()
        .unwrap();
    app.post(
        "/api/tickets/",
        Some(&w.owner.token),
        json!({"title": "Calm one"}),
    )
    .await;

    let resp = agent.page(app, "/tickets/?view=breaching").await;
    assert!(resp.text.contains("Urgent one"), "{}", resp.text);
    // The queue says the most urgent target in words, with the absolute time on hover.
    let row = resp.text.split("sla-cell").nth(1).unwrap_or_default();
    assert!(row.contains(">First response due in 2"), "{row}");
    assert!(row.contains("title=\"First response: "), "{row}");
    assert!(!resp.text.contains("Calm one"));
    assert!(!resp.text.contains("Printer on fire"));
    let resp = agent.page(app, "/tickets/?view=unassigned").await;
    assert!(resp.text.contains("Calm one") && resp.text.contains("Urgent one"));
    assert!(!resp.text.contains("Printer on fire"));
    let resp = agent.page(app, "/tickets/?view=mine").await;
    assert!(resp.text.contains("No tickets match."), "{}", resp.text);
    let grouper = login(app, &w.grouper).await;
    let resp = grouper.page(app, "/tickets/?view=groups").await;
    assert!(resp.text.contains("Printer on fire"));
    assert!(!resp.text.contains("Urgent one"));

    let resp = agent.page(app, &format!("/tickets/{urgent}/")).await;
    assert!(resp.text.contains("id=\"ticket-sla\""), "{}", resp.text);
    assert!(
        resp.text.contains("First response due in 2"),
        "{}",
        resp.text
    );
    // The requester sees her ticket's clock too.
    let owner = login(app, &w.owner).await;
    let resp = owner.page(app, &format!("/tickets/{urgent}/")).await;
    assert!(
        resp.text.contains("Resolution due in 1 h 5"),
        "{}",
        resp.text
    );
}
