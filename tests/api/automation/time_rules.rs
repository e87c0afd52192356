//! Time rules: only administrators manage them (REST and GraphQL), a mistake is a 400 naming its JSON path,
//! and the worker's clock fires a rule once per ticket when its wait has passed, until the moment it counts
//! from moves; two instances racing fire it once.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::sla::{create_policy, run_at};
use crate::support::tickets::create_ticket;
use axum::http::StatusCode;
use chrono::{Duration, Utc};
use deskgraph::service::automation::time_rules;
use serde_json::{json, Value};

const RULES: &str = "/api/automation/time-rules/";

async fn rule(app: &TestApp, admin: &TestUser, body: Value) -> Value {
    let made = app.as_user(admin).post(RULES, body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    made.json
}

async fn ticket(app: &TestApp, requester: &TestUser, title: &str) -> i64 {
    create_ticket(app, requester, json!({"title": title, "description": "d"})).await["id"]
        .as_i64()
        .unwrap()
}

async fn set_status(app: &TestApp, agent: &TestUser, id: i64, status: &str) {
    let changed = app
        .as_user(agent)
        .patch(&format!("/api/tickets/{id}/"), json!({"status": status}))
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
}

/// The ticket's status and the bodies of its comments, as `viewer` reads them.
async fn seen(app: &TestApp, viewer: &TestUser, id: i64) -> (String, Vec<String>) {
    let t = app
        .as_user(viewer)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { status comments(first: 20) { nodes { body } } } }",
            json!({ "n": id }),
        )
        .await["ticket"]
        .clone();
    let bodies = t["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["body"].as_str().unwrap().to_string())
        .collect();
    (t["status"].as_str().unwrap().to_lowercase(), bodies)
}

fn reminders(bodies: &[String]) -> usize {
    bodies
        .iter()
        .filter(|b| b.contains("Still waiting"))
        .count()
}

db_test!(only_administrators_manage_time_rules_and_mistakes_name_their_path);
async fn only_administrators_manage_time_rules_and_mistakes_name_their_path(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let body = json!({
        "name": "Close resolved",
        "wait": {"since": "resolved", "hours": 168},
        "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "resolved"}]},
        "actions": [{"set": "status", "value": "closed"}]
    });
    for who in [&ann, &bob] {
        let refused = app.as_user(who).post(RULES, body.clone()).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);
        assert_eq!(
            app.as_user(who).get(RULES).await.status,
            StatusCode::FORBIDDEN
        );
        let listed = app
            .as_user(who)
            .graphql("{ timeRules { id } }", json!({}))
            .await;
        assert_eq!(
            listed["errors"][0]["extensions"]["code"], "FORBIDDEN",
            "{listed}"
        );
    }
    assert_eq!(
        app.anonymous().get(RULES).await.status,
        StatusCode::UNAUTHORIZED
    );

    let cases = [
        (
            json!({"since": "yesterday", "hours": 3}),
            json!({}),
            "wait.since",
        ),
        (
            json!({"since": "created", "hours": 0}),
            json!({}),
            "wait.hours",
        ),
        (
            json!({"since": "created", "hours": 3, "every": 2}),
            json!({}),
            "wait.every",
        ),
        (
            json!({"since": "created", "hours": 3}),
            json!({"all": [{"field": "event", "operator": "is", "value": "created"}]}),
            "conditions.all[0].field",
        ),
        (
            json!({"since": "created", "hours": 3}),
            json!({"any": [{"field": "ticket.status", "operator": "changed"}]}),
            "conditions.any[0].operator",
        ),
    ];
    for (wait, conditions, path) in cases {
        let bad = json!({"name": "Bad", "wait": wait, "conditions": conditions,
            "actions": [{"set": "priority", "value": "low"}]});
        let refused = app.as_user(&root).post(RULES, bad).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(
            refused.json["details"].get(path).is_some(),
            "{path}: {}",
            refused.text
        );
    }

    // Through both doors: created, listed, read as a node, changed, counted and removed.
    let made = rule(app, &root, body.clone()).await;
    assert_eq!(
        made["wait"],
        json!({"since": "resolved", "hours": 168, "business_hours": false})
    );
    let id = made["id"].as_i64().unwrap();
    let second = app
        .as_user(&root)
        .graphql_data(
            "mutation($i: CreateTimeRuleInput!) { createTimeRule(input: $i) { timeRule { id databaseId wait active } } }",
            json!({"i": {"name": "Nudge", "wait": {"since": "status_changed", "hours": 72, "business_hours": true},
                "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "on_hold"}]},
                "actions": [{"comment": "Still waiting?"}]}}),
        )
        .await["createTimeRule"]["timeRule"]
        .clone();
    assert_eq!(second["wait"]["business_hours"], true);
    let listed = app.as_user(&root).get(RULES).await;
    assert_eq!(listed.json.as_array().unwrap().len(), 2, "{}", listed.text);
    let node = app
        .as_user(&root)
        .graphql_data(
            "query($id: ID!) { node(id: $id) { ... on TimeRule { name } } }",
            json!({"id": second["id"]}),
        )
        .await;
    assert_eq!(node["node"]["name"], "Nudge");
    let hidden = app
        .as_user(&bob)
        .graphql(
            "query($id: ID!) { node(id: $id) { id } }",
            json!({"id": second["id"]}),
        )
        .await;
    assert_eq!(
        hidden["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{hidden}"
    );

    let path = format!("{RULES}{id}/");
    let changed = app
        .as_user(&root)
        .patch(
            &path,
            json!({"wait": {"since": "resolved", "hours": 48}, "active": false}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.json["wait"]["hours"], 48);
    assert_eq!(changed.json["active"], false);
    let dry = app
        .as_user(&root)
        .post(&format!("{path}dry-run/"), json!({}))
        .await;
    assert_eq!(dry.status, StatusCode::OK, "{}", dry.text);
    assert_eq!(dry.json["matching"], 0);
    assert_eq!(
        app.as_user(&bob)
            .post(&format!("{path}dry-run/"), json!({}))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        app.as_user(&root).delete(&path).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.as_user(&root).get(&path).await.status,
        StatusCode::NOT_FOUND
    );
}

db_test!(a_time_rule_fires_once_per_ticket_until_its_moment_moves);
async fn a_time_rule_fires_once_per_ticket_until_its_moment_moves(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let waiting = ticket(app, &ann, "Printer jams").await;
    let answered = ticket(app, &ann, "Scanner").await;
    let other = ticket(app, &ann, "Mouse").await;
    set_status(app, &bob, waiting, "on_hold").await;
    set_status(app, &bob, answered, "on_hold").await;
    rule(
        app,
        &root,
        json!({
            "name": "Nudge the requester",
            "wait": {"since": "status_changed", "hours": 72},
            "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "on_hold"}]},
            "actions": [{"comment": "Still waiting on you, {{requester.full_name}}?"}]
        }),
    )
    .await;
    let now = Utc::now();
    let state = &app.state;

    // Not yet: a day on.
    run_at(state, now + Duration::days(1)).await;
    assert_eq!(reminders(&seen(app, &ann, waiting).await.1), 0);

    // The condition stops holding for one ticket before the wait ends.
    set_status(app, &bob, answered, "in_progress").await;
    run_at(state, now + Duration::days(4)).await;
    let (status, bodies) = seen(app, &ann, waiting).await;
    assert_eq!(status, "on_hold");
    assert_eq!(reminders(&bodies), 1, "{bodies:?}");
    assert_eq!(reminders(&seen(app, &ann, answered).await.1), 0);
    assert_eq!(reminders(&seen(app, &ann, other).await.1), 0);

    // Once: later runs find it fired from the same moment.
    run_at(state, now + Duration::days(5)).await;
    run_at(state, now + Duration::days(6)).await;
    assert_eq!(reminders(&seen(app, &ann, waiting).await.1), 1);

    // The status moves and comes back: the wait counts again from then, and the rule fires again.
    set_status(app, &bob, waiting, "in_progress").await;
    set_status(app, &bob, waiting, "on_hold").await;
    run_at(state, now + Duration::days(7)).await;
    let (_, bodies) = seen(app, &ann, waiting).await;
    assert_eq!(reminders(&bodies), 2, "{bodies:?}");

    // The rule's comment is public, in the requester's name, and its history entry names the rule's kind.
    let history = app
        .as_user(&bob)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { history(first: 50) { nodes { changes } } } }",
            json!({ "n": waiting }),
        )
        .await;
    let via: Vec<Value> = history["ticket"]["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["changes"].get("via").cloned())
        .collect();
    assert!(!via.is_empty(), "{history}");
    assert!(via.iter().all(|v| v["kind"] == "time_rule"), "{via:?}");
    assert!(
        bodies.iter().any(|b| b.contains("Ann Example")),
        "{bodies:?}"
    );
}

db_test!(resolved_tickets_close_after_a_week_and_a_dry_run_counts_them);
async fn resolved_tickets_close_after_a_week_and_a_dry_run_counts_them(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let done = ticket(app, &ann, "Done").await;
    let reopened = ticket(app, &ann, "Reopened").await;
    set_status(app, &bob, done, "resolved").await;
    set_status(app, &bob, reopened, "resolved").await;
    set_status(app, &bob, reopened, "open").await;
    let made = rule(
        app,
        &root,
        json!({
            "name": "Close resolved",
            "wait": {"since": "resolved", "hours": 168},
            "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "resolved"}]},
            "actions": [{"set": "status", "value": "closed"}]
        }),
    )
    .await;
    let id = made["id"].as_i64().unwrap();
    let dry = app
        .as_user(&root)
        .graphql_data(
            "query($id: ID!) { dryRunTimeRule(id: $id) { matching examined capped } }",
            json!({"id": deskgraph::graphql::ids::encode("TimeRule", id as i32)}),
        )
        .await;
    assert_eq!(dry["dryRunTimeRule"]["matching"], 0, "{dry}");
    let now = Utc::now();
    run_at(&app.state, now + Duration::days(6)).await;
    assert_eq!(seen(app, &ann, done).await.0, "resolved");
    run_at(&app.state, now + Duration::days(8)).await;
    assert_eq!(seen(app, &ann, done).await.0, "closed");
    assert_eq!(seen(app, &ann, reopened).await.0, "open");
}

db_test!(business_hours_lengthen_the_wait_to_the_policys_calendar);
async fn business_hours_lengthen_the_wait_to_the_policys_calendar(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    // Office hours, weekdays 09:00-17:00 UTC: ten business hours take more than a day whenever they start,
    // and at most five days (a Friday evening start ends on Tuesday).
    let days: Vec<Value> = ["MON", "TUE", "WED", "THU", "FRI"]
        .iter()
        .map(|d| json!({"day": d, "open": "09:00", "close": "17:00"}))
        .collect();
    let office = json!({"timeZone": "UTC", "hours": days});
    let made = create_policy(
        app,
        &root.token,
        json!({"name": "Office", "priority": "MEDIUM", "firstResponseMinutes": 600,
            "resolutionMinutes": 6000, "calendar": office}),
    )
    .await;
    assert!(made["errors"].is_null(), "{made}");
    let t = ticket(app, &ann, "Laptop").await;
    set_status(app, &bob, t, "on_hold").await;
    rule(
        app,
        &root,
        json!({
            "name": "Nudge in office hours",
            "wait": {"since": "status_changed", "hours": 10, "business_hours": true},
            "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "on_hold"}]},
            "actions": [{"comment": "Still waiting?"}]
        }),
    )
    .await;
    let now = Utc::now();
    run_at(&app.state, now + Duration::hours(20)).await;
    assert_eq!(reminders(&seen(app, &ann, t).await.1), 0);
    run_at(&app.state, now + Duration::days(5)).await;
    assert_eq!(reminders(&seen(app, &ann, t).await.1), 1);
}

db_test!(two_instances_racing_fire_a_time_rule_once);
async fn two_instances_racing_fire_a_time_rule_once(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let t = ticket(app, &ann, &format!("Waiting {i}")).await;
        set_status(app, &bob, t, "on_hold").await;
        ids.push(t);
    }
    let made = rule(
        app,
        &root,
        json!({
            "name": "Nudge",
            "wait": {"since": "status_changed", "hours": 1},
            "conditions": {"all": [{"field": "ticket.status", "operator": "is", "value": "on_hold"}]},
            "actions": [{"comment": "Still waiting?"}]
        }),
    )
    .await;
    let (second, _) = app.second_instance().await;
    let payload = json!({"rule": made["id"], "generation": 1}).to_string();
    let at = Utc::now() + Duration::hours(2);
    let channel = deskgraph::domain::Channel::Rule;
    let (a, b) = tokio::join!(
        time_rules::run(app.state.write_deps(channel), &payload, at),
        time_rules::run(second.write_deps(channel), &payload, at),
    );
    a.unwrap();
    b.unwrap();
    for id in ids {
        assert_eq!(reminders(&seen(app, &ann, id).await.1), 1, "ticket {id}");
    }
}

db_test!(a_run_pages_through_moments_that_share_a_millisecond);
/// The run reads tickets a page at a time after a cursor on (moment, id): more than a page of tickets whose
/// moments differ only in their microseconds are all reached in one run.
async fn a_run_pages_through_moments_that_share_a_millisecond(app: &TestApp) {
    use entity::ticket;
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let ann = app.user("ann").await;
    let root = app.admin("root").await;
    let base = chrono::DateTime::parse_from_rfc3339("2026-01-05T10:00:00.123Z")
        .unwrap()
        .with_timezone(&Utc);
    // A page is 200 tickets.
    for i in 0..201 {
        let id = ticket(app, &ann, &format!("Quiet {i}")).await;
        ticket::Entity::update_many()
            .col_expr(
                ticket::Column::StatusChangedAt,
                sea_orm::sea_query::Expr::value(base + Duration::microseconds(i + 1)),
            )
            .filter(ticket::Column::Id.eq(id as i32))
            .exec(&app.state.db.conn)
            .await
            .unwrap();
    }
    let made = rule(
        app,
        &root,
        json!({
            "name": "Raise the quiet ones",
            "wait": {"since": "status_changed", "hours": 1},
            "conditions": {"all": [{"field": "ticket.priority", "operator": "is_not", "value": "high"}]},
            "actions": [{"set": "priority", "value": "high"}]
        }),
    )
    .await;
    let payload = json!({"rule": made["id"], "generation": 1}).to_string();
    let deps = app.state.write_deps(deskgraph::domain::Channel::Rule);
    time_rules::run(deps, &payload, base + Duration::hours(2))
        .await
        .unwrap();
    let raised = ticket::Entity::find()
        .filter(ticket::Column::Priority.eq(deskgraph::domain::Priority::High))
        .count(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(raised, 201, "every ticket reached in one run");
}

db_test!(a_time_rule_acts_a_while_before_an_sla_target_is_due);
async fn a_time_rule_acts_a_while_before_an_sla_target_is_due(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let made = create_policy(
        app,
        &root.token,
        json!({"name": "Medium", "priority": "MEDIUM", "firstResponseMinutes": 240,
            "resolutionMinutes": 2880}),
    )
    .await;
    assert!(made["errors"].is_null(), "{made}");
    let quiet = ticket(app, &ann, "Printer jams").await;
    let answered = ticket(app, &ann, "Scanner").await;
    let reply = app
        .as_user(&bob)
        .post(
            &format!("/api/tickets/{answered}/comments/"),
            json!({"content": "On it", "comment_type": "public"}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);

    // Counted back from a target: no business hours, and not together with a moment of the ticket.
    for (wait, path) in [
        (json!({"before": "created", "hours": 2}), "wait.before"),
        (
            json!({"before": "first_response_due", "since": "created", "hours": 2}),
            "wait.before",
        ),
        (
            json!({"before": "first_response_due", "hours": 2, "business_hours": true}),
            "wait.business_hours",
        ),
    ] {
        let refused = app
            .as_user(&root)
            .post(
                RULES,
                json!({"name": "Bad", "wait": wait, "conditions": {}, "actions": [{"add_tags": ["x"]}]}),
            )
            .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(
            refused.json["details"].get(path).is_some(),
            "{}",
            refused.text
        );
    }
    let made = rule(
        app,
        &root,
        json!({
            "name": "Answer soon",
            "wait": {"before": "first_response_due", "hours": 2},
            "conditions": {},
            "actions": [{"comment": "Still waiting for a first answer", "internal": true}]
        }),
    )
    .await;
    assert_eq!(
        made["wait"],
        json!({"before": "first_response_due", "hours": 2, "business_hours": false})
    );
    let admin = &root;
    let dry = |id: i64| async move {
        app.as_user(admin)
            .graphql_data(
                "query($id: ID!) { dryRunTimeRule(id: $id) { matching } }",
                json!({"id": deskgraph::graphql::ids::encode("TimeRule", id as i32)}),
            )
            .await["dryRunTimeRule"]["matching"]
            .clone()
    };
    // Four hours are left now: two hours before the target is still ahead.
    assert_eq!(dry(made["id"].as_i64().unwrap()).await, 0);
    let now = Utc::now();
    run_at(&app.state, now + Duration::hours(1)).await;
    assert_eq!(reminders(&seen(app, &bob, quiet).await.1), 0);

    // Less than two hours left: it acts, once, and not on the ticket already answered (no target pending).
    run_at(&app.state, now + Duration::minutes(130)).await;
    assert_eq!(reminders(&seen(app, &bob, quiet).await.1), 1);
    assert_eq!(reminders(&seen(app, &bob, answered).await.1), 0);
    run_at(&app.state, now + Duration::hours(3)).await;
    run_at(&app.state, now + Duration::hours(6)).await;
    assert_eq!(reminders(&seen(app, &bob, quiet).await.1), 1);
    // The internal note is the team's: the requester does not see it.
    assert_eq!(reminders(&seen(app, &ann, quiet).await.1), 0);

    // A wider wait: the dry run counts the one ticket whose target is pending.
    let wide = rule(
        app,
        &root,
        json!({
            "name": "Answer today",
            "wait": {"before": "first_response_due", "hours": 5},
            "conditions": {},
            "actions": [{"add_tags": ["due-today"]}]
        }),
    )
    .await;
    assert_eq!(dry(wide["id"].as_i64().unwrap()).await, 1);
}
