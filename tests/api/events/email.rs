//! Emails through the outbox: who gets which message, never the actor, internal notes contained.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::domain::TicketStatus;
use deskgraph::jobs::worker;
use deskgraph::notify::outbox as queue;
use deskgraph::service::events;
use deskgraph::service::tickets::{self, NewTicket, TicketPatch};
use deskgraph::service::users::accounts;
use deskgraph::state::AppState;

/// Deliver everything due and return `(recipient, subject)` of the emails sent, sorted.
async fn sent(
    state: &AppState,
    mailer: &deskgraph::notify::mailer::MemoryMailer,
    from: usize,
) -> Vec<(String, String)> {
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let mut out: Vec<(String, String)> = mailer.sent()[from..]
        .iter()
        .map(|e| (e.to.clone(), e.subject.clone()))
        .collect();
    out.sort();
    out
}

fn mail(to: &str, subject: &str) -> (String, String) {
    (format!("{to}@example.com"), subject.to_string())
}

db_test!(each_occurrence_mails_the_right_people);
async fn each_occurrence_mails_the_right_people(app: &TestApp) {
    let (state, mailer) = state_with(app, |_| {});
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let cat = app.agent("cat").await;
    let (ann_a, bob_a, cat_a) = (
        actor(app, &ann).await,
        actor(app, &bob).await,
        actor(app, &cat).await,
    );

    // Bob opens a ticket for Ann, assigned to Cat: both are told, Bob is not.
    let t = create_ticket(
        &state,
        &bob_a,
        NewTicket {
            title: "Printer <jammed>".into(),
            requester_id: Some(ann.id),
            assignee_id: Some(cat.id),
            ..Default::default()
        },
    )
    .await;
    let subject = "New Ticket: Printer <jammed> (TKT-001)";
    assert_eq!(
        sent(&state, &mailer, 0).await,
        vec![mail("ann", subject), mail("cat", subject)]
    );
    let created = mailer.sent()[0].clone();
    assert!(
        created.html.contains("Printer &lt;jammed&gt;"),
        "{}",
        created.html
    );
    assert!(!created.html.contains("<jammed>"));
    let mut seen = mailer.sent().len();

    // Assigning to Bob himself mails nobody; assigning to Cat again after that mails only Cat.
    let patch = |who: i32| TicketPatch {
        assignee_id: Some(Some(who)),
        ..Default::default()
    };
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        patch(bob.id),
    )
    .await
    .unwrap();
    assert_eq!(sent(&state, &mailer, seen).await, vec![]);
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::System),
        &bob_a,
        t.id,
        patch(cat.id),
    )
    .await
    .unwrap();
    assert_eq!(
        sent(&state, &mailer, seen).await,
        vec![mail("cat", "Ticket Assigned: Printer <jammed> (TKT-001)")]
    );
    seen = mailer.sent().len();

    // Cat (the assignee) moves the status: the requester is told, Cat is not.
    let t = tickets::change_status(
        state.write_deps(deskgraph::domain::Channel::System),
        &cat_a,
        t.id,
        TicketStatus::InProgress,
    )
    .await
    .unwrap();
    assert_eq!(
        sent(&state, &mailer, seen).await,
        vec![mail(
            "ann",
            "Ticket Status Changed: Printer <jammed> (TKT-001)"
        )]
    );
    assert!(mailer.sent()[seen].text.contains("new -> in_progress"));
    seen = mailer.sent().len();

    // A public comment by Ann: Cat only. An internal note by Bob: Cat only, never Ann.
    let txn = state.db.begin_write().await.unwrap();
    events::comment_created(
        &txn,
        &state.config,
        &ann_a,
        &t,
        &comment_on(&t, 1, "Still jammed", false),
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();
    assert_eq!(
        sent(&state, &mailer, seen).await,
        vec![mail("cat", "New Comment: Printer <jammed> (TKT-001)")]
    );
    seen = mailer.sent().len();
    let txn = state.db.begin_write().await.unwrap();
    events::comment_created(
        &txn,
        &state.config,
        &bob_a,
        &t,
        &comment_on(&t, 2, "User keeps breaking it", true),
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();
    let internal = sent(&state, &mailer, seen).await;
    assert_eq!(
        internal,
        vec![mail("cat", "New Internal Note: Printer <jammed> (TKT-001)")]
    );
    assert!(mailer
        .sent()
        .iter()
        .all(|e| e.to != "ann@example.com" || !e.text.contains("User keeps breaking it")));
    // Every queued row was delivered.
    assert!(outbox_rows(app)
        .await
        .iter()
        .all(|r| r.status == "delivered"));
}

db_test!(each_recipient_reads_in_the_language_they_chose);
async fn each_recipient_reads_in_the_language_they_chose(app: &TestApp) {
    let (state, mailer) = state_with(app, |_| {});
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let cat = app.agent("cat").await;
    let (ann_a, bob_a, cat_a) = (
        actor(app, &ann).await,
        actor(app, &bob).await,
        actor(app, &cat).await,
    );
    // Ann reads German; Cat chose nothing and reads English, as before.
    accounts::set_language(state.people_deps(), &ann_a, Some("de"))
        .await
        .unwrap();
    let t = create_ticket(
        &state,
        &bob_a,
        NewTicket {
            title: "Drucker <klemmt>".into(),
            requester_id: Some(ann.id),
            assignee_id: Some(cat.id),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        sent(&state, &mailer, 0).await,
        vec![
            mail("ann", "Neues Ticket: Drucker <klemmt> (TKT-001)"),
            mail("cat", "New Ticket: Drucker <klemmt> (TKT-001)"),
        ]
    );
    let to = |who: &str| {
        mailer
            .sent()
            .into_iter()
            .rev()
            .find(|e| e.to == format!("{who}@example.com"))
            .unwrap()
    };
    let german = to("ann");
    assert!(
        german.text.starts_with("Hallo Ann Example,\n\n"),
        "{}",
        german.text
    );
    assert!(
        german.text.contains("Priorität: Mittel\nStatus: Neu"),
        "{}",
        german.text
    );
    assert!(
        german.html.contains("<html lang=\"de\">"),
        "{}",
        german.html
    );
    assert!(
        german.html.contains("Drucker &lt;klemmt&gt;"),
        "{}",
        german.html
    );
    let english = to("cat");
    assert!(
        english.text.starts_with("Hello Cat Example,\n\n"),
        "{}",
        english.text
    );
    assert!(
        english.text.contains("Priority: medium\nStatus: new"),
        "{}",
        english.text
    );

    // A status change reaches Ann in German words.
    let seen = mailer.sent().len();
    tickets::change_status(
        state.write_deps(deskgraph::domain::Channel::System),
        &cat_a,
        t.id,
        TicketStatus::InProgress,
    )
    .await
    .unwrap();
    assert_eq!(
        sent(&state, &mailer, seen).await,
        vec![mail("ann", "Status geändert: Drucker <klemmt> (TKT-001)")]
    );
    assert!(to("ann").text.contains("Status: Neu -> In Bearbeitung"));

    // Back to no choice: English again.
    accounts::set_language(state.people_deps(), &ann_a, None)
        .await
        .unwrap();
    let seen = mailer.sent().len();
    tickets::change_status(
        state.write_deps(deskgraph::domain::Channel::System),
        &cat_a,
        t.id,
        TicketStatus::Resolved,
    )
    .await
    .unwrap();
    assert_eq!(
        sent(&state, &mailer, seen).await,
        vec![mail(
            "ann",
            "Ticket Status Changed: Drucker <klemmt> (TKT-001)"
        )]
    );
    assert!(to("ann").text.contains("in_progress -> resolved"));
}

db_test!(internal_notes_never_leave_through_webhooks);
async fn internal_notes_never_leave_through_webhooks(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let t = create_ticket(&state, &actor(app, &ann).await, titled("Screen")).await;
    let bob_a = actor(app, &bob).await;
    let txn = state.db.begin_write().await.unwrap();
    events::comment_created(
        &txn,
        &state.config,
        &bob_a,
        &t,
        &comment_on(&t, 7, "secret note", true),
    )
    .await
    .unwrap();
    events::comment_created(
        &txn,
        &state.config,
        &bob_a,
        &t,
        &comment_on(&t, 8, "public reply", false),
    )
    .await
    .unwrap();
    txn.commit().await.unwrap();
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let events: Vec<serde_json::Value> = receiver
        .hits()
        .iter()
        .map(|h| serde_json::from_str(&h.body).unwrap())
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["event"], "comment.created");
    assert_eq!(events[1]["comment_id"], 8);
    assert!(receiver
        .hits()
        .iter()
        .all(|h| !h.body.contains("\"comment_id\":7")));
}

db_test!(emails_go_out_over_smtp);
async fn emails_go_out_over_smtp(app: &TestApp) {
    let sink = SmtpSink::start().await;
    let url = sink.url.clone();
    let state = state_configured(app, |c| {
        c.smtp_url = Some(url);
        c.mail_from = "desk@example.org".into();
    });
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    create_ticket(
        &state,
        &actor(app, &bob).await,
        NewTicket {
            title: "Badge <reader> broken".into(),
            requester_id: Some(ann.id),
            ..Default::default()
        },
    )
    .await;
    assert!(
        sink.messages().is_empty(),
        "requests never send mail themselves"
    );
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let messages = sink.messages();
    assert_eq!(messages.len(), 1);
    let m = &messages[0];
    assert_eq!(m.from, "desk@example.org");
    assert_eq!(m.to, vec!["ann@example.com".to_string()]);
    assert!(
        m.data
            .contains("Subject: New Ticket: Badge <reader> broken (TKT-001)"),
        "{}",
        m.data
    );
    assert!(m.data.contains("text/plain") && m.data.contains("text/html"));
    assert!(m.data.contains("Badge &lt;reader&gt; broken"));
    // Machine mail says so (RFC 3834), so out-of-office robots do not answer it.
    assert!(
        m.data.contains("Auto-Submitted: auto-generated"),
        "{}",
        m.data
    );
    assert!(outbox_rows(app)
        .await
        .iter()
        .all(|r| r.status == "delivered"));
}

db_test!(unreachable_smtp_server_is_retried);
async fn unreachable_smtp_server_is_retried(app: &TestApp) {
    // A port that was just free: nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let state = state_configured(app, |c| {
        c.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
        c.outbox_max_attempts = 2;
    });
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    create_ticket(
        &state,
        &actor(app, &bob).await,
        NewTicket {
            title: "Phone".into(),
            requester_id: Some(ann.id),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    let rows = outbox_rows(app).await;
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("pending", 1));
    assert!(
        rows[0]
            .last_error
            .as_deref()
            .unwrap_or("")
            .starts_with("smtp"),
        "{:?}",
        rows[0].last_error
    );
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    let rows = outbox_rows(app).await;
    assert_eq!((rows[0].status.as_str(), rows[0].attempts), ("failed", 2));
}

db_test!(a_retried_email_keeps_when_it_came_due_and_waits_out_its_backoff);
async fn a_retried_email_keeps_when_it_came_due_and_waits_out_its_backoff(app: &TestApp) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let state = state_configured(app, |c| {
        c.smtp_url = Some(format!("smtp://127.0.0.1:{port}"));
        c.outbox_backoff_ms = 60_000;
    });
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let ticket = NewTicket {
        title: "Phone".into(),
        requester_id: Some(ann.id),
        ..Default::default()
    };
    create_ticket(&state, &actor(app, &bob).await, ticket).await;
    let queued = outbox_rows(app).await.remove(0);
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 1);
    let tried = outbox_rows(app).await.remove(0);
    assert_eq!((tried.status.as_str(), tried.attempts), ("pending", 1));
    // Still due since it was queued; the backoff (at least half of a minute) holds it back.
    assert_eq!(tried.due_at_ms, queued.due_at_ms);
    assert!(
        tried.locked_until_ms >= queued.due_at_ms + 30_000,
        "{tried:?}"
    );
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 0);
    // A destination that is failing shows in the backlog, waiting since the row first came due.
    let now = queue::now_ms();
    let backlog = queue::backlog(&app.state.db.conn, now).await.unwrap();
    assert_eq!(backlog.len(), 1, "{backlog:?}");
    assert_eq!(
        (backlog[0].pending, backlog[0].oldest.timestamp_millis()),
        (1, queued.due_at_ms)
    );
    // Once the backoff is over, it is tried again.
    let later = now + 61_000;
    assert_eq!(
        worker::run_once_at(&state.delivery_deps(), later)
            .await
            .unwrap(),
        1
    );
    assert_eq!(outbox_rows(app).await[0].attempts, 2);
}

db_test!(a_run_of_deliveries_is_recorded_in_one_statement);
async fn a_run_of_deliveries_is_recorded_in_one_statement(app: &TestApp) {
    let (state, mailer) = state_with(app, |_| {});
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let bob = actor(app, &bob).await;
    for i in 0..20 {
        let ticket = NewTicket {
            title: format!("Phone {i}"),
            requester_id: Some(ann.id),
            ..Default::default()
        };
        create_ticket(&state, &bob, ticket).await;
    }
    let before = app.statements();
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 20);
    // One statement leases and reads the rows, one records them all delivered.
    assert_eq!(app.statements() - before, 2);
    assert_eq!(mailer.sent().len(), 20);
    let rows = outbox_rows(app).await;
    assert_eq!(rows.len(), 20);
    assert!(
        rows.iter()
            .all(
                |r| (r.status.as_str(), r.attempts, r.locked_until_ms) == ("delivered", 1, 0)
                    && r.delivered_at.is_some()
            ),
        "{rows:?}"
    );
    assert_eq!(worker::run_once(&state.delivery_deps()).await.unwrap(), 0);
}
