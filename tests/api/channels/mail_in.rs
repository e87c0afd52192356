//! Mail in: a message to the help desk opens a ticket as its sender; a reply threads onto the ticket by our
//! message ids or the subject tag, only for a sender who may see that ticket; machine mail, duplicates and
//! refused senders do nothing; and `deskgraph mail-in` answers a mail server with the documented codes.
use crate::db_test;
use crate::support::events::{password_reset_token, state_with};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::login::{sign_in, Door, Outcome};
use crate::support::sla::run_at;
use axum::http::StatusCode;
use chrono::Utc;
use deskgraph::domain::CommentType;
use deskgraph::notify::mailer::thread_root;
use deskgraph::service::mail_in::{self, Received, Refused};
use deskgraph::state::AppState;
use sea_orm::EntityTrait;
use serde_json::json;

async fn mail(state: &AppState, raw: &str) -> Result<Received, Refused> {
    mail_to(state, raw, None).await
}

/// [`mail`] to a project's address (`mail-in --project`, or a mailbox of the project).
async fn mail_to(state: &AppState, raw: &str, project: Option<i32>) -> Result<Received, Refused> {
    mail_in::receive(
        state.write_deps(deskgraph::domain::Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        raw.as_bytes(),
        project,
    )
    .await
    .unwrap()
}

fn message(from: &str, id: &str, subject: &str, extra: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: help@example.com\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n{extra}\r\n{body}\r\n"
    )
}

fn ticket_of(received: &Result<Received, Refused>) -> i32 {
    match received {
        Ok(Received::Ticket(id)) => *id,
        other => panic!("not a new ticket: {other:?}"),
    }
}

/// `deskgraph mail-in` with `args` and `env`, `raw` on its standard input, as a mail server's pipe runs it: its
/// exit code, standard output and standard error.
async fn pipe_to_mail_in(
    args: &[&str],
    env: &[(&str, &str)],
    raw: &[u8],
) -> (Option<i32>, String, String) {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_deskgraph"))
        .arg("mail-in")
        .args(args)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(raw).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The ticket's requester, title and comments (body, type, author) as `who` reads them.
async fn seen(app: &TestApp, who: &TestUser, id: i32) -> serde_json::Value {
    app.as_user(who)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { title description status requester { username email }
              comments(first: 20) { nodes { body commentType author { username } } } } }",
            json!({ "n": id }),
        )
        .await["ticket"]
        .clone()
}

db_test!(a_stranger_writes_gets_a_ticket_and_their_reply_lands_on_it);
async fn a_stranger_writes_gets_a_ticket_and_their_reply_lands_on_it(app: &TestApp) {
    let bob = app.agent("bob").await;
    let (state, mailer) = state_with(app, |_| {});
    let first = mail(
        &state,
        &message(
            "Dana Stone <Dana.Stone@Example.com>",
            "first@mail.example.com",
            "VPN drops every hour",
            "",
            "It drops.\r\nEvery hour.\r\n\r\n-- \r\nDana, Sales",
        ),
    )
    .await;
    let id = ticket_of(&first);
    let t = seen(app, &bob, id).await;
    assert_eq!(t["title"], "VPN drops every hour");
    assert_eq!(t["description"], "<p>It drops.<br>Every hour.</p>");
    assert_eq!(t["requester"]["email"], "dana.stone@example.com");

    // The same message again (a mail server's retry) does nothing.
    let again = mail(
        &state,
        &message(
            "dana.stone@example.com",
            "first@mail.example.com",
            "VPN drops every hour",
            "",
            "It drops.",
        ),
    )
    .await;
    assert_eq!(again, Ok(Received::Ignored("already taken in")));

    // The agent answers; the email about it names the ticket, and a reply to it threads back.
    let posted = app
        .as_user(&bob)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "Which VPN client?", "comment_type": "public"}),
        )
        .await;
    assert!(posted.status.is_success(), "{}", posted.text);
    // It waits for Dana meanwhile; Dana's answer by email puts it back in the queue.
    let held = app
        .as_user(&bob)
        .patch(&format!("/api/tickets/{id}/"), json!({"status": "on_hold"}))
        .await;
    assert_eq!(held.json["status"], "on_hold", "{}", held.text);
    run_at(&state, Utc::now()).await;
    let to_dana: Vec<_> = mailer
        .sent()
        .into_iter()
        .filter(|e| e.to == "dana.stone@example.com")
        .collect();
    assert!(!to_dana.is_empty());
    assert!(to_dana.iter().all(|e| e.ticket == Some(id)), "{to_dana:?}");
    let references = format!(
        "References: {}\r\nIn-Reply-To: <ticket-{id}.x1y2@localhost>\r\n",
        thread_root(id, "localhost")
    );
    let reply = mail(
        &state,
        &message(
            "dana.stone@example.com",
            "reply@mail.example.com",
            "Re: something else entirely",
            &references,
            "The Cisco one.\r\n\r\nOn Tue, Help Desk <help@example.com> wrote:\r\n> Which VPN client?",
        ),
    )
    .await;
    let Ok(Received::Comment { ticket, .. }) = reply else {
        panic!("not threaded: {reply:?}");
    };
    assert_eq!(ticket, id);
    let t = seen(app, &bob, id).await;
    let last = t["comments"]["nodes"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["body"], "<p>The Cisco one.</p>");
    assert_eq!(last["commentType"], "PUBLIC");
    assert_eq!(last["author"]["username"], t["requester"]["username"]);
    let now = app.as_user(&bob).get(&format!("/api/tickets/{id}/")).await;
    assert_eq!(now.json["status"], "open", "{}", now.text);

    // Dana's account has no password: none signs in to it, not even what it stores, until Dana sets one
    // through a reset link.
    let username = t["requester"]["username"].as_str().unwrap().to_string();
    let stored = entity::user::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .find(|u| u.username == username)
        .unwrap()
        .password_hash;
    for guess in ["", stored.as_str(), "dana.stone@example.com"] {
        assert_eq!(
            sign_in(app, Door::Rest, &username, guess).await,
            Outcome::Refused,
            "{guess:?}"
        );
    }
    let asked = app
        .post(
            "/api/auth/password-reset/",
            None,
            json!({"email": "dana.stone@example.com"}),
        )
        .await;
    assert_eq!(asked.status, axum::http::StatusCode::ACCEPTED);
    let link = password_reset_token(app).await;
    let set = app
        .post(
            "/api/auth/password-reset/confirm/",
            None,
            json!({"token": link, "new_password": "dana-chose-this"}),
        )
        .await;
    assert_eq!(
        set.status,
        axum::http::StatusCode::NO_CONTENT,
        "{}",
        set.text
    );
    assert_eq!(
        sign_in(app, Door::Rest, &username, "dana-chose-this").await,
        Outcome::SignedIn
    );
}

db_test!(subject_tags_thread_only_for_senders_who_may_see_the_ticket);
async fn subject_tags_thread_only_for_senders_who_may_see_the_ticket(app: &TestApp) {
    // Test accounts' emails are <username>@example.com.
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let mallory = app.user("mallory").await;
    let state = &app.state;
    let id = ticket_of(
        &mail(
            state,
            &message("ann@example.com", "a1@x", "Printer jams", "", "Jams."),
        )
        .await,
    );
    let tag = format!("TKT-{id:03}");

    // Ann's reply by the subject tag alone threads.
    let reply = mail(
        state,
        &message(
            "ann@example.com",
            "a2@x",
            &format!("Re: New Ticket: Printer jams ({tag})"),
            "",
            "Still jams.",
        ),
    )
    .await;
    assert!(
        matches!(reply, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{reply:?}"
    );

    // Mallory names Ann's ticket by tag and by our message id: a new ticket of her own, Ann's untouched.
    let forged = format!("References: {}\r\n", thread_root(id, "localhost"));
    let theirs = mail(
        state,
        &message(
            "mallory@example.com",
            "m1@x",
            &format!("Re: [{tag}]"),
            &forged,
            "Let me in.",
        ),
    )
    .await;
    let other = ticket_of(&theirs);
    assert_ne!(other, id);
    assert_eq!(
        seen(app, &mallory, other).await["requester"]["username"],
        "mallory"
    );
    let anns = seen(app, &ann, id).await;
    assert_eq!(anns["comments"]["nodes"].as_array().unwrap().len(), 1);

    // An agent may make an internal note by mail; a requester's marker stays public text.
    let note = mail(
        state,
        &message(
            "bob@example.com",
            "b1@x",
            &format!("[{tag}]"),
            "",
            "#internal\r\nCartridge on order.",
        ),
    )
    .await;
    assert!(matches!(note, Ok(Received::Comment { .. })), "{note:?}");
    let plain = mail(
        state,
        &message(
            "ann@example.com",
            "a3@x",
            &format!("[{tag}]"),
            "",
            "#internal\r\nhello",
        ),
    )
    .await;
    assert!(matches!(plain, Ok(Received::Comment { .. })), "{plain:?}");
    let by_bob = seen(app, &bob, id).await;
    let kinds: Vec<(String, String)> = by_bob["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["author"]["username"].as_str().unwrap().to_string(),
                c["commentType"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("ann".to_string(), "PUBLIC".to_string()),
            ("bob".to_string(), "INTERNAL".to_string()),
            ("ann".to_string(), "PUBLIC".to_string()),
        ]
    );
    let anns = seen(app, &ann, id).await;
    assert!(!anns.to_string().contains("Cartridge"), "{anns}");

    // A reply to a closed ticket opens a new one.
    for status in ["resolved", "closed"] {
        let moved = app
            .as_user(&bob)
            .patch(&format!("/api/tickets/{id}/"), json!({ "status": status }))
            .await;
        assert!(moved.status.is_success(), "{}", moved.text);
    }
    let late = mail(
        state,
        &message(
            "ann@example.com",
            "a4@x",
            &format!("Re: ({tag})"),
            "",
            "It is back.",
        ),
    )
    .await;
    assert_ne!(ticket_of(&late), id);
}

db_test!(machine_mail_and_refused_senders_make_nothing);
async fn machine_mail_and_refused_senders_make_nothing(app: &TestApp) {
    let root = app.admin("root").await;
    let gone = app.user("gone").await;
    let deactivated = app
        .as_user(&root)
        .post(&format!("/api/users/{}/deactivate/", gone.id), json!({}))
        .await;
    assert!(deactivated.status.is_success(), "{}", deactivated.text);
    let state = &app.state;
    for extra in [
        "Auto-Submitted: auto-replied\r\n",
        "X-Autoreply: yes\r\n",
        "Precedence: bulk\r\n",
        "Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n",
    ] {
        let got = mail(
            state,
            &message(
                "someone@example.com",
                &format!("{}@x", extra.len()),
                "Out of office",
                extra,
                "Away",
            ),
        )
        .await;
        assert!(matches!(got, Ok(Received::Ignored(_))), "{extra}: {got:?}");
    }
    let own = mail(
        state,
        &message(
            "deskgraph@localhost",
            "own@x",
            "New Ticket: x (TKT-001)",
            "",
            "loop",
        ),
    )
    .await;
    assert!(matches!(own, Ok(Received::Ignored(_))), "{own:?}");
    let refused = mail(
        state,
        &message("gone@example.com", "g1@x", "Hello", "", "Let me back in"),
    )
    .await;
    assert!(matches!(refused, Err(Refused::Sender(_))), "{refused:?}");
    let unreadable = mail(state, "no headers at all").await;
    assert!(
        matches!(unreadable, Err(Refused::Unreadable(_))),
        "{unreadable:?}"
    );

    let (closed, _) = state_with(app, |c| c.mail_in_open = false);
    let stranger = mail(
        &closed,
        &message("stranger@example.com", "s1@x", "Hello", "", "Hi"),
    )
    .await;
    assert!(matches!(stranger, Err(Refused::Sender(_))), "{stranger:?}");
    let listed = app.as_user(&root).get("/api/tickets/").await;
    assert_eq!(listed.json["count"], 0, "{}", listed.text);

    // A message without an id is known by its content.
    let anonymous = "From: ivan@example.com\r\nSubject: Keyboard\r\n\r\nSticky keys.\r\n";
    assert!(matches!(
        mail(state, anonymous).await,
        Ok(Received::Ticket(_))
    ));
    assert_eq!(
        mail(state, anonymous).await,
        Ok(Received::Ignored("already taken in"))
    );

    // Other charsets are decoded.
    let latin = "From: Jörg <joerg@example.com>\r\nSubject: =?ISO-8859-1?Q?Dr=FCcker_kaputt?=\r\nMessage-ID: <l1@x>\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nDer Dr=FCcker ist kaputt.\r\n";
    let id = ticket_of(&mail(state, latin).await);
    let t = seen(app, &root, id).await;
    assert_eq!(t["title"], "Drücker kaputt");
    assert_eq!(t["description"], "<p>Der Drücker ist kaputt.</p>");
}

db_test!(mail_in_answers_the_mail_server_with_its_exit_codes);
async fn mail_in_answers_the_mail_server_with_its_exit_codes(app: &TestApp) {
    let root = app.admin("root").await;
    let run_with = |input: String, args: Vec<String>| {
        let url = app.state.config.database_url.clone();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, _) =
                pipe_to_mail_in(&args, &[("DATABASE_URL", &url)], input.as_bytes()).await;
            (code, out)
        }
    };
    let run = |input: String| run_with(input, Vec::new());
    let (code, out) = run(message(
        "eve@example.com",
        "e1@x",
        "Monitor flickers",
        "",
        "Flickers.",
    ))
    .await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ticket"), "{out}");
    assert_eq!(run("not a message".into()).await.0, Some(65));
    let listed = app.as_user(&root).get("/api/tickets/").await;
    assert_eq!(listed.json["count"], 1, "{}", listed.text);
    assert_eq!(listed.json["results"][0]["title"], "Monitor flickers");

    // `--project`: an alias of the project's own; a project that does not exist is the alias's fault (78).
    let project = app
        .as_user(&root)
        .post("/api/projects/", json!({"name": "Screens"}))
        .await
        .json["id"]
        .as_i64()
        .unwrap();
    let into = |p: i64| vec!["--project".to_string(), p.to_string()];
    let screen = message("eve@example.com", "e2@x", "Second screen dark", "", "Dark.");
    let (code, out) = run_with(screen.clone(), into(99999)).await;
    assert_eq!(code, Some(78), "{out}");
    let (code, out) = run_with(screen, into(project)).await;
    assert_eq!(code, Some(0), "{out}");
    let stored = entity::ticket::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let dark = stored
        .iter()
        .find(|t| t.title == "Second screen dark")
        .unwrap();
    assert_eq!(dark.project_id, Some(project as i32));
}

db_test!(a_mail_server_hands_messages_to_the_running_service);
/// `deskgraph mail-in --url`, as a mail server on another host runs it: the message goes to the running
/// service over HTTP, which takes it in as the command itself does, and the exit codes are the command's.
async fn a_mail_server_hands_messages_to_the_running_service(app: &TestApp) {
    const SECRET: &str = "a-mail-in-secret-of-forty-characters-xx";
    let post = |router: axum::Router, secret: Option<&'static str>, raw: String| async move {
        let mut request =
            axum::http::Request::post("/api/mail/in/").header("content-type", "message/rfc822");
        if let Some(secret) = secret {
            request = request.header("x-deskgraph-mail-secret", secret);
        }
        app.send_to(&router, request.body(axum::body::Body::from(raw)).unwrap())
            .await
    };
    let hello = || {
        message(
            "gus@example.com",
            "g1@x",
            "Badge reader broken",
            "",
            "It beeps.",
        )
    };
    // Closed unless the service was given the secret.
    let closed = post(app.router.clone(), Some(SECRET), hello()).await;
    assert_eq!(closed.status, StatusCode::NOT_FOUND, "{}", closed.text);
    assert_eq!(
        closed.json["error"],
        "this service takes no mail over HTTP: DESKGRAPH_MAIL_IN_SECRET is not set"
    );

    let (state, router) = app
        .serving_instance_with(|c| {
            c.mail_in_secret = Some(SECRET.into());
            c.rate_limit_anonymous = 2;
        })
        .await;
    // Without the secret, or with another, nothing is read and nothing is made.
    for wrong in [None, Some("not-the-mail-in-secret-not-the-mail-in-secret")] {
        let refused = post(router.clone(), wrong, hello()).await;
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
        assert_eq!(refused.json["code"], "unauthenticated", "{}", refused.text);
    }
    // Guesses count as any anonymous request does (2 an hour here); the mail server's messages do not.
    let guess = post(router.clone(), Some("guess"), hello()).await;
    assert_eq!(
        guess.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        guess.text
    );
    let tickets = || async {
        entity::ticket::Entity::find()
            .all(&state.db.conn)
            .await
            .unwrap()
    };
    assert!(tickets().await.is_empty());
    let opened = post(router.clone(), Some(SECRET), hello()).await;
    assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.text);
    assert_eq!(opened.json["outcome"], "ticket");
    let id = opened.json["ticket"].as_i64().unwrap() as i32;
    let again = post(router.clone(), Some(SECRET), hello()).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    assert_eq!(
        again.json,
        json!({"outcome": "ignored", "reason": "already taken in"})
    );
    let huge = format!("{}{}", hello(), "x".repeat(mail_in::MAX_BYTES));
    let huge = post(router.clone(), Some(SECRET), huge).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", huge.text);

    // The administrators' mail page says how to run it, never the secret.
    let root = app.admin("root").await;
    let browser = crate::support::world::login(app, &root).await;
    let page = app
        .send_to(
            &router,
            axum::http::Request::get("/admin/mail/")
                .header("cookie", browser.cookies())
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.text
            .contains("deskgraph mail-in --url &#60;this service"),
        "{}",
        page.text
    );
    assert!(!page.text.contains(SECRET));

    // The command, over a real socket, with no database of its own to reach.
    // Its base URL without the trailing slash, as an administrator may well write it.
    let base = crate::support::subscriptions::serve(state.clone())
        .await
        .replace("ws://", "http://")
        .replace("/graphql/ws", "");
    let run = |raw: String, secret: &'static str, args: Vec<String>| {
        let base = base.clone();
        async move {
            let mut all = vec!["--url", base.as_str()];
            all.extend(args.iter().map(String::as_str));
            let env = [
                ("DATABASE_URL", "sqlite:///nonexistent/deskgraph/nothing.db"),
                ("DESKGRAPH_MAIL_IN_SECRET", secret),
            ];
            let (code, out, err) = pipe_to_mail_in(&all, &env, raw.as_bytes()).await;
            (code, format!("{out}{err}"))
        }
    };
    let reply = message(
        "gus@example.com",
        "g2@x",
        "Re: Badge reader broken",
        &format!("In-Reply-To: {}\r\n", thread_root(id, "localhost")),
        "Still beeping.",
    );
    let (code, out) = run(reply, SECRET, vec![]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains(&format!("added to ticket {id}")), "{out}");
    let comments = entity::comment::Entity::find()
        .all(&state.db.conn)
        .await
        .unwrap();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].ticket_id, id);
    let fresh = message("hal@example.com", "h1@x", "Projector dim", "", "Dim.");
    let (code, out) = run(fresh.clone(), SECRET, vec![]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("opened"), "{out}");
    let (code, out) = run(fresh.clone(), SECRET, vec![]).await;
    assert_eq!((code, out.trim()), (Some(0), "ignored: already taken in"));
    let (code, out) = run("not a message".into(), SECRET, vec![]).await;
    assert_eq!(code, Some(65), "{out}");
    let project = vec!["--project".to_string(), "99999".to_string()];
    let other = message("hal@example.com", "h2@x", "Projector off", "", "Off.");
    let (code, out) = run(other.clone(), SECRET, project).await;
    assert_eq!(code, Some(78), "{out}");
    let (code, out) = run(
        other,
        "not-the-mail-in-secret-not-the-mail-in-secret",
        vec![],
    )
    .await;
    assert_eq!(code, Some(78), "{out}");
    // A URL that answers 200 but is not the service (a proxy's page): the message is kept, not lost.
    let elsewhere = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let other_base = format!("http://{}", elsewhere.local_addr().unwrap());
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut socket, _)) = elsewhere.accept().await {
            let mut request = vec![0; 64 * 1024];
            let _ = socket.read(&mut request).await;
            let page = "<html>Welcome</html>";
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    let env = [
        ("DATABASE_URL", "sqlite:///nonexistent/deskgraph/nothing.db"),
        ("DESKGRAPH_MAIL_IN_SECRET", SECRET),
    ];
    let lost = message("hal@example.com", "h3@x", "Projector hums", "", "Hums.");
    let (code, out, err) = pipe_to_mail_in(&["--url", &other_base], &env, lost.as_bytes()).await;
    assert_eq!(code, Some(75), "{out}{err}");
    let titles: Vec<String> = tickets().await.into_iter().map(|t| t.title).collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles.contains(&"Projector dim".to_string()), "{titles:?}");
}

db_test!(a_team_members_address_needs_a_trusted_pass_once_receivers_are_named);
/// With `DESKGRAPH_MAIL_TRUSTED_RECEIVERS`, a forged `From` with an agent's address cannot write an internal note:
/// only a DKIM or DMARC pass for the agent's domain, written by a named receiving server, lets mail act as them.
async fn a_team_members_address_needs_a_trusted_pass_once_receivers_are_named(app: &TestApp) {
    app.user("ann").await;
    app.agent("bob").await;
    let (state, _) = state_with(app, |c| {
        c.mail_trusted_receivers = vec!["mx.example.com".into()];
    });
    // A requester's mail needs no pass: it can reach only what the address's owner could.
    let id = ticket_of(
        &mail(
            &state,
            &message("ann@example.com", "a1@x", "Printer", "", "Jammed."),
        )
        .await,
    );
    let from_bob = |n: &str, results: &str| {
        let thread = format!("In-Reply-To: {}\r\n", thread_root(id, "localhost"));
        message(
            "bob@example.com",
            &format!("b{n}@x"),
            "Re: Printer",
            &format!("{thread}{results}"),
            "#internal\nThe roller is worn; ordered one.",
        )
    };
    let comments = || async {
        entity::comment::Entity::find()
            .all(&state.db.conn)
            .await
            .unwrap()
    };
    for (n, results) in [
        ("1", ""),
        (
            "2",
            "Authentication-Results: mx.evil.example; dkim=pass header.d=example.com\r\n",
        ),
        (
            "3",
            "Authentication-Results: mx.example.com; dkim=pass header.d=evil.example\r\n",
        ),
        (
            "4",
            "Authentication-Results: mx.example.com; dkim=fail header.d=example.com; spf=pass smtp.mailfrom=example.com\r\n",
        ),
    ] {
        let refused = mail(&state, &from_bob(n, results)).await;
        assert!(matches!(refused, Err(Refused::Sender(_))), "{n}: {refused:?}");
    }
    assert!(comments().await.is_empty());
    let signed = from_bob(
        "5",
        "Authentication-Results: mx.example.com;\r\n\tdkim=pass (2048-bit key) header.d=example.com header.s=s1\r\n",
    );
    let taken = mail(&state, &signed).await;
    assert!(
        matches!(taken, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{taken:?}"
    );
    let made = comments().await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].comment_type, CommentType::Internal);
    // Without the setting, the address is taken as it comes, as before.
    let unsigned = mail(&app.state, &from_bob("6", "")).await;
    assert!(
        matches!(unsigned, Ok(Received::Comment { .. })),
        "{unsigned:?}"
    );
}

/// The value of header `name` in a raw message (first occurrence, unfolded).
fn header(data: &str, name: &str) -> Option<String> {
    let unfolded = data.replace("\r\n ", " ").replace("\r\n\t", " ");
    unfolded.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_string())
    })
}

db_test!(a_reply_to_a_real_smtp_message_threads_by_its_headers);
async fn a_reply_to_a_real_smtp_message_threads_by_its_headers(app: &TestApp) {
    use crate::support::events::{state_configured, SmtpSink};
    let sink = SmtpSink::start().await;
    let url = sink.url.clone();
    let state = state_configured(app, |c| {
        c.smtp_url = Some(url);
        c.mail_from = "Help Desk <help@desk.example.org>".into();
    });
    let bob = app.agent("bob").await;
    let id = ticket_of(
        &mail(
            &state,
            &message(
                "erin@example.com",
                "e1@x",
                "Dock does not charge",
                "",
                "Nothing.",
            ),
        )
        .await,
    );
    let posted = app
        .as_user(&bob)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "Try the other port.", "comment_type": "public"}),
        )
        .await;
    assert!(posted.status.is_success(), "{}", posted.text);
    run_at(&state, Utc::now()).await;
    let sent = sink
        .messages()
        .into_iter()
        .rfind(|m| m.to.iter().any(|t| t.contains("erin@example.com")))
        .expect("an email to erin");
    let own = header(&sent.data, "Message-ID").expect("a Message-ID");
    assert!(own.starts_with(&format!("<ticket-{id}.")), "{own}");
    assert!(own.ends_with("@desk.example.org>"), "{own}");
    assert_eq!(
        header(&sent.data, "References").as_deref(),
        Some(thread_root(id, "desk.example.org").as_str())
    );
    // A mail client's reply: In-Reply-To the message, References the thread and the message; a subject
    // that no longer names the ticket.
    let reply = format!(
        "In-Reply-To: {own}\r\nReferences: {} {own}\r\n",
        thread_root(id, "desk.example.org")
    );
    let got = mail(
        &state,
        &message(
            "erin@example.com",
            "e2@x",
            "Re: dock",
            &reply,
            "That worked, thanks!",
        ),
    )
    .await;
    assert!(
        matches!(got, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{got:?}"
    );
}

db_test!(a_sender_past_the_hourly_pace_is_deferred);
async fn a_sender_past_the_hourly_pace_is_deferred(app: &TestApp) {
    let state = &app.state;
    let ann = app.user("ann").await;
    let first = ticket_of(
        &mail(
            state,
            &message("ann@example.com", "p0@x", "Printer", "", "Jams."),
        )
        .await,
    );
    let tag = format!("TKT-{first:03}");
    for i in 1..mail_in::MAX_PER_HOUR {
        let got = mail(
            state,
            &message(
                "ann@example.com",
                &format!("p{i}@x"),
                &format!("[{tag}]"),
                "",
                "again",
            ),
        )
        .await;
        assert!(matches!(got, Ok(Received::Comment { .. })), "{i}: {got:?}");
    }
    let deferred = mail(
        state,
        &message(
            "ann@example.com",
            "late@x",
            &format!("[{tag}]"),
            "",
            "again",
        ),
    )
    .await;
    assert_eq!(deferred, Err(Refused::TooMany));
    // Others are not held back.
    let other = mail(
        state,
        &message("bea@example.com", "b@x", "Mouse", "", "Broken."),
    )
    .await;
    assert!(matches!(other, Ok(Received::Ticket(_))), "{other:?}");
    let t = app
        .as_user(&ann)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { comments(first: 100) { nodes { id } } } }",
            json!({ "n": first }),
        )
        .await;
    assert_eq!(
        t["ticket"]["comments"]["nodes"].as_array().unwrap().len() as u64,
        mail_in::MAX_PER_HOUR - 1
    );
}

db_test!(a_reply_to_the_plus_address_threads_without_any_header);
async fn a_reply_to_the_plus_address_threads_without_any_header(app: &TestApp) {
    use crate::support::events::{state_configured, SmtpSink};
    let sink = SmtpSink::start().await;
    let url = sink.url.clone();
    let state = state_configured(app, |c| {
        c.smtp_url = Some(url);
        c.mail_from = "Help Desk <help@desk.example.org>".into();
        c.mail_reply_tokens = true;
    });
    let bob = app.agent("bob").await;
    let id = ticket_of(
        &mail(
            &state,
            &message("finn@example.com", "f1@x", "Keyboard sticky", "", "Coffee."),
        )
        .await,
    );
    let posted = app
        .as_user(&bob)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "A new one is on its way.", "comment_type": "public"}),
        )
        .await;
    assert!(posted.status.is_success(), "{}", posted.text);
    run_at(&state, Utc::now()).await;
    let sent = sink
        .messages()
        .into_iter()
        .rfind(|m| m.to.iter().any(|t| t.contains("finn@example.com")))
        .expect("an email to finn");
    let reply_to = header(&sent.data, "Reply-To").expect("a Reply-To");
    let address = reply_to
        .rsplit_once('<')
        .map(|(_, a)| a.trim_end_matches('>').to_string())
        .unwrap_or(reply_to.clone());
    assert!(address.starts_with(&format!("help+t{id}-")), "{reply_to}");
    // A client that keeps no threading header and rewrites the subject: the address alone threads it.
    let bare = format!(
        "From: finn@example.com\r\nTo: {address}\r\nSubject: thanks\r\nMessage-ID: <f2@x>\r\n\r\nGot it.\r\n"
    );
    let got = mail(&state, &bare).await;
    assert!(
        matches!(got, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{got:?}"
    );
    // A guessed tag, or the right one from someone who may not see the ticket: a ticket of its own.
    let guessed = address.replace(&format!("+t{id}-"), &format!("+t{id}-0"));
    let forged = format!(
        "From: finn@example.com\r\nTo: {guessed}\r\nSubject: guess\r\nMessage-ID: <f3@x>\r\n\r\nIn?\r\n"
    );
    assert!(matches!(
        mail(&state, &forged).await,
        Ok(Received::Ticket(_))
    ));
    let stranger = format!(
        "From: gina@example.com\r\nTo: {address}\r\nSubject: me too\r\nMessage-ID: <f4@x>\r\n\r\nIn?\r\n"
    );
    assert!(matches!(mail(&state, &stranger).await, Ok(Received::Ticket(t)) if t != id));
}

/// Real-world messages (`tests/mail-corpus/`) fed through `deskgraph mail-in` as a mail server would, each
/// with the ticket it must make: (file, title, text the description holds, text it must not hold, files).
const CORPUS: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "gmail-alternative.eml",
        "Café printer shows “paper jam”",
        "The printer by the café says “paper jam” but there is no paper inside.",
        "<div",
        &[],
    ),
    (
        "outlook-html-related.eml",
        "VPN client crashes on start",
        "The VPN client closes as soon as it starts. Screenshot below.",
        "MsoNormal",
        &["image001.png"],
    ),
    (
        "apple-mail-flowed.eml",
        "Monitor flickers (TKT-900)",
        "It starts again as soon as I plug it back in.",
        "Does it flicker without the dock?",
        // The quoted history is left out of the text, so the whole message is kept beside it.
        &["original-message.eml"],
    ),
    (
        "thunderbird-iso-8859-1.eml",
        "Scanner du 3e étage en panne",
        "Le scanner du 3e étage ne démarre plus depuis lundi.",
        "Ã",
        &[],
    ),
    (
        "shift-jis.eml",
        "プリンター故障",
        "プリンターが動きません。",
        "\u{fffd}",
        &[],
    ),
    (
        "quoted-printable.eml",
        "Badge reader north entrance",
        "the log says code=3D17 each time and this line is long enough to be folded by the encoder.",
        "=\r",
        &[],
    ),
    (
        "nested-multipart.eml",
        "Laptop docking station",
        "Die Dockingstation lädt den Laptop nicht mehr.",
        "Welche Dockingstation?",
        &["dock.png", "dmesg.txt", "original-message.eml"],
    ),
    (
        "outlook-winmail-dat.eml",
        "Shared calendar missing",
        "disappeared from Outlook this morning.",
        "winmail",
        &["winmail.dat"],
    ),
    (
        "empty-body.eml",
        "Password reset please",
        "(no text)",
        "Content-Type",
        &[],
    ),
];

db_test!(real_world_messages_make_the_tickets_their_senders_meant);
async fn real_world_messages_make_the_tickets_their_senders_meant(app: &TestApp) {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mail-corpus");
    for (file, title, holds, lacks, files) in CORPUS {
        let raw = std::fs::read(corpus.join(file)).unwrap();
        let env = [("DATABASE_URL", app.state.config.database_url.as_str())];
        let (code, said, err) = pipe_to_mail_in(&[], &env, &raw).await;
        assert_eq!(code, Some(0), "{file}: {said} {err}");
        assert!(said.contains("opened"), "{file}: {said}");
        let made = entity::ticket::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .into_iter()
            .max_by_key(|t| t.id)
            .unwrap();
        assert_eq!(made.title, *title, "{file}");
        let text = made.description.clone();
        let plain = text.replace("<br>", "\n").replace("</p><p>", "\n\n");
        assert!(plain.contains(holds), "{file}: {text}");
        assert!(!text.contains(lacks), "{file}: {text}");
        let mut kept: Vec<String> = entity::attachment::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .into_iter()
            .filter(|a| a.ticket_id == made.id)
            .map(|a| a.filename)
            .collect();
        kept.sort();
        let mut wanted: Vec<String> = files.iter().map(|f| f.to_string()).collect();
        wanted.sort();
        assert_eq!(kept, wanted, "{file}");
    }
    // The sender's name, in its own charset, names the account made for them.
    let helene = entity::user::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .find(|u| u.email.as_deref() == Some("helene.marchal@example.fr"))
        .unwrap();
    assert_eq!(helene.full_name, "Hélène Marchal");
}

/// A delivery report (RFC 3464) from `MAILER-DAEMON` about an email of ours to `to` that could not be delivered.
fn bounce(id: &str, to: &str, ours: &str) -> String {
    format!(
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\r\nTo: {ours}\r\nSubject: Undelivered Mail Returned to Sender\r\n\
Message-ID: <{id}>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/report; report-type=delivery-status; boundary=\"dsn\"\r\n\r\n\
--dsn\r\nContent-Type: text/plain\r\n\r\nThis is the mail system at host mx.example.com.\r\n\r\n\
--dsn\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n\
Final-Recipient: rfc822; {to}\r\nOriginal-Recipient: rfc822;{to}\r\nAction: failed\r\nStatus: 5.1.1\r\n\
Diagnostic-Code: smtp; 550 5.1.1 <{to}>: Recipient address rejected: User unknown\r\n\r\n\
--dsn\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: Help Desk <{ours}>\r\nTo: {to}\r\nSubject: New comment (TKT-001)\r\n\r\n\
--dsn--\r\n"
    )
}

db_test!(a_bounce_of_our_mail_is_written_down_on_the_account_it_was_for);
async fn a_bounce_of_our_mail_is_written_down_on_the_account_it_was_for(app: &TestApp) {
    use deskgraph::service::mail_in::Received;
    let (state, _) = state_with(app, |c| {
        c.mail_from = "Help Desk <help@desk.example.org>".into()
    });
    let gone = app.user("olga").await;
    let email = entity::user::Entity::find_by_id(gone.id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap()
        .email
        .unwrap();
    let report = bounce("dsn1@mx.example.com", &email, "help@desk.example.org");
    assert!(matches!(
        mail(&state, &report).await,
        Ok(Received::Ignored(_))
    ));
    // The same report again, and a report about someone else's mail: nothing more.
    assert!(matches!(
        mail(&state, &report).await,
        Ok(Received::Ignored(_))
    ));
    let foreign = bounce("dsn2@mx.example.com", &email, "news@elsewhere.example");
    assert!(matches!(
        mail(&state, &foreign).await,
        Ok(Received::Ignored(_))
    ));
    let trail: Vec<_> = entity::audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.entity_type == "user" && e.action == "email_bounced")
        .collect();
    assert_eq!(trail.len(), 1, "{trail:?}");
    assert_eq!(trail[0].entity_id, gone.id);
    let changes = trail[0].changes.to_string();
    assert!(
        changes.contains("5.1.1") && changes.contains("User unknown"),
        "{changes}"
    );
    // No ticket, no comment.
    assert!(entity::ticket::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .is_empty());
}

db_test!(a_long_log_pasted_into_a_mail_is_kept_cut_rather_than_refused);
async fn a_long_log_pasted_into_a_mail_is_kept_cut_rather_than_refused(app: &TestApp) {
    let bob = app.agent("bob").await;
    let (state, _) = state_with(app, |_| {});
    // 200 KiB of log with a form feed and a NUL in it, as a pasted terminal gives.
    let log = "kernel: <usb> reset high-speed device\x0c\x00\r\n".repeat(5000);
    let id = ticket_of(
        &mail(
            &state,
            &message("kai@example.com", "log@x", "USB resets", "", &log),
        )
        .await,
    );
    let t = seen(app, &bob, id).await;
    let text = t["description"].as_str().unwrap_or_default();
    assert!(text.len() <= 64 * 1024, "{}", text.len());
    assert!(
        text.starts_with("<p>kernel: &lt;usb&gt; reset high-speed device<br>"),
        "{}",
        &text[..80]
    );
    assert!(
        text.contains("The message was cut here"),
        "{}",
        &text[text.len() - 200..]
    );
    // A reply as long: a comment, cut the same way.
    let reply = mail(
        &state,
        &message(
            "kai@example.com",
            "log2@x",
            &format!("Re: USB resets [TKT-{id:03}]"),
            "",
            &log,
        ),
    )
    .await;
    assert!(
        matches!(reply, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{reply:?}"
    );
}

db_test!(a_message_taken_in_twice_at_once_makes_one_ticket_and_one_comment);
/// The same message sent to two help-desk addresses (two mailboxes fetched side by side), or retried by a
/// mail server while the first delivery is still being taken in: its ticket, its file and its reply are
/// made once, and every other copy is answered without making anything.
async fn a_message_taken_in_twice_at_once_makes_one_ticket_and_one_comment(app: &TestApp) {
    let bob = app.agent("bob").await;
    let (state, _mailer) = state_with(app, |_| {});
    let first = "From: Dana <dana@example.com>\r\nTo: help@example.com, it@example.com\r\n\
Subject: Scanner offline\r\nMessage-ID: <twice@mail.example.com>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
--b\r\nContent-Type: text/plain\r\n\r\nThe scanner on floor 2 is offline.\r\n\
--b\r\nContent-Type: text/plain; name=\"status.txt\"\r\nContent-Disposition: attachment; filename=\"status.txt\"\r\n\r\nOFFLINE since 08:14\r\n\
--b--\r\n";
    let copies = (0..6).map(|_| mail(&state, first));
    let answers = futures_util::future::join_all(copies).await;
    let tickets: std::collections::BTreeSet<i32> = answers
        .iter()
        .filter_map(|a| match a {
            Ok(Received::Ticket(id)) => Some(*id),
            Ok(Received::Ignored("already taken in")) => None,
            other => panic!("a copy was answered {other:?}"),
        })
        .collect();
    assert_eq!(tickets.len(), 1, "{answers:?}");
    let id = *tickets.iter().next().unwrap();
    let detail = app
        .as_user(&bob)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { attachments { filename } }
              tickets(first: 50) { totalCount } }",
            json!({ "n": id }),
        )
        .await;
    assert_eq!(
        detail["ticket"]["attachments"],
        json!([{ "filename": "status.txt" }])
    );
    assert_eq!(detail["tickets"]["totalCount"], 1);

    let number = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{id}/"))
        .await
        .json["ticket_number"]
        .as_str()
        .unwrap()
        .to_string();
    let reply = format!(
        "From: dana@example.com\r\nTo: help@example.com, it@example.com\r\nSubject: Re: [{number}] Scanner offline\r\n\
Message-ID: <twice-reply@mail.example.com>\r\n\r\nIt is back on its own.\r\n"
    );
    let copies = (0..6).map(|_| mail(&state, &reply));
    let answers = futures_util::future::join_all(copies).await;
    let made = answers
        .iter()
        .filter(|a| match a {
            Ok(Received::Comment { ticket, .. }) => *ticket == id,
            Ok(Received::Ignored("already taken in")) => false,
            other => panic!("a copy was answered {other:?}"),
        })
        .count();
    assert_eq!(made, 1, "{answers:?}");
    let t = seen(app, &bob, id).await;
    assert_eq!(
        t["comments"]["nodes"],
        json!([{ "body": "<p>It is back on its own.</p>", "commentType": "PUBLIC",
                 "author": { "username": t["requester"]["username"] } }])
    );
}

/// The ticket's status and project, and its links as `who` sees them: (type, other ticket's id).
async fn standing(
    app: &TestApp,
    who: &TestUser,
    id: i32,
) -> (String, Option<i64>, Vec<(String, i64)>) {
    let detail = app.as_user(who).get(&format!("/api/tickets/{id}/")).await;
    assert_eq!(detail.status, StatusCode::OK, "{}", detail.text);
    let links = app
        .as_user(who)
        .get(&format!("/api/tickets/{id}/links/"))
        .await;
    assert_eq!(links.status, StatusCode::OK, "{}", links.text);
    (
        detail.json["status"].as_str().unwrap().to_string(),
        detail.json["project"]["id"].as_i64(),
        links
            .json
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["type"].as_str().unwrap().to_string(),
                    l["ticket"]["id"].as_i64().unwrap(),
                )
            })
            .collect(),
    )
}

db_test!(a_reply_to_a_finished_ticket_reopens_it_or_follows_it_up_as_its_project_says);
async fn a_reply_to_a_finished_ticket_reopens_it_or_follows_it_up_as_its_project_says(
    app: &TestApp,
) {
    let root = app.admin("root").await;
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let state = &app.state;
    let project = app.project("Hardware").await.id;
    let id = ticket_of(
        &mail_to(
            state,
            &message("ann@example.com", "f1@x", "Printer jams", "", "Jams."),
            Some(project),
        )
        .await,
    );
    let tag = format!("TKT-{id:03}");
    let reply = |n: &str, from: &str, body: &str| {
        message(from, &format!("{n}@x"), &format!("Re: ({tag})"), "", body)
    };
    let set_status = |status: &'static str| {
        let bob = &bob;
        async move {
            let moved = app
                .as_user(bob)
                .patch(&format!("/api/tickets/{id}/"), json!({ "status": status }))
                .await;
            assert!(moved.status.is_success(), "{}", moved.text);
        }
    };

    // By default the requester's reply reopens a resolved ticket; the agent's leaves it resolved.
    let rules = app
        .as_user(&bob)
        .get(&format!("/api/projects/{project}/mail/"))
        .await;
    assert_eq!(rules.status, StatusCode::OK, "{}", rules.text);
    assert_eq!(
        rules.json,
        json!({ "project": project, "resolved_reply": "reopen", "unknown_senders": null,
                "sender_domains": [], "updated_at": null })
    );
    set_status("resolved").await;
    let answer = mail(state, &reply("f2", "bob@example.com", "Fixed, I think.")).await;
    assert!(
        matches!(answer, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{answer:?}"
    );
    assert_eq!(standing(app, &bob, id).await.0, "resolved");
    let again = mail(state, &reply("f3", "ann@example.com", "Still jams.")).await;
    assert!(
        matches!(again, Ok(Received::Comment { ticket, .. }) if ticket == id),
        "{again:?}"
    );
    assert_eq!(standing(app, &ann, id).await.0, "open");

    // Only an administrator changes the rules; a requester does not even read them.
    let by_agent = app
        .as_user(&bob)
        .patch(
            &format!("/api/projects/{project}/mail/"),
            json!({ "resolved_reply": "follow_up" }),
        )
        .await;
    assert_eq!(by_agent.status, StatusCode::FORBIDDEN, "{}", by_agent.text);
    let by_requester = app
        .as_user(&ann)
        .get(&format!("/api/projects/{project}/mail/"))
        .await;
    assert_eq!(
        by_requester.status,
        StatusCode::FORBIDDEN,
        "{}",
        by_requester.text
    );
    let changed = app
        .as_user(&root)
        .patch(
            &format!("/api/projects/{project}/mail/"),
            json!({ "resolved_reply": "follow_up" }),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.json["resolved_reply"], "follow_up");
    assert!(changed.json["updated_at"].is_string(), "{}", changed.text);

    // Now her reply to the resolved ticket opens a follow-up in its project, related to it; it stays resolved.
    set_status("resolved").await;
    let follow_up = ticket_of(&mail(state, &reply("f4", "ann@example.com", "It is back.")).await);
    assert_ne!(follow_up, id);
    // Its title does not carry the finished ticket's tag, which would thread a reply back there.
    assert_eq!(
        seen(app, &ann, follow_up).await["title"],
        format!("Follow-up to {tag}")
    );
    assert_eq!(
        standing(app, &ann, follow_up).await,
        (
            "new".to_string(),
            Some(project as i64),
            vec![("relates_to".to_string(), id as i64)]
        )
    );
    let (status, _, links) = standing(app, &bob, id).await;
    assert_eq!(status, "resolved");
    assert_eq!(links, vec![("relates_to".to_string(), follow_up as i64)]);
    assert_eq!(
        seen(app, &ann, id).await["comments"]["nodes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A closed ticket is done for good: a reply always opens a follow-up, whatever the rule.
    let reopen = app
        .as_user(&root)
        .patch(
            &format!("/api/projects/{project}/mail/"),
            json!({ "resolved_reply": "reopen" }),
        )
        .await;
    assert_eq!(reopen.status, StatusCode::OK, "{}", reopen.text);
    set_status("closed").await;
    let late = ticket_of(
        &mail(
            state,
            &message(
                "ann@example.com",
                "f5@x",
                &format!("Re: Printer jams [{tag}]"),
                "",
                "Once more.",
            ),
        )
        .await,
    );
    assert_eq!(seen(app, &ann, late).await["title"], "Printer jams");
    assert!(late != id && late != follow_up);
    let (status, in_project, links) = standing(app, &ann, late).await;
    assert_eq!((status.as_str(), in_project), ("new", Some(project as i64)));
    assert_eq!(links, vec![("relates_to".to_string(), id as i64)]);
    assert_eq!(standing(app, &bob, id).await.0, "closed");
}

db_test!(a_project_takes_mail_from_strangers_at_its_listed_domains_only);
async fn a_project_takes_mail_from_strangers_at_its_listed_domains_only(app: &TestApp) {
    let root = app.admin("root").await;
    let state = &app.state;
    let project = app.project("Partners").await.id;
    let path = format!("/api/projects/{project}/mail/");

    // Known domains need a list; a list holds domains.
    let empty = app
        .as_user(&root)
        .patch(&path, json!({ "unknown_senders": "known_domains" }))
        .await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST, "{}", empty.text);
    assert!(
        empty.json["details"]["sender_domains"].is_array(),
        "{}",
        empty.text
    );
    for bad in [
        json!({ "sender_domains": ["not a domain"] }),
        json!({ "unknown_senders": "sometimes" }),
        json!({ "resolved_reply": null }),
        json!({ "sender_domains": "partner.org" }),
    ] {
        let refused = app.as_user(&root).patch(&path, bad.clone()).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{bad}: {}",
            refused.text
        );
    }
    let set = app
        .as_user(&root)
        .patch(
            &path,
            json!({ "unknown_senders": "known_domains", "sender_domains": [" @Partner.ORG ", "partner.org"] }),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.text);
    assert_eq!(set.json["sender_domains"], json!(["partner.org"]));
    assert_eq!(set.json["unknown_senders"], "known_domains");

    let from = |who: &str, n: &str| message(who, &format!("{n}@x"), "Access", "", "Please.");
    let partner = mail_to(state, &from("kim@eu.partner.org", "s1"), Some(project)).await;
    let made = ticket_of(&partner);
    let t = app
        .as_user(&root)
        .get(&format!("/api/tickets/{made}/"))
        .await;
    assert_eq!(t.json["project"]["id"], project, "{}", t.text);
    let stranger = mail_to(
        state,
        &from("eve@partner.org.evil.com", "s2"),
        Some(project),
    )
    .await;
    assert!(matches!(stranger, Err(Refused::Sender(_))), "{stranger:?}");
    // Elsewhere the service's own setting (open here) holds.
    assert!(matches!(
        mail(state, &from("eve@partner.org.evil.com", "s3")).await,
        Ok(Received::Ticket(_))
    ));
    // Refusing strangers leaves the desk's accounts free to write.
    let refuse = app
        .as_user(&root)
        .patch(&path, json!({ "unknown_senders": "refuse" }))
        .await;
    assert_eq!(refuse.status, StatusCode::OK, "{}", refuse.text);
    let fresh = mail_to(state, &from("lee@partner.org", "s4"), Some(project)).await;
    assert!(matches!(fresh, Err(Refused::Sender(_))), "{fresh:?}");
    let known = mail_to(state, &from("kim@eu.partner.org", "s5"), Some(project)).await;
    assert!(matches!(known, Ok(Received::Ticket(_))), "{known:?}");
    // Null gives it back to the service's setting.
    let inherit = app
        .as_user(&root)
        .patch(&path, json!({ "unknown_senders": null }))
        .await;
    assert_eq!(
        inherit.json["unknown_senders"],
        serde_json::Value::Null,
        "{}",
        inherit.text
    );
    let (closed, _) = state_with(app, |c| c.mail_in_open = false);
    let shut = mail_to(&closed, &from("max@partner.org", "s6"), Some(project)).await;
    assert!(matches!(shut, Err(Refused::Sender(_))), "{shut:?}");
    let open = mail_to(state, &from("max@partner.org", "s7"), Some(project)).await;
    assert!(matches!(open, Ok(Received::Ticket(_))), "{open:?}");

    // GraphQL reads and changes the same rules.
    let gid = crate::support::graphql::gid("Project", project);
    let read = app
        .as_user(&root)
        .graphql_data(
            "query($p: ID!) { projectMailRules(projectId: $p) { resolvedReply unknownSenders senderDomains } }",
            json!({ "p": gid }),
        )
        .await;
    assert_eq!(
        read["projectMailRules"],
        json!({ "resolvedReply": "REOPEN", "unknownSenders": null, "senderDomains": ["partner.org"] })
    );
    let changed = app
        .as_user(&root)
        .graphql_data(
            "mutation($p: ID!) { updateProjectMailRules(input: {projectId: $p, resolvedReply: FOLLOW_UP,
               unknownSenders: REFUSE}) { mailRules { resolvedReply unknownSenders } } }",
            json!({ "p": gid }),
        )
        .await;
    assert_eq!(
        changed["updateProjectMailRules"]["mailRules"],
        json!({ "resolvedReply": "FOLLOW_UP", "unknownSenders": "REFUSE" })
    );
    let ann = app.user("ann").await;
    let denied = app
        .as_user(&ann)
        .graphql(
            "query($p: ID!) { projectMailRules(projectId: $p) { resolvedReply } }",
            json!({ "p": gid }),
        )
        .await;
    assert_eq!(
        denied["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{denied}"
    );
    let missing = app.as_user(&root).get("/api/projects/99999/mail/").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.text);
}

db_test!(an_admin_sets_a_projects_mail_rules_on_the_mail_page);
async fn an_admin_sets_a_projects_mail_rules_on_the_mail_page(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    let admin = app.admin("ada").await;
    let project = app.project("Facilities").await.id;
    let ada = login(app, &admin).await;
    let page = ada.page(app, "/admin/mail/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("Mail by project"), "{}", page.text);
    assert!(
        page.text
            .contains(&format!("id=\"project-mail-resolved-{project}\"")),
        "{}",
        page.text
    );
    let id = project.to_string();
    let refused = ada
        .form(
            app,
            "/admin/mail/project/",
            &[
                ("project_id", id.as_str()),
                ("resolved_reply", "follow_up"),
                ("unknown_senders", "known_domains"),
                ("sender_domains", "facilities example"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(refused.text.contains("role=\"alert\""), "{}", refused.text);
    // What was typed stays in the box.
    assert!(
        refused.text.contains(">facilities example</textarea>"),
        "{}",
        refused.text
    );
    let saved = ada
        .form(
            app,
            "/admin/mail/project/",
            &[
                ("project_id", id.as_str()),
                ("resolved_reply", "follow_up"),
                ("unknown_senders", "known_domains"),
                ("sender_domains", "example.com\r\nexample.org"),
            ],
        )
        .await;
    assert_eq!(location(&saved), "/admin/mail/?done=saved");
    let rules = app
        .as_user(&admin)
        .get(&format!("/api/projects/{project}/mail/"))
        .await;
    assert_eq!(rules.json["resolved_reply"], "follow_up");
    assert_eq!(
        rules.json["sender_domains"],
        json!(["example.com", "example.org"])
    );
    let page = ada.page(app, "/admin/mail/").await;
    assert!(
        page.text.contains(">example.com\nexample.org</textarea>"),
        "{}",
        page.text
    );
    assert!(
        page.text.contains("<option value=\"follow_up\" selected>"),
        "{}",
        page.text
    );
    // An agent is not let in.
    let agent = app.agent("agnes").await;
    let agnes = login(app, &agent).await;
    let denied = agnes
        .form(
            app,
            "/admin/mail/project/",
            &[("project_id", id.as_str()), ("resolved_reply", "reopen")],
        )
        .await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN);
}

db_test!(a_reply_that_quotes_history_keeps_the_whole_message_where_its_comment_may_be_read);
async fn a_reply_that_quotes_history_keeps_the_whole_message_where_its_comment_may_be_read(
    app: &TestApp,
) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let state = &app.state;
    let id = ticket_of(
        &mail(
            state,
            &message("ann@example.com", "q1@x", "Dock", "", "The dock is dead."),
        )
        .await,
    );
    let tag = format!("TKT-{id:03}");
    let quoting = |from: &str, n: &str, text: &str| {
        message(
            from,
            &format!("{n}@x"),
            &format!("Re: ({tag})"),
            "",
            &format!("{text}\r\n\r\nOn Mon, 7 Dec 2026, Help Desk <help@example.com> wrote:\r\n> Agent only: the dock vendor owes us.\r\n"),
        )
    };
    let files_of_comment = |comment: i32| async move {
        entity::attachment::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .into_iter()
            .filter(|a| a.comment_id == Some(comment))
            .map(|a| a.filename)
            .collect::<Vec<_>>()
    };
    let comment_of = |r: &Result<Received, Refused>| match r {
        Ok(Received::Comment { comment, .. }) => *comment,
        other => panic!("not a comment: {other:?}"),
    };

    // A requester's reply: the quote is left out of the comment, the whole message goes with it.
    let raw = quoting("ann@example.com", "q2", "Still dead.");
    let theirs = comment_of(&mail(state, &raw).await);
    assert_eq!(files_of_comment(theirs).await, vec!["original-message.eml"]);
    let listed = app
        .as_user(&ann)
        .get(&format!("/api/tickets/{id}/attachments/"))
        .await;
    let original = listed
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["filename"] == "original-message.eml")
        .cloned()
        .unwrap_or_else(|| panic!("{}", listed.text));
    let download = app
        .as_user(&ann)
        .get(original["url"].as_str().unwrap())
        .await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.text, raw);
    // A reply that quotes nothing keeps no copy.
    let plain = comment_of(
        &mail(
            state,
            &message(
                "ann@example.com",
                "q3@x",
                &format!("Re: ({tag})"),
                "",
                "Thanks.",
            ),
        )
        .await,
    );
    assert!(files_of_comment(plain).await.is_empty());

    // An agent's public reply may quote an internal note's notification: no copy goes to the requester.
    let public = comment_of(
        &mail(
            state,
            &quoting("bob@example.com", "q4", "Ordered a new one."),
        )
        .await,
    );
    assert!(files_of_comment(public).await.is_empty());
    // Their internal note keeps it, for the team only.
    let internal = comment_of(
        &mail(
            state,
            &quoting("bob@example.com", "q5", "#internal\r\nVendor chased."),
        )
        .await,
    );
    assert_eq!(
        files_of_comment(internal).await,
        vec!["original-message.eml"]
    );
    let by_ann = app
        .as_user(&ann)
        .get(&format!("/api/tickets/{id}/attachments/"))
        .await;
    assert_eq!(by_ann.json.as_array().unwrap().len(), 1, "{}", by_ann.text);
    assert!(!by_ann.text.contains("vendor owes"), "{}", by_ann.text);
    let by_bob = app
        .as_user(&bob)
        .get(&format!("/api/tickets/{id}/attachments/"))
        .await;
    assert_eq!(by_bob.json.as_array().unwrap().len(), 2, "{}", by_bob.text);
}
