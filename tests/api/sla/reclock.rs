//! Policy edits re-clock the open tickets they affect, in the background and in bounded batches: a new
//! policy gives open tickets a clock, a changed one moves their due times (and schedules their breach
//! checks), a deleted one leaves them to another policy or none. Resolved tickets keep their clocks.
use crate::db_test;
use crate::support::events::{actor, hooked, Mode, Receiver};
use crate::support::helpers::TestApp;
use crate::support::sla::{around_the_clock, at, run_at, sla_hits, sla_of};
use chrono::{Duration, Utc};
use deskgraph::domain::{Priority, TicketStatus};
use deskgraph::graphql::ids;
use deskgraph::jobs::worker;
use deskgraph::notify::outbox::JobKind;
use deskgraph::service::sla::reclock::BATCH;
use deskgraph::service::tickets::{self, NewTicket, TicketPatch};
use entity::{outbox, ticket_sla};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{json, Value};

async fn edit_policy(app: &TestApp, token: &str, id: i32, change: Value) {
    let mut input = change;
    input["id"] = json!(ids::encode("SlaPolicy", id).0);
    let body = app
        .graphql(
            Some(token),
            "mutation($input: UpdateSlaPolicyInput!) { updateSlaPolicy(input: $input) { slaPolicy { id } } }",
            json!({ "input": input }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
}

async fn delete_policy(app: &TestApp, token: &str, id: i32) {
    let body = app
        .graphql(
            Some(token),
            "mutation($input: DeleteSlaPolicyInput!) { deleteSlaPolicy(input: $input) { deletedSlaPolicyId } }",
            json!({ "input": { "id": ids::encode("SlaPolicy", id).0 } }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
}

fn titled(title: &str, priority: Priority) -> NewTicket {
    NewTicket {
        title: title.into(),
        priority: Some(priority),
        ..Default::default()
    }
}

db_test!(policy_edits_reclock_open_tickets);
async fn policy_edits_reclock_open_tickets(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = actor(app, &bob).await;
    let high = around_the_clock(
        app,
        &admin,
        "High",
        "HIGH",
        json!({"firstResponseMinutes": 600, "resolutionMinutes": 1200}),
    )
    .await;
    let open = tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        titled("Printer", Priority::High),
    )
    .await
    .unwrap();
    let done = tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        titled("Done", Priority::High),
    )
    .await
    .unwrap();
    let resolve = TicketPatch {
        status: Some(TicketStatus::Resolved),
        ..Default::default()
    };
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        done.id,
        resolve,
    )
    .await
    .unwrap();
    let medium = tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        titled("Mouse", Priority::Medium),
    )
    .await
    .unwrap();
    run_at(&state, Utc::now()).await;
    let done_before = sla_of(app, &bob.token, done.id).await["sla"].clone();

    // A tighter target moves the open ticket's due times, and its breach comes at the new time, without
    // the ticket changing.
    edit_policy(
        app,
        &admin.token,
        high,
        json!({"firstResponseMinutes": 60, "resolutionMinutes": 240}),
    )
    .await;
    run_at(&state, Utc::now()).await;
    let seen = sla_of(app, &bob.token, open.id).await;
    assert_eq!(
        at(&seen["sla"]["firstResponseDueAt"]),
        open.created_at + Duration::minutes(60),
        "{seen}"
    );
    assert_eq!(
        at(&seen["sla"]["resolutionDueAt"]),
        open.created_at + Duration::minutes(240)
    );
    run_at(&state, open.created_at + Duration::minutes(61)).await;
    let breaches: Vec<Value> = sla_hits(&receiver)
        .into_iter()
        .filter(|h| h["event"] == "ticket.sla_breached")
        .collect();
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert_eq!(breaches[0]["ticket_id"], open.id);
    assert_eq!(
        at(&breaches[0]["due_at"]),
        open.created_at + Duration::minutes(60)
    );
    // The resolved ticket's clock is stopped and stays as it was.
    assert_eq!(sla_of(app, &bob.token, done.id).await["sla"], done_before);
    // A new name moves no clock: nothing is queued.
    edit_policy(app, &admin.token, high, json!({"name": "High, renamed"})).await;
    let queued = outbox::Entity::find()
        .filter(outbox::Column::Kind.eq(JobKind::SlaReclock))
        .filter(outbox::Column::Status.eq("pending"))
        .count(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(queued, 0);

    // A new policy gives the open tickets of its priority a clock.
    assert_eq!(sla_of(app, &bob.token, medium.id).await["sla"], Value::Null);
    let policy = around_the_clock(app, &admin, "Medium", "MEDIUM", json!({})).await;
    run_at(&state, Utc::now()).await;
    let seen = sla_of(app, &bob.token, medium.id).await;
    assert_eq!(seen["sla"]["policy"]["name"], "Medium", "{seen}");
    assert_eq!(
        at(&seen["sla"]["firstResponseDueAt"]),
        medium.created_at + Duration::minutes(60)
    );

    // Deleting it leaves the ticket with no policy and no due times; moving a policy to another priority
    // does the same for the tickets of the old one and clocks those of the new one.
    delete_policy(app, &admin.token, policy).await;
    edit_policy(app, &admin.token, high, json!({"priority": "MEDIUM"})).await;
    run_at(&state, open.created_at + Duration::minutes(62)).await;
    let seen = sla_of(app, &bob.token, open.id).await;
    assert_eq!(seen["sla"]["policy"], Value::Null, "{seen}");
    assert_eq!(seen["sla"]["firstResponseDueAt"], Value::Null, "{seen}");
    assert_eq!(seen["sla"]["resolutionDueAt"], Value::Null, "{seen}");
    // The breach it had stays recorded.
    assert_eq!(seen["sla"]["firstResponseBreached"], true, "{seen}");
    let seen = sla_of(app, &bob.token, medium.id).await;
    assert_eq!(seen["sla"]["policy"]["name"], "High, renamed", "{seen}");
}

db_test!(reclocking_runs_in_batches_of_bounded_size);
async fn reclocking_runs_in_batches_of_bounded_size(app: &TestApp) {
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = actor(app, &bob).await;
    let n = BATCH as usize + 5;
    for i in 0..n {
        tickets::create(
            app.state.write_deps(deskgraph::domain::Channel::System),
            &bob_a,
            titled(&format!("t{i}"), Priority::Low),
        )
        .await
        .unwrap();
    }
    let low = around_the_clock(app, &admin, "Low", "LOW", json!({})).await;
    let clocked = || async {
        ticket_sla::Entity::find()
            .filter(ticket_sla::Column::PolicyId.eq(low))
            .count(&app.state.db.conn)
            .await
            .unwrap()
    };
    assert_eq!(clocked().await, 0);
    // One pass of the worker takes one batch, which queues the next one.
    let now = Utc::now().timestamp_millis();
    worker::run_once_at(&app.state.delivery_deps(), now)
        .await
        .unwrap();
    assert_eq!(clocked().await, BATCH);
    worker::run_once_at(&app.state.delivery_deps(), Utc::now().timestamp_millis())
        .await
        .unwrap();
    assert_eq!(clocked().await, n as u64);
    // Nothing left to do: running again changes nothing.
    run_at(&app.state, Utc::now()).await;
    assert_eq!(clocked().await, n as u64);
}

db_test!(instances_remember_policies_until_one_changes);
/// Creating and changing tickets takes the policies from memory, and a policy change reaches them at once:
/// on this instance, and on PostgreSQL on another instance too (through its notice).
async fn instances_remember_policies_until_one_changes(app: &TestApp) {
    let admin = app.admin("root").await;
    let bob = app.agent("bob").await;
    let bob_a = actor(app, &bob).await;
    let high = around_the_clock(app, &admin, "High", "HIGH", json!({})).await;
    let state = &app.state;
    let create = |title: &'static str| {
        let bob_a = bob_a.clone();
        async move {
            let before = state.db.statement_count();
            let t = tickets::create(
                state.write_deps(deskgraph::domain::Channel::System),
                &bob_a,
                titled(title, Priority::High),
            )
            .await
            .unwrap();
            (state.db.statement_count() - before, t.id)
        }
    };
    // The triggers and custom fields are remembered the same way; read them first, so that only the policies
    // are counted.
    state.triggers.active(&state.db.conn).await.unwrap();
    state.custom_fields.active(&state.db.conn).await.unwrap();
    let (first, _) = create("First").await;
    let (remembered, _) = create("Second").await;
    assert_eq!(remembered + 1, first, "the second create reads no policies");
    // A change here is seen by the next create here: it reads the policies again, and clocks by them.
    edit_policy(app, &admin.token, high, json!({"resolutionMinutes": 480})).await;
    let (after_edit, id) = create("Fourth").await;
    assert_eq!(
        after_edit, first,
        "the policies are read again after a change"
    );
    let seen = sla_of(app, &bob.token, id).await;
    assert_eq!(
        at(&seen["sla"]["resolutionDueAt"]),
        at(&seen["createdAt"]) + Duration::minutes(480)
    );

    if app.state.db.backend() != sea_orm::DbBackend::Postgres {
        return;
    }
    // On PostgreSQL the clock costs an update one statement, its read after the ticket's lock: its writes
    // ride with the audit record's, so a change that moves it (priority) takes one statement more than one
    // that does not (title).
    let update = |patch: TicketPatch| {
        let bob_a = bob_a.clone();
        async move {
            let before = state.db.statement_count();
            tickets::update(
                state.write_deps(deskgraph::domain::Channel::System),
                &bob_a,
                id,
                patch,
            )
            .await
            .unwrap();
            state.db.statement_count() - before
        }
    };
    let titled_as = |title: &str| TicketPatch {
        title: Some(title.into()),
        ..Default::default()
    };
    let prioritised = |priority| TicketPatch {
        priority: Some(priority),
        ..Default::default()
    };
    // Remembered entries live 10 s: on a loaded machine they are read again first, so that what is
    // counted is the update's own work.
    let remember = || async {
        for priority in [Priority::High, Priority::Low] {
            state
                .sla_policies
                .for_priority(&state.db.conn, priority)
                .await
                .unwrap();
        }
        state.triggers.active(&state.db.conn).await.unwrap();
    };
    remember().await;
    let by_title = update(titled_as("Renamed")).await;
    for priority in [Priority::Low, Priority::High, Priority::Low, Priority::High] {
        remember().await;
        assert_eq!(
            update(prioritised(priority)).await,
            by_title + 1,
            "{priority:?}"
        );
    }
    remember().await;
    assert_eq!(update(titled_as("Renamed again")).await, by_title);
    let seen = sla_of(app, &bob.token, id).await;
    assert_eq!(seen["sla"]["policy"]["name"], "High", "{seen}");
    // Another instance that remembers the policies forgets them when this one changes one.
    let (second, _) = app.second_instance().await;
    let on_second = |title: &'static str| {
        let (second, bob_a) = (&second, bob_a.clone());
        async move {
            tickets::create(
                second.write_deps(deskgraph::domain::Channel::System),
                &bob_a,
                titled(title, Priority::High),
            )
            .await
            .unwrap()
            .id
        }
    };
    on_second("Remembered there").await;
    edit_policy(app, &admin.token, high, json!({"resolutionMinutes": 720})).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let id = on_second("Clocked there").await;
        let seen = sla_of(app, &bob.token, id).await;
        let due = at(&seen["sla"]["resolutionDueAt"]) - at(&seen["createdAt"]);
        if due == Duration::minutes(720) {
            break;
        }
        assert_eq!(due, Duration::minutes(480), "{seen}");
        assert!(
            std::time::Instant::now() < deadline,
            "the second instance still clocks by the old policy"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
