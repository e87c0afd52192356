//! The server-rendered pages: sign-in, queue, ticket page, new-ticket form; CSRF on every form.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::{form, location, page, CSP};
use crate::support::world::{actor, add, login, set_cookie, world};
use axum::http::{header, StatusCode};
use deskgraph::domain::{CommentType, Priority, TicketStatus};
use deskgraph::service::tickets;

fn cookie_value(set_cookie: &str) -> String {
    let first = set_cookie.split(';').next().unwrap();
    first.split_once('=').unwrap().1.to_string()
}

async fn signed_out_visitors_are_sent_to_sign_in(app: &TestApp) {
    let w = world(app).await;
    for path in [
        "/tickets/",
        "/tickets/new/",
        &format!("/tickets/{}/", w.ticket.id),
    ] {
        let resp = page(app, path, None).await;
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", path)
            .finish();
        assert_eq!(location(&resp), format!("/accounts/login/?{query}"));
    }
    let resp = page(app, "/tickets/?status=open", Some("sessionid=forged")).await;
    assert_eq!(
        location(&resp),
        "/accounts/login/?next=%2Ftickets%2F%3Fstatus%3Dopen"
    );
    let resp = form(app, &format!("/tickets/{}/status/", w.ticket.id), None, &[]).await;
    assert!(location(&resp).starts_with("/accounts/login/"));
}
db_test!(signed_out_visitors_are_sent_to_sign_in);

async fn sign_in_form_with_login_csrf_and_sign_out(app: &TestApp) {
    app.user("owner").await;
    let resp = page(app, "/accounts/login/?next=/tickets/new/", None).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.headers[header::CONTENT_SECURITY_POLICY], CSP);
    assert!(resp
        .text
        .contains(r#"<label for="username">Username</label>"#));
    let csrf = cookie_value(&set_cookie(&resp, "csrftoken").unwrap());
    assert!(resp.text.contains(&format!(r#"value="{csrf}""#)));
    assert!(set_cookie(&resp, "sessionid").is_none());
    let pre = format!("csrftoken={csrf}");
    let good = [
        ("csrfmiddlewaretoken", csrf.as_str()),
        ("username", "owner"),
        ("password", "owner-password"),
        ("next", "/tickets/new/"),
    ];

    // Without the pre-session token (a forged cross-site login) nobody is signed in.
    let resp = form(app, "/accounts/login/", None, &good).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    assert!(resp.text.contains("The form expired"));
    assert!(set_cookie(&resp, "sessionid").is_none());
    let resp = form(app, "/accounts/login/", Some("csrftoken="), &good).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);

    // A wrong password shows the form again, keeping the user name but not the password.
    let mut wrong = good;
    wrong[2] = ("password", "nope");
    let resp = form(app, "/accounts/login/", Some(&pre), &wrong).await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{}", resp.text);
    assert!(resp.text.contains("invalid username or password"));
    assert!(resp.text.contains(r#"value="owner""#));
    assert!(!resp.text.contains("nope"));
    assert!(set_cookie(&resp, "sessionid").is_none());

    // Success: 303 to `next`, with the session cookies.
    let resp = form(app, "/accounts/login/", Some(&pre), &good).await;
    assert_eq!(location(&resp), "/tickets/new/");
    let session_cookie = set_cookie(&resp, "sessionid").unwrap();
    assert!(session_cookie.contains("HttpOnly"));
    let session = cookie_value(&session_cookie);
    let csrf = cookie_value(&set_cookie(&resp, "csrftoken").unwrap());
    let cookies = format!("sessionid={session}; csrftoken={csrf}");
    let resp = page(app, "/tickets/", Some(&cookies)).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp
        .text
        .contains("Signed in as <strong>Owner Example</strong>"));
    let resp = page(app, "/accounts/login/", Some(&cookies)).await;
    assert_eq!(location(&resp), "/tickets/");

    // Only local paths are followed after signing in.
    let mut away = good;
    away[3] = ("next", "https://evil.example/");
    let resp = form(app, "/accounts/login/", Some(&pre), &away).await;
    assert_eq!(location(&resp), "/tickets/");
    away[3] = ("next", "//evil.example/");
    let resp = form(app, "/accounts/login/", Some(&pre), &away).await;
    assert_eq!(location(&resp), "/tickets/");

    // Signing out is a form post with the session's token.
    let resp = form(
        app,
        "/accounts/logout/",
        Some(&cookies),
        &[("csrfmiddlewaretoken", "wrong")],
    )
    .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert_eq!(page(app, "/tickets/", Some(&cookies)).await.status, 200);
    let resp = form(
        app,
        "/accounts/logout/",
        Some(&cookies),
        &[("csrfmiddlewaretoken", &csrf)],
    )
    .await;
    assert_eq!(location(&resp), "/accounts/login/");
    assert!(set_cookie(&resp, "sessionid")
        .unwrap()
        .contains("Max-Age=0"));
    let resp = page(app, "/tickets/", Some(&cookies)).await;
    assert!(location(&resp).starts_with("/accounts/login/"));
}
db_test!(sign_in_form_with_login_csrf_and_sign_out);

async fn queue_filters_and_pages(app: &TestApp) {
    let owner = app.user("owner").await;
    let stranger = app.user("stranger").await;
    let agent = app.agent("agent").await;
    let make =
        |title: &'static str, priority: Priority, assignee: Option<i32>| tickets::NewTicket {
            title: title.into(),
            priority: Some(priority),
            assignee_id: assignee,
            ..Default::default()
        };
    let owner_actor = actor(app, &owner).await;
    for input in [
        make("Printer jams", Priority::High, Some(agent.id)),
        make("Laptop is slow", Priority::Low, None),
        make("VPN drops", Priority::High, None),
    ] {
        app.open_for(&owner_actor, input).await;
    }
    let theirs = make("Stranger's secret <b>plan</b>", Priority::Medium, None);
    tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &stranger).await,
        theirs,
    )
    .await
    .unwrap();

    let browser = login(app, &agent).await;
    let titles = |text: &str| {
        ["Printer jams", "Laptop is slow", "VPN drops", "Stranger"]
            .into_iter()
            .filter(|t| text.contains(t))
            .collect::<Vec<_>>()
    };
    let resp = browser.page(app, "/tickets/").await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(resp.headers[header::CONTENT_SECURITY_POLICY], CSP);
    assert!(resp.text.contains("4 tickets"));
    // Titles are escaped, never markup.
    assert!(
        resp.text.contains("Stranger&#39;s secret &#60;b&#62;plan"),
        "{}",
        resp.text
    );
    assert!(!resp.text.contains("<b>plan"));
    let resp = browser.page(app, "/tickets/?priority=high").await;
    assert_eq!(titles(&resp.text), ["Printer jams", "VPN drops"]);
    assert!(resp.text.contains(r#"<option value="high" selected>"#));
    let resp = browser.page(app, "/tickets/?q=laptop").await;
    assert_eq!(titles(&resp.text), ["Laptop is slow"]);
    assert!(resp.text.contains(r#"value="laptop""#));
    let resp = browser.page(app, "/tickets/?assigned=me").await;
    assert_eq!(titles(&resp.text), ["Printer jams"]);
    let resp = browser
        .page(app, "/tickets/?assigned=none&priority=high")
        .await;
    assert_eq!(titles(&resp.text), ["VPN drops"]);
    let resp = browser
        .page(app, "/tickets/?status=new&limit=1&page=2")
        .await;
    assert!(resp.text.contains("Page 2 of 4"), "{}", resp.text);
    let link = |page: u64| format!("/tickets/?page={page}&#38;limit=1&#38;status=new");
    assert!(
        resp.text
            .contains(&format!(r#"href="{}" rel="prev""#, link(1))),
        "{}",
        resp.text
    );
    assert!(resp
        .text
        .contains(&format!(r#"href="{}" rel="next""#, link(3))));
    assert_eq!(titles(&resp.text).len(), 1);

    // Bad filters are a clear 400 page, not a crash.
    let resp = browser.page(app, "/tickets/?status=bogus").await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert!(resp.text.contains("<h1>Bad Request</h1>"), "{}", resp.text);

    // A requester sees only their own tickets.
    let resp = login(app, &owner).await.page(app, "/tickets/").await;
    assert_eq!(
        titles(&resp.text),
        ["Printer jams", "Laptop is slow", "VPN drops"]
    );
}
db_test!(queue_filters_and_pages);

async fn ticket_page_shows_internal_notes_to_the_team_only(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    add(
        app,
        &w.owner,
        id,
        "<p>Public <b>reply</b><script>alert(1)</script></p>",
        CommentType::Public,
    )
    .await;
    add(
        app,
        &w.agent,
        id,
        "Team-only diagnosis",
        CommentType::Internal,
    )
    .await;
    let path = format!("/tickets/{id}/");

    let resp = login(app, &w.owner).await.page(app, &path).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.headers[header::CONTENT_SECURITY_POLICY], CSP);
    assert!(resp.text.contains("Printer on fire"));
    assert!(resp.text.contains("Public <b>reply</b>"), "{}", resp.text);
    assert!(!resp.text.contains("alert(1)"));
    assert!(!resp.text.contains("Team-only diagnosis"));
    assert!(!resp.text.contains("Internal note"));
    assert!(!resp.text.contains(r#"value="internal""#));
    assert!(!resp.text.contains("Change status"));
    assert!(resp.text.contains("Comments (1)"));

    let resp = login(app, &w.agent).await.page(app, &path).await;
    assert!(resp.text.contains("Team-only diagnosis"));
    assert!(resp.text.contains(r#"class="comment internal""#));
    assert!(resp.text.contains(r#"value="internal""#));
    assert!(resp.text.contains("Comments (2)"));
    // New tickets may move to these, never straight to closed.
    for status in ["open", "in_progress", "on_hold", "blocked", "resolved"] {
        assert!(
            resp.text
                .contains(&format!(r#"name="status" value="{status}""#)),
            "{status}"
        );
    }
    assert!(!resp.text.contains(r#"value="closed""#));

    // Someone who cannot see the ticket gets a 404 page.
    let resp = login(app, &w.other).await.page(app, &path).await;
    assert_eq!(resp.status, StatusCode::NOT_FOUND);
    assert!(!resp.text.contains("Printer on fire"));
}
db_test!(ticket_page_shows_internal_notes_to_the_team_only);

async fn form_posts_need_the_csrf_token(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let agent = login(app, &w.agent).await;
    let owner = login(app, &w.owner).await;
    let status_path = format!("/tickets/{id}/status/");
    let current = |app: &TestApp| {
        let db = app.state.db.conn.clone();
        async move {
            use sea_orm::EntityTrait;
            entity::ticket::Entity::find_by_id(id)
                .one(&db)
                .await
                .unwrap()
                .unwrap()
        }
    };

    let resp = agent.forged(app, &status_path, &[("status", "open")]).await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert!(resp.text.contains("CSRF"));
    assert_eq!(current(app).await.status, TicketStatus::New);
    let resp = agent
        .form(app, &status_path, &[("status", "in_progress")])
        .await;
    assert_eq!(location(&resp), format!("/tickets/{id}/"));
    assert_eq!(current(app).await.status, TicketStatus::InProgress);
    let resp = agent.form(app, &status_path, &[("status", "closed")]).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    let resp = owner
        .form(app, &status_path, &[("status", "resolved")])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    assert_eq!(current(app).await.status, TicketStatus::InProgress);

    // Comments: CSRF, success, and errors next to the field.
    let comment_path = format!("/tickets/{id}/comments/new/");
    let resp = owner
        .forged(app, &comment_path, &[("body", "sneaky")])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let resp = owner.form(app, &comment_path, &[("body", "   ")]).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST);
    assert!(
        resp.text.contains(r#"id="comment-body-error""#),
        "{}",
        resp.text
    );
    let resp = owner
        .form(
            app,
            &comment_path,
            &[("body", "secret?"), ("comment_type", "internal")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let resp = owner.form(app, &comment_path, &[("body", "Thanks!")]).await;
    let to = location(&resp);
    assert!(to.starts_with(&format!("/tickets/{id}/#comment-")), "{to}");
    let comment_id = to.rsplit('-').next().unwrap().to_string();
    let page_text = owner.page(app, &format!("/tickets/{id}/")).await.text;
    assert!(page_text.contains("Thanks!"));
    assert!(!page_text.contains("sneaky"));

    // Deleting by form: CSRF, then gone.
    let delete_path = format!("/tickets/comments/{comment_id}/delete/");
    assert_eq!(
        owner.forged(app, &delete_path, &[]).await.status,
        StatusCode::FORBIDDEN
    );
    let resp = owner.form(app, &delete_path, &[]).await;
    assert_eq!(location(&resp), format!("/tickets/{id}/#comments"));
    assert!(!owner
        .page(app, &format!("/tickets/{id}/"))
        .await
        .text
        .contains("Thanks!"));

    // New tickets: CSRF, field errors, success.
    let resp = owner
        .forged(app, "/tickets/new/", &[("title", "x"), ("priority", "low")])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN);
    let resp = owner
        .form(app, "/tickets/new/", &[("title", " "), ("priority", "low")])
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(resp.text.contains(r#"id="title-error""#), "{}", resp.text);
    assert!(resp.text.contains(r#"<option value="low" selected>"#));
    let resp = owner
        .form(
            app,
            "/tickets/new/",
            &[
                ("title", "Desk lamp broken"),
                ("description", "Flickers <b>at night</b>\r\nsince Monday"),
                ("priority", "high"),
            ],
        )
        .await;
    let to = location(&resp);
    let created = owner.page(app, &to).await;
    assert!(created.text.contains("Desk lamp broken"));
    // Typed text: its line break kept, its tags shown as text, and the edit box holds the text itself.
    assert!(
        created
            .text
            .contains("<p>Flickers &lt;b&gt;at night&lt;/b&gt;<br>since Monday</p>"),
        "{}",
        created.text
    );
    assert!(
        created
            .text
            .contains("name=\"description\" rows=\"5\">Flickers &#60;b&#62;at night&#60;/b&#62;\nsince Monday</textarea>"),
        "{}",
        created.text
    );
    // The requester may change the priority: the side panel's picker shows it.
    assert!(
        created
            .text
            .contains("<option value=\"high\" selected>High</option>"),
        "{}",
        created.text
    );
}
db_test!(form_posts_need_the_csrf_token);

async fn static_assets_are_served_with_long_caching(app: &TestApp) {
    let resp = page(app, "/static/app.js", None).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert!(resp.headers[header::CACHE_CONTROL]
        .to_str()
        .unwrap()
        .contains("immutable"));
    assert!(resp.text.contains("X-CSRFToken"));
    let resp = page(app, "/static/app.css", None).await;
    assert!(resp.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
    assert_eq!(
        page(app, "/static/secret.txt", None).await.status,
        StatusCode::NOT_FOUND
    );
}
db_test!(static_assets_are_served_with_long_caching);

/// `/` leads a browser in: to the queue when signed in, to the sign-in page otherwise. An unknown path is
/// an HTML 404 page with the navigation for a browser, and the JSON body for API clients.
async fn the_landing_and_unknown_paths_speak_to_browsers(app: &TestApp) {
    let anon = page(app, "/", None).await;
    assert_eq!(location(&anon), "/accounts/login/");
    let agent = app.agent("agnes").await;
    let browser = crate::support::world::login(app, &agent).await;
    assert_eq!(location(&browser.page(app, "/").await), "/tickets/");

    let html_request = |cookies: Option<String>| {
        let mut builder = axum::http::Request::get("/no/such/page").header(
            axum::http::header::ACCEPT,
            "text/html,application/xhtml+xml",
        );
        if let Some(c) = cookies {
            builder = builder.header(axum::http::header::COOKIE, c);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    };
    let missing = app.send(html_request(Some(browser.cookies()))).await;
    assert_eq!(missing.status, 404);
    assert!(missing.headers[axum::http::header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(
        missing.text.contains("href=\"/tickets/new/\""),
        "navigation: {}",
        missing.text
    );
    let anonymous = app.send(html_request(None)).await;
    assert_eq!(anonymous.status, 404);
    assert!(anonymous.text.contains("<html"), "{}", anonymous.text);
    // API clients, and API paths even from a browser, keep the JSON body.
    let json = app.get("/no/such/page", None).await;
    assert_eq!(json.status, 404);
    assert_eq!(json.json["code"], "not_found", "{}", json.text);
    let api = app
        .send(
            axum::http::Request::get("/api/nothing/")
                .header(axum::http::header::ACCEPT, "text/html")
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(api.json["code"], "not_found", "{}", api.text);
}
db_test!(the_landing_and_unknown_paths_speak_to_browsers);

/// The assignee picker lists the team; anyone else active is assigned by user name.
async fn the_assignee_picker_lists_the_team_and_finds_others_by_name(app: &TestApp) {
    let agent = app.agent("agnes").await;
    app.agent("bob").await;
    let rita = app.user("rita").await;
    let carl = app.user("carl").await;
    let t = app
        .as_user(&rita)
        .create_ticket(serde_json::json!({"title": "Printer"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let browser = crate::support::world::login(app, &agent).await;
    let shown = browser.page(app, &format!("/tickets/{id}/")).await;
    let picker = shown
        .text
        .split("id=\"edit-assignee\"")
        .nth(1)
        .and_then(|rest| rest.split("</select>").next())
        .unwrap_or_default()
        .to_string();
    assert!(
        picker.contains("Bob Example") && picker.contains("Agnes Example"),
        "{picker}"
    );
    assert!(
        !picker.contains("Carl Example") && !picker.contains("Rita Example"),
        "{picker}"
    );
    let assigned = browser
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[("assigned_username", "Carl")],
        )
        .await;
    assert_eq!(location(&assigned), format!("/tickets/{id}/"));
    let detail = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/"))
        .await;
    assert_eq!(detail.json["assigned_to"]["id"], carl.id, "{}", detail.text);
    let unknown = browser
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[("assigned_username", "nobody")],
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.text);
    assert!(
        unknown.text.contains("no active user named"),
        "{}",
        unknown.text
    );
}
db_test!(the_assignee_picker_lists_the_team_and_finds_others_by_name);

/// The history reads as sentences with names; a requester's leaves out the internal notes and the service
/// level records that the team's shows.
async fn history_is_told_in_words_and_keeps_the_teams_entries_to_the_team(app: &TestApp) {
    let w = crate::support::world::world(app).await;
    let t = w.ticket.id;
    crate::support::world::add(
        app,
        &w.agent,
        t,
        "<p>note</p>",
        deskgraph::domain::CommentType::Internal,
    )
    .await;
    app.as_user(&w.agent)
        .patch(
            &format!("/api/tickets/{t}/"),
            serde_json::json!({"priority": "high", "status": "in_progress"}),
        )
        .await;
    // A missed target, as the SLA check records it.
    deskgraph::service::audit::record(
        &app.state.db.conn,
        deskgraph::service::audit::Entry::new(None, "ticket", t, "sla_breached")
            .ticket(t)
            .changes(
                serde_json::json!({"sla_first_response_breached": [null, "2026-11-28T04:47:10Z"]}),
            ),
    )
    .await
    .unwrap();
    let history = |text: &str| {
        text.split("id=\"history\"")
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    let agent = crate::support::world::login(app, &w.agent).await;
    let seen = history(&agent.page(app, &format!("/tickets/{t}/")).await.text);
    for sentence in [
        "You opened this ticket",
        "You assigned this to Assignee Example",
        "You assigned this to the group Facilities",
        "You added an internal note",
        "You raised the priority from Medium to High",
        "You moved this from New to In progress",
        "First response target missed",
        "just now</time>",
    ] {
        assert!(seen.contains(sentence), "{sentence}: {seen}");
    }
    let owner = crate::support::world::login(app, &w.owner).await;
    let theirs = history(&owner.page(app, &format!("/tickets/{t}/")).await.text);
    assert!(
        theirs.contains("Agent Example raised the priority"),
        "{theirs}"
    );
    assert!(!theirs.contains("internal note"), "{theirs}");
    assert!(!theirs.contains("target missed"), "{theirs}");
}
db_test!(history_is_told_in_words_and_keeps_the_teams_entries_to_the_team);

/// A requester's queue is their own world: no agent views, no assignee filter; the team's has them.
async fn requesters_see_their_own_queue(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("agnes").await;
    let requester = crate::support::world::login(app, &rita).await;
    let theirs = requester.page(app, "/tickets/").await.text;
    assert!(theirs.contains("My requests"), "{theirs}");
    for agent_only in [
        "My groups",
        "Unassigned",
        "Breaching soon",
        "id=\"assigned\"",
    ] {
        assert!(!theirs.contains(agent_only), "{agent_only}: {theirs}");
    }
    // Asking for an agent view by hand shows the requester's own list.
    let asked = requester.page(app, "/tickets/?view=unassigned").await;
    assert_eq!(asked.status, 200);
    let team = crate::support::world::login(app, &agent).await;
    let ours = team.page(app, "/tickets/").await.text;
    for view in [
        "My groups",
        "Unassigned",
        "Breaching soon",
        "id=\"assigned\"",
    ] {
        assert!(ours.contains(view), "{view}: {ours}");
    }
}
db_test!(requesters_see_their_own_queue);

/// "Waiting for me": a requester's tickets the desk has put on hold for them, and the ticket page says so to
/// them (and to nobody else).
async fn requesters_see_what_waits_for_them(app: &TestApp) {
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let agent = app.agent("agnes").await;
    let mut ids = Vec::new();
    for (who, title) in [
        (&rita, "Laptop fan loud"),
        (&rita, "Monitor flickers"),
        (&sam, "Sams printer"),
    ] {
        let t = app
            .as_user(who)
            .create_ticket(serde_json::json!({"title": title}))
            .await;
        ids.push(t["id"].as_i64().unwrap());
    }
    for id in [ids[0], ids[2]] {
        let resp = app
            .as_user(&agent)
            .patch(
                &format!("/api/tickets/{id}/"),
                serde_json::json!({"status": "on_hold"}),
            )
            .await;
        assert_eq!(resp.status, 200, "{}", resp.text);
    }
    let requester = crate::support::world::login(app, &rita).await;
    let waiting = requester.page(app, "/tickets/?view=waiting").await.text;
    assert!(waiting.contains("Waiting for me"), "{waiting}");
    assert!(waiting.contains("Laptop fan loud"), "{waiting}");
    assert!(!waiting.contains("Monitor flickers"), "{waiting}");
    assert!(!waiting.contains("Sams printer"), "{waiting}");
    let page = requester
        .page(app, &format!("/tickets/{}/", ids[0]))
        .await
        .text;
    assert!(page.contains("id=\"waiting-for-you\""), "{page}");
    let other = requester
        .page(app, &format!("/tickets/{}/", ids[1]))
        .await
        .text;
    assert!(!other.contains("id=\"waiting-for-you\""));
    // The team's queue has no such view (asked by hand it is the whole queue), and its page no such notice.
    let team = crate::support::world::login(app, &agent).await;
    let ours = team.page(app, "/tickets/?view=waiting").await.text;
    assert!(!ours.contains("Waiting for me"), "{ours}");
    assert!(ours.contains("Monitor flickers"), "{ours}");
    let page = team.page(app, &format!("/tickets/{}/", ids[0])).await.text;
    assert!(!page.contains("id=\"waiting-for-you\""));

    // The team's reply and internal note leave it waiting; the requester's answer puts it back in the queue,
    // as their change, and it no longer waits for them.
    let status = |id: i64| {
        let path = format!("/api/tickets/{id}/");
        let agent = &agent;
        async move { app.as_user(agent).get(&path).await.json["status"].clone() }
    };
    for (content, kind) in [("Any news?", "public"), ("Chased by phone.", "internal")] {
        let said = app
            .as_user(&agent)
            .post(
                &format!("/api/tickets/{}/comments/", ids[0]),
                serde_json::json!({"content": content, "comment_type": kind}),
            )
            .await;
        assert_eq!(said.status, 201, "{}", said.text);
        assert_eq!(status(ids[0]).await, "on_hold", "{kind}");
    }
    let answered = app
        .as_user(&rita)
        .post(
            &format!("/api/tickets/{}/comments/", ids[0]),
            serde_json::json!({"content": "It still whines after the update."}),
        )
        .await;
    assert_eq!(answered.status, 201, "{}", answered.text);
    assert_eq!(status(ids[0]).await, "open");
    assert_eq!(status(ids[2]).await, "on_hold", "another ticket moved");
    let history = app
        .as_user(&agent)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { history(first: 50) { nodes { action changes actor { username } } } } }",
            serde_json::json!({"n": ids[0]}),
        )
        .await;
    let moves: Vec<_> = history["ticket"]["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["action"] == "status_change")
        .map(|n| {
            (
                n["actor"]["username"].clone(),
                n["changes"]["status"].clone(),
            )
        })
        .collect();
    assert_eq!(
        moves.last(),
        Some(&(
            serde_json::json!("rita"),
            serde_json::json!(["on_hold", "open"])
        )),
        "{history}"
    );
    let waiting = requester.page(app, "/tickets/?view=waiting").await.text;
    assert!(!waiting.contains("Laptop fan loud"), "{waiting}");
    // Their answer on a ticket that does not wait for them moves nothing.
    let more = app
        .as_user(&rita)
        .post(
            &format!("/api/tickets/{}/comments/", ids[1]),
            serde_json::json!({"content": "Also the screen."}),
        )
        .await;
    assert_eq!(more.status, 201, "{}", more.text);
    assert_eq!(status(ids[1]).await, "new");
}
db_test!(requesters_see_what_waits_for_them);

/// Every action on the ticket page is confirmed once on the page it leads back to, and resolving may leave
/// a note for the requester.
async fn actions_are_confirmed_and_resolving_leaves_a_note(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let t = app
        .as_user(&rita)
        .create_ticket(serde_json::json!({"title": "Scanner"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let browser = crate::support::world::login(app, &agent).await;
    let follow = |resp: &crate::support::helpers::TestResponse| {
        let flash = resp
            .headers
            .get_all(axum::http::header::SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string())
            .find(|c| c.starts_with("flash="))
            .expect("a confirmation cookie");
        format!("{}; {flash}", browser.cookies())
    };
    let assigned = browser
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[("assigned_to", &agent.id.to_string())],
        )
        .await;
    assert_eq!(location(&assigned), format!("/tickets/{id}/"));
    let shown = page(app, &format!("/tickets/{id}/"), Some(&follow(&assigned))).await;
    assert!(
        shown.text.contains("id=\"flash\">Assigned to you"),
        "{}",
        shown.text
    );
    assert!(
        shown
            .headers
            .get_all(axum::http::header::SET_COOKIE)
            .iter()
            .any(|v| v.to_str().unwrap().contains("flash=; Max-Age=0")),
        "shown once"
    );
    // The note and the move are one write: refused together (a field required from the done statuses is
    // unset), and, once taken, the triggers see the move and then the comment on the resolved ticket.
    let root = app.admin("root").await;
    let field = app
        .as_user(&root)
        .post(
            "/api/custom-fields/",
            serde_json::json!({"key": "cause", "label": "Cause", "kind": "text", "required_from": "done"}),
        )
        .await;
    assert_eq!(field.status, StatusCode::CREATED, "{}", field.text);
    let note = [
        ("status", "resolved"),
        (
            "note",
            "Replaced the <b>cable</b>.\r\nCall if it happens again.",
        ),
    ];
    let refused = browser
        .form(app, &format!("/tickets/{id}/status/"), &note)
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    let comments = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{id}/comments/"))
        .await;
    assert_eq!(
        comments.json.as_array().map(Vec::len),
        Some(0),
        "{}",
        comments.text
    );
    let archived = app
        .as_user(&root)
        .delete(&format!("/api/custom-fields/{}/", field.json["id"]))
        .await;
    assert!(archived.status.is_success(), "{}", archived.text);
    let rule = app
        .as_user(&root)
        .post(
            "/api/automation/triggers/",
            serde_json::json!({
                "name": "Answered on resolving",
                "conditions": {"all": [
                    {"field": "event", "operator": "is", "value": "comment_added"},
                    {"field": "ticket.status", "operator": "is", "value": "resolved"},
                    {"field": "actor.role", "operator": "is", "value": "agent"}
                ]},
                "actions": [{"add_tags": ["answered"]}]
            }),
        )
        .await;
    assert_eq!(rule.status, StatusCode::CREATED, "{}", rule.text);
    let resolved = browser
        .form(app, &format!("/tickets/{id}/status/"), &note)
        .await;
    let shown = page(app, &format!("/tickets/{id}/"), Some(&follow(&resolved))).await;
    assert!(
        shown.text.contains("id=\"flash\">Resolved"),
        "{}",
        shown.text
    );
    let tags = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert!(tags.text.contains("answered"), "{}", tags.text);
    let comments = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{id}/comments/"))
        .await;
    assert_eq!(
        comments.json[0]["content"],
        "<p>Replaced the &lt;b&gt;cable&lt;/b&gt;.<br>Call if it happens again.</p>",
        "{}",
        comments.text
    );
    assert_eq!(comments.json[0]["comment_type"], "public");
    let reopened = browser
        .form(
            app,
            &format!("/tickets/{id}/status/"),
            &[("status", "open")],
        )
        .await;
    let shown = page(app, &format!("/tickets/{id}/"), Some(&follow(&reopened))).await;
    assert!(
        shown.text.contains("id=\"flash\">Reopened"),
        "{}",
        shown.text
    );
}
db_test!(actions_are_confirmed_and_resolving_leaves_a_note);

/// The edit box holds the description as the text it shows: saving another field keeps a description's
/// formatting (written over REST as HTML), and a description typed anew is stored as that text.
async fn descriptions_are_edited_as_text_and_keep_their_formatting(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let t = app
        .as_user(&agent)
        .create_ticket(serde_json::json!({
            "title": "Scanner",
            "description": "<p>Steps:</p><ul><li>scan</li><li>jam</li></ul>"
        }))
        .await;
    let id = t["id"].as_i64().unwrap();
    let browser = login(app, &agent).await;
    let shown = browser.page(app, &format!("/tickets/{id}/")).await;
    assert!(
        shown
            .text
            .contains("name=\"description\" rows=\"5\">Steps:\n\nscan\njam</textarea>"),
        "{}",
        shown.text
    );
    let saved = browser
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[
                ("title", "Scanner jams"),
                ("description", "Steps:\r\n\r\nscan\r\njam"),
            ],
        )
        .await;
    assert_eq!(location(&saved), format!("/tickets/{id}/"));
    let detail = app
        .get(&format!("/api/tickets/{id}/"), Some(&agent.token))
        .await;
    assert_eq!(detail.json["title"], "Scanner jams");
    assert_eq!(
        detail.json["description"],
        "<p>Steps:</p><ul><li>scan</li><li>jam</li></ul>"
    );
    let retyped = browser
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[("description", "Steps:\nscan, then <jam>")],
        )
        .await;
    assert_eq!(location(&retyped), format!("/tickets/{id}/"));
    let detail = app
        .get(&format!("/api/tickets/{id}/"), Some(&agent.token))
        .await;
    assert_eq!(
        detail.json["description"],
        "<p>Steps:<br>scan, then &lt;jam&gt;</p>"
    );
}
db_test!(descriptions_are_edited_as_text_and_keep_their_formatting);

/// The team tags a ticket from its page and follows a tag to the queue; the requester's page has no tags.
async fn the_team_tags_from_the_ticket_page(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let t = app
        .as_user(&rita)
        .create_ticket(serde_json::json!({"title": "VPN drops"}))
        .await;
    app.as_user(&rita)
        .create_ticket(serde_json::json!({"title": "Printer jams"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let browser = crate::support::world::login(app, &agent).await;
    let added = browser
        .form(
            app,
            &format!("/tickets/{id}/tags/"),
            &[("add", " VPN, Home Office ,")],
        )
        .await;
    assert_eq!(location(&added), format!("/tickets/{id}/"));
    let shown = browser.page(app, &format!("/tickets/{id}/")).await;
    let tags = shown
        .text
        .split("id=\"ticket-tags\"")
        .nth(1)
        .and_then(|rest| rest.split("</dd>").next())
        .unwrap_or_default()
        .to_string();
    assert!(
        tags.contains("href=\"/tickets/?tag=home%20office\"") && tags.contains(">vpn</a>"),
        "{tags}"
    );
    assert!(
        shown.text.contains("tagged this home office, vpn"),
        "the history tells it: {}",
        shown.text
    );
    let queue = browser.page(app, "/tickets/?tag=vpn").await;
    assert!(
        queue.text.contains("VPN drops") && !queue.text.contains("Printer jams"),
        "{}",
        queue.text
    );
    assert!(
        queue
            .text
            .contains(r#"<a class="tag" href="/tickets/?tag=vpn">vpn</a>"#)
            && queue
                .text
                .contains(r#"id="tag" name="tag" type="text" value="vpn""#),
        "the row shows its tags and the filter keeps the tag: {}",
        queue.text
    );
    let removed = browser
        .form(app, &format!("/tickets/{id}/tags/"), &[("remove", "vpn")])
        .await;
    assert_eq!(location(&removed), format!("/tickets/{id}/"));
    let api = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(api.json["tags"], serde_json::json!(["home office"]));
    let bad = browser
        .form(
            app,
            &format!("/tickets/{id}/tags/"),
            &[("add", "a".repeat(60).as_str())],
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);

    let requester = crate::support::world::login(app, &rita).await;
    let own = requester.page(app, &format!("/tickets/{id}/")).await;
    assert!(
        !own.text.contains("ticket-tags") && !own.text.contains("home office"),
        "{}",
        own.text
    );
    let refused = requester
        .form(app, &format!("/tickets/{id}/tags/"), &[("add", "mine")])
        .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
}
db_test!(the_team_tags_from_the_ticket_page);

/// An agent gathers an outage's tickets from the parent's page and resolves them together; a blocking ticket
/// says so; the requester's page shows only links to tickets they may see, without the forms.
async fn the_team_links_tickets_from_the_page(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let outage = app
        .as_user(&agent)
        .create_ticket(serde_json::json!({"title": "Mail is down"}))
        .await;
    let child = app
        .as_user(&rita)
        .create_ticket(serde_json::json!({"title": "No mail"}))
        .await;
    let hidden = app
        .as_user(&sam)
        .create_ticket(serde_json::json!({"title": "Sam's secret"}))
        .await;
    let (pid, cid) = (
        outage["id"].as_i64().unwrap(),
        child["id"].as_i64().unwrap(),
    );
    let browser = crate::support::world::login(app, &agent).await;
    let linked = browser
        .form(
            app,
            &format!("/tickets/{pid}/links/"),
            &[
                ("type", "parent_of"),
                ("ticket", child["ticket_number"].as_str().unwrap()),
            ],
        )
        .await;
    assert_eq!(location(&linked), format!("/tickets/{pid}/"));
    let blocked = browser
        .form(
            app,
            &format!("/tickets/{cid}/links/"),
            &[
                ("type", "blocked_by"),
                ("ticket", hidden["ticket_number"].as_str().unwrap()),
            ],
        )
        .await;
    assert_eq!(location(&blocked), format!("/tickets/{cid}/"));
    let looped = browser
        .form(
            app,
            &format!("/tickets/{cid}/links/"),
            &[
                ("type", "parent_of"),
                ("ticket", outage["ticket_number"].as_str().unwrap()),
            ],
        )
        .await;
    assert_eq!(looped.status, 400, "{}", looped.text);
    let unknown = browser
        .form(
            app,
            &format!("/tickets/{cid}/links/"),
            &[("type", "relates_to"), ("ticket", "TKT-999")],
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.text);

    let parent_page = browser.page(app, &format!("/tickets/{pid}/")).await;
    assert!(parent_page.text.contains("No mail"), "{}", parent_page.text);
    assert!(
        parent_page.text.contains("Resolve 1 open child"),
        "{}",
        parent_page.text
    );
    let child_page = browser.page(app, &format!("/tickets/{cid}/")).await;
    assert!(
        child_page.text.contains("Sam&#39;s secret") || child_page.text.contains("Sam's secret"),
        "{}",
        child_page.text
    );
    assert!(child_page.text.contains("Blocking"), "{}", child_page.text);

    let requester = crate::support::world::login(app, &rita).await;
    let own = requester.page(app, &format!("/tickets/{cid}/")).await;
    assert!(
        !own.text.contains("secret") && !own.text.contains("Blocking"),
        "{}",
        own.text
    );
    assert!(!own.text.contains("id=\"link-form\""), "{}", own.text);

    let resolved = browser
        .form(app, &format!("/tickets/{pid}/children/resolve/"), &[])
        .await;
    assert_eq!(location(&resolved), format!("/tickets/{pid}/"));
    let detail = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{cid}/"))
        .await;
    assert_eq!(detail.json["status"], "resolved", "{}", detail.text);
}
db_test!(the_team_links_tickets_from_the_page);

/// The queue sorts from its column headers and its drop-down: the header says which way the list reads
/// (`aria-sort`) and links to the other way, and every link keeps the filters, the view and the order.
async fn the_queue_sorts_by_its_columns(app: &TestApp) {
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let owner_actor = actor(app, &owner).await;
    let mut ids = Vec::new();
    for title in ["Sort alpha", "Sort bravo", "Sort charlie"] {
        let input = tickets::NewTicket {
            title: title.into(),
            ..Default::default()
        };
        ids.push(app.open_for(&owner_actor, input).await.id);
    }
    // The first one changes last.
    let patched = app
        .patch(
            &format!("/api/tickets/{}/", ids[0]),
            Some(&agent.token),
            serde_json::json!({"priority": "high"}),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    let browser = login(app, &agent).await;
    let order = |text: &str| {
        let mut found: Vec<(usize, &str)> = ["alpha", "bravo", "charlie"]
            .into_iter()
            .filter_map(|t| text.find(&format!("Sort {t}<")).map(|at| (at, t)))
            .collect();
        found.sort();
        found.into_iter().map(|(_, t)| t).collect::<Vec<_>>()
    };
    let queue = |path: String| {
        let browser = &browser;
        async move { browser.page(app, &path).await }
    };
    let resp = queue("/tickets/".into()).await;
    assert_eq!(order(&resp.text), ["charlie", "bravo", "alpha"]);
    // Not sorted by a column: each header offers its first order.
    assert!(!resp.text.contains("aria-sort"), "{}", resp.text);
    assert!(
        resp.text.contains(
            r#"<a class="sort" href="/tickets/?page=1&#38;limit=20&#38;sort=-number">Number</a>"#
        ),
        "{}",
        resp.text
    );
    for (sort, want) in [
        ("oldest", ["alpha", "bravo", "charlie"]),
        ("number", ["alpha", "bravo", "charlie"]),
        ("-number", ["charlie", "bravo", "alpha"]),
        ("-updated", ["alpha", "charlie", "bravo"]),
        ("updated", ["bravo", "charlie", "alpha"]),
        // An order it does not know is the default one, as the REST list's `ordering` is.
        ("bogus", ["charlie", "bravo", "alpha"]),
    ] {
        let resp = queue(format!("/tickets/?sort={sort}")).await;
        assert_eq!(resp.status, StatusCode::OK);
        assert_eq!(order(&resp.text), want, "sort={sort}");
    }
    // Sorted by Updated, newest first: its header says so and offers the other way; the filters stay.
    let resp = queue("/tickets/?status=new&sort=-updated".into()).await;
    assert!(
        resp.text.contains(r#"<th scope="col" aria-sort="descending"><a class="sort" href="/tickets/?page=1&#38;limit=20&#38;status=new&#38;sort=updated">Updated</a></th>"#),
        "{}",
        resp.text
    );
    assert!(resp
        .text
        .contains(r#"<option value="-updated" selected>Recently updated</option>"#));
    // Pages keep the order.
    let resp = queue("/tickets/?sort=oldest&limit=1".into()).await;
    assert_eq!(order(&resp.text), ["alpha"]);
    assert!(
        resp.text
            .contains(r#"href="/tickets/?page=2&#38;limit=1&#38;sort=oldest" rel="next""#),
        "{}",
        resp.text
    );
    let resp = queue("/tickets/?sort=oldest&limit=1&page=2".into()).await;
    assert_eq!(order(&resp.text), ["bravo"]);
}
db_test!(the_queue_sorts_by_its_columns);

/// The queue lists the work still to do: resolved and closed tickets show with the toggle (kept by the pages,
/// the headers and saved views), a status that asks for them, or a search.
async fn the_queue_hides_done_tickets_unless_asked(app: &TestApp) {
    use sea_orm::{ActiveModelTrait, Set};
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let owner_actor = actor(app, &owner).await;
    for (title, status) in [
        ("Still broken", TicketStatus::New),
        ("Fixed already", TicketStatus::Resolved),
        ("Long gone", TicketStatus::Closed),
    ] {
        let input = tickets::NewTicket {
            title: title.into(),
            ..Default::default()
        };
        let made = app.open_for(&owner_actor, input).await;
        let mut row: entity::ticket::ActiveModel = made.into();
        row.status = Set(status);
        row.update(&app.state.db.conn).await.unwrap();
    }
    let titles = |text: &str| {
        ["Still broken", "Fixed already", "Long gone"]
            .into_iter()
            .filter(|t| text.contains(t))
            .collect::<Vec<_>>()
    };
    for user in [&agent, &owner] {
        let browser = login(app, user).await;
        let resp = browser.page(app, "/tickets/").await;
        assert_eq!(titles(&resp.text), ["Still broken"], "{}", user.username);
        assert!(resp.text.contains(r#"<input type="checkbox" id="closed" name="closed" value="1"> Show resolved and closed"#));
        let resp = browser.page(app, "/tickets/?closed=1").await;
        assert_eq!(
            titles(&resp.text),
            ["Still broken", "Fixed already", "Long gone"]
        );
        assert!(resp.text.contains(r#"name="closed" value="1" checked>"#));
        let resp = browser.page(app, "/tickets/?status=closed").await;
        assert_eq!(titles(&resp.text), ["Long gone"]);
        let resp = browser.page(app, "/tickets/?q=gone").await;
        assert_eq!(titles(&resp.text), ["Long gone"]);
    }
    let browser = login(app, &agent).await;
    // The toggle stays on through the pages and the column headers.
    let resp = browser.page(app, "/tickets/?closed=1&limit=1").await;
    assert!(
        resp.text
            .contains(r#"href="/tickets/?page=2&#38;limit=1&#38;closed=1" rel="next""#),
        "{}",
        resp.text
    );
    assert!(resp.text.contains(
        r#"href="/tickets/?page=1&#38;limit=1&#38;closed=1&#38;sort=-updated">Updated</a>"#
    ));
    // And a saved view keeps it.
    assert!(
        resp.text
            .contains(r#"<input type="hidden" name="query" value="closed=1&#38;limit=1">"#),
        "{}",
        resp.text
    );
}
db_test!(the_queue_hides_done_tickets_unless_asked);

/// The fewest statements of three loads of `path` (a background job's statement can land in one window).
async fn page_statements(
    app: &TestApp,
    browser: &crate::support::world::Browser,
    path: &str,
) -> u64 {
    let mut fewest = u64::MAX;
    for _ in 0..3 {
        let before = app.statements();
        let resp = browser.page(app, path).await;
        assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
        fewest = fewest.min(app.statements() - before);
    }
    fewest
}

/// The queue and a ticket's page read in as many statements with one row or comment as with several, and a
/// signed-in browser's session costs one: the front layer resolves it once for the page, and the user and
/// their groups come from the instance's credential cache.
async fn pages_read_in_statements_that_do_not_grow(app: &TestApp) {
    let w = world(app).await;
    let id = w.ticket.id;
    let ticket = format!("/tickets/{id}/");
    add(app, &w.owner, id, "It smokes", CommentType::Public).await;
    let browser = login(app, &w.agent).await;
    let queue_one = page_statements(app, &browser, "/tickets/").await;
    let ticket_one = page_statements(app, &browser, &ticket).await;

    let agent = actor(app, &w.agent).await;
    for (title, requester) in [
        ("Scanner", &w.other),
        ("Badge", &w.grouper),
        ("Desk", &w.staff),
    ] {
        let made = tickets::create(
            app.state.write_deps(deskgraph::domain::Channel::System),
            &agent,
            tickets::NewTicket {
                title: title.into(),
                requester_id: Some(requester.id),
                assignee_id: Some(w.agent.id),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let tagged = app
            .as_user(&w.agent)
            .post(
                &format!("/api/tickets/{}/tags/", made.id),
                serde_json::json!({"tags": [title.to_lowercase()]}),
            )
            .await;
        assert_eq!(tagged.status, StatusCode::OK, "{}", tagged.text);
    }
    add(
        app,
        &w.agent,
        id,
        "Checked the fuser",
        CommentType::Internal,
    )
    .await;
    add(app, &w.staff, id, "Ordered a new one", CommentType::Public).await;

    let queue = browser.page(app, "/tickets/").await;
    for title in [
        "Printer on fire",
        "Scanner",
        "Badge",
        "Desk",
        ">scanner</a>",
    ] {
        assert!(queue.text.contains(title), "{title}");
    }
    assert_eq!(page_statements(app, &browser, "/tickets/").await, queue_one);
    assert_eq!(page_statements(app, &browser, &ticket).await, ticket_one);
    assert_eq!(queue_one, 2, "the queue's statements");
    assert_eq!(ticket_one, 19, "a ticket page's statements");
}
db_test!(pages_read_in_statements_that_do_not_grow);
