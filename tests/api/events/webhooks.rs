//! Webhooks through the outbox: exact body, signature, retries, failure, rollback and restart.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::db::Db;
use deskgraph::jobs::worker;
use deskgraph::notify::outbox as queue;
use deskgraph::service::events;
use deskgraph::service::users;
use deskgraph::state::AppState;
use entity::{outbox, webhook_delivery};
use hmac::{Hmac, Mac};
use sea_orm::{ConnectionTrait, EntityTrait, QueryOrder};
use sha2::Sha256;
use std::time::Instant;

fn header<'a>(hit: &'a Hit, name: &str) -> &'a str {
    hit.headers.get(name).unwrap().to_str().unwrap()
}

db_test!(ticket_created_arrives_exact_and_signed);
async fn ticket_created_arrives_exact_and_signed(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let t = create_ticket(
        &state,
        &actor(app, &ann).await,
        titled("Printer \"on\" fire"),
    )
    .await;

    // The request only wrote the row; nothing was sent yet.
    assert!(receiver.hits().is_empty());
    let rows = outbox_rows(app).await;
    assert_eq!(rows.len(), 1, "one webhook, no email to the actor herself");
    assert_eq!(rows[0].status, "pending");

    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1);
    let hit = &hits[0];
    let body: serde_json::Value = serde_json::from_str(&hit.body).unwrap();
    let stamp = body["timestamp"].as_str().unwrap();
    assert!(stamp.ends_with('Z'), "{stamp}");
    assert_eq!(
        hit.body,
        format!(
            r#"{{"event":"ticket.created","ticket_id":{},"title":"Printer \"on\" fire","timestamp":"{stamp}"}}"#,
            t.id
        )
    );
    assert_eq!(header(hit, "content-type"), "application/json");
    assert!(header(hit, "x-webhook-id").starts_with("evt_"));
    let ts = header(hit, "x-webhook-timestamp");
    assert!(ts.parse::<i64>().unwrap() > 1_700_000_000);
    let mut mac = Hmac::<Sha256>::new_from_slice(b"s3cret").unwrap();
    mac.update(format!("{ts}.{}", hit.body).as_bytes());
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(header(hit, "x-webhook-signature"), expected);

    let rows = outbox_rows(app).await;
    assert_eq!(
        (rows[0].status.as_str(), rows[0].attempts),
        ("delivered", 1)
    );
    let log = webhook_delivery::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status_code, Some(200));
    assert_eq!(log[0].webhook_id, None);
    // Nothing left to do.
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 0);
    assert_eq!(receiver.hits().len(), 1);
}

db_test!(failing_receiver_gets_it_after_retries_exactly_once);
async fn failing_receiver_gets_it_after_retries_exactly_once(app: &TestApp) {
    let receiver = Receiver::start(Mode::FailFirst(2)).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    create_ticket(&state, &actor(app, &ann).await, titled("VPN down")).await;

    for _ in 0..3 {
        assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    }
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 0);
    let hits = receiver.hits();
    assert_eq!(hits.len(), 3);
    // A retry is the same event: same id, same body.
    assert!(hits.iter().all(
        |h| header(h, "x-webhook-id") == header(&hits[0], "x-webhook-id") && h.body == hits[0].body
    ));
    let rows = outbox_rows(app).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].status.as_str(), rows[0].attempts),
        ("delivered", 3)
    );
    let codes: Vec<Option<i32>> = webhook_delivery::Entity::find()
        .order_by_asc(webhook_delivery::Column::Id)
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.status_code)
        .collect();
    assert_eq!(codes, vec![Some(500), Some(500), Some(204)]);
}

db_test!(dead_receiver_ends_failed_without_slowing_requests);
async fn dead_receiver_ends_failed_without_slowing_requests(app: &TestApp) {
    let receiver = Receiver::start(Mode::Hang).await;
    let url = receiver.url.clone();
    let (state, _) = state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = "s3cret".into();
        c.outbox_max_attempts = 3;
        c.delivery_timeout_ms = 300;
    });
    let ann = app.user("ann").await;
    let who = actor(app, &ann).await;
    let started = Instant::now();
    create_ticket(&state, &who, titled("Mail stuck")).await;
    assert!(
        started.elapsed().as_millis() < 300,
        "the request waited for delivery"
    );
    assert!(receiver.hits().is_empty());

    for _ in 0..3 {
        assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    }
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 0);
    let rows = outbox_rows(app).await;
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("failed", 3));
    assert_eq!(rows[0].last_error.as_deref(), Some("timed out"));
    assert_eq!(receiver.hits().len(), 3);
}

db_test!(rolled_back_change_leaves_no_row);
async fn rolled_back_change_leaves_no_row(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let (ann_actor, bob_actor) = (actor(app, &ann).await, actor(app, &bob).await);
    let t = create_ticket(&state, &ann_actor, titled("Laptop")).await;
    worker::run_once(&state.delivery_deps()).await.unwrap();
    let before = outbox_rows(app).await.len();

    let active = users::recipients(&state.db.conn, [t.requester_id])
        .await
        .unwrap();
    let announce = events::TicketCreated::prepare(
        &state.db.conn,
        &state.config,
        &bob_actor,
        &active,
        t.requester_id,
        None,
    )
    .await
    .unwrap();
    let insert = || queue::insert_of(announce.rows(&t, None).unwrap()).unwrap();
    let txn = state.db.begin_write().await.unwrap();
    txn.execute(&insert()).await.unwrap();
    drop(txn);
    assert_eq!(outbox_rows(app).await.len(), before);

    // The same rows committed do stay: one webhook and the requester's email.
    let txn = state.db.begin_write().await.unwrap();
    txn.execute(&insert()).await.unwrap();
    txn.commit().await.unwrap();
    assert_eq!(outbox_rows(app).await.len(), before + 2);
}

db_test!(rows_pending_at_a_crash_are_delivered_after_restart);
async fn rows_pending_at_a_crash_are_delivered_after_restart(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let who = actor(app, &ann).await;
    create_ticket(&state, &who, titled("One")).await;
    create_ticket(&state, &who, titled("Two")).await;
    assert!(receiver.hits().is_empty());

    // A new process: fresh pool and state over the same database.
    let db = Db::connect(&state.config.database_url, 2).await.unwrap();
    let restarted = AppState::from_db(db, (*state.config).clone())
        .await
        .unwrap();
    assert_eq!(
        worker::run_once(&restarted.delivery_deps()).await.unwrap(),
        2
    );
    let titles: Vec<String> = receiver
        .hits()
        .iter()
        .map(|h| serde_json::from_str::<serde_json::Value>(&h.body).unwrap()["title"].to_string())
        .collect();
    assert_eq!(titles, vec!["\"One\"", "\"Two\""]);
    assert!(outbox_rows(app)
        .await
        .iter()
        .all(|r| r.status == "delivered"));
    restarted.db.conn.clone().close().await.ok();
}

db_test!(a_leased_row_is_not_claimed_twice);
async fn a_leased_row_is_not_claimed_twice(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    create_ticket(&state, &actor(app, &ann).await, titled("Lease")).await;
    let now = queue::now_ms();
    let first = queue::claim(&app.state.db.conn, now, now + 60_000, 10)
        .await
        .unwrap();
    let second = queue::claim(&app.state.db.conn, now, now + 60_000, 10)
        .await
        .unwrap();
    assert_eq!((first.len(), second.len()), (1, 0));
    // Once the lease runs out (a crashed worker), another worker takes it.
    let later = queue::claim(&app.state.db.conn, now + 61_000, now + 120_000, 10)
        .await
        .unwrap();
    assert_eq!(later.len(), 1);
    let row = outbox::Entity::find()
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, "pending");
}

db_test!(concurrent_workers_deliver_each_event_once);
async fn concurrent_workers_deliver_each_event_once(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let who = actor(app, &ann).await;
    for i in 0..12 {
        create_ticket(&state, &who, titled(&format!("T{i}"))).await;
    }
    let deps = state.delivery_deps();
    let (a, b) = tokio::join!(worker::run_once(&deps), worker::run_once(&deps));
    assert_eq!(a.unwrap() + b.unwrap(), 12);
    let mut ids: Vec<String> = receiver
        .hits()
        .iter()
        .map(|h| header(h, "x-webhook-id").to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 12);
    assert_eq!(receiver.hits().len(), 12);
}

db_test!(a_claim_takes_rows_in_the_order_they_came_due_and_none_ahead);
async fn a_claim_takes_rows_in_the_order_they_came_due_and_none_ahead(app: &TestApp) {
    let now = queue::now_ms();
    // Queued in this order: one due in an hour (as a scheduled SLA check), one due a second ago, one due
    // five seconds ago.
    let dues = [now + 3_600_000, now - 1_000, now - 5_000];
    for (i, due) in dues.into_iter().enumerate() {
        let mut row = queue::row(
            queue::JobKind::Email,
            &format!("claim-order-{i}"),
            "ticket.created",
            None,
            "{}".to_string(),
        );
        row.due_at_ms = sea_orm::Set(due);
        let insert = queue::insert_of(vec![row]).unwrap();
        app.state.db.conn.execute(&insert).await.unwrap();
    }
    let claimed = queue::claim(&app.state.db.conn, now, now + 60_000, 10)
        .await
        .unwrap();
    let order: Vec<&str> = claimed.iter().map(|r| r.event_id.as_str()).collect();
    assert_eq!(order, vec!["claim-order-2", "claim-order-1"]);
}

db_test!(a_row_of_a_kind_this_version_does_not_run_waits_and_holds_nothing_back);
/// A newer version, during a rolling upgrade, may queue a job this one does not know: it stays pending for
/// an instance that knows it, and the rows behind it are claimed as usual.
async fn a_row_of_a_kind_this_version_does_not_run_waits_and_holds_nothing_back(app: &TestApp) {
    let now = queue::now_ms();
    let mut known = queue::row(
        queue::JobKind::Email,
        "known-kind",
        "ticket.created",
        None,
        "{}".to_string(),
    );
    known.due_at_ms = sea_orm::Set(now - 1_000);
    let insert = queue::insert_of(vec![known]).unwrap();
    app.state.db.conn.execute(&insert).await.unwrap();
    let unknown = format!(
        "INSERT INTO outbox (kind, event_id, event, payload, status, attempts, due_at_ms, \
         locked_until_ms, created_at) VALUES ('sms', 'unknown-kind', 'ticket.created', '{{}}', \
         'pending', 0, {}, 0, CURRENT_TIMESTAMP)",
        now - 5_000
    );
    app.state
        .db
        .conn
        .execute_unprepared(&unknown)
        .await
        .unwrap();

    let claimed = queue::claim(&app.state.db.conn, now, now + 60_000, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = claimed.iter().map(|r| r.event_id.as_str()).collect();
    assert_eq!(ids, vec!["known-kind"]);
    let rows = app
        .state
        .db
        .conn
        .query_all_raw(sea_orm::Statement::from_string(
            app.state.db.conn.get_database_backend(),
            "SELECT kind, status FROM outbox WHERE event_id = 'unknown-kind'",
        ))
        .await
        .unwrap();
    let waiting: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r.try_get("", "kind").unwrap(),
                r.try_get("", "status").unwrap(),
            )
        })
        .collect();
    assert_eq!(waiting, vec![("sms".to_string(), "pending".to_string())]);
    let backlog = queue::backlog(&app.state.db.conn, now).await.unwrap();
    assert_eq!(backlog.iter().map(|b| b.pending).sum::<i64>(), 2);
}

db_test!(the_backlog_counts_rows_that_are_due_and_reports_scheduled_checks_apart);
async fn the_backlog_counts_rows_that_are_due_and_reports_scheduled_checks_apart(app: &TestApp) {
    let now = queue::now_ms();
    // An email due now, a webhook call due five seconds ago, and an SLA check an hour ahead.
    let rows = [
        (queue::JobKind::Email, None, now),
        (queue::JobKind::Webhook, None, now - 5_000),
        (queue::JobKind::SlaCheck, None, now + 3_600_000),
    ];
    for (i, (kind, webhook, due)) in rows.into_iter().enumerate() {
        let mut row = queue::row(kind, &format!("backlog-{i}"), "x", webhook, "{}".into());
        row.due_at_ms = sea_orm::Set(due);
        let insert = queue::insert_of(vec![row]).unwrap();
        app.state.db.conn.execute(&insert).await.unwrap();
    }
    let backlog = queue::backlog(&app.state.db.conn, now).await.unwrap();
    let summary: Vec<(queue::Destination, i64, i64)> = backlog
        .iter()
        .map(|b| (b.destination, b.pending, b.oldest.timestamp_millis()))
        .collect();
    // The check is not waiting on anything; the webhook call has waited since it came due.
    assert_eq!(
        summary,
        vec![
            (queue::Destination::Email, 1, now),
            (queue::Destination::Webhook(0), 1, now - 5_000),
        ]
    );
    assert_eq!(queue::scheduled(&app.state.db.conn, now).await.unwrap(), 1);
    // An hour on, the check is due and counts as backlog of its own destination.
    let later = now + 3_600_000;
    let backlog = queue::backlog(&app.state.db.conn, later).await.unwrap();
    assert_eq!(backlog.len(), 3);
    assert_eq!(backlog[2].destination, queue::Destination::Other);
    assert_eq!(
        queue::scheduled(&app.state.db.conn, later).await.unwrap(),
        0
    );
}

db_test!(a_trigger_calls_the_webhook_endpoint_it_names);
async fn a_trigger_calls_the_webhook_endpoint_it_names(app: &TestApp) {
    use axum::http::StatusCode;
    use serde_json::json;
    let receiver = Receiver::start(Mode::Ok).await;
    let admin = app.admin("ada").await;
    let rita = app.user("rita").await;
    // An endpoint that subscribes to nothing but deletions: the rule names it, so it gets the rule's call.
    let made = app
        .graphql(
            Some(&admin.token),
            r#"mutation($u: String!) { createWebhook(input: {url: $u, secret: "rule-s3cret", events: ["ticket.deleted"]}) { webhook { databaseId } } }"#,
            json!({"u": receiver.url}),
        )
        .await;
    let endpoint = made["data"]["createWebhook"]["webhook"]["databaseId"]
        .as_i64()
        .unwrap();
    let rule = json!({
        "name": "Tell the NOC",
        "conditions": {"all": [{"field": "event", "operator": "is", "value": "created"},
                               {"field": "ticket.title", "operator": "contains", "value": "outage"}]},
        "actions": [{"notify": {"webhook": endpoint}, "subject": "Outage {{ticket.number}}",
                     "body": "Reported by {{requester.full_name}}"}],
    });
    let saved = app
        .as_user(&admin)
        .post("/api/automation/triggers/", rule.clone())
        .await;
    assert_eq!(saved.status, StatusCode::CREATED, "{}", saved.text);
    let mut missing = rule;
    missing["actions"][0]["notify"] = json!({"webhook": 9999});
    let refused = app
        .as_user(&admin)
        .post("/api/automation/triggers/", missing)
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.json["details"]["actions[0].notify"].is_array(),
        "{}",
        refused.text
    );

    let t = app
        .as_user(&rita)
        .post("/api/tickets/", json!({"title": "Mail outage on floor 3"}))
        .await;
    app.as_user(&rita)
        .post("/api/tickets/", json!({"title": "Printer jams"}))
        .await;
    let state = app.state.clone();
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1, "{hits:?}");
    let body: serde_json::Value = serde_json::from_str(&hits[0].body).unwrap();
    let number = t.json["ticket_number"].as_str().unwrap();
    assert_eq!(body["event"], "rule.notice");
    assert_eq!(body["ticket_id"], t.json["id"]);
    assert_eq!(body["subject"], format!("Outage {number}"));
    assert_eq!(body["text"], "Reported by Rita Example");
    assert_eq!(body["via"]["name"], "Tell the NOC");
    assert!(header(&hits[0], "x-webhook-signature").starts_with("sha256="));
}

db_test!(delivery_history_is_kept_its_days_and_pending_rows_always);
/// Done rows (delivered or failed) raised longer ago than the kept days go with their logged tries, however
/// many (the sweep works in batches); recent ones and pending ones (scheduled work) stay.
async fn delivery_history_is_kept_its_days_and_pending_rows_always(app: &TestApp) {
    use deskgraph::notify::outbox::history;
    use sea_orm::sea_query::Expr;
    use sea_orm::{ActiveValue, ColumnTrait, IntoActiveModel, QueryFilter};
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let actor = actor(app, &ann).await;
    for title in ["old delivered", "old failed", "recent delivered"] {
        create_ticket(&state, &actor, titled(title)).await;
    }
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 3);
    create_ticket(&state, &actor, titled("old pending")).await;
    let rows = outbox_rows(app).await;
    let [old_delivered, old_failed, recent, pending] = [0, 1, 2, 3].map(|i| rows[i].id);
    let conn = &app.state.db.conn;
    outbox::Entity::update_many()
        .col_expr(outbox::Column::Status, Expr::value("failed"))
        .filter(outbox::Column::Id.eq(old_failed))
        .exec(conn)
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let long_ago = now - chrono::Duration::days(31);
    outbox::Entity::update_many()
        .col_expr(outbox::Column::CreatedAt, Expr::value(long_ago))
        .filter(outbox::Column::Id.is_in([old_delivered, old_failed, pending]))
        .exec(conn)
        .await
        .unwrap();
    // A long history of delivered rows, more than one statement removes.
    let mut copy = rows[0].clone().into_active_model();
    copy.id = ActiveValue::NotSet;
    copy.created_at = ActiveValue::Set(long_ago);
    outbox::Entity::insert_many(vec![copy; 1_005])
        .exec_without_returning(conn)
        .await
        .unwrap();
    let logged = || async {
        let mut of: Vec<i64> = webhook_delivery::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .iter()
            .map(|d| d.outbox_id)
            .collect();
        of.sort();
        of
    };
    assert_eq!(logged().await, [old_delivered, old_failed, recent]);

    let keep = std::time::Duration::from_secs(30 * 24 * 3600);
    assert_eq!(history::sweep(conn, now, keep).await.unwrap(), 1_007);
    let left: Vec<i64> = outbox_rows(app).await.iter().map(|r| r.id).collect();
    assert_eq!(left, [recent, pending]);
    assert_eq!(logged().await, [recent], "the tries went with their rows");
    assert_eq!(history::sweep(conn, now, keep).await.unwrap(), 0);
    // The pending row is still delivered.
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    assert_eq!(receiver.hits().len(), 4);
}
