//! Request limits: oversized bodies (413 in each door's shape), stalled requests (timeout), GraphQL depth,
//! complexity and page-size limits refused before execution, introspection for anonymous callers, and
//! unknown paths and methods answered with the error body.
use crate::db_test;
use crate::support::graphql::first_code;
use crate::support::helpers::assert_web_error;
use crate::support::helpers::{assert_error, TestApp, TestResponse};
use axum::body::{Body, Bytes};
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::config::Config;
use serde_json::{json, Value};

const MIB: usize = 1024 * 1024;

/// A JSON body just over 1 MiB.
fn oversized() -> String {
    json!({ "title": "x".repeat(MIB) }).to_string()
}

fn post_raw(path: &str, token: Option<&str>, body: Body) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(token) = token {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    builder.body(body).unwrap()
}

/// A body without a declared length, sent in chunks.
fn chunked(text: String) -> Body {
    let chunks: Vec<Result<Bytes, std::io::Error>> = text
        .into_bytes()
        .chunks(64 * 1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    Body::from_stream(futures_util::stream::iter(chunks))
}

async fn oversized_bodies_are_refused_on_every_door(app: &TestApp) {
    let alice = app.user("alice").await;
    let token = Some(alice.token.as_str());
    let declared = app
        .send(post_raw("/api/tickets/", token, Body::from(oversized())))
        .await;
    assert_error(
        &declared,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    assert!(declared.headers.contains_key("x-ratelimit-remaining"));
    let streamed = app
        .send(post_raw("/api/tickets/", token, chunked(oversized())))
        .await;
    assert_error(
        &streamed,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    let web = app
        .send(post_raw("/accounts/login/", None, Body::from(oversized())))
        .await;
    assert_web_error(&web, StatusCode::PAYLOAD_TOO_LARGE);
    let query = json!({ "query": format!("{{ me {{ username }} }} #{}", "x".repeat(MIB)) });
    let gql = app
        .send(post_raw("/graphql", token, Body::from(query.to_string())))
        .await;
    assert_eq!(gql.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", gql.text);
    assert_eq!(first_code(&gql.json), "BAD_USER_INPUT");
    // Nothing was created, and a body under the limit still works.
    let list = app.get("/api/tickets/", token).await;
    assert_eq!(list.json["count"], 0, "{}", list.text);
    let fits = app
        .post(
            "/api/tickets/",
            token,
            json!({"title": "x".repeat(1000), "description": "d"}),
        )
        .await;
    assert_ne!(fits.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", fits.text);
}
db_test!(oversized_bodies_are_refused_on_every_door);

fn one_second_timeout(config: &mut Config) {
    config.request_timeout_seconds = 1;
}

async fn a_stalled_request_times_out_with_the_error_body(app: &TestApp) {
    let alice = app.user("alice").await;
    // One chunk, then nothing: a client that never finishes its body.
    let first: Result<Bytes, std::io::Error> = Ok(Bytes::from_static(b"{\"title\": "));
    let stalled = futures_util::StreamExt::chain(
        futures_util::stream::iter(vec![first]),
        futures_util::stream::pending(),
    );
    let started = std::time::Instant::now();
    let resp = app
        .send(post_raw(
            "/api/tickets/",
            Some(&alice.token),
            Body::from_stream(stalled),
        ))
        .await;
    assert_error(&resp, StatusCode::SERVICE_UNAVAILABLE, "timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}
db_test!(
    a_stalled_request_times_out_with_the_error_body,
    one_second_timeout
);

async fn gql(app: &TestApp, token: Option<&str>, query: &str, variables: Value) -> TestResponse {
    let body = json!({ "query": query, "variables": variables });
    app.request(Method::POST, "/graphql", token, Some(body))
        .await
}

/// The whole request was refused before anything ran: no data at all, one error.
fn refused(resp: &TestResponse, needle: &str) {
    assert_eq!(resp.status, 200, "{}", resp.text);
    assert!(resp.json["data"].is_null(), "{}", resp.text);
    assert_eq!(first_code(&resp.json), "BAD_USER_INPUT", "{}", resp.text);
    let message = resp.json["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
}

async fn graphql_cost_limits_hold_before_execution(app: &TestApp) {
    let alice = app.agent("alice").await;
    let token = Some(alice.token.as_str());
    // Depth: introspection's ofType chain nests as deep as a client likes.
    let deep = format!(
        "{{ __schema {{ types {{ {} name {} }} }} }}",
        "ofType { ".repeat(30),
        "}".repeat(30)
    );
    refused(
        &gql(app, token, &deep, json!({})).await,
        "nested too deep (at most 20 levels)",
    );
    // Complexity: thousands of aliased fields (under one root field: root fields have a limit of their
    // own, see graphql_cost.rs).
    let wide: String = (0..6000).map(|i| format!("a{i}: username ")).collect();
    refused(
        &gql(app, token, &format!("{{ me {{ {wide} }} }}"), json!({})).await,
        "too complex (at most 5000",
    );
    // Page size, as a literal, through a variable, through a variable's default, inside a fragment, and
    // next to a field that would otherwise have resolved.
    let literal = "{ me { username } users(first: 1000) { totalCount } }";
    refused(
        &gql(app, token, literal, json!({})).await,
        "`first` must be between 0 and 100",
    );
    let variable = "query($n: Int) { users(first: $n) { totalCount } }";
    refused(
        &gql(app, token, variable, json!({"n": 101})).await,
        "(got 101)",
    );
    let default = "query($n: Int = 500) { users(first: $n) { totalCount } }";
    refused(&gql(app, token, default, json!({})).await, "(got 500)");
    let fragment = "{ ...F } fragment F on Query { users(last: -1) { totalCount } }";
    refused(
        &gql(app, token, fragment, json!({})).await,
        "`last` must be between 0 and 100",
    );
    // The limits themselves are fine.
    let ok = gql(
        app,
        token,
        "query($n: Int) { users(first: $n) { totalCount } }",
        json!({"n": 100}),
    )
    .await;
    assert!(ok.json["errors"].is_null(), "{}", ok.text);
    assert!(
        ok.json["data"]["users"]["totalCount"].is_number(),
        "{}",
        ok.text
    );
}
db_test!(graphql_cost_limits_hold_before_execution);

/// Documents are parsed once per text; every request is still checked and run with its own variables.
async fn a_document_sent_again_is_checked_again(app: &TestApp) {
    let alice = app.user("alice").await;
    let query = "query($n: Int) { tickets(first: $n) { nodes { id } } }";
    for _ in 0..2 {
        let fine = gql(app, Some(&alice.token), query, json!({ "n": 5 })).await;
        assert!(
            fine.json["data"]["tickets"]["nodes"].is_array(),
            "{}",
            fine.text
        );
        let oversized = gql(app, Some(&alice.token), query, json!({ "n": 100000 })).await;
        assert!(oversized.json["data"].is_null(), "{}", oversized.text);
        assert_eq!(
            first_code(&oversized.json),
            "BAD_USER_INPUT",
            "{}",
            oversized.text
        );
    }
    let broken = "{ tickets(first: 1) { nodes { id } }";
    for _ in 0..2 {
        let resp = gql(app, Some(&alice.token), broken, json!({})).await;
        assert_eq!(first_code(&resp.json), "BAD_USER_INPUT", "{}", resp.text);
    }
}
db_test!(a_document_sent_again_is_checked_again);

/// POST `body` to `router` as `token`.
async fn post_to(app: &TestApp, router: &axum::Router, token: &str, body: &Value) -> TestResponse {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send_to(router, request).await
}

/// Validation is remembered per document, operation and variables: a request sent again is answered
/// as by an instance that never saw it, and the same document with other variables or another
/// operation is validated in full again.
async fn a_request_validated_once_is_answered_as_the_first_time(app: &TestApp) {
    let alice = app.user("alice").await;
    let query = "query Page($n: Int, $s: [TicketStatus!]) {
            tickets(first: $n, filter: { status: $s }) { nodes { id } } }
        query Other { __typename }";
    let undefined = "query Undefined { tickets(first: $m) { nodes { id } } }";
    let bodies = [
        json!({ "query": query, "operationName": "Page", "variables": { "n": 5 } }),
        json!({ "query": query, "operationName": "Page", "variables": { "s": ["OPEN"] } }),
        json!({ "query": query, "operationName": "Page", "variables": { "s": ["BOGUS"] } }),
        json!({ "query": query, "operationName": "Page", "variables": { "s": 5 } }),
        json!({ "query": query, "operationName": "Other" }),
        json!({ "query": undefined, "variables": { "m": 5 } }),
        json!({ "query": query, "variables": { "n": 5 } }),
    ];
    for _ in 0..2 {
        for body in &bodies {
            post_to(app, &app.router, &alice.token, body).await;
        }
    }
    for body in &bodies {
        let seen = post_to(app, &app.router, &alice.token, body).await;
        let (_, fresh) = app.second_instance().await;
        let first = post_to(app, &fresh, &alice.token, body).await;
        assert_eq!(seen.status, first.status, "{body}");
        assert_eq!(seen.text, first.text, "{body}");
    }
    let invalid = post_to(app, &app.router, &alice.token, &bodies[2]).await;
    assert!(
        invalid.json["errors"][0]["message"].is_string(),
        "{}",
        invalid.text
    );
}
db_test!(a_request_validated_once_is_answered_as_the_first_time);

const INTROSPECT: &str = "{ __schema { queryType { name } } }";

async fn introspection_is_open_by_default(app: &TestApp) {
    let resp = gql(app, None, INTROSPECT, json!({})).await;
    assert_eq!(
        resp.json["data"]["__schema"]["queryType"]["name"], "Query",
        "{}",
        resp.text
    );
}
db_test!(introspection_is_open_by_default);

fn no_anonymous_introspection(config: &mut Config) {
    config.anonymous_introspection = false;
}

async fn introspection_can_be_closed_to_anonymous_callers(app: &TestApp) {
    for query in [
        INTROSPECT,
        "{ __type(name: \"Query\") { name } }",
        "{ ...F } fragment F on Query { ... on Query { __schema { types { name } } } }",
    ] {
        let anonymous = gql(app, None, query, json!({})).await;
        assert!(anonymous.json["data"].is_null(), "{}", anonymous.text);
        assert_eq!(
            first_code(&anonymous.json),
            "UNAUTHENTICATED",
            "{}",
            anonymous.text
        );
    }
    // `__typename` is not introspection of the schema.
    let typename = gql(app, None, "{ __typename }", json!({})).await;
    assert_eq!(
        typename.json["data"]["__typename"], "Query",
        "{}",
        typename.text
    );
    let alice = app.user("alice").await;
    let signed_in = gql(app, Some(&alice.token), INTROSPECT, json!({})).await;
    assert_eq!(
        signed_in.json["data"]["__schema"]["queryType"]["name"], "Query",
        "{}",
        signed_in.text
    );
    // The same text again, parsed once and kept: still refused to the anonymous caller.
    let again = gql(app, None, INTROSPECT, json!({})).await;
    assert_eq!(first_code(&again.json), "UNAUTHENTICATED", "{}", again.text);
}
db_test!(
    introspection_can_be_closed_to_anonymous_callers,
    no_anonymous_introspection
);

async fn unknown_paths_and_methods_answer_with_the_error_body(app: &TestApp) {
    let alice = app.user("alice").await;
    let missing = app.get("/api/nothing-here/", Some(&alice.token)).await;
    assert_error(&missing, StatusCode::NOT_FOUND, "not_found");
    let wrong = app.request(Method::PUT, "/healthz", None, None).await;
    assert_error(&wrong, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let wrong = app
        .request(
            Method::PUT,
            "/api/tickets/",
            Some(&alice.token),
            Some(json!({})),
        )
        .await;
    assert_error(&wrong, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let allow = wrong
        .headers
        .get(header::ALLOW)
        .map(|v| v.to_str().unwrap().to_string());
    assert!(
        allow
            .as_deref()
            .is_some_and(|a| a.contains("GET") && a.contains("POST")),
        "{allow:?}"
    );
    let web = app
        .request(Method::GET, "/accounts/logout/", None, None)
        .await;
    assert_web_error(&web, StatusCode::METHOD_NOT_ALLOWED);
    let gql = app.request(Method::DELETE, "/graphql", None, None).await;
    assert_eq!(gql.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(gql.json["errors"][0]["message"].is_string(), "{}", gql.text);
}
db_test!(unknown_paths_and_methods_answer_with_the_error_body);

/// A raw request to `path` with `content_type`.
fn raw(method: Method, path: &str, content_type: &str, body: String) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .unwrap()
}

/// A route takes its behaviour from the door it is added under, not from its path: routes made up here,
/// on paths no door uses, answer the shared layers' refusals in their door's shape, and only the one
/// declared to take uploads lets a multipart body past the body limit.
async fn a_route_made_up_under_a_door_behaves_as_that_door(app: &TestApp) {
    use axum::routing::post;
    use deskgraph::http::errors::Door;
    use deskgraph::http::routes::Routes;
    let length = |body: Bytes| async move { body.len().to_string() };
    let extra = Routes::new(Door::Web)
        .route("/made-up/web/", post(length))
        .merge(Routes::new(Door::GraphQl).route("/made-up/graphql/", post(length)))
        .merge(Routes::new(Door::Rest).uploads("/made-up/uploads/", post(length)));
    let router = deskgraph::app::router_with(app.state.clone(), extra).unwrap();

    let web = app
        .send_to(
            &router,
            raw(
                Method::POST,
                "/made-up/web/",
                "application/json",
                oversized(),
            ),
        )
        .await;
    assert_web_error(&web, StatusCode::PAYLOAD_TOO_LARGE);
    let wrong_method = app
        .send_to(
            &router,
            raw(
                Method::PUT,
                "/made-up/web/",
                "application/json",
                "{}".into(),
            ),
        )
        .await;
    assert_web_error(&wrong_method, StatusCode::METHOD_NOT_ALLOWED);
    let gql = app
        .send_to(
            &router,
            raw(
                Method::POST,
                "/made-up/graphql/",
                "application/json",
                oversized(),
            ),
        )
        .await;
    assert_eq!(gql.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", gql.text);
    assert_eq!(first_code(&gql.json), "BAD_USER_INPUT");

    // The same multipart body: past the body limit on the route that takes uploads, refused elsewhere.
    let boundary = "made-up-boundary";
    let multipart = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\
         Content-Type: text/plain\r\n\r\n{}\r\n--{boundary}--\r\n",
        "x".repeat(MIB + 1)
    );
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let upload = app
        .send_to(
            &router,
            raw(
                Method::POST,
                "/made-up/uploads/",
                &content_type,
                multipart.clone(),
            ),
        )
        .await;
    assert_eq!(upload.status, StatusCode::OK, "{}", upload.text);
    assert_eq!(upload.text, multipart.len().to_string());
    let not_an_upload = app
        .send_to(
            &router,
            raw(Method::POST, "/made-up/web/", &content_type, multipart),
        )
        .await;
    assert_web_error(&not_an_upload, StatusCode::PAYLOAD_TOO_LARGE);
}
db_test!(a_route_made_up_under_a_door_behaves_as_that_door);
