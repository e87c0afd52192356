//! Counts and text searches are priced by what they make the database do (docs/graphql.md, "Counts and
//! text searches"): a `totalCount` is a count even under `first: 0`, a text search a scan, and an
//! operation may run at most so many counts, refused before any SQL.
use crate::db_test;
use crate::support::graphql::{project, simple_ticket};
use crate::support::helpers::{TestApp, TestResponse};
use deskgraph::config::Config;
use serde_json::{json, Value};

async fn post(app: &TestApp, token: Option<&str>, query: &str, variables: Value) -> TestResponse {
    app.post(
        "/graphql",
        token,
        json!({"query": query, "variables": variables}),
    )
    .await
}

/// What `selection` would cost, by a dry run.
async fn priced(app: &TestApp, token: &str, selection: &str, variables: Value) -> Value {
    let query = if selection.starts_with("query") {
        selection.replacen('{', "{ rateLimit(dryRun: true) { cost nodeCount } ", 1)
    } else {
        format!("{{ rateLimit(dryRun: true) {{ cost nodeCount }} {selection} }}")
    };
    let resp = post(app, Some(token), &query, variables).await;
    assert!(resp.json["errors"].is_null(), "{query}: {}", resp.text);
    resp.json["data"]["rateLimit"].clone()
}

fn aliases(n: usize, field: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| format!("a{i}: {} ", field(i))).collect()
}

async fn counts_and_searches_are_priced(app: &TestApp) {
    let ava = app.agent("ava").await;
    simple_ticket(app, &ava, "printer on fire").await;
    simple_ticket(app, &ava, "vpn down").await;
    let t = &ava.token;

    // `first: 0` returns nothing but still counts: ten counts are ten points, ten empty pages one.
    let counts = aliases(10, |_| "tickets(first: 0) { totalCount }".into());
    assert_eq!(priced(app, t, &counts, json!({})).await["cost"], 10);
    let pages = aliases(10, |_| {
        "tickets(first: 0) { pageInfo { hasNextPage } }".into()
    });
    assert_eq!(priced(app, t, &pages, json!({})).await["cost"], 1);

    // A text search is a scan for its page and another for its count.
    let plain = "tickets(first: 0) { totalCount }";
    let searched = "tickets(first: 0, filter: {query: \"printer\"}) { totalCount }";
    assert_eq!(priced(app, t, plain, json!({})).await["cost"], 1);
    assert_eq!(priced(app, t, searched, json!({})).await["cost"], 1 + 2 * 5);
    let page_only = "tickets(first: 5, filter: {query: \"printer\"}) { nodes { id } }";
    assert_eq!(priced(app, t, page_only, json!({})).await["cost"], 1 + 5);
    // The same when the search string is a variable; a blank one searches nothing.
    let by_variable = "query($q: String) { tickets(first: 0, filter: {query: $q}) { totalCount } }";
    let cost = |v: Value| v["cost"].clone();
    assert_eq!(
        cost(priced(app, t, by_variable, json!({"q": "vpn"})).await),
        11
    );
    assert_eq!(
        cost(priced(app, t, by_variable, json!({"q": " "})).await),
        1
    );
    let users = "users(query: \"av\", first: 0) { totalCount }";
    assert_eq!(priced(app, t, users, json!({})).await["cost"], 11);

    // Counts under a list multiply by it, not by their own page.
    for name in ["one", "two", "three"] {
        project(app, name).await;
    }
    let nested = "projects(first: 3) { nodes { tickets(first: 0) { totalCount } } }";
    let rate = priced(app, t, nested, json!({})).await;
    assert_eq!(
        (rate["nodeCount"].clone(), rate["cost"].clone()),
        (json!(3), json!(1 + 3))
    );

    // A real run takes what the dry run showed, and counts right.
    let run = post(
        app,
        Some(t),
        "{ rateLimit { cost used } tickets(first: 5, filter: {query: \"printer\"}) { totalCount nodes { title } } }",
        json!({}),
    )
    .await;
    assert!(run.json["errors"].is_null(), "{}", run.text);
    assert_eq!(run.json["data"]["tickets"]["totalCount"], 1);
    assert_eq!(
        run.json["data"]["tickets"]["nodes"][0]["title"],
        "printer on fire"
    );
    assert_eq!(run.json["data"]["rateLimit"]["cost"], 1 + 1 + 2 * 5);
    let used = run.json["data"]["rateLimit"]["used"].as_u64().unwrap();
    let after = post(app, Some(t), "{ rateLimit { used } }", json!({})).await;
    assert_eq!(after.json["data"]["rateLimit"]["used"], used + 1);
}
db_test!(counts_and_searches_are_priced);

async fn over_the_count_cap_is_refused_before_any_sql(app: &TestApp) {
    let ava = app.agent("ava").await;
    simple_ticket(app, &ava, "one").await;
    let warm = post(app, Some(&ava.token), "{ me { id } }", json!({})).await;
    assert!(warm.json["errors"].is_null(), "{}", warm.text);

    let twenty = format!(
        "{{ {} }}",
        aliases(20, |_| "tickets(first: 0) { totalCount }".into())
    );
    let ok = post(app, Some(&ava.token), &twenty, json!({})).await;
    assert!(ok.json["errors"].is_null(), "{}", ok.text);
    assert_eq!(ok.json["data"]["a19"]["totalCount"], 1);

    // Issue 30's document: 49 distinct searches, each a full count, once priced at one point.
    let searches = format!(
        "{{ {} }}",
        aliases(49, |i| format!(
            "tickets(first: 0, filter: {{query: \"x{i}y0\"}}) {{ totalCount }}"
        ))
    );
    let twenty_one = format!(
        "{{ {} }}",
        aliases(21, |_| "tickets(first: 0) { totalCount }".into())
    );
    let listed = "{ projects(first: 21) { nodes { tickets { totalCount } } } }".to_string();
    for (query, counts) in [(searches, 49), (twenty_one, 21), (listed, 21)] {
        let before = app.statements();
        let refused = post(app, Some(&ava.token), &query, json!({})).await;
        assert_eq!(app.statements(), before, "no SQL for a refused operation");
        let error = &refused.json["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "QUERY_TOO_COSTLY",
            "{}",
            refused.text
        );
        assert_eq!(error["extensions"]["counts"], counts);
        assert_eq!(error["extensions"]["limit"], 20);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("at most 20 counts"),
            "{}",
            refused.text
        );
        assert!(refused.json.get("data").is_none());
    }
}
db_test!(over_the_count_cap_is_refused_before_any_sql);

fn two_counts(config: &mut Config) {
    config.graphql.max_counts = 2;
}

async fn the_count_cap_is_configuration(app: &TestApp) {
    let ava = app.agent("ava").await;
    let three = format!(
        "{{ {} }}",
        aliases(3, |_| "tickets(first: 0) { totalCount }".into())
    );
    let refused = post(app, Some(&ava.token), &three, json!({})).await;
    assert_eq!(
        refused.json["errors"][0]["extensions"]["limit"], 2,
        "{}",
        refused.text
    );
    // A dry run is checked against the limits too.
    let dry = three.replacen('{', "{ rateLimit(dryRun: true) { cost } ", 1);
    let refused = post(app, Some(&ava.token), &dry, json!({})).await;
    assert_eq!(
        refused.json["errors"][0]["extensions"]["code"], "QUERY_TOO_COSTLY",
        "{}",
        refused.text
    );
}
db_test!(the_count_cap_is_configuration, two_counts);

async fn anonymous_callers_get_no_suggestions(app: &TestApp) {
    let ava = app.agent("ava").await;
    let typos = [
        ("{ ticket(databaseId: 1) { titl } }", "\"title\""),
        ("{ tickets(firs: 1) { totalCount } }", "\"first\""),
    ];
    for (query, suggested) in typos {
        let agent = post(app, Some(&ava.token), query, json!({})).await;
        let message = agent.json["errors"][0]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("Did you mean"), "{}", agent.text);
        assert!(message.contains(suggested), "{}", agent.text);

        let anonymous = post(app, None, query, json!({})).await;
        let message = anonymous.json["errors"][0]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.starts_with("Unknown"), "{}", anonymous.text);
        assert!(!message.contains("Did you mean"), "{}", anonymous.text);
        assert!(!anonymous.text.contains(suggested), "{}", anonymous.text);
        assert_eq!(
            anonymous.json["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
            "{}",
            anonymous.text
        );
    }
}
db_test!(anonymous_callers_get_no_suggestions);
