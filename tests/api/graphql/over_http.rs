//! GraphQL-over-HTTP details the external audit (conformance/graphql-http) checks, kept as fast tests.
use crate::db_test;
use crate::support::helpers::TestApp;
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};

fn post(content_type: Option<&str>, accept: &str, body: &str) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::ACCEPT, accept);
    if let Some(content_type) = content_type {
        builder = builder.header(header::CONTENT_TYPE, content_type);
    }
    builder.body(Body::from(body.to_string())).unwrap()
}

async fn posts_must_be_json(app: &TestApp) {
    let query = r#"{"query": "{ __typename }"}"#;
    for content_type in [None, Some("text/plain;charset=UTF-8")] {
        let resp = app
            .send(post(content_type, "application/json", query))
            .await;
        assert_eq!(
            resp.status,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{}",
            resp.text
        );
        assert_eq!(
            resp.json["errors"][0]["extensions"]["code"],
            "BAD_USER_INPUT"
        );
    }
    let ok = app
        .send(post(
            Some("application/json; charset=utf-8"),
            "application/json",
            query,
        ))
        .await;
    assert_eq!(ok.json["data"]["__typename"], "Query", "{}", ok.text);
}
db_test!(posts_must_be_json);

async fn request_errors_have_no_data_entry(app: &TestApp) {
    for (accept, status) in [
        ("application/json", StatusCode::OK),
        ("application/graphql-response+json", StatusCode::BAD_REQUEST),
    ] {
        for query in [r#"{"query": "{"}"#, r#"{"query": "{ nope }"}"#] {
            let resp = app
                .send(post(Some("application/json"), accept, query))
                .await;
            assert_eq!(resp.status, status, "{}", resp.text);
            let body = resp.json.as_object().unwrap();
            assert!(!body.contains_key("data"), "{}", resp.text);
            assert!(body["errors"].is_array(), "{}", resp.text);
        }
    }
    // An error during execution keeps `data` (null here: `me` is non-null and needs a caller).
    let resp = app
        .send(post(
            Some("application/json"),
            "application/json",
            r#"{"query": "{ me { username } }"}"#,
        ))
        .await;
    assert!(
        resp.json.as_object().unwrap().contains_key("data"),
        "{}",
        resp.text
    );
}
db_test!(request_errors_have_no_data_entry);
