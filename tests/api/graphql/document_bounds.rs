//! Document limits (docs/graphql.md, "Document limits"): a document over a bound is refused before
//! anything walks it, from anyone, in allow-list mode too, with QUERY_TOO_COMPLEX and the bound it broke;
//! the refusal takes one point, runs no SQL and is the same when the document comes again.
use crate::db_test;
use crate::support::helpers::{TestApp, TestResponse};
use deskgraph::config::Config;
use serde_json::{json, Value};

/// `{ ...F0 }` and `n` fragments, each spreading the next `fan` times.
fn chain(n: usize, fan: usize) -> String {
    let mut text = String::from("{ ...F0 }\n");
    for i in 0..n {
        let body = if i + 1 == n {
            "__typename".to_string()
        } else {
            format!(" ...F{}", i + 1).repeat(fan)
        };
        text.push_str(&format!("fragment F{i} on Query {{ {body} }}\n"));
    }
    text
}

/// Hostile documents and what refuses each: `(document, code, bound)`.
fn hostile() -> Vec<(String, &'static str, Option<&'static str>)> {
    vec![
        // Issue 30: a stack overflow, then 6 s of CPU for 971 bytes.
        (chain(2_500, 1), "QUERY_TOO_COMPLEX", Some("tokens")),
        (chain(1_000, 1), "QUERY_TOO_COMPLEX", Some("fragments")),
        (chain(24, 2), "QUERY_TOO_COMPLEX", Some("selections")),
        (chain(40, 1), "QUERY_TOO_COMPLEX", Some("depth")),
        (
            format!("{}{}", "{a".repeat(20_000), "}".repeat(20_000)),
            "QUERY_TOO_COMPLEX",
            Some("nesting"),
        ),
        (
            format!("{{ me {{ id }} }} # {}", "x".repeat(300_000)),
            "QUERY_TOO_COMPLEX",
            Some("bytes"),
        ),
        (
            format!(
                "{{ tickets(filter: {}) {{ totalCount }} }}",
                "[".repeat(50_000)
            ),
            "QUERY_TOO_COMPLEX",
            Some("nesting"),
        ),
        (
            format!("{{ me {} {{ id }} }}", "@include(if: true) ".repeat(10_000)),
            "QUERY_TOO_COMPLEX",
            Some("tokens"),
        ),
        (
            format!(
                "{{ me {{ id }} {} }} fragment F on Query {{ __typename }}",
                "...F ".repeat(101)
            ),
            "QUERY_TOO_COMPLEX",
            Some("spreads"),
        ),
        (
            "{ ...A } fragment A on Query { me { id } ...B } fragment B on Query { ...A }".into(),
            "BAD_USER_INPUT",
            None,
        ),
    ]
}

async fn post(app: &TestApp, token: Option<&str>, query: &str) -> TestResponse {
    app.post("/graphql", token, json!({"query": query})).await
}

fn used(resp: &TestResponse) -> u64 {
    resp.headers
        .get("x-ratelimit-used")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no X-RateLimit-Used: {:?}", resp.headers))
}

async fn refused_everywhere(app: &TestApp, expect_after_bounds: &str) {
    let ava = app.agent("ava").await;
    let warm = post(app, Some(&ava.token), "{ rateLimit { used } }").await;
    let mut ava_used = used(&warm);
    let mut anonymous_used = used(&post(app, None, "{ __typename }").await);
    for (document, code, bound) in hostile() {
        for round in 0..2 {
            for token in [None, Some(ava.token.as_str())] {
                let before = app.statements();
                let resp = post(app, token, &document).await;
                assert_eq!(app.statements(), before, "no SQL for a refused document");
                let error = &resp.json["errors"][0];
                let short = &document[..document.len().min(60)];
                assert_eq!(error["extensions"]["code"], code, "{short}: {}", resp.text);
                if let Some(bound) = bound {
                    assert_eq!(error["extensions"]["bound"], bound, "{}", resp.text);
                    assert!(error["extensions"]["limit"].is_u64(), "{}", resp.text);
                }
                assert!(resp.json.get("data").is_none(), "{}", resp.text);
                // One point, the first time and when it comes again.
                let counter = if token.is_some() {
                    &mut ava_used
                } else {
                    &mut anonymous_used
                };
                assert_eq!(used(&resp), *counter + 1, "round {round}: {short}");
                *counter += 1;
            }
        }
    }
    // A document within the bounds gets as far as it did before.
    let within = post(app, Some(&ava.token), "{ me { username } }").await;
    assert_eq!(
        within.json["errors"][0]["extensions"]["code"]
            .as_str()
            .unwrap_or("none"),
        expect_after_bounds,
        "{}",
        within.text
    );
    // Text that does not parse is reported as the parser says, and remembered the same way.
    for _ in 0..2 {
        let broken = post(app, None, "{ me { id ").await;
        let error = &broken.json["errors"][0];
        assert_eq!(
            error["extensions"]["code"], "BAD_USER_INPUT",
            "{}",
            broken.text
        );
        assert!(error["locations"][0]["line"].is_u64(), "{}", broken.text);
    }
}

async fn hostile_documents_are_refused_before_they_are_walked(app: &TestApp) {
    refused_everywhere(app, "none").await;
}
db_test!(hostile_documents_are_refused_before_they_are_walked);

fn allow_list(config: &mut Config) {
    let dir = tempfile::tempdir().unwrap().keep();
    std::fs::write(dir.join("me.graphql"), "query Me { me { username } }\n").unwrap();
    config.graphql.trusted_documents = Some(dir);
}

async fn in_allow_list_mode_too(app: &TestApp) {
    refused_everywhere(app, "DOCUMENT_NOT_ALLOWED").await;
}
db_test!(in_allow_list_mode_too, allow_list);

fn raised(config: &mut Config) {
    config.graphql.max_tokens = 100_000;
    config.graphql.max_fragments = 5_000;
}

/// The bounds are configuration; the fixed ones (depth through fragments) still hold.
async fn raised_limits_still_refuse_chains(app: &TestApp) {
    let resp = post(app, None, &chain(2_500, 1)).await;
    assert_eq!(
        resp.json["errors"][0]["extensions"]["bound"], "depth",
        "{}",
        resp.text
    );
    let value: Value = resp.json["errors"][0]["extensions"]["limit"].clone();
    assert_eq!(value, 32);
}
db_test!(raised_limits_still_refuse_chains, raised);
