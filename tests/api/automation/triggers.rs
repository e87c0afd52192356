//! Triggers: only administrators manage them (REST and GraphQL), a mistake is a 400 naming its JSON path,
//! and on a ticket write they run in order, once each, inside the write, marked as the rule's.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::login;
use axum::http::StatusCode;
use deskgraph::domain::Priority;
use serde_json::{json, Value};

const TRIGGERS: &str = "/api/automation/triggers/";

async fn group(app: &TestApp, admin: &TestUser, name: &str) -> i64 {
    let made = app
        .as_user(admin)
        .post("/api/groups/", json!({ "name": name }))
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    made.json["id"].as_i64().unwrap()
}

async fn trigger(app: &TestApp, admin: &TestUser, body: Value) -> Value {
    let made = app.as_user(admin).post(TRIGGERS, body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    made.json
}

const TICKET: &str = r#"query($n: Int!) { ticket(databaseId: $n) {
    status priority dueDate assignedGroup { name }
    comments(first: 20) { nodes { body commentType author { username } } }
    history(first: 50) { nodes { action changes actor { username } } }
} }"#;

async fn ticket(app: &TestApp, as_user: &TestUser, id: i64) -> Value {
    app.as_user(as_user)
        .graphql_data(TICKET, json!({ "n": id }))
        .await["ticket"]
        .clone()
}

/// A ticket titled `title` created by `actor` through `state`, and the statements the create took.
async fn counted_create(
    state: &deskgraph::state::AppState,
    actor: &deskgraph::auth::Actor,
    title: &str,
) -> (u64, entity::ticket::Model) {
    let before = state.db.statement_count();
    let t = deskgraph::service::tickets::create(
        state.write_deps(deskgraph::domain::Channel::Rest),
        actor,
        deskgraph::service::tickets::NewTicket {
            title: title.into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    (state.db.statement_count() - before, t)
}

/// The fewest statements of four priority changes of ticket `id` by `actor` (a statement of a background task
/// can land in a window), each a change: high and low in turn.
async fn counted_update(
    state: &deskgraph::state::AppState,
    actor: &deskgraph::auth::Actor,
    id: i32,
) -> u64 {
    let mut fewest = u64::MAX;
    for priority in [Priority::High, Priority::Low, Priority::High, Priority::Low] {
        let before = state.db.statement_count();
        deskgraph::service::tickets::update(
            state.write_deps(deskgraph::domain::Channel::Rest),
            actor,
            id,
            deskgraph::service::tickets::TicketPatch {
                priority: Some(priority),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        fewest = fewest.min(state.db.statement_count() - before);
    }
    fewest
}

/// The history entries a rule made (their `via`).
fn by_rules(t: &Value) -> Vec<Value> {
    t["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["changes"].get("via").cloned())
        .collect()
}

db_test!(only_administrators_manage_triggers_through_any_door);
async fn only_administrators_manage_triggers_through_any_door(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let rule = json!({
        "name": "Urgent",
        "conditions": {"all": [{"field": "ticket.title", "operator": "contains", "value": "urgent"}]},
        "actions": [{"set": "priority", "value": "critical"}]
    });
    for who in [&ann, &bob] {
        let refused = app.as_user(who).post(TRIGGERS, rule.clone()).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);
        assert_eq!(
            app.as_user(who).get(TRIGGERS).await.status,
            StatusCode::FORBIDDEN
        );
        let listed = app
            .as_user(who)
            .graphql("{ triggers { id } }", json!({}))
            .await;
        assert_eq!(
            listed["errors"][0]["extensions"]["code"], "FORBIDDEN",
            "{listed}"
        );
        let made = app
            .as_user(who)
            .graphql(
                "mutation($i: CreateTriggerInput!) { createTrigger(input: $i) { trigger { id } } }",
                json!({"i": {"name": "x", "conditions": {}, "actions": [{"set": "priority", "value": "low"}]}}),
            )
            .await;
        assert_eq!(
            made["errors"][0]["extensions"]["code"], "FORBIDDEN",
            "{made}"
        );
    }
    assert_eq!(
        app.anonymous().get(TRIGGERS).await.status,
        StatusCode::UNAUTHORIZED
    );

    // A mistake is named by the JSON path that holds it.
    let cases = [
        (
            json!({"all": [{"field": "ticket.colour", "operator": "is", "value": "red"}]}),
            json!([{"set": "priority", "value": "low"}]),
            "conditions.all[0].field",
        ),
        (
            json!({"any": [{"field": "ticket.title", "operator": "greater_than", "value": "a"}]}),
            json!([{"set": "priority", "value": "low"}]),
            "conditions.any[0].operator",
        ),
        (
            json!({}),
            json!([{"set": "priority", "value": "urgent-ish"}]),
            "actions[0].value",
        ),
        (
            json!({}),
            json!([{"comment": "Hello {{ticket.secret}}"}]),
            "actions[0].comment",
        ),
        (
            json!({}),
            json!([{"set": "assigned_to", "value": 999999}]),
            "actions[0].value",
        ),
        (json!({}), json!([]), "actions"),
        (
            json!({}),
            json!([{"notify": {"group": 999999}, "subject": "x", "body": "y"}]),
            "actions[0].notify",
        ),
        (
            json!({}),
            json!([{"notify": "everyone", "subject": "x", "body": "y"}]),
            "actions[0].notify",
        ),
    ];
    for (conditions, actions, path) in cases {
        let body = json!({"name": "Bad", "conditions": conditions, "actions": actions});
        let refused = app.as_user(&root).post(TRIGGERS, body).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(
            refused.json["details"].get(path).is_some(),
            "{path}: {}",
            refused.text
        );
    }
    // A rule's required parts, left out of a REST create: a 400 naming the part, for each kind of rule.
    let missing = [
        (TRIGGERS, json!({"name": "x", "actions": []}), "conditions"),
        (TRIGGERS, json!({"name": "x", "conditions": {}}), "actions"),
        (
            "/api/automation/time-rules/",
            json!({"name": "x", "conditions": {}, "actions": []}),
            "wait",
        ),
        ("/api/automation/macros/", json!({"name": "x"}), "actions"),
    ];
    for (path, body, part) in missing {
        let refused = app.as_user(&root).post(path, body).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{path}: {}",
            refused.text
        );
        assert_eq!(
            refused.json["details"][part],
            json!(["this field is required"]),
            "{path}: {}",
            refused.text
        );
    }
    let bad = app
        .as_user(&root)
        .graphql(
            "mutation($i: CreateTriggerInput!) { createTrigger(input: $i) { trigger { id } } }",
            json!({"i": {"name": "x", "conditions": {"all": [{"field": "event", "operator": "is", "value": "exploded"}]}, "actions": [{"set": "priority", "value": "low"}]}}),
        )
        .await;
    assert_eq!(
        bad["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{bad}"
    );
    assert!(bad.to_string().contains("conditions.all[0].value"), "{bad}");

    // Created through both doors, listed in position order, reordered, changed and removed.
    let first = trigger(app, &root, rule.clone()).await;
    assert_eq!(first["position"], 1);
    assert_eq!(first["active"], true);
    assert_eq!(first["project"], Value::Null);
    let second = app
        .as_user(&root)
        .graphql_data(
            "mutation($i: CreateTriggerInput!) { createTrigger(input: $i) { trigger { databaseId position name } } }",
            json!({"i": {"name": "Second", "conditions": {"all": [{"field": "event", "operator": "is", "value": "created"}]}, "actions": [{"set": "due_date", "value": 3}]}}),
        )
        .await["createTrigger"]["trigger"]
        .clone();
    assert_eq!(second["position"], 2);
    let names = |list: &Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&app.as_user(&root).get(TRIGGERS).await.json),
        ["Urgent", "Second"]
    );
    let reordered = app
        .as_user(&root)
        .post(
            &format!("{TRIGGERS}order/"),
            json!({"ids": [second["databaseId"]]}),
        )
        .await;
    assert_eq!(reordered.status, StatusCode::OK, "{}", reordered.text);
    assert_eq!(names(&reordered.json), ["Second", "Urgent"]);
    let listed = app
        .as_user(&root)
        .graphql_data("{ triggers { name position } }", json!({}))
        .await;
    assert_eq!(
        listed["triggers"][0],
        json!({"name": "Second", "position": 1})
    );
    let id = first["id"].as_i64().unwrap();
    let path = format!("{TRIGGERS}{id}/");
    let off = app
        .as_user(&root)
        .patch(&path, json!({"active": false, "name": "Urgent (off)"}))
        .await;
    assert_eq!(off.status, StatusCode::OK, "{}", off.text);
    assert_eq!(
        (off.json["active"].clone(), off.json["name"].clone()),
        (json!(false), json!("Urgent (off)"))
    );
    // Stored as the service understood it: spellings made canonical.
    assert_eq!(
        off.json["actions"],
        json!([{"set": "priority", "value": "critical"}])
    );
    assert_eq!(
        app.as_user(&root).delete(&path).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.as_user(&root).get(&path).await.status,
        StatusCode::NOT_FOUND
    );
    // Every change is in the audit trail.
    let trail = app
        .as_user(&root)
        .graphql_data(
            r#"{ auditEvents(first: 50, filter: {entityType: "trigger"}) { nodes { action } } }"#,
            json!({}),
        )
        .await;
    let actions: Vec<&str> = trail["auditEvents"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["action"].as_str().unwrap())
        .collect();
    for wanted in ["create", "reorder", "update", "delete"] {
        assert!(actions.contains(&wanted), "{wanted}: {actions:?}");
    }
}

db_test!(a_new_ticket_is_routed_and_answered_by_its_words);
async fn a_new_ticket_is_routed_and_answered_by_its_words(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let network = group(app, &root, "Network").await;
    let rule = trigger(
        app,
        &root,
        json!({
            "name": "Route VPN to Network",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "created"},
                {"field": "ticket.title", "operator": "contains", "value": "VPN"}
            ]},
            "actions": [
                {"set": "assigned_group", "value": network},
                {"set": "priority", "value": "high"},
                {"comment": "Thanks {{requester.full_name}}, {{ticket.number}} ({{ticket.title}}) is with the network team."}
            ]
        }),
    )
    .await;
    let made = app
        .as_user(&ann)
        .ticket_titled("vpn <b>keeps</b> dropping")
        .await;
    // The create's answer is the ticket as the rule left it.
    assert_eq!(made["priority"], "high", "{made}");
    let id = made["id"].as_i64().unwrap();
    let seen = ticket(app, &bob, id).await;
    assert_eq!(seen["assignedGroup"]["name"], "Network");
    assert_eq!(seen["priority"], "HIGH");
    let comments = seen["comments"]["nodes"].as_array().unwrap();
    assert_eq!(comments.len(), 1, "{seen}");
    assert_eq!(comments[0]["author"], Value::Null);
    assert_eq!(comments[0]["commentType"], "PUBLIC");
    let body = comments[0]["body"].as_str().unwrap();
    let number = made["ticket_number"].as_str().unwrap();
    // The title is text in the comment, never markup.
    assert_eq!(
        body,
        format!("<p>Thanks Ann Example, {number} (vpn &lt;b&gt;keeps&lt;/b&gt; dropping) is with the network team.</p>")
    );
    // The team sees which rule acted, the requester that a rule did.
    let via = by_rules(&seen);
    assert_eq!(via.len(), 2, "a field change and a comment: {via:?}");
    assert!(
        via.iter().all(|v| *v
            == json!({"rule": rule["id"], "name": "Route VPN to Network", "kind": "trigger"})),
        "{via:?}"
    );
    let theirs = ticket(app, &ann, id).await;
    assert_eq!(theirs["comments"]["nodes"].as_array().unwrap().len(), 1);
    assert!(
        by_rules(&theirs)
            .iter()
            .all(|v| *v == json!({"rule": rule["id"], "kind": "trigger"})),
        "{theirs}"
    );
    // The ticket page signs the comment as the desk, and tells the team which rule acted.
    let page = login(app, &bob)
        .await
        .page(app, &format!("/tickets/{id}/"))
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(page.text.contains("Service desk"), "{}", page.text);
    assert!(
        page.text.contains("The rule “Route VPN to Network”"),
        "{}",
        page.text
    );
    let page = login(app, &ann)
        .await
        .page(app, &format!("/tickets/{id}/"))
        .await;
    assert!(page.text.contains("Service desk"));
    assert!(!page.text.contains("Route VPN"), "{}", page.text);

    // Another ticket is left alone, and so is the VPN ticket's next update.
    let other = app.as_user(&ann).ticket_titled("Printer jam").await;
    assert_eq!(other["priority"], "medium");
    let other = ticket(app, &bob, other["id"].as_i64().unwrap()).await;
    assert_eq!(other["assignedGroup"], Value::Null);
    assert!(by_rules(&other).is_empty());
    let changed = app
        .as_user(&bob)
        .patch(&format!("/api/tickets/{id}/"), json!({"priority": "low"}))
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.json["priority"], "low");
}

db_test!(triggers_run_in_order_once_each_and_never_loop);
async fn triggers_run_in_order_once_each_and_never_loop(app: &TestApp) {
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let when_priority = |p: &str| {
        json!({"all": [
            {"field": "event", "operator": "is", "value": "updated"},
            {"field": "ticket.priority", "operator": "is", "value": p}
        ]})
    };
    // Each undoes the other: run again on their own changes, they would never stop.
    trigger(app, &root, json!({"name": "Down", "conditions": when_priority("high"), "actions": [{"set": "priority", "value": "low"}]})).await;
    trigger(app, &root, json!({"name": "Up", "conditions": when_priority("low"), "actions": [{"set": "priority", "value": "high"}, {"set": "due_date", "value": "2030-01-31"}]})).await;
    // A third sees what the second did.
    trigger(
        app,
        &root,
        json!({"name": "Seen", "conditions": {"all": [
        {"field": "ticket.due_date", "operator": "changed_to", "value": "2030-01-31"}
    ]}, "actions": [{"set": "status", "value": "in_progress"}]}),
    )
    .await;
    let made = app.as_user(&bob).ticket_titled("Slow laptop").await;
    let id = made["id"].as_i64().unwrap();
    let changed = app
        .as_user(&bob)
        .patch(&format!("/api/tickets/{id}/"), json!({"priority": "high"}))
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.json["priority"], "high");
    assert_eq!(changed.json["status"], "in_progress");
    let seen = ticket(app, &bob, id).await;
    assert_eq!(seen["dueDate"], "2030-01-31");
    let names: Vec<Value> = by_rules(&seen).iter().map(|v| v["name"].clone()).collect();
    assert_eq!(names, [json!("Down"), json!("Up"), json!("Seen")]);
    // The person's change is theirs; the rules' are nobody's.
    let nodes = seen["history"]["nodes"].as_array().unwrap();
    let mine = nodes
        .iter()
        .filter(|n| n["actor"]["username"] == "bob")
        .count();
    assert_eq!(mine, 2, "the create and the update: {nodes:?}");
    assert!(nodes
        .iter()
        .filter(|n| n["changes"].get("via").is_some())
        .all(|n| n["actor"].is_null()));
}

db_test!(a_customer_reply_reopens_a_resolved_ticket);
async fn a_customer_reply_reopens_a_resolved_ticket(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    trigger(
        app,
        &root,
        json!({
            "name": "Reopen on reply",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "comment_added"},
                {"field": "comment.internal", "operator": "is", "value": false},
                {"field": "actor.role", "operator": "is", "value": "requester"},
                {"field": "ticket.status", "operator": "is", "value": "resolved"}
            ]},
            "actions": [{"set": "status", "value": "open"}, {"comment": "Reopened by {{rule.name}}.", "internal": true}]
        }),
    )
    .await;
    let id = app.as_user(&ann).ticket_titled("Mail bounces").await["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/tickets/{id}/");
    let resolved = app
        .as_user(&bob)
        .patch(&path, json!({"status": "resolved"}))
        .await;
    assert_eq!(resolved.json["status"], "resolved", "{}", resolved.text);
    // The agent's own note does not reopen it.
    let note = app
        .as_user(&bob)
        .post(
            &format!("{path}comments/"),
            json!({"content": "Fixed the MX record."}),
        )
        .await;
    assert_eq!(note.status, StatusCode::CREATED, "{}", note.text);
    assert_eq!(ticket(app, &bob, id).await["status"], "RESOLVED");
    let reply = app
        .as_user(&ann)
        .post(
            &format!("{path}comments/"),
            json!({"content": "Still bouncing."}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let seen = ticket(app, &bob, id).await;
    assert_eq!(seen["status"], "OPEN");
    let notes: Vec<&Value> = seen["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["commentType"] == "INTERNAL")
        .collect();
    assert_eq!(notes.len(), 1, "{seen}");
    assert_eq!(notes[0]["body"], "<p>Reopened by Reopen on reply.</p>");
    // The requester does not see the rule's internal note.
    let theirs = ticket(app, &ann, id).await;
    assert!(theirs["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["commentType"] == "PUBLIC"));
}

db_test!(a_trigger_change_reaches_every_instance_at_once);
/// Instances remember the compiled triggers; saving one makes the others forget them through PostgreSQL's
/// notice (on SQLite there is one instance). Matching a write against them reads nothing.
async fn a_trigger_change_reaches_every_instance_at_once(app: &TestApp) {
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let bob_a = app.actor(&bob).await;
    let state = &app.state;
    let create = |title: &'static str| counted_create(state, &bob_a, title);
    let (plain, _) = create("Warm the caches").await;
    // A statement of a background task (the outbox worker, a cache's notice) can land in a window: the
    // fewest of three is what a write costs.
    let mut without_rules = u64::MAX;
    for _ in 0..3 {
        without_rules = without_rules.min(create("No rules yet").await.0);
    }
    assert!(without_rules < plain, "the triggers are remembered");
    trigger(
        app,
        &root,
        json!({"name": "Urgent", "conditions": {"all": [{"field": "ticket.title", "operator": "starts_with", "value": "urgent"}]},
               "actions": [{"set": "priority", "value": "critical"}]}),
    )
    .await;
    // Seen at once on this instance; a write the rule does not match costs what it did without rules,
    // once the new set is read.
    let (_, matched) = create("Urgent: server room hot").await;
    assert_eq!(matched.priority, deskgraph::domain::Priority::Critical);
    let mut unmatched = u64::MAX;
    for _ in 0..3 {
        let (cost, t) = create("Not this one").await;
        assert_eq!(t.priority, deskgraph::domain::Priority::Medium);
        unmatched = unmatched.min(cost);
    }
    assert_eq!(unmatched, without_rules);
    if !app.is_postgres() {
        return;
    }
    let (second, _) = app.second_instance().await;
    let on_second = |title: &'static str| {
        let (second, bob_a) = (&second, bob_a.clone());
        async move {
            deskgraph::service::tickets::create(
                second.write_deps(deskgraph::domain::Channel::Rest),
                &bob_a,
                deskgraph::service::tickets::NewTicket {
                    title: title.into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap()
        }
    };
    assert_eq!(
        on_second("urgent there").await.priority,
        deskgraph::domain::Priority::Critical
    );
    let id = app.as_user(&root).get(TRIGGERS).await.json[0]["id"].clone();
    let off = app
        .as_user(&root)
        .patch(&format!("{TRIGGERS}{id}/"), json!({"active": false}))
        .await;
    assert_eq!(off.status, StatusCode::OK);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while on_second("urgent again").await.priority == deskgraph::domain::Priority::Critical {
        assert!(
            std::time::Instant::now() < deadline,
            "the second instance still runs the switched-off trigger"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

db_test!(a_breach_escalates_the_ticket_once);
/// A trigger on `sla_breached` runs in the SLA check's own transaction, once per breach, as the service.
async fn a_breach_escalates_the_ticket_once(app: &TestApp) {
    use crate::support::sla::{around_the_clock, run_at};
    use chrono::Duration;
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    around_the_clock(app, &root, "High", "HIGH", json!({})).await;
    let oncall = group(app, &root, "On call").await;
    let cat = app.agent("cat").await;
    let added = app
        .as_user(&root)
        .post(
            &format!("/api/groups/{oncall}/members/"),
            json!({"user": cat.id}),
        )
        .await;
    assert!(added.status.is_success(), "{}", added.text);
    trigger(
        app,
        &root,
        json!({
            "name": "Escalate breaches",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "sla_breached"},
                {"field": "sla.target", "operator": "is", "value": "first_response"},
                {"field": "actor.role", "operator": "is", "value": "system"}
            ]},
            "actions": [
                {"set": "priority", "value": "critical"},
                {"set": "assigned_to", "value": bob.id},
                {"comment": "{{ticket.number}} missed its first response.", "internal": true},
                {"notify": {"group": oncall}, "subject": "Breach\non {{ticket.number}}", "body": "{{ticket.title}} needs {{assignee.full_name}}.\nNow."}
            ]
        }),
    )
    .await;
    let made = app
        .as_user(&bob)
        .create_ticket(json!({"title": "Server down", "priority": "high", "requester": ann.id}))
        .await;
    let id = made["id"].as_i64().unwrap();
    let created = chrono::DateTime::parse_from_rfc3339(made["created_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    run_at(&app.state, created + Duration::minutes(30)).await;
    assert_eq!(
        ticket(app, &bob, id).await["priority"],
        "HIGH",
        "not breached yet"
    );
    run_at(&app.state, created + Duration::minutes(61)).await;
    let seen = ticket(app, &bob, id).await;
    assert_eq!(seen["priority"], "CRITICAL", "{seen}");
    let notes = seen["comments"]["nodes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{seen}");
    assert_eq!(notes[0]["commentType"], "INTERNAL");
    // The on-call group is mailed, as the rule wrote it, once.
    let mails: Vec<Value> = crate::support::events::outbox_rows(app)
        .await
        .iter()
        .filter(|r| r.event == "rule.notice")
        .map(|r| serde_json::from_str(&r.payload).unwrap())
        .collect();
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0]["to"], "cat@example.com");
    let number = made["ticket_number"].as_str().unwrap();
    assert_eq!(
        mails[0]["subject"],
        format!("Breach on {number}: Server down ({number})")
    );
    assert!(
        mails[0]["text"]
            .as_str()
            .unwrap()
            .contains("Server down needs Bob Example.\nNow."),
        "{mails:?}"
    );
    // Running the checks again changes nothing: the breach is recorded once.
    run_at(&app.state, created + Duration::minutes(70)).await;
    let again = ticket(app, &bob, id).await;
    assert_eq!(again["comments"]["nodes"].as_array().unwrap().len(), 1);
    assert_eq!(by_rules(&again).len(), by_rules(&seen).len());
    let notices = crate::support::events::outbox_rows(app).await;
    assert_eq!(
        notices.iter().filter(|r| r.event == "rule.notice").count(),
        1
    );
}

db_test!(new_tickets_are_spread_over_a_groups_people);
async fn new_tickets_are_spread_over_a_groups_people(app: &TestApp) {
    let ann = app.user("ann").await;
    let root = app.admin("root").await;
    let cat = app.agent("cat").await;
    let dan = app.agent("dan").await;
    let eve = app.user("eve").await;
    let network = group(app, &root, "Network").await;
    // A requester in the group is never handed tickets.
    for who in [&cat, &dan, &eve] {
        let added = app
            .as_user(&root)
            .post(
                &format!("/api/groups/{network}/members/"),
                json!({"user": who.id}),
            )
            .await;
        assert!(added.status.is_success(), "{}", added.text);
    }
    for (word, how) in [("vpn", "least_loaded"), ("printer", "round_robin")] {
        trigger(
            app,
            &root,
            json!({
                "name": format!("Spread {word}"),
                "conditions": {"all": [
                    {"field": "event", "operator": "is", "value": "created"},
                    {"field": "ticket.title", "operator": "contains", "value": word}
                ]},
                "actions": [{"set": "assigned_group", "value": network}, {"assign": how}]
            }),
        )
        .await;
    }
    let root_ref = &root;
    let assignee = |id: i64| async move {
        let data = app
            .as_user(root_ref)
            .graphql_data(
                "query($n: Int!) { ticket(databaseId: $n) { assignee { username } } }",
                json!({"n": id}),
            )
            .await;
        data["ticket"]["assignee"]["username"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let mut got = Vec::new();
    for title in ["VPN 1", "VPN 2", "VPN 3"] {
        let id = app.as_user(&ann).ticket_titled(title).await["id"]
            .as_i64()
            .unwrap();
        got.push(assignee(id).await);
    }
    // Least loaded: cat and dan hold none, then one each.
    assert_eq!(got, ["cat", "dan", "cat"]);
    let mut turns = Vec::new();
    for title in ["Printer 1", "Printer 2", "Printer 3"] {
        let id = app.as_user(&ann).ticket_titled(title).await["id"]
            .as_i64()
            .unwrap();
        turns.push(assignee(id).await);
    }
    assert_eq!(turns, ["cat", "dan", "cat"]);
    let refused = app
        .as_user(&root)
        .post(
            TRIGGERS,
            json!({"name": "x", "conditions": {}, "actions": [{"assign": "at_random"}]}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused.json["details"].get("actions[0].assign").is_some(),
        "{}",
        refused.text
    );
}

db_test!(a_trigger_tells_a_write_within_business_hours_from_one_outside);
async fn a_trigger_tells_a_write_within_business_hours_from_one_outside(app: &TestApp) {
    use chrono::Datelike;
    let ann = app.user("ann").await;
    let root = app.admin("root").await;
    // High tickets fall under a policy open only on another weekday than today's (UTC): out of hours now.
    // Medium tickets have no policy: every hour is a business hour.
    let days = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];
    let today = chrono::Utc::now().weekday().num_days_from_monday() as usize;
    let other_day = days[(today + 3) % 7];
    let made = crate::support::sla::create_policy(
        app,
        &root.token,
        json!({"name": "Office", "priority": "HIGH", "firstResponseMinutes": 60, "resolutionMinutes": 600,
            "calendar": {"timeZone": "UTC", "hours": [{"day": other_day, "open": "00:00", "close": "23:59"}]}}),
    )
    .await;
    assert!(made["errors"].is_null(), "{made}");
    trigger(
        app,
        &root,
        json!({
            "name": "Out of hours",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "created"},
                {"field": "time.business_hours", "operator": "is", "value": false}
            ]},
            "actions": [{"comment": "Out of hours: the on-call engineer is paged.", "internal": true}]
        }),
    )
    .await;
    let notes = |t: &Value| {
        t["comments"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["body"].as_str().unwrap_or("").contains("on-call"))
            .count()
    };
    let high = crate::support::tickets::create_ticket(
        app,
        &ann,
        json!({"title": "Server down", "description": "d", "priority": "high"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let medium = crate::support::tickets::create_ticket(
        app,
        &ann,
        json!({"title": "Mouse", "description": "d", "priority": "medium"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(notes(&ticket(app, &root, high).await), 1);
    assert_eq!(notes(&ticket(app, &root, medium).await), 0);
    // The requester never sees the internal note.
    assert_eq!(notes(&ticket(app, &ann, high).await), 0);
}

db_test!(a_rule_whose_other_conditions_fail_reads_no_tags_or_fields);
/// The ticket's tags and custom field values are read for the rules' conditions only when those conditions
/// decide: rules that fail on the event or the status cost a write nothing, and one that gets as far as its
/// tag condition reads the tags.
async fn a_rule_whose_other_conditions_fail_reads_no_tags_or_fields(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = app.actor(&bob).await;
    let made = app
        .as_user(&root)
        .post(
            "/api/custom-fields/",
            json!({"key": "site", "label": "Site", "kind": "text"}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let (state, _) = crate::support::events::state_with(app, |_| {});
    let (_, t) = counted_create(&state, &bob_a, "Printer").await;
    let cost = || counted_update(&state, &bob_a, t.id);
    let none = cost().await;
    let on_hold = json!({"field": "ticket.status", "operator": "is", "value": "on_hold"});
    for (name, conditions) in [
        (
            "Held in Oslo",
            json!({"all": [on_hold, {"field": "ticket.fields.site", "operator": "is", "value": "Oslo"}]}),
        ),
        (
            "Tagged note",
            json!({"all": [{"field": "event", "operator": "is", "value": "comment_added"},
                                      {"field": "ticket.tags", "operator": "contains", "value": "vpn"}]}),
        ),
        (
            "Held or tagged",
            json!({"all": [on_hold], "any": [{"field": "ticket.tags", "operator": "contains", "value": "vpn"}]}),
        ),
    ] {
        trigger(
            app,
            &root,
            json!({"name": name, "conditions": conditions, "actions": [{"add_tags": ["never"]}]}),
        )
        .await;
    }
    assert_eq!(cost().await, none, "rules that cannot fire read nothing");
    trigger(
        app,
        &root,
        json!({"name": "Tagged", "conditions": {"all": [
            {"field": "event", "operator": "is", "value": "updated"},
            {"field": "ticket.tags", "operator": "contains", "value": "vpn"}]},
            "actions": [{"add_tags": ["never"]}]}),
    )
    .await;
    // On PostgreSQL the update's own statement brings the tags back when a rule may ask about them.
    let read = u64::from(!app.is_postgres());
    assert_eq!(
        cost().await,
        none + read,
        "a rule that gets as far as its tags reads them"
    );
}

db_test!(the_rules_of_one_update_are_written_together);
/// An update that rules act on costs one statement more than one without on PostgreSQL, however many act:
/// the ticket's tags come back with the update's own statement, and the rules' changes, records and webhook
/// rows are written together. What they did is all there.
async fn the_rules_of_one_update_are_written_together(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = app.actor(&bob).await;
    let (state, _) = crate::support::events::state_with(app, |c| {
        c.webhook_url = Some("http://127.0.0.1:9/hook".to_string());
    });
    let (_, t) = counted_create(&state, &bob_a, "Printer").await;
    let cost = || counted_update(&state, &bob_a, t.id);
    let none = cost().await;
    let updated = json!([{"field": "event", "operator": "is", "value": "updated"}]);
    for (name, actions) in [
        ("Triage", json!([{"add_tags": ["triaged"]}])),
        ("Soon", json!([{"set": "due_date", "value": 5}])),
        ("Unwait", json!([{"remove_tags": ["waiting"]}])),
        ("Later", json!([{"set": "due_date", "value": 7}])),
    ] {
        let rule = json!({"name": name, "conditions": {"all": updated}, "actions": actions});
        trigger(app, &root, rule).await;
    }
    let acting = cost().await;
    if app.is_postgres() {
        assert_eq!(acting, none + 1, "the rules' changes are one statement");
    }
    let tags = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{}/tags/", t.id))
        .await;
    assert_eq!(tags.json["tags"], json!(["triaged"]), "{}", tags.text);
    // The tag went on once; both due dates are recorded on every update, the ticket left at the last.
    let seen = ticket(app, &bob, i64::from(t.id)).await;
    let rules: Vec<String> = by_rules(&seen)
        .iter()
        .filter_map(|via| via["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(rules.iter().filter(|n| *n == "Triage").count(), 1);
    assert_eq!(rules.iter().filter(|n| *n == "Soon").count(), 4);
    assert_eq!(rules.iter().filter(|n| *n == "Later").count(), 4);
    assert!(!rules.iter().any(|n| n == "Unwait"), "{rules:?}");
    let due = (chrono::Utc::now() + chrono::Duration::days(7)).date_naive();
    assert_eq!(seen["dueDate"], json!(due.to_string()), "{seen}");
}

db_test!(the_rules_of_one_write_are_written_together);
/// However many rules act on a write, the write costs the same statements: their changes are held in memory
/// and written together at the end, each still its own audit record and webhook, marked with its rule, in the
/// rules' order.
async fn the_rules_of_one_write_are_written_together(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = app.actor(&bob).await;
    let (state, _) = crate::support::events::state_with(app, |c| {
        c.webhook_url = Some("http://127.0.0.1:9/hook".to_string());
    });
    let create = |title: &'static str| counted_create(&state, &bob_a, title);
    // A statement of a background task can land in a window: the fewest of three is what a create costs.
    let cost = || async {
        create("Warm the caches").await;
        let mut fewest = u64::MAX;
        for _ in 0..3 {
            fewest = fewest.min(create("Counted").await.0);
        }
        fewest
    };
    let rule = |name: &str, actions: Value| {
        json!({"name": name, "conditions": {"all": [{"field": "event", "operator": "is", "value": "created"}]},
               "actions": actions})
    };
    let none = cost().await;
    trigger(
        app,
        &root,
        rule(
            "First",
            json!([{"set": "due_date", "value": "2030-01-01"}, {"add_tags": ["first"]}]),
        ),
    )
    .await;
    let one = cost().await;
    if app.is_postgres() {
        // A change that moves neither the counters nor the clock goes into the create's own statement, and
        // the links to a tag name known to exist take its id in that statement too.
        assert_eq!(one, none, "a create's rules ride in its statement");
    }
    for (name, actions) in [
        ("Second", json!([{"add_tags": ["second"]}])),
        (
            "Third",
            json!([{"remove_tags": ["absent"]}, {"set": "due_date", "value": "2030-02-01"}]),
        ),
        (
            "Fourth",
            json!([{"add_tags": ["fourth"]}, {"remove_tags": ["first"]}]),
        ),
        ("Fifth", json!([{"set": "due_date", "value": "2030-03-01"}])),
    ] {
        trigger(app, &root, rule(name, actions)).await;
    }
    let five = cost().await;
    assert_eq!(five, one, "five acting rules cost what one does");
    let (_, t) = create("Look at it").await;
    assert_eq!(
        t.due_date.map(|d| d.to_string()).as_deref(),
        Some("2030-03-01")
    );
    let tags = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{}/tags/", t.id))
        .await;
    assert_eq!(tags.status, StatusCode::OK, "{}", tags.text);
    let names: Vec<&str> = tags.json["tags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(names, ["fourth", "second"], "{}", tags.text);
    // Each rule's own records, in order.
    let seen = ticket(app, &bob, i64::from(t.id)).await;
    let records: Vec<(String, String)> = seen["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| {
            let via = n["changes"].get("via")?;
            Some((
                n["action"].as_str()?.to_string(),
                via["name"].as_str()?.to_string(),
            ))
        })
        .collect();
    let expected = [
        ("update", "First"),
        ("tag", "First"),
        ("tag", "Second"),
        ("update", "Third"),
        ("tag", "Fourth"),
        ("tag", "Fourth"),
        ("update", "Fifth"),
    ]
    .map(|(a, n)| (a.to_string(), n.to_string()));
    assert_eq!(records, expected, "{seen}");
    // A rule's records are nobody's, as its changes are.
    let nodes = seen["history"]["nodes"].as_array().unwrap();
    assert!(nodes
        .iter()
        .filter(|n| n["changes"].get("via").is_some())
        .all(|n| n["actor"].is_null()));
    // And each its webhook, after the ticket's own.
    let hooks: Vec<(String, Option<String>)> = crate::support::events::outbox_rows(app)
        .await
        .into_iter()
        .filter_map(|r| {
            let body: Value = serde_json::from_str(&r.payload).ok()?;
            (body["ticket_id"] == t.id && r.event.starts_with("ticket.")).then(|| {
                let via = body["via"]["name"].as_str().map(str::to_string);
                (r.event, via)
            })
        })
        .collect();
    let expected = [
        ("ticket.created", None),
        ("ticket.updated", Some("First")),
        ("ticket.tagged", Some("First")),
        ("ticket.tagged", Some("Second")),
        ("ticket.updated", Some("Third")),
        ("ticket.tagged", Some("Fourth")),
        ("ticket.tagged", Some("Fourth")),
        ("ticket.updated", Some("Fifth")),
    ]
    .map(|(e, n)| (e.to_string(), n.map(str::to_string)));
    assert_eq!(hooks, expected);
}
