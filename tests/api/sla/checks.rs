//! One scheduled check per SLA clock: a ticket queues one check row, each check records what has come due
//! and queues the next, and a check left behind by a moved clock does nothing.
use crate::db_test;
use crate::support::events::{actor, hooked, Mode, Receiver};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::sla::{around_the_clock, run_at, sla_hits};
use crate::support::world::add;
use chrono::{Duration, Utc};
use deskgraph::domain::{CommentType, Priority, TicketStatus};
use deskgraph::service::tickets::{self, NewTicket, TicketPatch};
use deskgraph::state::AppState;
use entity::ticket;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};

/// The due instants (ms) of the ticket's queued checks that have not run, earliest first.
async fn queued(app: &TestApp, ticket_id: i32) -> Vec<i64> {
    let conn = &app.state.db.conn;
    let rows = conn
        .query_all_raw(Statement::from_string(
            conn.get_database_backend(),
            format!(
                "SELECT due_at_ms FROM outbox WHERE kind = 'sla_check' AND status = 'pending' \
                 AND payload LIKE '{{\"ticket_id\":{ticket_id},%' ORDER BY due_at_ms"
            ),
        ))
        .await
        .unwrap();
    rows.iter()
        .map(|r| r.try_get_by_index::<i64>(0).unwrap())
        .collect()
}

fn events(hits: &[Value], ticket_id: i32) -> Vec<String> {
    hits.iter()
        .filter(|h| h["ticket_id"] == ticket_id)
        .map(|h| format!("{} {}", h["target"].as_str().unwrap_or(""), h["event"]))
        .collect()
}

/// A high-priority ticket of `requester` under a policy around the clock: first response within 60
/// minutes, resolution within 240.
async fn high(
    app: &TestApp,
    state: &AppState,
    admin: &TestUser,
    requester: &TestUser,
    assignee_id: Option<i32>,
) -> ticket::Model {
    around_the_clock(app, admin, "High", "HIGH", json!({})).await;
    tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &app.desk().await,
        NewTicket {
            title: "Printer on fire".into(),
            priority: Some(Priority::High),
            assignee_id,
            requester_id: Some(requester.id),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

db_test!(each_clock_queues_one_check_and_each_check_the_next);
async fn each_clock_queues_one_check_and_each_check_the_next(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let ann = app.user("ann").await;
    let t = high(app, &state, &admin, &ann, Some(bob.id)).await;
    let created = t.created_at;
    let ms = |minutes: i64| (created + Duration::minutes(minutes)).timestamp_millis();
    // One check, at the first event ahead: first response at risk (80 % of 60 minutes).
    assert_eq!(queued(app, t.id).await, vec![ms(48)]);

    // Answered in time: the first-response events will not come, and the check at 48 minutes passes on
    // to the resolution's.
    add(app, &bob, t.id, "On my way", CommentType::Public).await;
    run_at(&state, Utc::now()).await;
    run_at(&state, created + Duration::minutes(50)).await;
    assert!(events(&sla_hits(&receiver), t.id).is_empty());
    assert_eq!(queued(app, t.id).await, vec![ms(192)]);

    // A pause moves the due times: the check left at 192 minutes does nothing when it comes, the one
    // queued for the moved instant records the event.
    let bob_a = actor(app, &bob).await;
    let pause = |status| TicketPatch {
        status: Some(status),
        ..Default::default()
    };
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        pause(TicketStatus::OnHold),
    )
    .await
    .unwrap();
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        pause(TicketStatus::InProgress),
    )
    .await
    .unwrap();
    let moved = queued(app, t.id).await;
    assert_eq!(moved.len(), 2, "{moved:?}");
    assert_eq!(moved[0], ms(192));
    assert!(moved[1] >= ms(192), "{moved:?}");
    run_at(&state, created + Duration::minutes(193)).await;
    let due = chrono::DateTime::from_timestamp_millis(moved[1]).unwrap();
    let fired = events(&sla_hits(&receiver), t.id);
    if moved[1] > ms(193) {
        assert!(fired.is_empty(), "{fired:?}");
    }
    run_at(&state, due + Duration::seconds(1)).await;
    assert_eq!(
        events(&sla_hits(&receiver), t.id),
        vec!["resolution \"ticket.sla_at_risk\""]
    );
    // The at-risk check queued the breach's, and the breach queues nothing more.
    let breach = queued(app, t.id).await;
    assert_eq!(breach.len(), 1, "{breach:?}");
    run_at(&state, created + Duration::minutes(600)).await;
    assert_eq!(
        events(&sla_hits(&receiver), t.id),
        vec![
            "resolution \"ticket.sla_at_risk\"",
            "resolution \"ticket.sla_breached\""
        ]
    );
    assert!(queued(app, t.id).await.is_empty());
}

db_test!(checks_queued_before_chaining_still_record_their_event);
async fn checks_queued_before_chaining_still_record_their_event(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let admin = app.admin("root").await;
    let ann = app.user("ann").await;
    let t = high(app, &state, &admin, &ann, None).await;
    // The re-clocking the new policy queued runs first (it leaves the clock as it is).
    run_at(&state, t.created_at + Duration::minutes(1)).await;
    // As a database written before checks were chained holds it: a clock naming no check, and a check row
    // per event whose payload names no instant.
    let breach_ms = (t.created_at + Duration::minutes(60)).timestamp_millis();
    let conn = &app.state.db.conn;
    for sql in [
        format!(
            "UPDATE outbox SET due_at_ms = {breach_ms}, payload = \
             '{{\"ticket_id\":{id},\"target\":\"first_response\",\"kind\":\"breached\"}}' \
             WHERE kind = 'sla_check' AND payload LIKE '{{\"ticket_id\":{id},%'",
            id = t.id
        ),
        format!(
            "UPDATE ticket_slas SET check_at_ms = NULL WHERE ticket_id = {}",
            t.id
        ),
    ] {
        conn.execute_unprepared(&sql).await.unwrap();
    }
    run_at(&state, t.created_at + Duration::minutes(61)).await;
    assert_eq!(
        events(&sla_hits(&receiver), t.id),
        vec!["first_response \"ticket.sla_breached\""]
    );
    // It recorded its own event only, and queued nothing.
    let left = queued(app, t.id).await;
    assert!(left.is_empty(), "{left:?}");
}
