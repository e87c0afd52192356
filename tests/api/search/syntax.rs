//! What a search string may hold: anything a person types answers 200 or a 400 naming `query`; paging.
use super::{hits, raw, SEARCH};
use crate::db_test;
use crate::support::graphql::{data, first_code};
use crate::support::helpers::TestApp;
use serde_json::json;

async fn any_string_answers_hits_or_a_field_error(app: &TestApp) {
    let agent = app.agent("adam").await;
    app.as_user(&agent)
        .create_ticket(json!({"title": "Printer \"HP\" on floor 3 (east) – 50% slower", "description": "日本語のテキスト and ελληνικά"}))
        .await;
    let long = "printer ".repeat(1300);
    let odd = [
        "\"",
        "\"\"",
        "\"unclosed phrase",
        "-",
        "--",
        "- -",
        "or",
        "OR OR",
        "-or",
        "&",
        "|",
        "!",
        "(((",
        ")",
        "*",
        "printer*",
        "NEAR(printer floor)",
        "printer AND",
        "printer NOT floor",
        "'",
        "';--",
        "\\",
        "%",
        "_",
        "{title}: printer",
        "^printer",
        "printer:",
        ":",
        "@@",
        "<->",
        "!!!printer",
        "日本語",
        "ελληνικά",
        "🙂",
        "ℕ",
        "\u{200b}",
        "a\u{0301}",
        "   ",
    ];
    for q in odd {
        let body = raw(app, &agent, q).await;
        assert!(body.get("errors").is_none(), "{q:?}: {body}");
        assert!(
            data(&body)["search"]["totalCount"].is_i64(),
            "{q:?}: {body}"
        );
    }
    for q in [
        "printer\u{0}",
        "printer\u{7}",
        long.as_str(),
        &"a ".repeat(33),
    ] {
        let body = raw(app, &agent, q).await;
        assert_eq!(first_code(&body), "BAD_USER_INPUT", "{body}");
        assert!(
            body["errors"][0]["extensions"]["fields"]["query"].is_array(),
            "{body}"
        );
    }
    // Every script is a word.
    assert_eq!(hits(app, &agent, "ελληνικά").await.1, 1);
    assert_eq!(hits(app, &agent, "\"floor 3\"").await.1, 1);
    // No token: the documented refusal.
    let body = app.graphql(None, SEARCH, json!({"q": "printer"})).await;
    assert_eq!(first_code(&body), "UNAUTHENTICATED", "{body}");
    let body = app
        .graphql(
            Some(&agent.token),
            SEARCH,
            json!({"q": "printer", "first": 101}),
        )
        .await;
    assert_eq!(first_code(&body), "BAD_USER_INPUT", "{body}");
}
db_test!(any_string_answers_hits_or_a_field_error);

async fn hits_page_in_order_with_their_total(app: &TestApp) {
    let agent = app.agent("adam").await;
    for i in 0..7 {
        let description = "printer ".repeat(7 - i);
        app.as_user(&agent)
            .create_ticket(json!({"title": format!("ticket {i}"), "description": description}))
            .await;
    }
    let (all, total) = hits(app, &agent, "printer").await;
    assert_eq!((all.len(), total), (7, 7));
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let body = app
            .graphql(
                Some(&agent.token),
                SEARCH,
                json!({"q": "printer", "first": 3, "after": after}),
            )
            .await;
        let page = &data(&body)["search"];
        assert_eq!(page["totalCount"], 7);
        for n in page["nodes"].as_array().unwrap() {
            seen.push(n["ticket"]["databaseId"].as_i64().unwrap());
        }
        if page["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = page["pageInfo"]["endCursor"].as_str().map(String::from);
    }
    assert_eq!(seen, all);
    // Past the end: no hits, and still the total.
    let body = app
        .graphql(
            Some(&agent.token),
            SEARCH,
            json!({"q": "printer", "first": 3, "after": deskgraph::graphql::connection::cursor(20)}),
        )
        .await;
    assert_eq!(data(&body)["search"]["totalCount"], 7, "{body}");
    assert_eq!(data(&body)["search"]["nodes"], json!([]));
    // Scores fall, and a filter narrows as it does `tickets`.
    let body = raw(app, &agent, "printer").await;
    let scores: Vec<f64> = data(&body)["search"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let q = "query { search(query: \"printer\", filter: {status: [CLOSED]}) { totalCount } }";
    let body = app.graphql(Some(&agent.token), q, json!({})).await;
    assert_eq!(data(&body)["search"]["totalCount"], 0, "{body}");
}
db_test!(hits_page_in_order_with_their_total);
