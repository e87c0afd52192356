//! Bulk changes: asked for over REST (202 and a job to follow) or GraphQL, by ids or by a filter, made by the
//! worker ticket by ticket with the checks of a change by hand; a ticket that cannot be changed is reported,
//! a held job waits, and a job resumes where a dead run left it.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::sla::run_at;
use crate::support::tickets::create_ticket;
use axum::http::{header, StatusCode};
use chrono::Utc;
use entity::bulk_job;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{json, Value};

const BULK: &str = "/api/tickets/bulk/";

async fn ticket(app: &TestApp, requester: &TestUser, title: &str) -> i64 {
    create_ticket(app, requester, json!({"title": title, "description": "d"})).await["id"]
        .as_i64()
        .unwrap()
}

async fn status_of(app: &TestApp, who: &TestUser, id: i64) -> (String, String) {
    let t = app.as_user(who).get(&format!("/api/tickets/{id}/")).await;
    assert_eq!(t.status, StatusCode::OK, "{}", t.text);
    (
        t.json["status"].as_str().unwrap().to_string(),
        t.json["priority"].as_str().unwrap().to_string(),
    )
}

db_test!(a_bulk_change_by_ids_reports_each_ticket_it_could_not_change);
async fn a_bulk_change_by_ids_reports_each_ticket_it_could_not_change(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let carl = app.agent("carl").await;
    let root = app.admin("root").await;
    let one = ticket(app, &ann, "One").await;
    let two = ticket(app, &ann, "Two").await;
    let closed = ticket(app, &ann, "Closed").await;
    for status in ["resolved", "closed"] {
        let moved = app
            .as_user(&bob)
            .patch(
                &format!("/api/tickets/{closed}/"),
                json!({ "status": status }),
            )
            .await;
        assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    }
    let body = json!({"ids": [one, two, closed, 999_999], "changes": {"status": "resolved", "priority": "high"}});

    // Requesters may not; a mistake in the change names its path.
    let refused = app.as_user(&ann).post(BULK, body.clone()).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);
    let bad = app
        .as_user(&bob)
        .post(BULK, json!({"ids": [one], "changes": {"status": "done"}}))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text);
    assert!(
        bad.json["details"].get("changes.status").is_some(),
        "{}",
        bad.text
    );
    let bad = app
        .as_user(&bob)
        .post(BULK, json!({"ids": [one], "changes": {"title": "x"}}))
        .await;
    assert!(
        bad.json["details"].get("changes.title").is_some(),
        "{}",
        bad.text
    );

    let started = app.as_user(&bob).post(BULK, body).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.text);
    let url = started.json["url"].as_str().unwrap().to_string();
    assert_eq!(started.headers[header::LOCATION], url.as_str());
    assert_eq!(started.json["status"], "queued");
    assert_eq!(started.json["total"], 4);
    // Nothing changed before the worker runs.
    assert_eq!(status_of(app, &bob, one).await.0, "new");

    run_at(&app.state, Utc::now()).await;
    let job = app.as_user(&bob).get(&url).await;
    assert_eq!(job.status, StatusCode::OK, "{}", job.text);
    assert_eq!(job.json["status"], "done", "{}", job.text);
    assert_eq!(job.json["processed"], 4);
    assert_eq!(job.json["failed"], 2);
    let codes: Vec<(i64, String)> = job.json["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["ticket_id"].as_i64().unwrap(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            (closed, "invalid_transition".to_string()),
            (999_999, "not_found".to_string())
        ],
        "{}",
        job.text
    );
    assert!(job.json["finished_at"].is_string());
    for id in [one, two] {
        assert_eq!(
            status_of(app, &bob, id).await,
            ("resolved".to_string(), "high".to_string())
        );
    }
    assert_eq!(status_of(app, &bob, closed).await.0, "closed");

    // The job is its owner's and the administrators'.
    assert_eq!(
        app.as_user(&carl).get(&url).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.as_user(&root).get(&url).await.status, StatusCode::OK);
    let history = app
        .as_user(&bob)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { history(first: 20) { nodes { action actor { username } } } } }",
            json!({ "n": one }),
        )
        .await;
    assert!(
        history["ticket"]["history"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["actor"]["username"] == "bob"),
        "the change is recorded as bob's: {history}"
    );
}

db_test!(a_bulk_change_by_filter_works_through_chunks_and_resumes_after_a_dead_run);
async fn a_bulk_change_by_filter_works_through_chunks_and_resumes_after_a_dead_run(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let mut ids = Vec::new();
    for i in 0..230 {
        ids.push(ticket(app, &ann, &format!("Printer {i}")).await);
    }
    let other = ticket(app, &ann, "Laptop").await;
    let started = app
        .as_user(&bob)
        .graphql_data(
            "mutation($i: BulkUpdateTicketsInput!) { bulkUpdateTickets(input: $i) { job { id databaseId status total } } }",
            json!({"i": {"filter": {"query": "printer"}, "changes": {"priority": "LOW", "dueDate": "2027-01-15"}}}),
        )
        .await["bulkUpdateTickets"]["job"]
        .clone();
    assert_eq!(started["status"], "QUEUED");
    assert_eq!(started["total"], 230);
    let job_id = started["databaseId"].as_i64().unwrap() as i32;

    // A run that held the job died: its hold keeps others off until it runs out.
    let held = bulk_job::Entity::find_by_id(job_id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let now = Utc::now();
    let mut dead: bulk_job::ActiveModel = held.into();
    dead.locked_until_ms = Set(now.timestamp_millis() + 60_000);
    dead.update(&app.state.db.conn).await.unwrap();
    deskgraph::jobs::worker::run_once_at(&app.state.delivery_deps(), now.timestamp_millis())
        .await
        .unwrap();
    assert_eq!(job(app, &bob, &started["id"]).await["processed"], 0);

    // Past the hold, the worker takes it up and goes through every chunk.
    run_at(&app.state, now + chrono::Duration::minutes(10)).await;
    let done = job(app, &bob, &started["id"]).await;
    assert_eq!(
        done,
        json!({"status": "DONE", "processed": 230, "failed": 0, "total": 230})
    );
    for id in [ids[0], ids[199], ids[229]] {
        let t = app.as_user(&bob).get(&format!("/api/tickets/{id}/")).await;
        assert_eq!(t.json["priority"], "low");
        assert_eq!(t.json["due_date"], "2027-01-15");
    }
    let untouched = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{other}/"))
        .await;
    assert_eq!(untouched.json["priority"], "medium");

    // Another agent cannot follow it.
    let carl = app.agent("carl").await;
    let hidden = app
        .as_user(&carl)
        .graphql(
            "query($id: ID!) { bulkJob(id: $id) { status } }",
            json!({"id": started["id"]}),
        )
        .await;
    assert_eq!(
        hidden["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{hidden}"
    );
}

async fn job(app: &TestApp, who: &TestUser, id: &Value) -> Value {
    app.as_user(who)
        .graphql_data(
            "query($id: ID!) { bulkJob(id: $id) { status processed failed total } }",
            json!({ "id": id }),
        )
        .await["bulkJob"]
        .clone()
}

db_test!(a_filter_that_finds_too_many_or_a_mixed_request_is_refused);
async fn a_filter_that_finds_too_many_or_a_mixed_request_is_refused(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let one = ticket(app, &ann, "One").await;
    let both = app
        .as_user(&bob)
        .post(
            BULK,
            json!({"ids": [one], "filter": {"q": "x"}, "changes": {"priority": "low"}}),
        )
        .await;
    assert_eq!(both.status, StatusCode::BAD_REQUEST, "{}", both.text);
    let unknown = app
        .as_user(&bob)
        .post(
            BULK,
            json!({"filter": {"colour": "red"}, "changes": {"priority": "low"}}),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{}", unknown.text);
    assert!(
        unknown.json["details"].get("filter.colour").is_some(),
        "{}",
        unknown.text
    );
    let by_status = app
        .as_user(&bob)
        .post(
            BULK,
            json!({"filter": {"status": ["new"]}, "changes": {"priority": "low"}}),
        )
        .await;
    assert_eq!(by_status.status, StatusCode::ACCEPTED, "{}", by_status.text);
    assert_eq!(by_status.json["total"], 1);
    let nothing: Value = app
        .as_user(&bob)
        .post(
            BULK,
            json!({"filter": {"q": "no such words"}, "changes": {"priority": "low"}}),
        )
        .await
        .json;
    assert_eq!(nothing["status"], "done", "{nothing}");
    assert_eq!(nothing["total"], 0);
}

db_test!(a_bulk_change_tags_tickets_found_by_a_tag_filter);
async fn a_bulk_change_tags_tickets_found_by_a_tag_filter(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let one = ticket(app, &ann, "One").await;
    let two = ticket(app, &ann, "Two").await;
    let other = ticket(app, &ann, "Other").await;
    for id in [one, two] {
        let r = app
            .as_user(&bob)
            .post(
                &format!("/api/tickets/{id}/tags/"),
                json!({"tags": ["vpn", "new"]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    for bad in [
        json!({"add_tags": "vpn"}),
        json!({"add_tags": ["a,b"]}),
        json!({"add_tags": []}),
    ] {
        let r = app
            .as_user(&bob)
            .post(BULK, json!({"ids": [one], "changes": bad.clone()}))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text);
    }
    let started = app
        .as_user(&bob)
        .graphql_data(
            r#"mutation { bulkUpdateTickets(input: {filter: {tags: {all: ["vpn"]}},
                changes: {priority: HIGH, addTags: ["Outage"], removeTags: ["new"]}}) { job { total status } } }"#,
            json!({}),
        )
        .await;
    assert_eq!(started["bulkUpdateTickets"]["job"]["total"], 2, "{started}");
    run_at(&app.state, Utc::now()).await;
    for id in [one, two] {
        let tags = app
            .as_user(&bob)
            .get(&format!("/api/tickets/{id}/tags/"))
            .await;
        assert_eq!(tags.json["tags"], json!(["outage", "vpn"]), "{}", tags.text);
        assert_eq!(status_of(app, &bob, id).await.1, "high");
    }
    let untouched = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{other}/tags/"))
        .await;
    assert_eq!(untouched.json["tags"], json!([]));
}

db_test!(a_bulk_change_is_followed_over_a_subscription_until_it_is_done);
async fn a_bulk_change_is_followed_over_a_subscription_until_it_is_done(app: &TestApp) {
    use crate::support::subscriptions::{serve, WsClient, ARRIVES};
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let carl = app.agent("carl").await;
    let mut ids = Vec::new();
    for i in 0..3 {
        ids.push(ticket(app, &ann, &format!("Printer {i}")).await);
    }
    let started = app
        .as_user(&bob)
        .graphql_data(
            "mutation($i: BulkUpdateTicketsInput!) { bulkUpdateTickets(input: $i) { job { id } } }",
            json!({"i": {"ticketIds": ids.iter().map(|id| global_id(*id)).collect::<Vec<_>>(), "changes": {"priority": "HIGH"}}}),
        )
        .await["bulkUpdateTickets"]["job"]["id"]
        .clone();
    let url = serve(app.state.clone()).await;
    let follow = "subscription($id: ID!) { bulkJob(id: $id) { id status processed failed total } }";

    // Only its owner (or an administrator) may follow it; anyone else is told it does not exist.
    for other in [&carl, &ann] {
        let mut client = WsClient::connect(&url, &other.token).await;
        client
            .subscribe_to("1", follow, json!({"id": started}))
            .await;
        let end = client.expect_end("1").await;
        assert_eq!(end["errors"][0]["extensions"]["code"], "NOT_FOUND", "{end}");
    }

    let mut client = WsClient::connect(&url, &bob.token).await;
    client
        .subscribe_to("1", follow, json!({"id": started}))
        .await;
    let first = client.next_event(ARRIVES).await.expect("the job as it is");
    assert_eq!(
        first["data"]["bulkJob"],
        json!({"id": started, "status": "QUEUED", "processed": 0, "failed": 0, "total": 3}),
        "{first}"
    );

    // The worker works it through; the subscriber is told as it moves, and last that it is done.
    run_at(&app.state, Utc::now()).await;
    let mut told = Vec::new();
    loop {
        let msg = client.receive(ARRIVES).await.expect("progress or the end");
        let msg = msg.expect("the socket stays open");
        if msg["type"] == "complete" {
            break;
        }
        assert_eq!(msg["type"], "next", "{msg}");
        assert!(msg["payload"]["errors"].is_null(), "{msg}");
        told.push(msg["payload"]["data"]["bulkJob"].clone());
    }
    let counts: Vec<i64> = told
        .iter()
        .map(|j| j["processed"].as_i64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{told:?}");
    assert_eq!(
        told.last(),
        Some(&json!({"id": started, "status": "DONE", "processed": 3, "failed": 0, "total": 3})),
        "{told:?}"
    );
}

fn global_id(id: i64) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(format!("Ticket:{id}"))
}

db_test!(an_agent_changes_the_ticked_tickets_from_the_queue_in_the_background);
async fn an_agent_changes_the_ticked_tickets_from_the_queue_in_the_background(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let one = ticket(app, &ann, "One").await.to_string();
    let two = ticket(app, &ann, "Two").await.to_string();
    let three = ticket(app, &ann, "Three").await.to_string();

    // A team member ticks tickets without any macro; a requester gets no selection.
    let agent = login(app, &bob).await;
    let queue = agent.page(app, "/tickets/").await;
    assert!(queue.text.contains("name=\"ticket\""), "{}", queue.text);
    assert!(queue.text.contains("id=\"bulk-change\""), "{}", queue.text);
    let requester = login(app, &ann).await;
    assert!(!requester
        .page(app, "/tickets/")
        .await
        .text
        .contains("bulk-change"));
    let refused = requester
        .form(
            app,
            "/tickets/bulk/change/",
            &[("ticket", &one), ("priority", "low")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);

    // Nothing ticked, or nothing to change: said, nothing started.
    let none = agent
        .form(app, "/tickets/bulk/change/", &[("priority", "low")])
        .await;
    assert_eq!(none.status, StatusCode::BAD_REQUEST, "{}", none.text);
    let nothing = agent
        .form(
            app,
            "/tickets/bulk/change/",
            &[
                ("ticket", &one),
                ("status", ""),
                ("priority", ""),
                ("assign", ""),
            ],
        )
        .await;
    assert_eq!(nothing.status, StatusCode::BAD_REQUEST, "{}", nothing.text);

    let started = agent
        .form(
            app,
            "/tickets/bulk/change/",
            &[
                ("ticket", &one),
                ("ticket", &three),
                ("status", "in_progress"),
                ("priority", ""),
                ("assign", "me"),
            ],
        )
        .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.text);
    let back = location(&started);
    let shown = agent.page(app, &back).await;
    assert!(
        shown
            .text
            .contains("2 tickets are being changed in the background"),
        "{}",
        shown.text
    );
    run_at(&app.state, Utc::now()).await;
    for (id, status, assignee) in [
        (&one, "in_progress", json!(bob.id)),
        (&two, "new", Value::Null),
        (&three, "in_progress", json!(bob.id)),
    ] {
        let t = app.as_user(&bob).get(&format!("/api/tickets/{id}/")).await;
        assert_eq!(t.json["status"], status, "{}", t.text);
        assert_eq!(t.json["assigned_to"]["id"], assignee, "{}", t.text);
        assert_eq!(t.json["priority"], "medium", "{}", t.text);
    }
}
