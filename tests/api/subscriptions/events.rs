//! `ticketEvents` over a real WebSocket: events arrive for tickets the subscriber may see, nothing
//! for others, internal comments only for those who may read them, and across instances on
//! PostgreSQL.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::subscriptions::{serve, wait_for_subscribers, Init, WsClient, ARRIVES};
use deskgraph::config::Config;
use deskgraph::db::Db;
use deskgraph::state::AppState;
use serde_json::{json, Value};

async fn new_ticket(app: &TestApp, user: &TestUser, title: &str) -> Value {
    app.as_user(user).ticket_titled(title).await
}

fn global_id(kind: &str, id: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(format!("{kind}:{id}"))
}

async fn comment(app: &TestApp, user: &TestUser, ticket: i64, kind: &str, text: &str) -> Value {
    let made = app
        .post(
            &format!("/api/tickets/{ticket}/comments/"),
            Some(&user.token),
            json!({"content": text, "comment_type": kind}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    made.json["id"].clone()
}

db_test!(a_subscriber_receives_changes_to_a_ticket_it_may_see);
async fn a_subscriber_receives_changes_to_a_ticket_it_may_see(app: &TestApp) {
    let alice = app.user("alice").await;
    let agent = app.agent("bob").await;
    let url = serve(app.state.clone()).await;
    let ticket = new_ticket(app, &alice, "VPN drops").await;
    let id = ticket["id"].as_i64().unwrap();
    let ticket_gid = global_id("Ticket", &ticket["id"]);

    let mut client = WsClient::connect(&url, &alice.token).await;
    client.subscribe("1", Some(&ticket_gid)).await;
    wait_for_subscribers(&app.state, 1).await;

    let moved = app
        .patch(
            &format!("/api/tickets/{id}/"),
            Some(&agent.token),
            json!({"status": "in_progress"}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    let event = client.expect_event().await;
    assert_eq!(event["kind"], "STATUS_CHANGED", "{event}");
    assert_eq!(event["ticket"]["id"], ticket_gid.as_str());
    assert_eq!(event["ticket"]["status"], "IN_PROGRESS");
    assert!(event["at"].is_string());

    let renamed = app
        .patch(
            &format!("/api/tickets/{id}/"),
            Some(&alice.token),
            json!({"title": "VPN drops every hour"}),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    let event = client.expect_event().await;
    assert_eq!(event["kind"], "UPDATED", "{event}");
    assert_eq!(event["ticket"]["title"], "VPN drops every hour");

    let comment_id = comment(app, &agent, id, "public", "Looking into it").await;
    let event = client.expect_event().await;
    assert_eq!(event["kind"], "COMMENT_ADDED", "{event}");
    assert_eq!(
        event["commentId"],
        global_id("Comment", &comment_id).as_str()
    );

    // Another ticket's changes are not part of this subscription.
    new_ticket(app, &alice, "Another one").await;
    client.expect_silence().await;
}

db_test!(a_subscriber_receives_nothing_about_tickets_it_cannot_see);
async fn a_subscriber_receives_nothing_about_tickets_it_cannot_see(app: &TestApp) {
    let alice = app.user("alice").await;
    let mallory = app.user("mallory").await;
    let agent = app.agent("bob").await;
    let url = serve(app.state.clone()).await;

    let mut outsider = WsClient::connect(&url, &mallory.token).await;
    outsider.subscribe("all", None).await;
    let mut team = WsClient::connect(&url, &agent.token).await;
    team.subscribe("all", None).await;
    wait_for_subscribers(&app.state, 2).await;

    let ticket = new_ticket(app, &alice, "Laptop stolen").await;
    let id = ticket["id"].as_i64().unwrap();
    comment(app, &alice, id, "public", "It was in my car").await;
    let event = team.expect_event().await;
    assert_eq!(event["kind"], "CREATED", "{event}");
    assert_eq!(team.expect_event().await["kind"], "COMMENT_ADDED");
    outsider.expect_silence().await;

    // Naming a ticket one cannot see is refused as if it did not exist.
    let ticket_gid = global_id("Ticket", &ticket["id"]);
    outsider.subscribe("one", Some(&ticket_gid)).await;
    let answer = outsider
        .receive(crate::support::subscriptions::ARRIVES)
        .await
        .unwrap()
        .unwrap();
    // A resolver error is a `next` with errors (then `complete`), per graphql-transport-ws.
    assert_eq!(answer["type"], "next", "{answer}");
    assert_eq!(answer["payload"]["data"], Value::Null, "{answer}");
    assert_eq!(
        answer["payload"]["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{answer}"
    );
}

db_test!(internal_comments_reach_only_those_who_may_read_them);
async fn internal_comments_reach_only_those_who_may_read_them(app: &TestApp) {
    let alice = app.user("alice").await;
    let agent = app.agent("bob").await;
    let url = serve(app.state.clone()).await;
    let ticket = new_ticket(app, &alice, "Payroll access").await;
    let id = ticket["id"].as_i64().unwrap();
    let ticket_gid = global_id("Ticket", &ticket["id"]);

    let mut requester = WsClient::connect(&url, &alice.token).await;
    requester.subscribe("1", Some(&ticket_gid)).await;
    let mut team = WsClient::connect(&url, &agent.token).await;
    team.subscribe("1", Some(&ticket_gid)).await;
    wait_for_subscribers(&app.state, 2).await;

    let internal = comment(app, &agent, id, "internal", "Check with HR first").await;
    let public = comment(app, &agent, id, "public", "We are on it").await;

    let first = team.expect_event().await;
    assert_eq!(
        first["commentId"],
        global_id("Comment", &internal).as_str(),
        "{first}"
    );
    let second = team.expect_event().await;
    assert_eq!(
        second["commentId"],
        global_id("Comment", &public).as_str(),
        "{second}"
    );

    let only = requester.expect_event().await;
    assert_eq!(
        only["commentId"],
        global_id("Comment", &public).as_str(),
        "{only}"
    );
    requester.expect_silence().await;
}

db_test!(connections_without_a_valid_token_are_refused);
async fn connections_without_a_valid_token_are_refused(app: &TestApp) {
    let alice = app.user("alice").await;
    let url = serve(app.state.clone()).await;
    for payload in [
        json!({}),
        json!({"Authorization": "Bearer dg_not_a_real_token"}),
        json!({"token": "a.b.c"}),
    ] {
        match WsClient::init(&url, payload.clone()).await {
            Init::Refused(why) => assert!(why.contains("closed"), "{payload}: {why}"),
            Init::Acked(_) => panic!("{payload} was accepted"),
        }
    }
    assert_eq!(app.state.live.subscriber_count(), 0);

    // A JWT from the login endpoint works, in the `token` field too.
    let login = app
        .post(
            "/api/auth/token/",
            None,
            json!({"username": "alice", "password": "alice-password"}),
        )
        .await;
    let jwt = login.json["access"]
        .as_str()
        .or(login.json["token"].as_str())
        .unwrap_or_else(|| panic!("{}", login.text))
        .to_string();
    let Init::Acked(mut client) = WsClient::init(&url, json!({ "token": jwt })).await else {
        panic!("a JWT was refused");
    };
    client.subscribe("1", None).await;
    wait_for_subscribers(&app.state, 1).await;
    new_ticket(app, &alice, "Mouse broken").await;
    assert_eq!(client.expect_event().await["kind"], "CREATED");
}

/// Two instances over one PostgreSQL database: a change made through one reaches a subscriber of
/// the other. (SQLite runs one instance by design, so this is PostgreSQL only.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_reach_subscribers_on_every_instance_on_postgres() {
    let Some(app) = TestApp::postgres().await else {
        eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
        return;
    };
    let alice = app.user("alice").await;
    let agent = app.agent("bob").await;
    let url = app.state.config.database_url.clone();
    let config = Config::for_database(&url);
    let db = Db::connect(&url, config.db_pool_size).await.unwrap();
    let other = AppState::from_db(db, config).await.unwrap();
    let ws_url = serve(other.clone()).await;

    let mut client = WsClient::connect(&ws_url, &agent.token).await;
    client.subscribe("all", None).await;
    wait_for_subscribers(&other, 1).await;

    // Made through the first instance (its own router), received on the second.
    let ticket = new_ticket(&app, &alice, "Made on instance one").await;
    let event = client.expect_event().await;
    assert_eq!(event["kind"], "CREATED", "{event}");
    assert_eq!(event["ticket"]["title"], "Made on instance one");
    assert_eq!(
        event["ticket"]["id"],
        global_id("Ticket", &ticket["id"]).as_str()
    );
    // Exactly once: the instance's own notification is not delivered a second time.
    client.expect_silence().await;
    drop(other);
    app.cleanup().await;
}

db_test!(document_checks_apply_over_the_websocket_too);
async fn document_checks_apply_over_the_websocket_too(app: &TestApp) {
    let alice = app.user("alice").await;
    let url = serve(app.state.clone()).await;
    let mut client = WsClient::connect(&url, &alice.token).await;

    client
        .send_operation("big", "{ tickets(first: 1000) { totalCount } }")
        .await;
    let answer = client.receive(ARRIVES).await.expect("an answer").unwrap();
    assert_eq!(answer["id"], "big", "{answer}");
    // Refused as a whole request before anything resolves: no data and no path on the error.
    assert_eq!(answer["type"], "next", "{answer}");
    assert_eq!(answer["payload"]["data"], Value::Null, "{answer}");
    let error = &answer["payload"]["errors"][0];
    assert_eq!(error["extensions"]["code"], "BAD_USER_INPUT", "{answer}");
    assert!(error.get("path").is_none(), "{answer}");
    assert!(
        error["message"].as_str().unwrap_or("").contains("first"),
        "{answer}"
    );

    // The connection stays usable for a page within the limit.
    client
        .send_operation("ok", "{ tickets(first: 5) { totalCount } }")
        .await;
    let mut answer = client.receive(ARRIVES).await.expect("an answer").unwrap();
    if answer["id"] == "big" {
        assert_eq!(answer["type"], "complete", "{answer}");
        answer = client.receive(ARRIVES).await.expect("an answer").unwrap();
    }
    assert_eq!(
        (&answer["id"], &answer["type"]),
        (&json!("ok"), &json!("next")),
        "{answer}"
    );
    assert_eq!(
        answer["payload"]["data"]["tickets"]["totalCount"], 0,
        "{answer}"
    );
}

db_test!(a_field_change_a_rule_follows_up_is_told_once);
/// A write of custom fields alone is an update, told once; when a rule then changes a field of the ticket too,
/// it is still one update, not two.
async fn a_field_change_a_rule_follows_up_is_told_once(app: &TestApp) {
    let root = app.admin("root").await;
    let agent = app.agent("bob").await;
    let made = app
        .as_user(&root)
        .post(
            "/api/custom-fields/",
            json!({"key": "stage", "label": "Stage", "kind": "choice", "choices": ["triage", "done"]}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let rule = app
        .as_user(&root)
        .post(
            "/api/automation/triggers/",
            json!({"name": "Done is low", "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "updated"},
                {"field": "ticket.fields.stage", "operator": "changed_to", "value": "done"}
            ]}, "actions": [{"set": "priority", "value": "low"}]}),
        )
        .await;
    assert_eq!(rule.status, 201, "{}", rule.text);
    let url = serve(app.state.clone()).await;
    let ticket = new_ticket(app, &agent, "Printer").await;
    let id = ticket["id"].as_i64().unwrap();
    let ticket_gid = global_id("Ticket", &ticket["id"]);
    let mut client = WsClient::connect(&url, &agent.token).await;
    client.subscribe("1", Some(&ticket_gid)).await;
    wait_for_subscribers(&app.state, 1).await;
    for (stage, priority) in [("triage", "medium"), ("done", "low")] {
        let set = app
            .patch(
                &format!("/api/tickets/{id}/"),
                Some(&agent.token),
                json!({"custom_fields": {"stage": stage}}),
            )
            .await;
        assert_eq!(set.status, 200, "{}", set.text);
        let event = client.expect_event().await;
        assert_eq!(event["kind"], "UPDATED", "{event}");
        client.expect_silence().await;
        let now = app
            .get(&format!("/api/tickets/{id}/"), Some(&agent.token))
            .await;
        assert_eq!(now.json["priority"], priority, "{}", now.text);
    }
}
