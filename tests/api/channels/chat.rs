//! Slack and Teams destinations: administered through REST and GraphQL with write-only secrets, filtered by
//! event, priority and project, internal notes only to a team-only channel, Slack bot threads, and a 429's
//! `Retry-After` obeyed.
use crate::db_test;
use crate::support::events::*;
use crate::support::graphql::gid;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use deskgraph::jobs::worker;
use deskgraph::notify::outbox as queue;
use deskgraph::state::AppState;
use entity::{audit_event, chat_thread};
use sea_orm::EntityTrait;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

fn field_error(response: &TestResponse, key: &str) {
    assert_error(response, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        response.json["details"][key].is_array(),
        "no error on {key}: {}",
        response.text
    );
}

/// A desk whose public URL is set, so messages link to tickets.
fn public(config: &mut deskgraph::config::Config) {
    config.accounts.public_url = Some("https://desk.example".into());
}

/// The app's state delivering with Slack's API at `slack`.
fn chatty(app: &TestApp, slack: Option<String>) -> AppState {
    state_configured(app, |c| {
        if let Some(url) = slack {
            c.slack_api_url = url;
        }
    })
}

async fn deliver_all(state: &AppState) {
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
}

fn bodies(receiver: &Receiver) -> Vec<Value> {
    receiver
        .hits()
        .iter()
        .map(|h| serde_json::from_str(&h.body).unwrap())
        .collect()
}

db_test!(admins_manage_destinations_and_never_read_their_secrets_back);
async fn admins_manage_destinations_and_never_read_their_secrets_back(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let secret_url = "http://127.0.0.1:9/services/T000/B000/XXXXsecretXXXX";

    let refused = app
        .as_user(&agent)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Desk", "kind": "slack", "webhook_url": secret_url}),
        )
        .await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    assert_error(
        &app.as_user(&agent).get("/api/chat-destinations/").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );

    let made = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Desk", "kind": "slack", "webhook_url": secret_url,
                   "priorities": ["critical", "high"], "events": ["ticket.created"]}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    assert_eq!(made.json["kind"], "slack");
    assert_eq!(made.json["has_webhook_url"], true);
    assert_eq!(made.json["has_token"], false);
    assert_eq!(made.json["priorities"], json!(["critical", "high"]));
    assert!(!made.text.contains("secret"), "{}", made.text);
    let id = made.json["id"].as_i64().unwrap();

    // Bad input: each a 400 naming its field.
    for (body, key) in [
        (
            json!({"name": "", "kind": "slack", "webhook_url": secret_url}),
            "name",
        ),
        (
            json!({"name": "X", "kind": "irc", "webhook_url": secret_url}),
            "kind",
        ),
        (json!({"name": "X", "kind": "teams"}), "webhook_url"),
        (json!({"name": "X", "kind": "slack"}), "webhook_url"),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": secret_url, "token": "xoxb-1", "channel": "C1"}),
            "webhook_url",
        ),
        (
            json!({"name": "X", "kind": "slack", "token": "xoxb-1"}),
            "channel",
        ),
        (
            json!({"name": "X", "kind": "slack", "token": "xoxb 1", "channel": "C1"}),
            "token",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": "ftp://x/y"}),
            "webhook_url",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": "http://169.254.169.254/x"}),
            "webhook_url",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": secret_url, "events": ["ticket.deleted"]}),
            "events",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": secret_url, "priorities": ["asap"]}),
            "priorities",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": secret_url, "project": 999}),
            "project",
        ),
        (
            json!({"name": "X", "kind": "slack", "webhook_url": secret_url, "team_only": "yes"}),
            "team_only",
        ),
    ] {
        let got = app
            .as_user(&admin)
            .post("/api/chat-destinations/", body.clone())
            .await;
        field_error(&got, key);
    }
    let path = format!("/api/chat-destinations/{id}/");
    field_error(
        &app.as_user(&admin)
            .patch(&path, json!({"kind": "teams"}))
            .await,
        "kind",
    );
    // Turning the webhook destination into a bot: the URL cleared, a token and a channel given.
    let bot = app
        .as_user(&admin)
        .patch(
            &path,
            json!({"webhook_url": null, "token": "xoxb-very-secret", "channel": "C0HELPDESK"}),
        )
        .await;
    assert_eq!(bot.status, StatusCode::OK, "{}", bot.text);
    assert_eq!(bot.json["has_webhook_url"], false);
    assert_eq!(bot.json["has_token"], true);
    assert_eq!(bot.json["channel"], "C0HELPDESK");
    assert!(!bot.text.contains("very-secret"));

    // GraphQL reads the same destination, and neither door nor the audit trail shows a secret.
    let query = "{ chatDestinations { id name kind hasWebhookUrl hasToken channel priorities events teamOnly active } }";
    let listed = app.graphql(Some(&admin.token), query, json!({})).await;
    let first = &listed["data"]["chatDestinations"][0];
    assert_eq!(first["id"], gid("ChatDestination", id as i32));
    assert_eq!(first["kind"], "SLACK_BOT", "the webhook became a bot");
    assert_eq!(first["priorities"], json!(["CRITICAL", "HIGH"]));
    assert_eq!(first["hasToken"], true);
    let forbidden = app.graphql(Some(&agent.token), query, json!({})).await;
    assert_eq!(forbidden["errors"][0]["extensions"]["code"], "FORBIDDEN");
    let node = app
        .graphql(
            Some(&agent.token),
            "query($id: ID!) { node(id: $id) { id } }",
            json!({"id": gid("ChatDestination", id as i32)}),
        )
        .await;
    assert!(node["data"]["node"].is_null(), "{node}");
    let trail = audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let kept: Vec<_> = trail
        .iter()
        .filter(|e| e.entity_type == "chat_destination")
        .collect();
    assert_eq!(kept.len(), 2, "create and update are recorded");
    for e in kept {
        let text = e.changes.to_string();
        assert!(!text.contains("secret"), "{text}");
    }

    // A Teams destination made through GraphQL, then deleted through REST.
    let made = app
        .graphql(
            Some(&admin.token),
            r#"mutation($u: String) { createChatDestination(input: {name: "Ops", kind: TEAMS, webhookUrl: $u, teamOnly: true}) {
                chatDestination { id databaseId kind teamOnly hasWebhookUrl } } }"#,
            json!({"u": secret_url}),
        )
        .await;
    let teams = &made["data"]["createChatDestination"]["chatDestination"];
    assert_eq!(teams["kind"], "TEAMS_WEBHOOK", "{made}");
    assert_eq!(teams["teamOnly"], true);
    let bad = app
        .graphql(
            Some(&admin.token),
            r#"mutation { createChatDestination(input: {name: "Ops", kind: TEAMS}) { chatDestination { id } } }"#,
            json!({}),
        )
        .await;
    assert_eq!(
        bad["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{bad}"
    );
    // The names list's kinds: each needs its own fields, and reads back as made.
    let create = |kind: &str, fields: &str| {
        format!(
            r#"mutation {{ createChatDestination(input: {{name: "Desk", kind: {kind}, {fields}}}) {{
                chatDestination {{ kind hasWebhookUrl hasToken channel }} }} }}"#
        )
    };
    let hook = format!("webhookUrl: {}", json!(secret_url));
    for (kind, fields, field) in [
        ("SLACK_WEBHOOK", "channel: \"C1\"", "webhookUrl"),
        ("TEAMS_WEBHOOK", "channel: \"C1\"", "webhookUrl"),
        ("SLACK_BOT", "channel: \"C1\"", "token"),
        (
            "SLACK_BOT",
            &*format!("token: \"xoxb-1\", channel: \"C1\", {hook}"),
            "webhookUrl",
        ),
        (
            "SLACK_WEBHOOK",
            &*format!("token: \"xoxb-1\", {hook}"),
            "token",
        ),
    ] {
        let refused = app
            .graphql(Some(&admin.token), &create(kind, fields), json!({}))
            .await;
        assert!(
            refused["errors"][0]["extensions"]["fields"][field].is_array(),
            "{kind} with {fields}: {refused}"
        );
    }
    let made = app
        .graphql(
            Some(&admin.token),
            &create("SLACK_BOT", "token: \"xoxb-2\", channel: \"C0DESK\""),
            json!({}),
        )
        .await;
    assert_eq!(
        made["data"]["createChatDestination"]["chatDestination"],
        json!({"kind": "SLACK_BOT", "hasWebhookUrl": false, "hasToken": true, "channel": "C0DESK"}),
        "{made}"
    );
    let made = app
        .graphql(
            Some(&admin.token),
            &create("SLACK_WEBHOOK", &hook),
            json!({}),
        )
        .await;
    assert_eq!(
        made["data"]["createChatDestination"]["chatDestination"]["kind"], "SLACK_WEBHOOK",
        "{made}"
    );
    let teams_id = teams["databaseId"].as_i64().unwrap();
    let gone = app
        .as_user(&admin)
        .delete(&format!("/api/chat-destinations/{teams_id}/"))
        .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_error(
        &app.as_user(&admin)
            .get(&format!("/api/chat-destinations/{teams_id}/"))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
}

db_test!(
    a_public_slack_channel_hears_of_urgent_tickets_and_public_comments_only,
    public
);
async fn a_public_slack_channel_hears_of_urgent_tickets_and_public_comments_only(app: &TestApp) {
    let slack = Receiver::start(Mode::Ok).await;
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let made = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Urgent", "kind": "slack", "webhook_url": slack.url, "priorities": ["critical"]}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let policy = crate::support::sla::create_policy(
        app,
        &admin.token,
        json!({"name": "Critical", "priority": "CRITICAL", "firstResponseMinutes": 30, "resolutionMinutes": 240}),
    )
    .await;
    assert!(policy["errors"].is_null(), "{policy}");
    let state = chatty(app, None);

    let urgent = app
        .as_user(&rita)
        .post(
            "/api/tickets/",
            json!({"title": "Server room <!channel> flooding", "description": "<p>Water everywhere &amp; rising</p>", "priority": "critical"}),
        )
        .await;
    assert_eq!(urgent.status, StatusCode::CREATED, "{}", urgent.text);
    let id = urgent.json["id"].as_i64().unwrap();
    let low = app
        .as_user(&rita)
        .post(
            "/api/tickets/",
            json!({"title": "Mouse squeaks", "priority": "low"}),
        )
        .await;
    let low_id = low.json["id"].as_i64().unwrap();
    let comment = |ticket: i64, body: &str, internal: bool| {
        let path = format!("/api/tickets/{ticket}/comments/");
        let body =
            json!({"content": body, "comment_type": if internal {"internal"} else {"public"}});
        let app = &app;
        let agent = &agent;
        async move { app.as_user(agent).post(&path, body).await }
    };
    let note = comment(id, "Secret: the sprinkler vendor is bankrupt", true).await;
    assert_eq!(note.status, StatusCode::CREATED, "{}", note.text);
    comment(id, "We are on our way", false).await;
    comment(low_id, "Try some oil", false).await;
    let moved = app
        .as_user(&agent)
        .patch(
            &format!("/api/tickets/{id}/"),
            json!({"status": "in_progress", "assigned_to": agent.id}),
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    deliver_all(&state).await;

    let posts = bodies(&slack);
    let all = posts
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !all.contains("sprinkler"),
        "an internal note reached a public channel: {all}"
    );
    assert!(
        !all.contains("Mouse") && !all.contains("oil"),
        "a low ticket reached an urgent-only channel: {all}"
    );
    assert!(
        !all.contains("<!channel>"),
        "a title mentioned the whole channel: {all}"
    );
    let headlines: Vec<String> = posts
        .iter()
        .map(|p| p["blocks"][0]["text"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        headlines.len(),
        4,
        "created, comment, status, assigned: {headlines:?}"
    );
    let number = urgent.json["ticket_number"].as_str().unwrap();
    let heading = format!(
        "*<https://desk.example/tickets/{id}/|{number} · Server room &lt;!channel&gt; flooding>*"
    );
    assert_eq!(headlines[0], format!("{heading}\nNew ticket"));
    assert_eq!(
        posts[0]["blocks"][1]["text"]["text"],
        "&gt; Water everywhere &amp; rising"
    );
    assert_eq!(headlines[1], format!("{heading}\nAgnes Example commented"));
    assert_eq!(
        posts[1]["blocks"][1]["text"]["text"],
        "&gt; We are on our way"
    );
    assert!(
        headlines[2..].contains(&format!("{heading}\nStatus: new → in_progress")),
        "{headlines:?}"
    );
    assert!(
        headlines[2..].contains(&format!("{heading}\nAssigned to Agnes Example")),
        "{headlines:?}"
    );
    let facts: Vec<&str> = posts[3]["blocks"].as_array().unwrap().last().unwrap()["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        &facts[..4],
        [
            "*Priority*\ncritical",
            "*Status*\nin_progress",
            "*Requester*\nRita Example",
            "*Assignee*\nAgnes Example"
        ]
    );
    assert!(posts[0]["text"].as_str().unwrap().starts_with(number));
    // The clock the ticket started with: first response due in 30 minutes.
    let opened_facts = posts[0]["blocks"][2]["fields"].to_string();
    assert!(opened_facts.contains("*SLA*\\nDue "), "{opened_facts}");
}

db_test!(
    a_team_only_teams_channel_hears_internal_notes_as_adaptive_cards,
    public
);
async fn a_team_only_teams_channel_hears_internal_notes_as_adaptive_cards(app: &TestApp) {
    let teams = Receiver::start(Mode::Ok).await;
    let public = Receiver::start(Mode::Ok).await;
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    for (name, url, team_only) in [("Team", &teams.url, true), ("Everyone", &public.url, false)] {
        let made = app
            .as_user(&admin)
            .post(
                "/api/chat-destinations/",
                json!({"name": name, "kind": "teams", "webhook_url": url, "team_only": team_only,
                       "events": ["comment.created"]}),
            )
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    }
    let state = chatty(app, None);
    let t = app
        .as_user(&rita)
        .post(
            "/api/tickets/",
            json!({"title": "VPN [drops](http://evil.example) **daily**"}),
        )
        .await;
    let id = t.json["id"].as_i64().unwrap();
    let note = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "Their router is on the blocklist", "comment_type": "internal"}),
        )
        .await;
    assert_eq!(note.status, StatusCode::CREATED);
    deliver_all(&state).await;

    assert!(public.hits().is_empty(), "{:?}", public.hits());
    let posts = bodies(&teams);
    assert_eq!(posts.len(), 1, "{posts:?}");
    let card = &posts[0]["attachments"][0];
    assert_eq!(
        card["contentType"],
        "application/vnd.microsoft.card.adaptive"
    );
    let body = &card["content"]["body"];
    assert_eq!(card["content"]["type"], "AdaptiveCard");
    assert_eq!(body[0]["inlines"][0]["type"], "TextRun");
    assert!(body[0]["inlines"][0]["text"]
        .as_str()
        .unwrap()
        .ends_with("VPN [drops](http://evil.example) **daily**"));
    assert_eq!(
        body[1]["inlines"][0]["text"],
        "Internal note by Agnes Example"
    );
    assert_eq!(
        body[2]["inlines"][0]["text"],
        "Their router is on the blocklist"
    );
    assert_eq!(
        card["content"]["actions"][0]["url"],
        format!("https://desk.example/tickets/{id}/")
    );
    // No markdown anywhere: TextBlocks render it, TextRuns in RichTextBlocks do not.
    assert!(!posts[0].to_string().contains("\"type\":\"TextBlock\""));
}

/// A stand-in for Slack's Web API: answers `chat.postMessage` from a script, then `ok` with a fresh `ts`.
#[derive(Clone, Default)]
struct SlackApi {
    script: Arc<Mutex<VecDeque<Response>>>,
    hits: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
}

impl SlackApi {
    async fn start(script: Vec<Response>) -> (SlackApi, String) {
        let api = SlackApi {
            script: Arc::new(Mutex::new(script.into())),
            hits: Arc::default(),
        };
        let app = Router::new()
            .route("/api/chat.postMessage", post(post_message))
            .with_state(api.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        (api, format!("http://{addr}/api"))
    }

    fn hits(&self) -> Vec<(HeaderMap, Value)> {
        self.hits.lock().unwrap().clone()
    }
}

async fn post_message(State(api): State<SlackApi>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let n = {
        let mut hits = api.hits.lock().unwrap();
        hits.push((headers, body));
        hits.len()
    };
    if let Some(scripted) = api.script.lock().unwrap().pop_front() {
        return scripted;
    }
    axum::Json(json!({"ok": true, "ts": format!("1700000000.{n:06}")})).into_response()
}

db_test!(a_slack_bot_threads_each_tickets_messages_and_waits_out_a_429);
async fn a_slack_bot_threads_each_tickets_messages_and_waits_out_a_429(app: &TestApp) {
    let limited = (
        StatusCode::TOO_MANY_REQUESTS,
        [("retry-after", "30")],
        "rate limited",
    )
        .into_response();
    let (api, base) = SlackApi::start(vec![limited]).await;
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let made = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Bot", "kind": "slack", "token": "xoxb-test-token", "channel": "C0DESK"}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let state = chatty(app, Some(base));
    let first = app
        .as_user(&rita)
        .post("/api/tickets/", json!({"title": "Printer on fire"}))
        .await;
    let id = first.json["id"].as_i64().unwrap();

    // Slack says 429, retry in 30 s: the row waits, untried again until then.
    let now = queue::now_ms();
    worker::run_once_at(&state.delivery_deps(), now)
        .await
        .unwrap();
    assert_eq!(api.hits().len(), 1);
    let rows = outbox_rows(app).await;
    let chat_row = rows.iter().find(|r| r.kind == "chat").unwrap();
    assert_eq!(chat_row.status, "pending");
    assert!(chat_row.locked_until_ms >= now + 29_000, "{chat_row:?}");
    worker::run_once_at(&state.delivery_deps(), now + 5_000)
        .await
        .unwrap();
    assert_eq!(api.hits().len(), 1, "tried again before Retry-After");

    // Meanwhile more happens on the ticket, and a second ticket opens.
    app.as_user(&agent)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "Extinguisher on its way"}),
        )
        .await;
    let second = app
        .as_user(&rita)
        .post("/api/tickets/", json!({"title": "Scanner jams"}))
        .await;
    let second_id = second.json["id"].as_i64().unwrap();
    let later = now + 31_000;
    while worker::run_once_at(&state.delivery_deps(), later)
        .await
        .unwrap()
        > 0
    {}

    let hits = api.hits();
    assert_eq!(hits.len(), 4, "{hits:?}");
    for (headers, body) in &hits {
        assert_eq!(headers["authorization"], "Bearer xoxb-test-token");
        assert_eq!(body["channel"], "C0DESK");
    }
    // The first ticket's first message opened its thread; the comment went into it. The second ticket
    // has a thread of its own.
    let thread_of = |ticket: i64| async move {
        chat_thread::Entity::find_by_id((1, ticket as i32))
            .one(&app.state.db.conn)
            .await
            .unwrap()
            .map(|t| t.thread_ts)
    };
    let first_thread = thread_of(id).await.expect("the first ticket has a thread");
    assert_eq!(first_thread, "1700000000.000002");
    let commented = hits
        .iter()
        .find(|(_, b)| b["text"].as_str().unwrap_or("").contains("commented"))
        .unwrap();
    assert_eq!(commented.1["thread_ts"], first_thread);
    let second_thread = thread_of(second_id)
        .await
        .expect("the second ticket has a thread");
    assert_ne!(second_thread, first_thread);
    let opened: Vec<_> = hits
        .iter()
        .filter(|(_, b)| b["text"].as_str().unwrap_or("").contains("New ticket"))
        .collect();
    assert!(
        opened.iter().all(|(_, b)| b.get("thread_ts").is_none()),
        "{opened:?}"
    );
    let rows = outbox_rows(app).await;
    assert!(rows
        .iter()
        .filter(|r| r.kind == "chat")
        .all(|r| r.status == "delivered"));

    // Every try is in the administrator's log, newest first: the 429, then the same message's second try.
    let listed = app
        .as_user(&admin)
        .graphql_data("{ chatDestinations { id } }", json!({}))
        .await;
    let admin_says = app
        .as_user(&admin)
        .graphql_data(
            "query($id: ID!) { node(id: $id) { ... on ChatDestination { \
               deliveries(first: 10) { nodes { databaseId attempts } } \
               attempts(first: 10) { totalCount nodes { deliveryId event attempt statusCode error durationMs } } } } }",
            json!({"id": listed["chatDestinations"][0]["id"]}),
        )
        .await;
    let destination = &admin_says["node"];
    let tries = destination["attempts"]["nodes"].as_array().unwrap();
    assert_eq!(destination["attempts"]["totalCount"], 4, "{admin_says}");
    let throttled = &tries[3];
    assert_eq!(
        (
            &throttled["event"],
            &throttled["attempt"],
            &throttled["statusCode"],
            &throttled["error"]
        ),
        (
            &json!("ticket.created"),
            &json!(1),
            &json!(429),
            &json!("Slack answered 429")
        ),
        "{admin_says}"
    );
    let retried: Vec<_> = tries
        .iter()
        .filter(|t| t["deliveryId"] == throttled["deliveryId"])
        .map(|t| {
            (
                t["attempt"].clone(),
                t["statusCode"].clone(),
                t["error"].clone(),
            )
        })
        .collect();
    assert_eq!(
        retried,
        vec![
            (json!(2), json!(200), Value::Null),
            (json!(1), json!(429), json!("Slack answered 429"))
        ]
    );
    assert!(tries
        .iter()
        .all(|t| t["durationMs"].as_i64().is_some_and(|ms| ms >= 0)));
    let messages = destination["deliveries"]["nodes"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m["databaseId"] == throttled["deliveryId"] && m["attempts"] == 2),
        "{admin_says}"
    );
    let page = crate::support::world::login(app, &admin)
        .await
        .page(app, "/admin/chat/")
        .await;
    let last_try = page
        .text
        .split("id=\"chat-try-1\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default()
        .to_string();
    assert!(
        last_try.starts_with("Last try ")
            && last_try.contains(": answered 200 in ")
            && last_try.ends_with(" ms."),
        "{last_try}"
    );
    let agent_asks = app
        .as_user(&agent)
        .graphql(
            "query($id: ID!) { node(id: $id) { ... on ChatDestination { attempts(first: 10) { totalCount } } } }",
            json!({"id": listed["chatDestinations"][0]["id"]}),
        )
        .await;
    assert_ne!(agent_asks["errors"], Value::Null, "{agent_asks}");
    assert!(
        agent_asks["data"]["node"].is_null() && !agent_asks.to_string().contains("429"),
        "{agent_asks}"
    );
}

db_test!(a_revoked_slack_token_is_given_up_not_retried);
async fn a_revoked_slack_token_is_given_up_not_retried(app: &TestApp) {
    let revoked = || axum::Json(json!({"ok": false, "error": "token_revoked"})).into_response();
    let (api, base) = SlackApi::start(vec![revoked(), revoked()]).await;
    let admin = app.admin("ada").await;
    let rita = app.user("rita").await;
    app.as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Bot", "kind": "slack", "token": "xoxb-old", "channel": "C0DESK"}),
        )
        .await;
    let state = chatty(app, Some(base));
    app.as_user(&rita)
        .post("/api/tickets/", json!({"title": "Printer on fire"}))
        .await;
    deliver_all(&state).await;
    assert_eq!(api.hits().len(), 1);
    let rows = outbox_rows(app).await;
    let row = rows.iter().find(|r| r.kind == "chat").unwrap();
    assert_eq!(row.status, "failed");
    assert_eq!(
        row.last_error.as_deref(),
        Some("Slack refused: token_revoked")
    );

    // The administrator sees why the channel hears nothing: in GraphQL's delivery log, newest first, and on
    // the page. Nobody else reads the log.
    app.as_user(&rita)
        .post("/api/tickets/", json!({"title": "Scanner jams"}))
        .await;
    deliver_all(&state).await;
    let listed = app
        .as_user(&admin)
        .graphql_data("{ chatDestinations { id databaseId } }", json!({}))
        .await;
    let gid = listed["chatDestinations"][0]["id"].clone();
    let id = listed["chatDestinations"][0]["databaseId"]
        .as_i64()
        .unwrap();
    let log = "query($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on ChatDestination { \
               deliveries(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } \
               nodes { event status attempts lastError deliveredAt } } } } }";
    let data = app
        .as_user(&admin)
        .graphql_data(log, json!({"id": gid, "first": 1}))
        .await;
    let page = &data["node"]["deliveries"];
    assert_eq!(page["totalCount"], 2, "{data}");
    assert_eq!(page["pageInfo"]["hasNextPage"], true, "{data}");
    assert_eq!(
        page["nodes"],
        json!([{"event": "ticket.created", "status": "FAILED", "attempts": 1,
            "lastError": "Slack refused: token_revoked", "deliveredAt": null}])
    );
    let rest = app
        .as_user(&admin)
        .graphql_data(
            log,
            json!({"id": gid, "first": 5, "after": page["pageInfo"]["endCursor"]}),
        )
        .await;
    assert_eq!(
        rest["node"]["deliveries"]["nodes"].as_array().map(Vec::len),
        Some(1),
        "{rest}"
    );
    let agent = app.agent("agnes").await;
    let refused = app
        .as_user(&agent)
        .graphql(log, json!({"id": gid, "first": 1}))
        .await;
    assert_ne!(refused["errors"], Value::Null, "{refused}");
    assert!(
        refused["data"]["node"].is_null() && !refused.to_string().contains("token_revoked"),
        "{refused}"
    );
    let browser = crate::support::world::login(app, &admin).await;
    let page = browser.page(app, "/admin/chat/").await;
    let said = page
        .text
        .split(&format!("id=\"chat-last-{id}\">"))
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        said,
        "Last message (ticket.created) given up after 1 tries: Slack refused: token_revoked."
    );
    assert!(
        page.text
            .contains(&format!("class=\"field-error\" id=\"chat-last-{id}\"")),
        "{}",
        page.text
    );
    // Slack answered 200 with `ok: false`: the latest try names both.
    let tried = page
        .text
        .split(&format!("id=\"chat-try-{id}\">"))
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default()
        .to_string();
    assert!(
        tried.contains(": answered 200 in ")
            && tried.ends_with(" ms: Slack refused: token_revoked."),
        "{tried}"
    );
}

db_test!(an_admin_adds_changes_and_removes_a_channel_from_the_page);
async fn an_admin_adds_changes_and_removes_a_channel_from_the_page(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let ada = login(app, &admin).await;
    let hook = "http://127.0.0.1:9/services/T1/B1/pageSECRET";
    let made = ada
        .form(
            app,
            "/admin/chat/",
            &[
                ("name", "Network on-call"),
                ("kind", "slack"),
                ("webhook_url", hook),
                ("event", "ticket.created"),
                ("event", "ticket.sla_breached"),
                ("priority", "critical"),
                ("team_only", "1"),
            ],
        )
        .await;
    assert_eq!(location(&made), "/admin/chat/?done=created");
    let bad = ada
        .form(app, "/admin/chat/", &[("name", "Teams"), ("kind", "teams")])
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("role=\"alert\""), "{}", bad.text);
    let page = ada.page(app, "/admin/chat/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("Network on-call"), "{}", page.text);
    assert!(!page.text.contains("pageSECRET"), "the URL is shown back");
    assert!(page.text.contains("No message yet."), "{}", page.text);

    let listed = app.as_user(&admin).get("/api/chat-destinations/").await;
    let d = &listed.json[0];
    assert_eq!(
        d["events"],
        json!(["ticket.created", "ticket.sla_breached"])
    );
    assert_eq!(d["priorities"], json!(["critical"]));
    assert_eq!(d["team_only"], true);
    let id = d["id"].as_i64().unwrap().to_string();

    // Saved with the URL box blank: the URL stays; switched off, every event now.
    let saved = ada
        .form(
            app,
            "/admin/chat/change/",
            &[("id", id.as_str()), ("name", "Network"), ("channel", "")],
        )
        .await;
    assert_eq!(location(&saved), "/admin/chat/?done=saved");
    let now = app
        .as_user(&admin)
        .get(&format!("/api/chat-destinations/{id}/"))
        .await;
    assert_eq!(now.json["name"], "Network");
    assert_eq!(now.json["has_webhook_url"], true);
    assert_eq!(now.json["active"], false);
    assert_eq!(now.json["events"], json!([]));
    assert_eq!(now.json["team_only"], false);

    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/chat/").await.status,
        StatusCode::FORBIDDEN
    );
    let refused = agnes
        .form(
            app,
            "/admin/chat/change/",
            &[("id", id.as_str()), ("delete", "1")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    let gone = ada
        .form(
            app,
            "/admin/chat/change/",
            &[("id", id.as_str()), ("delete", "1")],
        )
        .await;
    assert_eq!(location(&gone), "/admin/chat/?done=deleted");
    let empty = app.as_user(&admin).get("/api/chat-destinations/").await;
    assert_eq!(empty.json, json!([]));
}

db_test!(a_hanging_chat_endpoint_leaves_email_on_time);
async fn a_hanging_chat_endpoint_leaves_email_on_time(app: &TestApp) {
    let dead = Receiver::start(Mode::Hang).await;
    let sink = SmtpSink::start().await;
    let admin = app.admin("ada").await;
    app.as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Dead", "kind": "teams", "webhook_url": dead.url}),
        )
        .await;
    let smtp = sink.url.clone();
    let state = state_configured(app, |c| {
        c.smtp_url = Some(smtp);
        c.delivery_timeout_ms = 1000;
        c.outbox_backoff_ms = 1000;
    });
    let ann = app.user("ann").await;
    let bob = actor(app, &app.agent("bob").await).await;
    for i in 0..10 {
        let input = deskgraph::service::tickets::NewTicket {
            title: format!("Printer {i}"),
            requester_id: Some(ann.id),
            ..Default::default()
        };
        create_ticket(&state, &bob, input).await;
    }
    let worker = worker::spawn(state.delivery_deps());
    let started = std::time::Instant::now();
    while sink.messages().len() < 10 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "emails waited for a dead chat endpoint"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    worker.abort();
    let rows = outbox_rows(app).await;
    let chats: Vec<_> = rows.iter().filter(|r| r.kind == "chat").collect();
    assert_eq!(chats.len(), 10);
    assert!(chats.iter().all(|r| r.status == "pending"), "{chats:?}");
}

db_test!(a_trigger_posts_its_own_message_to_the_channel_it_names);
async fn a_trigger_posts_its_own_message_to_the_channel_it_names(app: &TestApp) {
    let slack = Receiver::start(Mode::Ok).await;
    let admin = app.admin("ada").await;
    let rita = app.user("rita").await;
    // A channel that otherwise takes only breaches: the rule names it, so it gets the rule's message.
    let made = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "On-call", "kind": "slack", "webhook_url": slack.url, "events": ["ticket.sla_breached"]}),
        )
        .await;
    let chat_id = made.json["id"].as_i64().unwrap();
    let rule = json!({
        "name": "Page on VPN",
        "conditions": {"all": [
            {"field": "event", "operator": "is", "value": "created"},
            {"field": "ticket.title", "operator": "contains", "value": "vpn"},
        ]},
        "actions": [{"notify": {"chat": chat_id}, "subject": "VPN trouble for {{requester.full_name}}",
                     "body": "{{ticket.number}} needs the network team"}],
    });
    let saved = app
        .as_user(&admin)
        .post("/api/automation/triggers/", rule.clone())
        .await;
    assert_eq!(saved.status, StatusCode::CREATED, "{}", saved.text);
    assert_eq!(saved.json["actions"][0]["notify"], json!({"chat": chat_id}));
    let mut missing = rule.clone();
    missing["actions"][0]["notify"] = json!({"chat": 9999});
    field_error(
        &app.as_user(&admin)
            .post("/api/automation/triggers/", missing)
            .await,
        "actions[0].notify",
    );

    let state = chatty(app, None);
    let t = app
        .as_user(&rita)
        .post("/api/tickets/", json!({"title": "VPN drops every hour"}))
        .await;
    app.as_user(&rita)
        .post("/api/tickets/", json!({"title": "Printer jams"}))
        .await;
    deliver_all(&state).await;
    let posts = bodies(&slack);
    assert_eq!(posts.len(), 1, "{posts:?}");
    let number = t.json["ticket_number"].as_str().unwrap();
    assert_eq!(
        posts[0]["blocks"][0]["text"]["text"],
        format!("*{number} · VPN drops every hour*\nVPN trouble for Rita Example")
    );
    assert_eq!(
        posts[0]["blocks"][1]["text"]["text"],
        format!("&gt; {number} needs the network team")
    );
}

db_test!(the_trigger_page_names_a_chat_channel_by_its_name);
async fn the_trigger_page_names_a_chat_channel_by_its_name(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    let admin = app.admin("ada").await;
    let made = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "On-call", "kind": "teams", "webhook_url": "http://127.0.0.1:9/x"}),
        )
        .await;
    let chat_id = made.json["id"].as_i64().unwrap();
    let ada = login(app, &admin).await;
    let form = |target: &'static str| {
        vec![
            ("name", "Page"),
            ("project", ""),
            ("active", "true"),
            ("cond_list", "all"),
            ("cond_field", "event"),
            ("cond_op", "is"),
            ("cond_value", "created"),
            ("act_kind", "notify_chat"),
            ("act_value", target),
        ]
    };
    let refused = ada
        .form(app, "/admin/triggers/", &form("Nowhere\nHi\nThere"))
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused.text.contains("no chat channel named"),
        "{}",
        refused.text
    );
    let saved = ada
        .form(
            app,
            "/admin/triggers/",
            &form("on-call\nNew {{ticket.number}}\nHave a look"),
        )
        .await;
    let page = location(&saved);
    let stored = app
        .as_user(&admin)
        .get("/api/automation/triggers/")
        .await
        .json;
    assert_eq!(
        stored[0]["actions"][0],
        json!({"notify": {"chat": chat_id}, "subject": "New {{ticket.number}}", "body": "Have a look"})
    );
    let shown = ada.page(app, &page).await;
    assert!(
        shown.text.contains("On-call\nNew {{ticket.number}}"),
        "{}",
        shown.text
    );
}

db_test!(a_desk_keeps_at_most_a_hundred_destinations);
async fn a_desk_keeps_at_most_a_hundred_destinations(app: &TestApp) {
    let admin = app.admin("ada").await;
    let ada = actor(app, &admin).await;
    for i in 0..deskgraph::service::chat::MAX_DESTINATIONS {
        deskgraph::service::chat::create(
            &app.state.db,
            true,
            &ada,
            deskgraph::service::chat::NewChat {
                name: format!("Channel {i}"),
                kind: entity::values::ChatKind::Teams,
                url: Some("http://127.0.0.1:9/x".into()),
                token: None,
                channel: None,
                project_id: None,
                events: Vec::new(),
                priorities: Vec::new(),
                team_only: None,
                active: None,
            },
        )
        .await
        .unwrap();
    }
    let refused = app
        .as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "One more", "kind": "teams", "webhook_url": "http://127.0.0.1:9/x"}),
        )
        .await;
    assert_error(&refused, StatusCode::BAD_REQUEST, "validation_error");
    assert!(refused.text.contains("at most 100"), "{}", refused.text);
}

db_test!(a_failed_post_never_writes_the_secret_url_down);
async fn a_failed_post_never_writes_the_secret_url_down(app: &TestApp) {
    let admin = app.admin("ada").await;
    let rita = app.user("rita").await;
    // Nothing listens on port 9: the connection is refused.
    app.as_user(&admin)
        .post(
            "/api/chat-destinations/",
            json!({"name": "Gone", "kind": "slack", "webhook_url": "http://127.0.0.1:9/services/T1/B1/SECRETPATH"}),
        )
        .await;
    let state = chatty(app, None);
    app.as_user(&rita)
        .post("/api/tickets/", json!({"title": "Printer on fire"}))
        .await;
    worker::run_once(&state.delivery_deps()).await.unwrap();
    let rows = outbox_rows(app).await;
    let row = rows.iter().find(|r| r.kind == "chat").unwrap();
    assert_eq!(row.status, "pending");
    let error = row.last_error.as_deref().unwrap_or_default();
    assert!(error.starts_with("request failed"), "{error}");
    assert!(!error.contains("SECRETPATH"), "{error}");
    // The try is logged with no answer, and without the URL either.
    let tries = entity::chat_delivery::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(tries.len(), 1);
    assert_eq!(
        (
            tries[0].attempt,
            tries[0].status_code,
            tries[0].error.as_deref()
        ),
        (1, None, Some(error))
    );
    let page = crate::support::world::login(app, &admin)
        .await
        .page(app, "/admin/chat/")
        .await;
    assert!(!page.text.contains("SECRETPATH"), "{}", page.text);
    let tried = page
        .text
        .split(&format!("id=\"chat-try-{}\">", tries[0].destination_id))
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_default()
        .to_string();
    assert!(
        tried.contains(": no answer after ") && tried.ends_with(&format!(" ms: {error}.")),
        "{tried}"
    );
}

db_test!(the_trigger_page_names_a_webhook_endpoint_by_its_url);
async fn the_trigger_page_names_a_webhook_endpoint_by_its_url(app: &TestApp) {
    use crate::support::pages::location;
    use crate::support::world::login;
    let admin = app.admin("ada").await;
    let made = app
        .graphql(
            Some(&admin.token),
            r#"mutation { createWebhook(input: {url: "http://127.0.0.1:9/noc", secret: "s"}) { webhook { databaseId } } }"#,
            json!({}),
        )
        .await;
    let endpoint = made["data"]["createWebhook"]["webhook"]["databaseId"].clone();
    let ada = login(app, &admin).await;
    let saved = ada
        .form(
            app,
            "/admin/triggers/",
            &[
                ("name", "Call the NOC"),
                ("project", ""),
                ("active", "true"),
                ("cond_list", "all"),
                ("cond_field", "event"),
                ("cond_op", "is"),
                ("cond_value", "created"),
                ("act_kind", "notify_webhook"),
                (
                    "act_value",
                    "http://127.0.0.1:9/noc\nNew {{ticket.number}}\nLook",
                ),
            ],
        )
        .await;
    let page = location(&saved);
    let stored = app
        .as_user(&admin)
        .get("/api/automation/triggers/")
        .await
        .json;
    assert_eq!(
        stored[0]["actions"][0],
        json!({"notify": {"webhook": endpoint}, "subject": "New {{ticket.number}}", "body": "Look"})
    );
    let shown = ada.page(app, &page).await;
    assert!(
        shown
            .text
            .contains("http://127.0.0.1:9/noc\nNew {{ticket.number}}"),
        "{}",
        shown.text
    );
}
