//! GraphQL over HTTP: GET for queries, 405 for mutations over GET, GraphiQL, and the committed schema.
use crate::db_test;
use crate::support::helpers::TestApp;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};

fn get(path: &str, token: Option<&str>, accept: &str) -> Request<Body> {
    let mut builder = Request::get(path).header(header::ACCEPT, accept);
    if let Some(token) = token {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    builder.body(Body::empty()).unwrap()
}

async fn get_runs_queries_but_refuses_mutations(app: &TestApp) {
    let rita = app.user("rita").await;
    let ok = app
        .send(get(
            "/graphql?query=%7Bme%7Busername%7D%7D",
            Some(&rita.token),
            "application/json",
        ))
        .await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(ok.json["data"]["me"]["username"], "rita");

    let modern = app
        .send(get(
            "/graphql?query=%7Bme%7Busername%7D%7D",
            Some(&rita.token),
            "application/graphql-response+json",
        ))
        .await;
    assert_eq!(modern.status, StatusCode::OK);
    assert_eq!(
        modern.headers[header::CONTENT_TYPE],
        "application/graphql-response+json"
    );

    let mutation = "/graphql?query=mutation%7BdeleteTicket(input%3A%7Bid%3A%22x%22%7D)%7BdeletedTicketId%7D%7D";
    let refused = app
        .send(get(mutation, Some(&rita.token), "application/json"))
        .await;
    assert_eq!(refused.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.headers[header::ALLOW], "POST");
    assert_eq!(
        refused.json["errors"][0]["extensions"]["code"],
        "BAD_USER_INPUT"
    );

    let broken = app
        .send(get(
            "/graphql?query=%7Bme",
            Some(&rita.token),
            "application/graphql-response+json",
        ))
        .await;
    assert_eq!(broken.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        broken.json["errors"][0]["extensions"]["code"],
        "BAD_USER_INPUT"
    );
}
db_test!(get_runs_queries_but_refuses_mutations);

/// GraphiQL comes whole from the service: the page names no other host, carries the pages' strict policy
/// (no inline script, nothing from elsewhere), and every script and stylesheet it links is served.
async fn browsers_get_graphiql(app: &TestApp) {
    let page = app
        .send(get("/graphql", None, "text/html,application/xhtml+xml"))
        .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(
        page.headers[header::CONTENT_SECURITY_POLICY],
        deskgraph::web::pages::graphiql::GRAPHIQL_POLICY
    );
    assert!(deskgraph::web::pages::graphiql::GRAPHIQL_POLICY.contains("script-src 'self';"));
    assert!(page.text.contains("id=\"graphiql\""), "{}", page.text);
    assert!(page.text.contains("Not signed in"), "{}", page.text);
    assert!(!page.text.contains("http://") && !page.text.contains("https://"));
    assert!(
        !page.text.contains("<script>"),
        "no inline script: {}",
        page.text
    );
    let linked: Vec<&str> = page
        .text
        .split(['"', '\''])
        .filter(|part| part.starts_with("/static/graphiql/"))
        .collect();
    assert_eq!(linked.len(), 6, "{linked:?}");
    for path in linked {
        let file = app.get(path, None).await;
        assert_eq!(file.status, StatusCode::OK, "{path}");
        let kind = file.headers[header::CONTENT_TYPE].to_str().unwrap();
        assert!(
            kind.starts_with("text/javascript") || kind.starts_with("text/css"),
            "{path}: {kind}"
        );
        assert!(!file.text.is_empty(), "{path}");
    }
    // A missing file answers in the web interface's shape, as the document says of the pages.
    for path in ["/static/graphiql/nothing.js", "/static/nothing.css"] {
        let missing = app.get(path, None).await;
        assert_eq!(missing.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(missing.json["success"], false, "{}", missing.text);
        assert!(missing.json["error"].is_string(), "{}", missing.text);
    }
}
db_test!(browsers_get_graphiql);

/// A signed-in browser's GraphiQL runs as its user with the session cookie and the session's CSRF token in
/// `X-CSRFToken`; the cookie alone (all a page of another site can make a browser send) is anonymous, and a
/// wrong token is refused, so no other site can run a mutation with the session.
async fn graphiql_rides_the_session_with_its_csrf_token(app: &TestApp) {
    use serde_json::json;
    let rita = app.user("rita").await;
    let browser = crate::support::world::login(app, &rita).await;
    let mut page = get("/graphql", None, "text/html");
    page.headers_mut()
        .insert(header::COOKIE, browser.cookies().parse().unwrap());
    let page = app.send(page).await;
    assert!(page.text.contains("Signed in as"), "{}", page.text);
    let post = |csrf: Option<&str>, query: &str| {
        let mut builder = Request::post("/graphql")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::COOKIE, browser.cookies());
        if let Some(csrf) = csrf {
            builder = builder.header("x-csrftoken", csrf);
        }
        builder
            .body(Body::from(json!({ "query": query }).to_string()))
            .unwrap()
    };
    let me = app
        .send(post(Some(&browser.csrf), "{ me { username } }"))
        .await;
    assert_eq!(me.json["data"]["me"]["username"], "rita", "{}", me.text);
    let create =
        r#"mutation { createTicket(input: {title: "From another site"}) { ticket { id } } }"#;
    for csrf in [None, Some("0000"), Some("")] {
        let refused = app.send(post(csrf, create)).await;
        assert_eq!(
            refused.json["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
            "{csrf:?}: {}",
            refused.text
        );
    }
    let mine = app.as_user(&rita).get("/api/tickets/").await;
    assert_eq!(mine.json["count"], 0, "{}", mine.text);
    let made = app.send(post(Some(&browser.csrf), create)).await;
    assert!(
        made.json["data"]["createTicket"]["ticket"]["id"].is_string(),
        "{}",
        made.text
    );
    // A bearer token wins over the session: the request is the token's user.
    let sam = app.user("sam").await;
    let mut both = post(Some(&browser.csrf), "{ me { username } }");
    both.headers_mut().insert(
        header::AUTHORIZATION,
        format!("Bearer {}", sam.token).parse().unwrap(),
    );
    assert_eq!(app.send(both).await.json["data"]["me"]["username"], "sam");
}
db_test!(graphiql_rides_the_session_with_its_csrf_token);

async fn a_body_that_is_not_graphql_gets_a_graphql_error(app: &TestApp) {
    let request = Request::post("/graphql")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from("{not json"))
        .unwrap();
    let response = app.send(request).await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        response.json["errors"][0]["extensions"]["code"],
        "BAD_USER_INPUT"
    );
}
db_test!(a_body_that_is_not_graphql_gets_a_graphql_error);

/// The query GraphiQL sends on load: it must fit the depth and complexity limits, unauthenticated.
const INTROSPECTION: &str = "query IntrospectionQuery { __schema { queryType { name } mutationType { name }
  types { ...FullType } directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue } interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name ofType { kind name } } } } } } } }";

async fn full_introspection_fits_the_limits(app: &TestApp) {
    let body = app
        .graphql(None, INTROSPECTION, serde_json::json!({}))
        .await;
    assert!(body.get("errors").is_none(), "{body}");
    assert_eq!(body["data"]["__schema"]["mutationType"]["name"], "Mutation");
}
db_test!(full_introspection_fits_the_limits);

#[test]
fn every_type_and_field_of_the_schema_is_described() {
    // What codegen and GraphiQL's documentation show: a type or field without a description there is one a
    // client has to guess at.
    let served = deskgraph::graphql::sdl();
    let lines: Vec<&str> = served.lines().collect();
    let mut bare = Vec::new();
    let mut in_description = false;
    let mut owner = "";
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("\"\"\"") {
            // A one-line description opens and closes on its line.
            if !(trimmed.len() > 3 && trimmed.ends_with("\"\"\"")) {
                in_description = !in_description;
            }
            continue;
        }
        if in_description {
            continue;
        }
        let described = i > 0 && lines[i - 1].trim().ends_with("\"\"\"");
        let kinds = [
            "type ",
            "input ",
            "enum ",
            "interface ",
            "union ",
            "scalar ",
        ];
        if let Some(kind) = kinds.iter().find(|k| line.starts_with(*k)) {
            owner = line[kind.len()..]
                .split([' ', '{'])
                .next()
                .unwrap_or_default();
            if !described {
                bare.push(owner.to_string());
            }
        } else if line.starts_with('\t') && !described && !owner.is_empty() {
            let name: String = trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                bare.push(format!("{owner}.{name}"));
            }
        } else if trimmed == "}" {
            owner = "";
        }
    }
    assert!(bare.is_empty(), "no description: {bare:?}");
}

#[test]
fn committed_schema_matches_the_served_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let served = deskgraph::graphql::sdl();
    if committed != served {
        let line = committed
            .lines()
            .zip(served.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(served.lines().count()));
        panic!(
            "schema.graphql is out of date (first difference at line {}: committed {:?}, served {:?}).\n\
             Regenerate it with: cargo run -- schema > schema.graphql",
            line + 1,
            committed.lines().nth(line),
            served.lines().nth(line),
        );
    }
}
