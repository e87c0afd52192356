//! Mail fetched from a real IMAP server (Dovecot, `support::imap`): a mailbox set up by an administrator
//! turns mail into tickets in its project and replies into comments; a message is put away only after
//! what it made has committed; what cannot be taken in goes to the failed folder; a message taken in but
//! not put away (the fetcher died) makes nothing twice; the running service fetches as mail arrives.
use crate::db_test;
use crate::support::events::{state_configured, SmtpSink};
use crate::support::graphql::gid;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::imap::{self, count, deliver, fresh_user, PASSWORD};
use crate::support::sla::run_at;
use chrono::Utc;
use deskgraph::service::mailboxes::fetch::{self, Look};
use deskgraph::state::AppState;
use sea_orm::EntityTrait;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn message(from: &str, id: &str, subject: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: help@desk.example.org\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n{extra}\r\n{body}\r\n"
    )
    .into_bytes()
}

/// A mailbox on `user`'s `INBOX`, made by `root` through REST, with `extra` fields.
async fn mailbox(app: &TestApp, root: &TestUser, port: u16, user: &str, extra: Value) -> i32 {
    let mut body = json!({
        "name": format!("Help desk ({user})"),
        "url": imap::url(port, user, "INBOX"),
        "secret": PASSWORD,
    });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    let made = app.as_user(root).post("/api/mailboxes/", body).await;
    assert_eq!(made.status, 201, "{}", made.text);
    made.json["id"].as_i64().unwrap() as i32
}

async fn fetched(state: &AppState, id: i32) -> Look {
    fetch::fetch_once(&state.mail_fetcher(), id).await.unwrap()
}

/// Tickets `who` sees, newest first: (id, title, requester username, project).
async fn tickets(app: &TestApp, who: &TestUser) -> Vec<Value> {
    let listed = app.as_user(who).get("/api/tickets/?ordering=-id").await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    listed.json["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The value of header `name` in a raw message (first occurrence).
fn header(data: &str, name: &str) -> Option<String> {
    let prefix = format!("{}:", name.to_ascii_lowercase());
    data.lines()
        .find(|l| l.to_ascii_lowercase().starts_with(&prefix))
        .map(|l| l[prefix.len()..].trim().to_string())
}

db_test!(a_requester_writes_to_the_mailbox_and_their_reply_lands_on_the_ticket);
async fn a_requester_writes_to_the_mailbox_and_their_reply_lands_on_the_ticket(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let sink = SmtpSink::start().await;
    let smtp = sink.url.clone();
    let state = state_configured(app, |c| {
        c.smtp_url = Some(smtp);
        c.mail_from = "Help Desk <help@desk.example.org>".into();
    });
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let project = app
        .as_user(&root)
        .post("/api/projects/", json!({"name": "Hardware"}))
        .await;
    assert_eq!(project.status, 201, "{}", project.text);
    let project = project.json["id"].as_i64().unwrap();
    let user = fresh_user("desk");
    let id = mailbox(
        app,
        &root,
        port,
        &user,
        json!({"done_folder": "Processed", "project": project}),
    )
    .await;

    deliver(
        port,
        &user,
        "INBOX",
        &message(
            "Dana Stone <dana@example.com>",
            "first@mail.example.com",
            "Laptop will not boot",
            "",
            "It beeps three times.",
        ),
    )
    .await;
    let look = fetched(&state, id).await;
    assert_eq!(look.taken, 1, "{look:?}");
    // Put away only now: the inbox is empty, the message is in the done folder.
    assert_eq!(count(port, &user, "INBOX").await.0, 0);
    assert_eq!(count(port, &user, "Processed").await.0, 1);
    let listed = tickets(app, &bob).await;
    assert_eq!(listed.len(), 1);
    let ticket = listed[0]["id"].as_i64().unwrap();
    assert_eq!(listed[0]["title"], "Laptop will not boot");
    let stored = entity::ticket::Entity::find_by_id(ticket as i32)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.project_id,
        Some(project as i32),
        "opened in the mailbox's project"
    );

    // Bob answers; the requester's mail client replies to that email.
    let answered = app
        .as_user(&bob)
        .post(
            &format!("/api/tickets/{ticket}/comments/"),
            json!({"content": "Hold the power button for 30 seconds.", "comment_type": "public"}),
        )
        .await;
    assert!(answered.status.is_success(), "{}", answered.text);
    run_at(&state, Utc::now()).await;
    let sent = sink
        .messages()
        .into_iter()
        .rfind(|m| m.to.iter().any(|t| t.contains("dana@example.com")))
        .expect("an email to the requester");
    let own = header(&sent.data, "Message-ID").expect("a Message-ID");
    let references = header(&sent.data, "References").expect("References");
    deliver(
        port,
        &user,
        "INBOX",
        &message(
            "dana@example.com",
            "second@mail.example.com",
            "Re: your ticket",
            &format!("In-Reply-To: {own}\r\nReferences: {references} {own}\r\n"),
            "That did it, thank you!\r\n\r\nOn Monday, Help Desk wrote:\r\n> Hold the power button",
        ),
    )
    .await;
    assert_eq!(fetched(&state, id).await.taken, 1);
    assert_eq!(tickets(app, &bob).await.len(), 1, "no second ticket");
    let comments = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{ticket}/comments/"))
        .await;
    let bodies: Vec<String> = comments.json["results"]
        .as_array()
        .or(comments.json.as_array())
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|c| c["content"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("That did it, thank you!") && !b.contains("Hold the power")),
        "{}",
        comments.text
    );
    assert_eq!(count(port, &user, "Processed").await.0, 2);

    // Someone else names the ticket in the subject: they cannot see it, so it opens a ticket of its own.
    deliver(
        port,
        &user,
        "INBOX",
        &message(
            "mallory@example.com",
            "third@mail.example.com",
            &format!("Re: Laptop will not boot (TKT-{ticket:03})"),
            "",
            "Let me in.",
        ),
    )
    .await;
    assert_eq!(fetched(&state, id).await.taken, 1);
    let listed = tickets(app, &bob).await;
    assert_eq!(listed.len(), 2);
    assert_ne!(listed[0]["id"], ticket);
    // The mailbox tells its administrator when it was last read.
    let shown = app
        .as_user(&root)
        .get(&format!("/api/mailboxes/{id}/"))
        .await;
    assert!(shown.json["checked_at"].is_string(), "{}", shown.text);
    assert_eq!(shown.json["last_error"], Value::Null);
}

db_test!(what_cannot_be_taken_in_goes_to_the_failed_folder_and_machine_mail_makes_nothing);
async fn what_cannot_be_taken_in_goes_to_the_failed_folder_and_machine_mail_makes_nothing(
    app: &TestApp,
) {
    let Some(port) = imap::server() else { return };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    // The sender of the large message has an account (big@example.com): only those are answered.
    app.user("big").await;
    let user = fresh_user("failed");
    // No done folder: taken messages are flagged seen where they are.
    let id = mailbox(app, &root, port, &user, json!({})).await;
    // Not a message at all: no From address.
    deliver(
        port,
        &user,
        "INBOX",
        b"Subject: nothing\r\n\r\nwho am I\r\n",
    )
    .await;
    // 30 MiB: past the 25 MiB limit.
    let mut big = message("big@example.com", "big@x", "Scans", "", "");
    big.extend(std::iter::repeat_n(b'x', 30 << 20));
    deliver(port, &user, "INBOX", &big).await;
    // An out-of-office answer, and a bounce.
    deliver(
        port,
        &user,
        "INBOX",
        &message(
            "ooo@example.com",
            "ooo@x",
            "Out of office",
            "Auto-Submitted: auto-replied\r\n",
            "Away.",
        ),
    )
    .await;
    deliver(
        port,
        &user,
        "INBOX",
        &message(
            "MAILER-DAEMON@example.com",
            "bounce@x",
            "Undelivered Mail Returned to Sender",
            "Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n",
            "--b\r\nContent-Type: text/plain\r\n\r\nNo such user.\r\n--b--",
        ),
    )
    .await;
    // A real one, and the same message delivered twice.
    let real = message("erin@example.com", "real@x", "Printer jams", "", "Again.");
    deliver(port, &user, "INBOX", &real).await;
    deliver(port, &user, "INBOX", &real).await;

    // Mail goes out over SMTP, as a deployment sends it.
    let sink = SmtpSink::start().await;
    let url = sink.url.clone();
    let state = state_configured(app, |c| c.smtp_url = Some(url));
    let look = fetched(&state, id).await;
    assert_eq!(
        look,
        Look {
            taken: 1,
            ignored: 3,
            failed: 2,
            left: 0
        }
    );
    let listed = tickets(app, &bob).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["title"], "Printer jams");
    // The four put away are seen in the inbox; the two refused are in `failed`, unflagged, whole.
    assert_eq!(count(port, &user, "INBOX").await, (4, 4));
    assert_eq!(count(port, &user, "failed").await, (2, 0));
    let failed = imap::messages(port, &user, "failed").await;
    assert!(failed.iter().any(|m| m.len() > 30 << 20));
    // A second look finds nothing new.
    assert_eq!(fetched(&state, id).await, Look::default());
    assert_eq!(tickets(app, &bob).await.len(), 1);

    // The sender of the large message is told, once, as an automatic answer to it; machine mail is not.
    let sent_to = |who: &str| {
        sink.messages()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t == who))
            .map(|m| m.data)
            .collect::<Vec<_>>()
    };
    let deliver_all = async || {
        while deskgraph::jobs::worker::run_once(&state.delivery_deps())
            .await
            .unwrap()
            > 0
        {}
    };
    deliver_all().await;
    let told = sent_to("big@example.com");
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        header(&told[0], "Subject").as_deref(),
        Some("Not received: Scans")
    );
    assert_eq!(header(&told[0], "In-Reply-To").as_deref(), Some("<big@x>"));
    assert_eq!(
        header(&told[0], "Auto-Submitted").as_deref(),
        Some("auto-replied")
    );
    assert!(told[0].contains("larger than the 25 MB"), "{}", told[0]);
    for machine in [
        "ooo@example.com",
        "mailer-daemon@example.com",
        "MAILER-DAEMON@example.com",
    ] {
        assert!(sent_to(machine).is_empty(), "{machine}");
    }
    // Another large message from the same sender within the hour, and one from a robot: refused, unanswered.
    let mut again = message("big@example.com", "big-2@x", "More scans", "", "");
    again.extend(std::iter::repeat_n(b'x', 26 << 20));
    deliver(port, &user, "INBOX", &again).await;
    let mut robot = message(
        "robot@example.com",
        "robot@x",
        "Nightly dump",
        "Auto-Submitted: auto-generated\r\n",
        "",
    );
    robot.extend(std::iter::repeat_n(b'x', 26 << 20));
    deliver(port, &user, "INBOX", &robot).await;
    // A stranger's (or a forged From): answering it would mail whoever the sender named.
    let mut stranger = message("stranger@example.net", "stranger@x", "Scans", "", "");
    stranger.extend(std::iter::repeat_n(b'x', 26 << 20));
    deliver(port, &user, "INBOX", &stranger).await;
    assert_eq!(
        fetched(&state, id).await,
        Look {
            failed: 3,
            ..Look::default()
        }
    );
    deliver_all().await;
    assert_eq!(sent_to("big@example.com").len(), 1);
    assert!(sent_to("robot@example.com").is_empty());
    assert!(sent_to("stranger@example.net").is_empty());
}

db_test!(a_message_taken_in_but_not_put_away_makes_nothing_twice);
async fn a_message_taken_in_but_not_put_away_makes_nothing_twice(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("crash");
    let id = mailbox(app, &root, port, &user, json!({"done_folder": "Done"})).await;
    let first = message("fay@example.com", "crash1@x", "Badge reader", "", "Dead.");
    deliver(port, &user, "INBOX", &first).await;
    let state = app.state.clone();
    assert_eq!(fetched(&state, id).await.taken, 1);
    let ticket = tickets(app, &bob).await[0]["id"].as_i64().unwrap();
    // The fetcher commits a reply, and dies before it moves the message: it is still in the inbox.
    let reply = message(
        "fay@example.com",
        "crash2@x",
        &format!("Re: Badge reader [TKT-{ticket:03}]"),
        "",
        "Still dead.",
    );
    deliver(port, &user, "INBOX", &reply).await;
    let made = deskgraph::service::mail_in::receive(
        state.write_deps(deskgraph::domain::Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        &reply,
        None,
    )
    .await
    .unwrap();
    assert!(
        matches!(
            made,
            Ok(deskgraph::service::mail_in::Received::Comment { .. })
        ),
        "{made:?}"
    );
    // The next fetcher finds it, knows it, and only puts it away.
    let look = fetched(&state, id).await;
    assert_eq!((look.taken, look.ignored), (0, 1), "{look:?}");
    assert_eq!(count(port, &user, "INBOX").await.0, 0);
    assert_eq!(count(port, &user, "Done").await.0, 2);
    let comments = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{ticket}/comments/"))
        .await;
    assert_eq!(
        comments.text.matches("Still dead.").count(),
        1,
        "{}",
        comments.text
    );
    assert_eq!(tickets(app, &bob).await.len(), 1);
}

db_test!(the_running_service_fetches_mail_as_it_arrives);
async fn the_running_service_fetches_mail_as_it_arrives(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("idle");
    mailbox(app, &root, port, &user, json!({"done_folder": "Done"})).await;
    let running = tokio::spawn(fetch::run(app.state.mail_fetcher()));
    let bob = &bob;
    let arrived = |n: usize| async move {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if tickets(app, bob).await.len() >= n {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        false
    };
    deliver(
        port,
        &user,
        "INBOX",
        &message("gus@example.com", "idle1@x", "Wi-Fi slow", "", "Slow."),
    )
    .await;
    assert!(arrived(1).await, "the first message became no ticket");
    // The fetcher now waits in IDLE; a new message wakes it well before its minute is up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    deliver(
        port,
        &user,
        "INBOX",
        &message("gus@example.com", "idle2@x", "Wi-Fi down", "", "Down."),
    )
    .await;
    let started = Instant::now();
    assert!(arrived(2).await, "the second message became no ticket");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(count(port, &user, "Done").await.0, 2);

    // A mailbox an administrator adds while the service runs is read within seconds, not at some later
    // round.
    let second = fresh_user("idle-new");
    deliver(
        port,
        &second,
        "INBOX",
        &message("gus@example.com", "idle3@x", "Printer", "", "Jammed."),
    )
    .await;
    mailbox(app, &root, port, &second, json!({"done_folder": "Done"})).await;
    let started = Instant::now();
    assert!(arrived(3).await, "mail in the new mailbox became no ticket");
    assert!(
        started.elapsed() < Duration::from_secs(12),
        "{:?}",
        started.elapsed()
    );
    running.abort();
}

db_test!(mailboxes_are_managed_by_administrators_and_keep_their_secret);
async fn mailboxes_are_managed_by_administrators_and_keep_their_secret(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("admin");
    let body = json!({"name": "Desk", "url": imap::url(port, &user, "INBOX"), "secret": "wrong"});
    assert_eq!(
        app.as_user(&bob)
            .post("/api/mailboxes/", body.clone())
            .await
            .status,
        403
    );
    assert_eq!(app.as_user(&bob).get("/api/mailboxes/").await.status, 403);
    assert_eq!(app.anonymous().get("/api/mailboxes/").await.status, 401);
    let made = app.as_user(&root).post("/api/mailboxes/", body).await;
    assert_eq!(made.status, 201, "{}", made.text);
    assert!(!made.text.contains("wrong"), "{}", made.text);
    assert_eq!(made.json["failed_folder"], "failed");
    assert_eq!(made.json["active"], true);
    let id = made.json["id"].as_i64().unwrap() as i32;

    // A wrong password: the attempt fails and the mailbox says why.
    assert!(fetch::fetch_once(&app.state.mail_fetcher(), id)
        .await
        .is_err());
    let shown = app
        .as_user(&root)
        .get(&format!("/api/mailboxes/{id}/"))
        .await;
    let error = shown.json["last_error"].as_str().unwrap_or_default();
    assert!(error.contains("sign-in refused"), "{}", shown.text);
    assert!(!shown.text.contains("wrong"), "{}", shown.text);
    // The right one, through a change: the verdict is cleared, and the next attempt reads the folder.
    let changed = app
        .as_user(&root)
        .patch(
            &format!("/api/mailboxes/{id}/"),
            json!({"secret": PASSWORD}),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(changed.json["last_error"], Value::Null);
    assert!(fetch::fetch_once(&app.state.mail_fetcher(), id)
        .await
        .is_ok());
    // The audit trail says the secret was set, never what it is.
    let trail = entity::audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let kept: Vec<String> = trail
        .iter()
        .filter(|e| e.entity_type == "mailbox")
        .map(|e| e.changes.to_string())
        .collect();
    assert_eq!(kept.len(), 2, "create and update are recorded: {kept:?}");
    assert!(kept[1].contains("\"secret\""), "{kept:?}");
    assert!(
        kept.iter()
            .all(|t| !t.contains("wrong") && !t.contains(PASSWORD)),
        "{kept:?}"
    );

    for (bad, key) in [
        (
            json!({"name": "x", "url": "https://mail.example.com/", "secret": "s"}),
            "url",
        ),
        (
            json!({"name": "x", "url": "imaps://desk:pw@mail.example.com/", "secret": "s"}),
            "url",
        ),
        (
            json!({"name": "x", "url": "imaps://mail.example.com/", "secret": "s"}),
            "url",
        ),
        (
            json!({"name": "x", "url": "imaps://d@mail.example.com/\u{0}", "secret": "s"}),
            "url",
        ),
        (
            json!({"name": "x", "url": "imaps://d@mail.example.com/", "secret": ""}),
            "secret",
        ),
        (
            json!({"name": "", "url": "imaps://d@mail.example.com/", "secret": "s"}),
            "name",
        ),
        (
            json!({"name": "x".repeat(101), "url": "imaps://d@mail.example.com/", "secret": "s"}),
            "name",
        ),
        (
            json!({"name": "x", "url": "imaps://d@mail.example.com/", "secret": "s", "project": 999}),
            "project",
        ),
        (
            json!({"name": "x", "url": "imaps://d@mail.example.com/", "secret": "s", "project": "abc"}),
            "project",
        ),
        (
            json!({"name": "x", "url": "imaps://d@mail.example.com/", "secret": "s", "done_folder": ""}),
            "done_folder",
        ),
        (json!({"name": "x", "url": 7, "secret": "s"}), "url"),
        (
            json!({"url": "imaps://d@mail.example.com/", "secret": "s"}),
            "name",
        ),
    ] {
        let refused = app
            .as_user(&root)
            .post("/api/mailboxes/", bad.clone())
            .await;
        assert_eq!(refused.status, 400, "{bad}: {}", refused.text);
        assert!(refused.text.contains(key), "{bad}: {}", refused.text);
    }
    assert_eq!(
        app.as_user(&root).get("/api/mailboxes/abc/").await.status,
        404
    );
    assert_eq!(
        app.as_user(&root).get("/api/mailboxes/99999/").await.status,
        404
    );
    // GraphQL: the same mailbox for administrators, nothing for anyone else, and the same rules on a
    // create.
    let query = "{ mailboxes { id databaseId name url doneFolder failedFolder active lastError checkedAt } }";
    let listed = app.graphql(Some(&root.token), query, json!({})).await;
    let first = &listed["data"]["mailboxes"][0];
    assert_eq!(first["id"], gid("Mailbox", id), "{listed}");
    assert_eq!(first["url"], imap::url(port, &user, "INBOX"));
    assert_eq!(first["failedFolder"], "failed");
    assert!(first["checkedAt"].is_string(), "{listed}");
    let forbidden = app.graphql(Some(&bob.token), query, json!({})).await;
    assert_eq!(forbidden["errors"][0]["extensions"]["code"], "FORBIDDEN");
    let node = app
        .graphql(
            Some(&bob.token),
            "query($id: ID!) { node(id: $id) { id } }",
            json!({"id": gid("Mailbox", id)}),
        )
        .await;
    assert!(node["data"]["node"].is_null(), "{node}");
    let create = "mutation($input: CreateMailboxInput!) { createMailbox(input: $input) { mailbox { databaseId doneFolder } } }";
    let made = app
        .graphql(
            Some(&root.token),
            create,
            json!({"input": {"name": "Second", "url": "imaps://desk@mail.example.com/", "secret": "s", "doneFolder": "Done"}}),
        )
        .await;
    assert_eq!(
        made["data"]["createMailbox"]["mailbox"]["doneFolder"], "Done",
        "{made}"
    );
    let refused = app
        .graphql(
            Some(&root.token),
            create,
            json!({"input": {"name": "Third", "url": "imaps://desk:pw@mail.example.com/", "secret": "s"}}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{refused}"
    );
    let second = made["data"]["createMailbox"]["mailbox"]["databaseId"]
        .as_i64()
        .unwrap();
    let gone = app
        .graphql(
            Some(&root.token),
            "mutation($id: ID!) { deleteMailbox(input: {id: $id}) { deletedMailboxId } }",
            json!({"id": gid("Mailbox", second as i32)}),
        )
        .await;
    assert_eq!(
        gone["data"]["deleteMailbox"]["deletedMailboxId"],
        gid("Mailbox", second as i32)
    );

    let deleted = app
        .as_user(&root)
        .delete(&format!("/api/mailboxes/{id}/"))
        .await;
    assert_eq!(deleted.status, 204);
    assert_eq!(
        app.as_user(&root).get("/api/mailboxes/").await.json,
        json!([])
    );
}

db_test!(an_admin_adds_a_mailbox_from_the_page_and_sees_how_it_reads);
async fn an_admin_adds_a_mailbox_from_the_page_and_sees_how_it_reads(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    use axum::http::StatusCode;
    let Some(port) = imap::server() else { return };
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let ada = login(app, &admin).await;
    let user = fresh_user("page");
    let url = imap::url(port, &user, "INBOX");
    let made = ada
        .form(
            app,
            "/admin/mail/",
            &[
                ("name", "Help desk"),
                ("url", url.as_str()),
                ("secret", "not-it"),
                ("done_folder", "Done"),
                ("failed_folder", "failed"),
            ],
        )
        .await;
    assert_eq!(location(&made), "/admin/mail/?done=created");
    let bad = ada
        .form(
            app,
            "/admin/mail/",
            &[
                ("name", "Bad"),
                ("url", "imaps://me:pw@mail.example.com/"),
                ("secret", "x"),
            ],
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("role=\"alert\""), "{}", bad.text);
    assert!(bad.text.contains("password"), "{}", bad.text);
    let page = ada.page(app, "/admin/mail/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("Not read yet"), "{}", page.text);
    assert!(!page.text.contains("not-it"), "the secret is shown back");
    // How a mail server hands mail in: over HTTP only once the service has the secret.
    assert!(
        page.text
            .contains("<code class=\"command\">deskgraph mail-in</code>")
            && page
                .text
                .contains("set DESKGRAPH_MAIL_IN_SECRET on the service"),
        "{}",
        page.text
    );

    // The wrong password: the page says why the mailbox cannot be read.
    let id = app.as_user(&admin).get("/api/mailboxes/").await.json[0]["id"]
        .as_i64()
        .unwrap() as i32;
    assert!(fetch::fetch_once(&app.state.mail_fetcher(), id)
        .await
        .is_err());
    let page = ada.page(app, "/admin/mail/").await;
    assert!(
        page.text.contains("Cannot be read: sign-in refused"),
        "{}",
        page.text
    );
    // A new secret (a blank one would keep the stored): then it reads.
    let id_text = id.to_string();
    let saved = ada
        .form(
            app,
            "/admin/mail/change/",
            &[
                ("id", id_text.as_str()),
                ("name", "Help desk"),
                ("url", url.as_str()),
                ("secret", PASSWORD),
                ("done_folder", "Done"),
                ("failed_folder", "failed"),
                ("active", "1"),
            ],
        )
        .await;
    assert_eq!(location(&saved), "/admin/mail/?done=saved");
    assert!(fetch::fetch_once(&app.state.mail_fetcher(), id)
        .await
        .is_ok());
    let page = ada.page(app, "/admin/mail/").await;
    assert!(page.text.contains("Read at"), "{}", page.text);

    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/mail/").await.status,
        StatusCode::FORBIDDEN
    );
    let refused = agnes
        .form(
            app,
            "/admin/mail/change/",
            &[("id", id_text.as_str()), ("delete", "1")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let gone = ada
        .form(
            app,
            "/admin/mail/change/",
            &[("id", id_text.as_str()), ("delete", "1")],
        )
        .await;
    assert_eq!(location(&gone), "/admin/mail/?done=deleted");
    assert_eq!(
        app.as_user(&admin).get("/api/mailboxes/").await.json,
        json!([])
    );
}

/// A message as Thunderbird sends one with a picture pasted into the text and a file attached:
/// `multipart/mixed` around `multipart/related` (HTML and its inline image) and a PDF.
fn with_files(from: &str, id: &str, subject: &str, big: usize) -> Vec<u8> {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    // The smallest PNG there is: its signature and an IHDR chunk are what the type is detected from.
    let png: Vec<u8> = [
        &b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"[..],
        &b"\x00\x00\x00\rIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82"[..],
    ]
    .concat();
    let pdf = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n";
    let large = vec![b'z'; big];
    format!(
        "From: {from}\r\nTo: help@desk.example.org\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n\
--outer\r\nContent-Type: multipart/related; boundary=\"inner\"\r\n\r\n\
--inner\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>The screen shows this:</p><img src=\"cid:shot@x\">\r\n\
--inner\r\nContent-Type: image/png\r\nContent-ID: <shot@x>\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n\r\n{png}\r\n\
--inner--\r\n\
--outer\r\nContent-Type: application/pdf; name=\"invoice.pdf\"\r\nContent-Disposition: attachment; filename=\"invoice.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{pdf}\r\n\
--outer\r\nContent-Type: text/plain; name=\"huge.log\"\r\nContent-Disposition: attachment; filename=\"huge.log\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{large}\r\n\
--outer--\r\n",
        png = b64(&png),
        pdf = b64(pdf),
        large = b64(&large),
    )
    .into_bytes()
}

db_test!(files_in_mail_arrive_on_the_ticket_and_the_reply);
async fn files_in_mail_arrive_on_the_ticket_and_the_reply(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let state = state_configured(app, |c| c.max_upload_bytes = 4096);
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("files");
    let id = mailbox(app, &root, port, &user, json!({"done_folder": "Done"})).await;
    deliver(
        port,
        &user,
        "INBOX",
        &with_files("ivy@example.com", "files1@x", "Screen broken", 8000),
    )
    .await;
    assert_eq!(fetched(&state, id).await.taken, 1);
    let ticket = tickets(app, &bob).await[0]["id"].as_i64().unwrap();
    let detail = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{ticket}/"))
        .await;
    let files: Vec<(String, String)> = detail.json["attachments"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|a| {
            (
                a["filename"].as_str().unwrap_or_default().to_string(),
                a["content_type"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        files.contains(&("invoice.pdf".into(), "application/pdf".into())),
        "{files:?}"
    );
    assert!(
        files.iter().any(|(_, t)| t == "image/png"),
        "the inline image: {files:?}"
    );
    assert_eq!(
        files.len(),
        2,
        "the file over the limit is left out: {files:?}"
    );
    // The text says which file did not arrive.
    let description = detail.json["description"].as_str().unwrap_or_default();
    assert!(
        description.contains("The screen shows this:"),
        "{description}"
    );
    assert!(description.contains("huge.log not kept"), "{description}");

    // A reply with files: they hang on the comment the reply became.
    deliver(
        port,
        &user,
        "INBOX",
        &with_files(
            "ivy@example.com",
            "files2@x",
            &format!("Re: Screen broken [TKT-{ticket:03}]"),
            10,
        ),
    )
    .await;
    assert_eq!(fetched(&state, id).await.taken, 1);
    let comments = entity::comment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let comment = comments
        .iter()
        .find(|c| c.ticket_id == ticket as i32)
        .unwrap();
    let on_comment = entity::attachment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.comment_id == Some(comment.id))
        .count();
    assert_eq!(on_comment, 3, "the PDF, the picture and the small log");
}

db_test!(a_full_mailbox_is_worked_through_batch_after_batch);
async fn a_full_mailbox_is_worked_through_batch_after_batch(app: &TestApp) {
    let Some(port) = imap::server() else { return };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("backlog");
    let id = mailbox(app, &root, port, &user, json!({"done_folder": "Processed"})).await;
    // 110 messages wait (a weekend's backlog), from two senders within their hourly pace.
    let mut s = imap::session(port, &user).await;
    for n in 0..110 {
        let from = format!("sender{}@example.com", n % 2);
        let raw = message(
            &from,
            &format!("m{n}@x"),
            &format!("Backlog {n}"),
            "",
            "Help.",
        );
        s.append("INBOX", None, None, &raw).await.unwrap();
    }
    s.logout().await.unwrap();

    // A look takes one batch of 100, the oldest first; the next takes the rest; then nothing is left.
    let state = app.state.clone();
    let first = fetched(&state, id).await;
    assert_eq!(first.taken, 100, "{first:?}");
    // The oldest went first: the ten left are the last ten sent.
    let left: Vec<String> = imap::messages(port, &user, "INBOX")
        .await
        .iter()
        .filter_map(|m| header(&String::from_utf8_lossy(m), "Subject"))
        .collect();
    let expected: Vec<String> = (100..110).map(|n| format!("Backlog {n}")).collect();
    assert_eq!(left, expected);
    let second = fetched(&state, id).await;
    assert_eq!(second.taken, 10, "{second:?}");
    assert_eq!(fetched(&state, id).await, Look::default());
    assert_eq!(count(port, &user, "INBOX").await.0, 0);
    assert_eq!(count(port, &user, "Processed").await.0, 110);
    let listed = app.as_user(&bob).get("/api/tickets/?search=Backlog").await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(listed.json["count"], 110, "{}", listed.text);
}

db_test!(a_mailbox_signs_in_with_an_oauth2_bearer_token);
async fn a_mailbox_signs_in_with_an_oauth2_bearer_token(app: &TestApp) {
    // Dovecot checks each token at a real OpenID Connect provider, as Microsoft 365 or Gmail check theirs.
    let Some((port, issuer)) = imap::oauth_server() else {
        return;
    };
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let user = fresh_user("oauth");
    let token = imap::bearer(&issuer, &user).await;
    let made = app
        .as_user(&root)
        .post(
            "/api/mailboxes/",
            json!({"name": "Cloud desk", "secret": token,
                   "url": format!("imap://{user};AUTH=XOAUTH2@127.0.0.1:{port}/INBOX?tls=none")}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    assert!(!made.text.contains(&token), "{}", made.text);
    let id = made.json["id"].as_i64().unwrap() as i32;
    let first = message(
        "fay@example.com",
        "oauth1@x",
        "Projector flickers",
        "",
        "Room 4.",
    );
    deliver(port, &user, "INBOX", &first).await;
    let look = fetched(&app.state, id).await;
    assert_eq!(look.taken, 1, "{look:?}");
    assert_eq!(tickets(app, &bob).await[0]["title"], "Projector flickers");

    // The mailbox says why a token is refused, and never shows it: one issued for another mailbox's user,
    // then the right one after the provider withdrew it.
    let root_ref = &root;
    let shown = |secret: String| async move {
        let root = root_ref;
        let changed = app
            .as_user(root)
            .patch(
                &format!("/api/mailboxes/{id}/"),
                json!({ "secret": secret }),
            )
            .await;
        assert_eq!(changed.status, 200, "{}", changed.text);
        assert!(fetch::fetch_once(&app.state.mail_fetcher(), id)
            .await
            .is_err());
        let shown = app
            .as_user(root)
            .get(&format!("/api/mailboxes/{id}/"))
            .await;
        assert!(!shown.text.contains(&secret), "{}", shown.text);
        shown.json["last_error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let elsewhere = imap::bearer(&issuer, &fresh_user("oauth")).await;
    let error = shown(elsewhere).await;
    assert!(error.contains("sign-in refused"), "{error}");
    imap::revoke(&issuer, &user).await;
    let error = shown(token.clone()).await;
    assert!(error.contains("sign-in refused"), "{error}");

    // A new token from the provider, and the mail that came meanwhile is fetched.
    let renewed = imap::bearer(&issuer, &user).await;
    let changed = app
        .as_user(&root)
        .patch(
            &format!("/api/mailboxes/{id}/"),
            json!({ "secret": renewed }),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    let second = message(
        "gus@example.com",
        "oauth2@x",
        "Dock is dead",
        "",
        "No power.",
    );
    deliver(port, &user, "INBOX", &second).await;
    let look = fetched(&app.state, id).await;
    assert_eq!(look.taken, 1, "{look:?}");
    assert_eq!(tickets(app, &bob).await[0]["title"], "Dock is dead");
}
