//! Service levels: policies (admins only), the clock set at creation and moved by changes, pauses, breach
//! events delivered once at their time (an injected clock drives the worker), filters and ordering.
use crate::db_test;
use crate::support::events::{actor, state_with, Mode, Receiver};
use crate::support::helpers::TestApp;
use crate::support::sla::{around_the_clock, at, create_policy, run_at, sla_hits, sla_of};
use chrono::{Duration, Utc};
use deskgraph::domain::{Priority, TicketStatus};
use deskgraph::service::tickets::{self, NewTicket, TicketPatch};
use deskgraph::state::AppState;
use entity::{audit_event, ticket_sla};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, Set};
use serde_json::{json, Value};

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("")
}

db_test!(only_admins_manage_policies);
async fn only_admins_manage_policies(app: &TestApp) {
    let admin = app.admin("root").await;
    let agent = app.agent("bob").await;
    let ann = app.user("ann").await;
    let input = json!({
        "name": "High, office hours",
        "priority": "HIGH",
        "firstResponseMinutes": 60,
        "resolutionMinutes": 480,
        "calendar": {
            "timeZone": "Europe/Berlin",
            "hours": [
                {"day": "MON", "open": "09:00", "close": "17:00"},
                {"day": "FRI", "open": "09:00", "close": "15:30"}
            ],
            "holidays": ["2026-12-25"]
        }
    });
    for who in [&agent, &ann] {
        let refused = create_policy(app, &who.token, input.clone()).await;
        assert_eq!(code(&refused), "FORBIDDEN", "{refused}");
        let listed = app
            .graphql(Some(&who.token), "{ slaPolicies { id } }", json!({}))
            .await;
        assert_eq!(code(&listed), "FORBIDDEN", "{listed}");
    }
    let created = create_policy(app, &admin.token, input.clone()).await;
    let policy = &created["data"]["createSlaPolicy"]["slaPolicy"];
    assert_eq!(policy["calendar"]["timeZone"], "Europe/Berlin", "{created}");
    assert_eq!(
        policy["calendar"]["hours"],
        json!([
            {"day": "MON", "open": "09:00", "close": "17:00"},
            {"day": "FRI", "open": "09:00", "close": "15:30"}
        ])
    );
    assert_eq!(policy["calendar"]["holidays"], json!(["2026-12-25"]));
    assert_eq!(policy["pauseStatuses"], json!(["ON_HOLD", "BLOCKED"]));
    let id = policy["id"].as_str().unwrap().to_string();

    // Bad input is a clear BAD_USER_INPUT naming the field.
    for (field, bad) in [
        (
            "calendar",
            json!({"calendar": {"timeZone": "Mars/Olympus"}}),
        ),
        (
            "calendar",
            json!({"calendar": {"hours": [{"day": "MON", "open": "17:00", "close": "09:00"}]}}),
        ),
        ("firstResponseMinutes", json!({"firstResponseMinutes": 0})),
        ("name", json!({"name": "High, office hours"})),
        ("name", json!({"name": "Night\u{0}shift"})),
    ] {
        let mut wrong = input.clone();
        for (k, v) in bad.as_object().unwrap() {
            wrong[k] = v.clone();
        }
        if field != "name" {
            wrong["name"] = json!(format!("another {field}"));
        }
        let refused = create_policy(app, &admin.token, wrong).await;
        assert_eq!(code(&refused), "BAD_USER_INPUT", "{refused}");
        assert!(refused.to_string().contains(field), "{refused}");
    }

    // Update and delete, admins only.
    let update = "mutation($input: UpdateSlaPolicyInput!) { updateSlaPolicy(input: $input) { slaPolicy { name resolutionMinutes } } }";
    let change = json!({"input": {"id": id, "resolutionMinutes": 600}});
    let refused = app
        .graphql(Some(&agent.token), update, change.clone())
        .await;
    assert_eq!(code(&refused), "FORBIDDEN", "{refused}");
    let changed = app.graphql(Some(&admin.token), update, change).await;
    assert_eq!(
        changed["data"]["updateSlaPolicy"]["slaPolicy"]["resolutionMinutes"], 600,
        "{changed}"
    );
    let delete = "mutation($input: DeleteSlaPolicyInput!) { deleteSlaPolicy(input: $input) { deletedSlaPolicyId } }";
    let refused = app
        .graphql(Some(&ann.token), delete, json!({"input": {"id": id}}))
        .await;
    assert_eq!(code(&refused), "FORBIDDEN", "{refused}");
    let deleted = app
        .graphql(Some(&admin.token), delete, json!({"input": {"id": id}}))
        .await;
    assert_eq!(
        deleted["data"]["deleteSlaPolicy"]["deletedSlaPolicyId"], id,
        "{deleted}"
    );
    let listed = app
        .graphql(Some(&admin.token), "{ slaPolicies { id } }", json!({}))
        .await;
    assert_eq!(listed["data"]["slaPolicies"], json!([]), "{listed}");
}

db_test!(the_clock_is_set_at_creation_by_the_most_specific_policy);
async fn the_clock_is_set_at_creation_by_the_most_specific_policy(app: &TestApp) {
    let admin = app.admin("root").await;
    let ann = app.user("ann").await;
    let eve = app.user("eve").await;
    let project = app
        .post(
            "/api/projects/",
            Some(&admin.token),
            json!({"name": "Payroll"}),
        )
        .await;
    let project_id = project.json["id"].as_i64().unwrap();
    around_the_clock(app, &admin, "High", "HIGH", json!({})).await;
    around_the_clock(
        app,
        &admin,
        "High payroll",
        "HIGH",
        json!({"projectId": format!("{}", deskgraph::graphql::ids::encode("Project", project_id as i32).0), "firstResponseMinutes": 15}),
    )
    .await;

    // Ann's ticket in the project takes the project's policy; another high one the general one.
    let in_project = app
        .post(
            "/api/tickets/",
            Some(&ann.token),
            json!({"title": "Payslip wrong", "priority": "high", "project": project_id}),
        )
        .await;
    let in_project = in_project.json["id"].as_i64().unwrap() as i32;
    let general = app
        .post(
            "/api/tickets/",
            Some(&ann.token),
            json!({"title": "VPN down", "priority": "high"}),
        )
        .await
        .json["id"]
        .as_i64()
        .unwrap() as i32;
    let low = app
        .post(
            "/api/tickets/",
            Some(&ann.token),
            json!({"title": "Mouse", "priority": "low"}),
        )
        .await
        .json["id"]
        .as_i64()
        .unwrap() as i32;

    // The requester sees her own tickets' clocks.
    let seen = sla_of(app, &ann.token, in_project).await;
    let created = at(&seen["createdAt"]);
    assert_eq!(seen["sla"]["policy"]["name"], "High payroll", "{seen}");
    assert_eq!(
        at(&seen["sla"]["firstResponseDueAt"]),
        created + Duration::minutes(15)
    );
    assert_eq!(
        at(&seen["sla"]["resolutionDueAt"]),
        created + Duration::minutes(240)
    );
    assert_eq!(seen["sla"]["firstResponseBreached"], false);
    assert_eq!(seen["sla"]["pausedSince"], Value::Null);
    let seen = sla_of(app, &ann.token, general).await;
    assert_eq!(seen["sla"]["policy"]["name"], "High", "{seen}");
    assert_eq!(
        at(&seen["sla"]["firstResponseDueAt"]),
        at(&seen["createdAt"]) + Duration::minutes(60)
    );
    assert_eq!(sla_of(app, &ann.token, low).await["sla"], Value::Null);

    // Someone who cannot see the ticket learns nothing of its clock.
    let hidden = app
        .graphql(
            Some(&eve.token),
            "query($id: Int) { ticket(databaseId: $id) { sla { firstResponseDueAt } } }",
            json!({ "id": general }),
        )
        .await;
    assert_eq!(code(&hidden), "NOT_FOUND", "{hidden}");

    // The REST detail carries it as an additive object.
    let detail = app
        .get(&format!("/api/tickets/{in_project}/"), Some(&ann.token))
        .await;
    let sla = &detail.json["sla"];
    assert_eq!(sla["policy"]["name"], "High payroll", "{}", detail.json);
    assert_eq!(
        at(&sla["first_response_due_at"]),
        created + Duration::minutes(15)
    );
    assert_eq!(sla["first_response_breached"], false);
    assert_eq!(sla["paused"], false);
    let low_detail = app
        .get(&format!("/api/tickets/{low}/"), Some(&ann.token))
        .await;
    assert_eq!(low_detail.json["sla"], Value::Null, "{}", low_detail.json);
    // The clock and its policy come in the ticket's own statement: a detail, with a clock or without,
    // is one statement (the token is remembered from the reads above).
    let token = ann.token.as_str();
    let statements = |path: String| async move {
        let before = app.statements();
        let got = app.get(&path, Some(token)).await;
        assert_eq!(got.status, 200, "{}", got.json);
        app.statements() - before
    };
    assert_eq!(statements(format!("/api/tickets/{in_project}/")).await, 1);
    assert_eq!(statements(format!("/api/tickets/{low}/")).await, 1);

    // The requester may raise her own ticket's priority (the rules allow it): the clock follows.
    let raised = app
        .patch(
            &format!("/api/tickets/{low}/"),
            Some(&ann.token),
            json!({"priority": "high"}),
        )
        .await;
    assert_eq!(raised.status, 200, "{}", raised.json);
    let seen = sla_of(app, &ann.token, low).await;
    assert_eq!(seen["sla"]["policy"]["name"], "High", "{seen}");
    assert_eq!(
        at(&seen["sla"]["resolutionDueAt"]),
        at(&seen["createdAt"]) + Duration::minutes(240)
    );
    // But not move it to another project or pause it herself.
    let refused = app
        .patch(
            &format!("/api/tickets/{low}/"),
            Some(&ann.token),
            json!({"status": "on_hold"}),
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.json);
}

db_test!(a_pause_stops_the_clock_and_resuming_moves_the_due_times);
async fn a_pause_stops_the_clock_and_resuming_moves_the_due_times(app: &TestApp) {
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    around_the_clock(app, &admin, "Medium", "MEDIUM", json!({})).await;
    let bob_a = actor(app, &bob).await;
    let t = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        NewTicket {
            title: "Disk full".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let status = |s: TicketStatus| TicketPatch {
        status: Some(s),
        ..Default::default()
    };
    tickets::update(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        status(TicketStatus::OnHold),
    )
    .await
    .unwrap();
    let seen = sla_of(app, &bob.token, t.id).await;
    assert_eq!(seen["sla"]["firstResponseDueAt"], Value::Null, "{seen}");
    assert_eq!(seen["sla"]["resolutionDueAt"], Value::Null, "{seen}");
    let since = at(&seen["sla"]["pausedSince"]);

    // Two hours on hold (the stored start of the pause is moved back rather than waiting).
    let row = ticket_sla::Entity::find_by_id(t.id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let mut active = row.into_active_model();
    active.paused_since = Set(Some(since - Duration::hours(2)));
    active.update(&app.state.db.conn).await.unwrap();
    tickets::update(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        status(TicketStatus::InProgress),
    )
    .await
    .unwrap();
    let seen = sla_of(app, &bob.token, t.id).await;
    assert_eq!(seen["sla"]["pausedSince"], Value::Null, "{seen}");
    let due = at(&seen["sla"]["resolutionDueAt"]);
    let expected = t.created_at + Duration::minutes(240) + Duration::hours(2);
    // The pause ended a moment after it was stored to have begun two hours earlier.
    assert!(
        due >= expected && due < expected + Duration::seconds(30),
        "{due} vs {expected}"
    );

    // Its REST detail says paused while on hold.
    tickets::update(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        status(TicketStatus::Blocked),
    )
    .await
    .unwrap();
    let detail = app
        .get(&format!("/api/tickets/{}/", t.id), Some(&bob.token))
        .await;
    assert_eq!(detail.json["sla"]["paused"], true, "{}", detail.json);
    assert_eq!(detail.json["sla"]["resolution_due_at"], Value::Null);
}

async fn sla_audits(app: &TestApp, ticket_id: i32) -> Vec<String> {
    audit_event::Entity::find()
        .filter(audit_event::Column::TicketId.eq(ticket_id))
        .filter(audit_event::Column::Action.starts_with("sla_"))
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .map(|a| format!("{} {}", a.action, a.changes))
        .collect()
}

db_test!(a_breach_is_announced_once_at_its_time_even_with_two_workers);
async fn a_breach_is_announced_once_at_its_time_even_with_two_workers(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let url = receiver.url.clone();
    let (state, mailer) = state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = "s3cret".to_string();
    });
    let (other, _) = app
        .second_instance_with(|c| {
            c.webhook_url = Some(receiver.url.clone());
            c.webhook_secret = "s3cret".to_string();
        })
        .await;
    let other_state = {
        let mut s = (*other).clone();
        s.notifier = state.notifier.clone();
        AppState::from(s)
    };
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let cat = app.agent("cat").await;
    let ann = app.user("ann").await;
    around_the_clock(app, &admin, "High", "HIGH", json!({})).await;
    let ann_a = actor(app, &ann).await;
    let t = tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &bob).await,
        NewTicket {
            title: "Server room hot".into(),
            priority: Some(Priority::High),
            assignee_id: Some(cat.id),
            requester_id: Some(ann_a.id()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let created = t.created_at;
    run_at(&state, Utc::now()).await;
    let mails_before = mailer.sent().len();

    // Nothing before 80 % of the first-response hour.
    run_at(&state, created + Duration::minutes(47)).await;
    assert!(sla_hits(&receiver).is_empty(), "{:?}", sla_hits(&receiver));
    // At 48 minutes it is at risk: one webhook, one email to the assignee.
    run_at(&state, created + Duration::minutes(49)).await;
    let hits = sla_hits(&receiver);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["event"], "ticket.sla_at_risk");
    assert_eq!(hits[0]["target"], "first_response");
    assert_eq!(hits[0]["ticket_id"], t.id);
    let seen = sla_of(app, &bob.token, t.id).await;
    assert_eq!(seen["sla"]["atRisk"], true, "{seen}");
    let at_risk = app
        .graphql(
            Some(&bob.token),
            "{ tickets(filter: {sla: AT_RISK}) { nodes { databaseId } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        at_risk["data"]["tickets"]["nodes"],
        json!([{"databaseId": t.id}]),
        "{at_risk}"
    );

    // A duplicate check scheduled for the same breach (a clock recomputed to the same time), and two
    // instances delivering side by side: one breach event.
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &bob).await,
        t.id,
        TicketPatch {
            priority: Some(Priority::Low),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &bob).await,
        t.id,
        TicketPatch {
            priority: Some(Priority::High),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let later = created + Duration::minutes(61);
    tokio::join!(run_at(&state, later), run_at(&other_state, later));
    let hits = sla_hits(&receiver);
    let breaches: Vec<&Value> = hits
        .iter()
        .filter(|h| h["event"] == "ticket.sla_breached")
        .collect();
    assert_eq!(breaches.len(), 1, "{hits:?}");
    assert_eq!(breaches[0]["target"], "first_response");
    assert_eq!(at(&breaches[0]["due_at"]), created + Duration::minutes(60));
    let mails: Vec<(String, String)> = mailer.sent()[mails_before..]
        .iter()
        .map(|e| (e.to.clone(), e.subject.clone()))
        .collect();
    assert_eq!(
        mails,
        vec![
            (
                "cat@example.com".to_string(),
                "SLA At Risk: Server room hot (TKT-001)".to_string()
            ),
            (
                "cat@example.com".to_string(),
                "SLA Breached: Server room hot (TKT-001)".to_string()
            ),
        ]
    );
    let audits = sla_audits(app, t.id).await;
    assert_eq!(audits.len(), 2, "{audits:?}");
    assert!(audits[1].starts_with("sla_breached"), "{audits:?}");

    let seen = sla_of(app, &ann.token, t.id).await;
    assert_eq!(seen["sla"]["firstResponseBreached"], true, "{seen}");
    assert_eq!(seen["sla"]["resolutionBreached"], false, "{seen}");
    let breached = app
        .graphql(
            Some(&ann.token),
            "{ tickets(filter: {sla: BREACHED}) { totalCount nodes { databaseId } } }",
            json!({}),
        )
        .await;
    assert_eq!(breached["data"]["tickets"]["totalCount"], 1, "{breached}");
    // Running everything again, much later, repeats nothing that happened.
    run_at(&state, created + Duration::minutes(200)).await;
    let again: Vec<Value> = sla_hits(&receiver)
        .into_iter()
        .filter(|h| h["target"] == "first_response")
        .collect();
    assert_eq!(again.len(), 2, "{again:?}");
}

db_test!(no_breach_for_a_ticket_resolved_in_time_and_the_group_hears_of_unassigned_ones);
async fn no_breach_for_a_ticket_resolved_in_time_and_the_group_hears_of_unassigned_ones(
    app: &TestApp,
) {
    let receiver = Receiver::start(Mode::Ok).await;
    let (state_m, mailer) = state_with(app, |c| {
        c.webhook_url = Some(receiver.url.clone());
        c.webhook_secret = "s3cret".to_string();
    });
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let net1 = app.user_with("net1", &["Network"], false, false).await;
    let _net2 = app.user_with("net2", &["Network"], false, false).await;
    around_the_clock(app, &admin, "Critical", "CRITICAL", json!({})).await;
    let bob_a = actor(app, &bob).await;
    let resolved = tickets::create(
        state_m.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        NewTicket {
            title: "Fixed fast".into(),
            priority: Some(Priority::Critical),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    tickets::update(
        state_m.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        resolved.id,
        TicketPatch {
            status: Some(TicketStatus::Resolved),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let group_id =
        deskgraph::service::users::list_groups(&app.state.db.conn, deskgraph::service::Take::All)
            .await
            .unwrap()
            .into_iter()
            .find(|g| g.name == "Network")
            .unwrap()
            .id;
    let for_group = tickets::create(
        state_m.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        NewTicket {
            title: "Switch down".into(),
            priority: Some(Priority::Critical),
            assigned_group_id: Some(group_id),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    run_at(&state_m, Utc::now()).await;
    let before = mailer.sent().len();
    run_at(&state_m, Utc::now() + Duration::hours(10)).await;
    let hits = sla_hits(&receiver);
    assert!(
        hits.iter().all(|h| h["ticket_id"] == for_group.id),
        "{hits:?}"
    );
    // Breached, for both targets, of the group's ticket only; a check that comes after the breach does not
    // warn that it is at risk.
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(
        hits.iter().all(|h| h["event"] == "ticket.sla_breached"),
        "{hits:?}"
    );
    let mut to: Vec<String> = mailer.sent()[before..]
        .iter()
        .map(|e| e.to.clone())
        .collect();
    to.sort();
    to.dedup();
    assert_eq!(
        to,
        vec![
            "net1@example.com".to_string(),
            "net2@example.com".to_string()
        ]
    );
    assert!(sla_audits(app, resolved.id).await.is_empty());
    // Members of the group see its breach; they may also see it in their SLA views.
    let seen = sla_of(app, &net1.token, for_group.id).await;
    assert_eq!(seen["sla"]["resolutionBreached"], true, "{seen}");
}

db_test!(lists_filter_and_sort_by_sla);
async fn lists_filter_and_sort_by_sla(app: &TestApp) {
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    around_the_clock(
        app,
        &admin,
        "Critical",
        "CRITICAL",
        json!({"firstResponseMinutes": 10}),
    )
    .await;
    around_the_clock(
        app,
        &admin,
        "High",
        "HIGH",
        json!({"firstResponseMinutes": 30}),
    )
    .await;
    let bob_a = actor(app, &bob).await;
    let mut ids = Vec::new();
    for (title, priority) in [
        ("no clock", Priority::Low),
        ("thirty", Priority::High),
        ("ten", Priority::Critical),
    ] {
        let t = tickets::create(
            app.state.write_deps(deskgraph::domain::Channel::System),
            &bob_a,
            NewTicket {
                title: title.into(),
                priority: Some(priority),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        ids.push(t.id);
    }
    let list = |q: &'static str| {
        let token = bob.token.clone();
        async move {
            let body = app.graphql(Some(&token), q, json!({})).await;
            assert!(body["errors"].is_null(), "{body}");
            body["data"]["tickets"]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["title"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        list("{ tickets(orderBy: {field: SLA_DUE_AT, direction: ASC}) { nodes { title } } }").await,
        ["ten", "thirty", "no clock"]
    );
    assert_eq!(
        list("{ tickets(orderBy: {field: SLA_DUE_AT, direction: DESC}) { nodes { title } } }")
            .await,
        ["thirty", "ten", "no clock"]
    );
    assert_eq!(
        list("{ tickets(filter: {sla: RUNNING}, orderBy: {field: SLA_DUE_AT, direction: ASC}) { nodes { title } } }").await,
        ["ten", "thirty"]
    );
    assert!(
        list("{ tickets(filter: {sla: BREACHED}) { nodes { title } } }")
            .await
            .is_empty()
    );
    let count = app
        .graphql(
            Some(&bob.token),
            "{ tickets(filter: {sla: RUNNING}) { totalCount } }",
            json!({}),
        )
        .await;
    assert_eq!(count["data"]["tickets"]["totalCount"], 2, "{count}");
    // A first response stops the first-response target; the resolution target still runs.
    deskgraph::service::comments::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        ids[2],
        deskgraph::service::comments::NewComment {
            body: "On it".into(),
            comment_type: deskgraph::domain::CommentType::Public,
        },
    )
    .await
    .unwrap();
    let seen = sla_of(app, &bob.token, ids[2]).await;
    assert_eq!(seen["sla"]["firstResponseDueAt"], Value::Null, "{seen}");
    assert!(seen["sla"]["resolutionDueAt"].is_string(), "{seen}");
    assert_eq!(
        list("{ tickets(orderBy: {field: SLA_DUE_AT, direction: ASC}) { nodes { title } } }").await,
        ["thirty", "ten", "no clock"]
    );
}
