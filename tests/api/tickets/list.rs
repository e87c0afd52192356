//! `GET /api/tickets/`: pagination, links, search, filters and query cost.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::tickets::{create_ticket, path_of};
use axum::http::StatusCode;
use serde_json::{json, Value};

fn numbers(list: &Value) -> Vec<String> {
    list["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["ticket_number"].as_str().unwrap().to_string())
        .collect()
}

async fn pagination_edges(app: &TestApp) {
    let agent = app.agent("carol").await;
    for i in 1..=5 {
        create_ticket(app, &agent, json!({"title": format!("T{i}")})).await;
    }
    let get = |q: &'static str| app.as_user(&agent).get(q);

    let all = get("/api/tickets/").await.json;
    assert_eq!(all["count"], 5);
    assert_eq!(
        numbers(&all),
        ["TKT-005", "TKT-004", "TKT-003", "TKT-002", "TKT-001"],
        "newest first"
    );

    let first = get("/api/tickets/?limit=1").await.json;
    assert_eq!(first["count"], 5);
    assert_eq!(numbers(&first), ["TKT-005"]);
    assert_eq!(first["next"], "/api/tickets/?page=2&limit=1");
    assert_eq!(first["previous"], Value::Null);

    let middle = get("/api/tickets/?page=3&limit=1").await.json;
    assert_eq!(numbers(&middle), ["TKT-003"]);
    assert_eq!(middle["next"], "/api/tickets/?page=4&limit=1");
    assert_eq!(middle["previous"], "/api/tickets/?page=2&limit=1");

    let last = get("/api/tickets/?page=3&limit=2").await.json;
    assert_eq!(numbers(&last), ["TKT-001"]);
    assert_eq!(last["next"], Value::Null);
    assert_eq!(last["previous"], "/api/tickets/?page=2&limit=2");

    let exact = get("/api/tickets/?page=1&limit=5").await.json;
    assert_eq!(exact["next"], Value::Null);

    let past = get("/api/tickets/?page=9&limit=2").await;
    assert_eq!(past.status, StatusCode::OK);
    assert_eq!(past.json["count"], 5);
    assert_eq!(past.json["results"], json!([]));
    assert_eq!(past.json["next"], Value::Null);
    let far = get("/api/tickets/?page=92233720368547758&limit=100").await;
    assert_eq!(far.status, StatusCode::OK, "{}", far.text);
    assert_eq!(far.json["results"], json!([]));

    // Links keep the filters, in a stable order, encoded.
    let filtered = get("/api/tickets/?status=new&limit=2&q=T&priority=medium&assigned=none").await;
    assert_eq!(filtered.json["count"], 5, "{}", filtered.text);
    assert_eq!(
        filtered.json["next"],
        "/api/tickets/?page=2&limit=2&q=T&status=new&priority=medium&assigned=none"
    );
    let spaced = get("/api/tickets/?q=a%20b&page=2&limit=1").await.json;
    assert_eq!(spaced["previous"], "/api/tickets/?page=1&limit=1&q=a+b");

    for bad in [
        "/api/tickets/?limit=0",
        "/api/tickets/?limit=101",
        "/api/tickets/?limit=-1",
        "/api/tickets/?page=0",
        "/api/tickets/?page=abc",
        "/api/tickets/?page=99999999999999999999",
        "/api/tickets/?status=bogus",
        "/api/tickets/?priority=urgent",
        "/api/tickets/?assigned=xyz",
    ] {
        let resp = get(bad).await;
        assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
        let field = bad.split(['?', '=']).nth(1).unwrap();
        assert!(
            resp.json["details"][field].is_array(),
            "{bad}: {}",
            resp.text
        );
    }
    let max = get("/api/tickets/?limit=100").await;
    assert_eq!(max.status, StatusCode::OK);
}
db_test!(pagination_edges);

async fn search_by_text_and_number(app: &TestApp) {
    let agent = app.agent("carol").await;
    create_ticket(app, &agent, json!({"title": "Printer on fire"})).await;
    create_ticket(
        app,
        &agent,
        json!({"title": "VPN down", "description": "Cannot reach the PRINTER server"}),
    )
    .await;
    create_ticket(
        app,
        &agent,
        json!({"title": "Email bounce", "description": "100% broken_ish"}),
    )
    .await;
    let token = agent.token.as_str();
    let search = |q: &str| {
        let path = format!("/api/tickets/?q={q}");
        async move { numbers(&app.get(&path, Some(token)).await.json) }
    };
    assert_eq!(search("printer").await, ["TKT-002", "TKT-001"]);
    assert_eq!(search("pRiNtEr%20SERVER").await, ["TKT-002"]);
    assert_eq!(search("vpn").await, ["TKT-002"]);
    assert_eq!(search("TKT-002").await, ["TKT-002"]);
    assert_eq!(search("tkt-2").await, ["TKT-002"]);
    assert_eq!(search("2").await, ["TKT-002"]);
    assert_eq!(search("003").await, ["TKT-003"]);
    // LIKE wildcards are literal text.
    assert_eq!(search("100%25").await, ["TKT-003"]);
    assert_eq!(search("%25").await, ["TKT-003"]);
    assert_eq!(search("n_i").await, ["TKT-003"]);
    assert_eq!(search("r_n").await, Vec::<String>::new());
    assert_eq!(search("nothing-like-this").await, Vec::<String>::new());
}
db_test!(search_by_text_and_number);

async fn filters(app: &TestApp) {
    let agent = app.agent("carol").await;
    let dan = app.agent("dan").await;
    let a = create_ticket(
        app,
        &agent,
        json!({"title": "a", "priority": "high", "assigned_to": agent.id}),
    )
    .await;
    create_ticket(
        app,
        &agent,
        json!({"title": "b", "priority": "low", "assigned_to": dan.id}),
    )
    .await;
    create_ticket(app, &agent, json!({"title": "c", "priority": "high"})).await;
    let opened = app
        .as_user(&agent)
        .patch(&path_of(&a), json!({"status": "open"}))
        .await;
    assert_eq!(opened.status, StatusCode::OK, "{}", opened.text);
    let token = agent.token.as_str();
    let titles = |q: String| async move {
        let list = app.get(&q, Some(token)).await;
        assert_eq!(list.status, StatusCode::OK, "{q}: {}", list.text);
        list.json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles("/api/tickets/?status=open".into()).await, ["a"]);
    assert_eq!(titles("/api/tickets/?status=new".into()).await, ["c", "b"]);
    assert_eq!(
        titles("/api/tickets/?status=new,open".into()).await,
        ["c", "b", "a"]
    );
    assert_eq!(
        titles("/api/tickets/?priority=high".into()).await,
        ["c", "a"]
    );
    assert_eq!(
        titles("/api/tickets/?priority=HIGH&status=new".into()).await,
        ["c"]
    );
    assert_eq!(titles("/api/tickets/?assigned=me".into()).await, ["a"]);
    assert_eq!(
        titles("/api/tickets/?assigned=any".into()).await,
        ["b", "a"]
    );
    assert_eq!(titles("/api/tickets/?assigned=none".into()).await, ["c"]);
    assert_eq!(
        titles(format!("/api/tickets/?assigned={}", dan.id)).await,
        ["b"]
    );
    assert_eq!(
        titles("/api/tickets/?assigned=99999".into()).await,
        Vec::<String>::new()
    );
}
db_test!(filters);

async fn list_names_people_in_constant_queries(app: &TestApp) {
    let agent = app.agent("carol").await;
    let people = [
        app.user("u1").await,
        app.user("u2").await,
        app.user("u3").await,
    ];
    create_ticket(app, &people[0], json!({"title": "first"})).await;
    // The first use of a token records it as used; keep that write out of the comparison.
    app.as_user(&agent).get("/api/version/").await;
    let before = app.statements();
    let one = app.as_user(&agent).get("/api/tickets/").await;
    let cost_one = app.statements() - before;
    assert_eq!(one.json["count"], 1);
    // A known token costs nothing; the page, its people and its count are one statement.
    assert_eq!(cost_one, 1, "statements for a list page");
    for (i, p) in people.iter().enumerate() {
        create_ticket(
            app,
            &agent,
            json!({"title": format!("t{i}"), "assigned_to": agent.id, "requester": p.id}),
        )
        .await;
    }
    let before = app.statements();
    let many = app.as_user(&agent).get("/api/tickets/").await;
    let cost_many = app.statements() - before;
    assert_eq!(many.json["count"], 4);
    let requesters: Vec<&str> = many.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["requester"].as_str().unwrap())
        .collect();
    assert_eq!(requesters, ["u3", "u2", "u1", "u1"]);
    assert_eq!(many.json["results"][0]["assigned_to"], "carol");
    assert_eq!(
        cost_one, cost_many,
        "user names must be loaded in one query"
    );
}
db_test!(list_names_people_in_constant_queries);
