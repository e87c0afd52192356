//! Macros: who may save, see and apply which; a preview changes nothing and applying matches it; applying to
//! many tickets reports each ticket the agent may not change instead of skipping it.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::login;
use axum::http::StatusCode;
use serde_json::{json, Value};

const CREATE: &str =
    "mutation($i: CreateMacroInput!) { createMacro(input: $i) { macro { id databaseId name scope } } }";
const PREVIEW: &str = r#"query($m: ID!, $t: ID!) { previewMacro(macroId: $m, ticketId: $t) {
    ticket { status } changes replies { body internal } } }"#;
const APPLY: &str = r#"mutation($i: ApplyMacroInput!) { applyMacro(input: $i) {
    tickets { databaseId status priority } failures { ticketId code message } } }"#;
const TICKET: &str = r#"query($n: Int!) { ticket(databaseId: $n) { status priority updatedAt
    comments(first: 10) { nodes { body commentType author { username } } } } }"#;

fn gid(kind: &str, id: &Value) -> String {
    crate::support::graphql::gid(kind, id.as_i64().unwrap() as i32)
}

async fn state_of(app: &TestApp, who: &TestUser, id: &Value) -> Value {
    app.as_user(who)
        .graphql_data(TICKET, json!({"n": id}))
        .await["ticket"]
        .clone()
}

db_test!(an_agent_answers_with_one_macro_and_the_preview_matches);
async fn an_agent_answers_with_one_macro_and_the_preview_matches(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let cat = app.agent("cat").await;
    let root = app.admin("root").await;
    let actions = json!([
        {"set": "status", "value": "resolved"},
        {"set": "priority", "value": "low"},
        {"comment": "Hi {{requester.full_name}}, a restart fixes {{ticket.number}}."}
    ]);
    // Requesters have no macros; sharing is for administrators.
    let refused = app
        .as_user(&ann)
        .graphql(CREATE, json!({"i": {"name": "x", "actions": actions}}))
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );
    let refused = app
        .as_user(&bob)
        .graphql(
            CREATE,
            json!({"i": {"name": "x", "scope": "EVERYONE", "actions": actions}}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );
    let listed = app
        .as_user(&ann)
        .graphql("{ macros { id } }", json!({}))
        .await;
    assert_eq!(
        listed["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{listed}"
    );

    let mine = app
        .as_user(&bob)
        .graphql_data(
            CREATE,
            json!({"i": {"name": "Restart", "actions": actions}}),
        )
        .await;
    let mine = mine["createMacro"]["macro"].clone();
    assert_eq!(mine["scope"], "PERSONAL");
    let shared = app.as_user(&root).graphql_data(CREATE, json!({"i": {"name": "Thanks", "scope": "EVERYONE", "actions": [{"comment": "Thanks!"}]}})).await;
    let shared_id = shared["createMacro"]["macro"]["id"].clone();
    // Each sees their own and everyone's; a personal macro is nobody else's.
    let names = |who: &TestUser| {
        let who = who.clone();
        async move {
            let data = app
                .as_user(&who)
                .graphql_data("{ macros { name } }", json!({}))
                .await;
            data["macros"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(names(&bob).await, ["Restart", "Thanks"]);
    assert_eq!(names(&cat).await, ["Thanks"]);
    let t = app.as_user(&ann).ticket_titled("Laptop frozen").await;
    let t_gid = gid("Ticket", &t["id"]);
    let hidden = app
        .as_user(&cat)
        .graphql(PREVIEW, json!({"m": mine["id"], "t": t_gid}))
        .await;
    assert_eq!(
        hidden["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{hidden}"
    );
    let not_theirs = app
        .as_user(&cat)
        .graphql(
            "mutation($i: UpdateMacroInput!) { updateMacro(input: $i) { macro { id } } }",
            json!({"i": {"id": shared_id, "name": "Mine now"}}),
        )
        .await;
    assert_eq!(
        not_theirs["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{not_theirs}"
    );

    // The preview changes nothing...
    let before = state_of(app, &bob, &t["id"]).await;
    let preview = app
        .as_user(&bob)
        .graphql_data(PREVIEW, json!({"m": mine["id"], "t": t_gid}))
        .await["previewMacro"]
        .clone();
    assert_eq!(
        preview["changes"],
        json!({"status": ["new", "resolved"], "priority": ["medium", "low"]})
    );
    let number = t["ticket_number"].as_str().unwrap();
    let reply = format!("<p>Hi Ann Example, a restart fixes {number}.</p>");
    assert_eq!(
        preview["replies"],
        json!([{"body": reply, "internal": false}])
    );
    // The names list's form, `previewMacro(input: {macroId, ticketId})`, as a query and as a mutation, says
    // the same; two forms at once, or half of one, is refused.
    for form in [
        "query($i: PreviewMacroInput!) { previewMacro(input: $i) { ticket { status } changes replies { body internal } } }",
        "mutation($i: PreviewMacroInput!) { previewMacro(input: $i) { ticket { status } changes replies { body internal } } }",
    ] {
        let same = app
            .as_user(&bob)
            .graphql_data(form, json!({"i": {"macroId": mine["id"], "ticketId": t_gid}}))
            .await["previewMacro"]
            .clone();
        assert_eq!(same, preview, "{form}");
    }
    for (query, vars) in [
        (
            "query($m: ID!) { previewMacro(macroId: $m) { changes } }",
            json!({"m": mine["id"]}),
        ),
        (
            "query($i: PreviewMacroInput!, $m: ID!, $t: ID!) { previewMacro(input: $i, macroId: $m, ticketId: $t) { changes } }",
            json!({"i": {"macroId": mine["id"], "ticketId": t_gid}, "m": mine["id"], "t": t_gid}),
        ),
    ] {
        let refused = app.as_user(&bob).graphql(query, vars).await;
        assert!(
            refused["errors"][0]["extensions"]["fields"]["input"].is_array(),
            "{refused}"
        );
    }
    assert_eq!(state_of(app, &bob, &t["id"]).await, before);
    // ...and applying does what it said.
    let applied = app
        .as_user(&bob)
        .graphql_data(
            APPLY,
            json!({"i": {"macroId": mine["id"], "ticketIds": [t_gid]}}),
        )
        .await["applyMacro"]
        .clone();
    assert_eq!(applied["failures"], json!([]));
    assert_eq!(applied["tickets"][0]["status"], "RESOLVED");
    let after = state_of(app, &ann, &t["id"]).await;
    assert_eq!(
        (after["status"].clone(), after["priority"].clone()),
        (json!("RESOLVED"), json!("LOW"))
    );
    let comments = after["comments"]["nodes"].as_array().unwrap();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0]["body"], reply);
    assert_eq!(
        comments[0]["author"]["username"], "bob",
        "the agent's own reply"
    );
}

db_test!(applying_to_many_reports_what_it_could_not_change);
async fn applying_to_many_reports_what_it_could_not_change(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let root = app.admin("root").await;
    let escalate = app
        .as_user(&root)
        .graphql_data(CREATE, json!({"i": {"name": "Escalate", "scope": "EVERYONE", "actions": [{"set": "status", "value": "in_progress"}, {"set": "priority", "value": "critical"}]}}))
        .await["createMacro"]["macro"]["id"]
        .clone();
    let open = app.as_user(&ann).ticket_titled("Email down").await;
    let closed = app.as_user(&ann).ticket_titled("Old one").await;
    for status in ["resolved", "closed"] {
        let moved = app
            .as_user(&bob)
            .patch(
                &format!("/api/tickets/{}/", closed["id"]),
                json!({"status": status}),
            )
            .await;
        assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    }
    let ids = json!([
        gid("Ticket", &open["id"]),
        gid("Ticket", &closed["id"]),
        gid("Ticket", &json!(999999))
    ]);
    let applied = app
        .as_user(&bob)
        .graphql_data(APPLY, json!({"i": {"macroId": escalate, "ticketIds": ids}}))
        .await["applyMacro"]
        .clone();
    assert_eq!(applied["tickets"].as_array().unwrap().len(), 1, "{applied}");
    assert_eq!(applied["tickets"][0]["priority"], "CRITICAL");
    let failures = applied["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{applied}");
    assert_eq!(failures[0]["ticketId"], gid("Ticket", &closed["id"]));
    assert_eq!(failures[0]["code"], "INVALID_TRANSITION", "{applied}");
    assert_eq!(failures[1]["code"], "NOT_FOUND", "{applied}");
    // The closed ticket is untouched.
    assert_eq!(
        state_of(app, &bob, &closed["id"]).await["priority"],
        "MEDIUM"
    );

    // From the ticket page: the team picks a macro; requesters are offered none.
    let page = login(app, &bob).await;
    let shown = page.page(app, &format!("/tickets/{}/", open["id"])).await;
    assert!(shown.text.contains("id=\"apply-macro\""), "{}", shown.text);
    let theirs = login(app, &ann)
        .await
        .page(app, &format!("/tickets/{}/", open["id"]))
        .await;
    assert!(!theirs.text.contains("apply-macro"));
    let thanks = app
        .as_user(&root)
        .graphql_data(CREATE, json!({"i": {"name": "Thanks", "scope": "EVERYONE", "actions": [{"comment": "Thanks, {{requester.full_name}}!", "internal": true}]}}))
        .await["createMacro"]["macro"]["databaseId"]
        .clone();
    let id = thanks.to_string();
    let done = page
        .form(
            app,
            &format!("/tickets/{}/macro/", open["id"]),
            &[("macro", &id)],
        )
        .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.text);
    let notes = state_of(app, &bob, &open["id"]).await["comments"]["nodes"].clone();
    assert_eq!(
        notes[0],
        json!({"body": "<p>Thanks, Ann Example!</p>", "commentType": "INTERNAL", "author": {"username": "bob"}})
    );
}

db_test!(macros_over_rest);
async fn macros_over_rest(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    const MACROS: &str = "/api/automation/macros/";
    let refused = app
        .as_user(&ann)
        .post(
            MACROS,
            json!({"name": "x", "actions": [{"set": "priority", "value": "low"}]}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text);
    let bad = app
        .as_user(&bob)
        .post(
            MACROS,
            json!({"name": "x", "actions": [{"set": "priority", "value": "soon"}]}),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text);
    let mailing = app
        .as_user(&bob)
        .post(
            MACROS,
            json!({"name": "x", "actions": [{"notify": "requester", "subject": "s", "body": "b"}]}),
        )
        .await;
    assert_eq!(mailing.status, StatusCode::BAD_REQUEST, "{}", mailing.text);
    assert!(
        mailing.json["details"].get("actions[0]").is_some(),
        "{}",
        mailing.text
    );
    assert!(
        bad.json["details"].get("actions[0].value").is_some(),
        "{}",
        bad.text
    );
    let made = app
        .as_user(&bob)
        .post(MACROS, json!({"name": "Hold", "actions": [{"set": "status", "value": "on_hold"}, {"comment": "Waiting on {{requester.username}}."}]}))
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    assert_eq!(made.json["scope"], "personal");
    assert_eq!(made.json["owner"], bob.id);
    let id = made.json["id"].clone();
    let t = app.as_user(&ann).ticket_titled("Keyboard").await;
    let preview = app
        .as_user(&bob)
        .get(&format!("{MACROS}{id}/preview/?ticket={}", t["id"]))
        .await;
    assert_eq!(preview.status, StatusCode::OK, "{}", preview.text);
    // A malformed or repeated parameter is the documented JSON 400.
    let bad = app
        .as_user(&bob)
        .get(&format!("{MACROS}{id}/preview/?ticket=x&ticket=y"))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text);
    assert_eq!(bad.json["code"], "validation_error", "{}", bad.text);
    assert_eq!(
        preview.json["changes"],
        json!({"status": ["new", "on_hold"]})
    );
    assert_eq!(preview.json["replies"][0]["body"], "<p>Waiting on ann.</p>");
    let applied = app
        .as_user(&bob)
        .post(
            &format!("{MACROS}{id}/apply/"),
            json!({"tickets": [t["id"], 999999]}),
        )
        .await;
    assert_eq!(applied.status, StatusCode::OK, "{}", applied.text);
    assert_eq!(applied.json["tickets"][0]["status"], "on_hold");
    assert_eq!(
        applied.json["failures"],
        json!([{"ticket": 999999, "code": "not_found", "error": "ticket not found"}])
    );
    let too_many: Vec<i64> = (1..=101).collect();
    let refused = app
        .as_user(&bob)
        .post(
            &format!("{MACROS}{id}/apply/"),
            json!({"tickets": too_many}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert_eq!(
        app.as_user(&bob)
            .delete(&format!("{MACROS}{id}/"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.as_user(&bob)
            .get(&format!("{MACROS}{id}/"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

db_test!(an_agent_changes_many_tickets_from_the_queue);
async fn an_agent_changes_many_tickets_from_the_queue(app: &TestApp) {
    let ann = app.user("ann").await;
    let bob = app.agent("bob").await;
    let made = app
        .as_user(&bob)
        .graphql_data(
            CREATE,
            json!({"i": {"name": "Low", "actions": [{"set": "priority", "value": "low"}]}}),
        )
        .await["createMacro"]["macro"]["databaseId"]
        .to_string();
    let mut ids = Vec::new();
    for title in ["One", "Two", "Three"] {
        ids.push(app.as_user(&ann).ticket_titled(title).await["id"].to_string());
    }
    let agent = login(app, &bob).await;
    let queue = agent.page(app, "/tickets/").await;
    assert!(queue.text.contains("name=\"ticket\""), "{}", queue.text);
    assert!(queue.text.contains("id=\"bulk-apply\""));
    // Requesters get no selection and no macros.
    let theirs = login(app, &ann).await.page(app, "/tickets/").await;
    assert!(!theirs.text.contains("bulk-apply"));
    let done = agent
        .form(
            app,
            "/tickets/bulk/",
            &[
                ("macro", &made),
                ("ticket", &ids[0]),
                ("ticket", &ids[2]),
                ("ticket", "999999"),
            ],
        )
        .await;
    let back = crate::support::pages::location(&done);
    assert_eq!(back, "/tickets/?changed=2&failed=1");
    let shown = agent.page(app, &back).await;
    assert!(
        shown
            .text
            .contains("Macro applied to 2 tickets; 1 could not be changed"),
        "{}",
        shown.text
    );
    for (id, want) in [(&ids[0], "LOW"), (&ids[1], "MEDIUM"), (&ids[2], "LOW")] {
        let seen = app
            .as_user(&bob)
            .graphql_data(TICKET, json!({"n": id.parse::<i64>().unwrap()}))
            .await;
        assert_eq!(seen["ticket"]["priority"], want);
    }
    // A requester cannot use the door either.
    let refused = login(app, &ann)
        .await
        .form(
            app,
            "/tickets/bulk/",
            &[("macro", &made), ("ticket", &ids[1])],
        )
        .await;
    assert!(refused.status.is_client_error(), "{}", refused.status);
}

db_test!(the_macro_menus_are_remembered_and_forgotten_on_a_change);
/// Each instance remembers who may use which macros, so the queue reads no statement for its menu; saving,
/// renaming or removing a macro is seen at once where it happened, and by every PostgreSQL instance.
async fn the_macro_menus_are_remembered_and_forgotten_on_a_change(app: &TestApp) {
    let bob = app.agent("bob").await;
    let cat = app.agent("cat").await;
    let root = app.admin("root").await;
    const MACROS: &str = "/api/automation/macros/";
    let names = |who: &TestUser, on: Option<&axum::Router>| {
        let token = who.token.clone();
        let on = on.cloned();
        async move {
            let body = json!({"query": "{ macros { name } }"}).to_string();
            let request = axum::http::Request::post("/graphql")
                .header("authorization", format!("Bearer {token}"))
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body))
                .unwrap();
            let listed = match on {
                Some(router) => app.send_to(&router, request).await.json,
                None => app.send(request).await.json,
            };
            crate::support::graphql::data(&listed)["macros"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert!(names(&bob, None).await.is_empty());
    let saved = app
        .as_user(&bob)
        .post(
            MACROS,
            json!({"name": "Mine", "actions": [{"set": "priority", "value": "low"}]}),
        )
        .await;
    assert_eq!(saved.status, StatusCode::CREATED, "{}", saved.text);
    let mine = saved.json["id"].clone();
    let shared = app
        .as_user(&root)
        .post(MACROS, json!({"name": "Everyone's", "scope": "everyone", "actions": [{"set": "priority", "value": "high"}]}))
        .await;
    assert_eq!(shared.status, StatusCode::CREATED, "{}", shared.text);
    let everyones = shared.json["id"].clone();
    // Seen at once here, each by whom it is for.
    assert_eq!(names(&bob, None).await, ["Mine", "Everyone's"]);
    assert_eq!(names(&cat, None).await, ["Everyone's"]);
    // The queue's menu reads nothing once remembered, and shows the change once a macro is renamed.
    let ann = app.user("ann").await;
    let filed = app
        .as_user(&ann)
        .post("/api/tickets/", json!({"title": "Printer jams"}))
        .await;
    assert_eq!(filed.status, StatusCode::CREATED, "{}", filed.text);
    let browser = login(app, &bob).await;
    browser.page(app, "/tickets/").await;
    let before = app.statements();
    let queue = browser.page(app, "/tickets/").await;
    let remembered = app.statements() - before;
    assert!(queue.text.contains(">Mine</option>"), "{}", queue.text);
    let renamed = app
        .as_user(&bob)
        .patch(
            &format!("{MACROS}{mine}/"),
            json!({"name": "Mine, renamed"}),
        )
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.text);
    browser.page(app, "/tickets/").await;
    let before = app.statements();
    let queue = browser.page(app, "/tickets/").await;
    assert_eq!(app.statements() - before, remembered);
    assert!(
        queue.text.contains(">Mine, renamed</option>"),
        "{}",
        queue.text
    );
    assert_eq!(names(&bob, None).await, ["Mine, renamed", "Everyone's"]);
    if !app.is_postgres() {
        return;
    }
    let (_, second) = app.second_instance().await;
    let second = &second;
    assert_eq!(names(&cat, Some(second)).await, ["Everyone's"]);
    let gone = app
        .as_user(&root)
        .delete(&format!("{MACROS}{everyones}/"))
        .await;
    assert!(gone.status.is_success(), "{}", gone.text);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !names(&cat, Some(second)).await.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the second instance still lists the removed macro"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
