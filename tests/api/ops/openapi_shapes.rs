//! Real REST and web bodies have exactly the properties the OpenAPI document gives their schemas (those it does
//! not require may be absent), so a client generated from the document reads what the server sends.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::{browser_from, web};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The object schema behind a `$ref`, a `oneOf` with a `$ref`, or an inline object.
fn object_schema<'a>(doc: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    if let Some(target) = schema["$ref"].as_str() {
        return doc.pointer(target.strip_prefix('#').unwrap());
    }
    if let Some(alternatives) = schema["oneOf"].as_array() {
        return alternatives.iter().find_map(|s| object_schema(doc, s));
    }
    schema.get("properties").map(|_| schema)
}

/// The body has exactly the properties its schema documents, recursively through objects and arrays.
fn assert_matches(doc: &Value, schema_name: &str, body: &Value) {
    let schema = &doc["components"]["schemas"][schema_name];
    assert!(schema.is_object(), "no schema {schema_name}");
    assert_shape(doc, schema, body, schema_name);
}

fn assert_shape(doc: &Value, schema: &Value, body: &Value, at: &str) {
    match body {
        Value::Object(map) => {
            let Some(schema) = object_schema(doc, schema) else {
                return;
            };
            let Some(props) = schema["properties"].as_object() else {
                return;
            };
            // A property the schema does not require (e.g. a merged ticket's `merged_into`) may be absent.
            let required: BTreeSet<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let documented: BTreeSet<&String> = props
                .keys()
                .filter(|k| map.contains_key(*k) || required.contains(k.as_str()))
                .collect();
            let actual: BTreeSet<&String> = map.keys().collect();
            assert_eq!(actual, documented, "{at}: body keys differ from the schema");
            for (key, value) in map {
                assert_shape(doc, &props[key], value, &format!("{at}.{key}"));
            }
        }
        Value::Array(items) => {
            if let Some(first) = items.first() {
                assert_shape(doc, &schema["items"], first, &format!("{at}[0]"));
            }
        }
        _ => {}
    }
}

async fn real_bodies_match_their_schemas(app: &TestApp) {
    let doc = app.get("/api/openapi.json", None).await.json;
    let agent = app.agent("adam").await;
    let token = Some(agent.token.as_str());
    let project = app
        .post("/api/projects/", token, json!({"name": "Office"}))
        .await;
    assert_matches(&doc, "Project", &project.json);
    let asset_body = json!({"name": "Laptop", "type": "hardware", "owner": agent.id});
    let asset = app.post("/api/assets/", token, asset_body).await;
    assert_matches(&doc, "Asset", &asset.json);
    let ticket_body = json!({"title": "Printer", "project": project.json["id"], "assigned_to": agent.id, "due_date": "2026-12-01"});
    let created = app.post("/api/tickets/", token, ticket_body).await;
    assert_matches(&doc, "TicketCreated", &created.json);
    let id = created.json["id"].as_i64().unwrap();
    let comment = app
        .post(
            &format!("/api/tickets/{id}/comments/"),
            token,
            json!({"content": "On it"}),
        )
        .await;
    assert_matches(&doc, "CommentCreated", &comment.json);
    let cid = comment.json["id"].as_i64().unwrap();
    let edited = app
        .patch(
            &format!("/api/tickets/{id}/comments/{cid}/"),
            token,
            json!({"content": "Done"}),
        )
        .await;
    assert_matches(&doc, "CommentEdited", &edited.json);
    let comments = app
        .get(&format!("/api/tickets/{id}/comments/"), token)
        .await;
    assert_matches(&doc, "Comment", &comments.json[0]);
    let updated = app
        .patch(
            &format!("/api/tickets/{id}/"),
            token,
            json!({"status": "open"}),
        )
        .await;
    assert_matches(&doc, "TicketUpdated", &updated.json);
    assert_matches(
        &doc,
        "TicketDetail",
        &app.get(&format!("/api/tickets/{id}/"), token).await.json,
    );
    assert_matches(
        &doc,
        "TicketPage",
        &app.get("/api/tickets/", token).await.json,
    );
    assert_matches(&doc, "Version", &app.get("/api/version/", None).await.json);
    assert_matches(&doc, "Health", &app.get("/healthz", None).await.json);
    assert_matches(&doc, "Ready", &app.get("/readyz", None).await.json);
    let bad = app.post("/api/projects/", token, json!({"name": ""})).await;
    assert_matches(&doc, "Error", &bad.json);
    let issued = app
        .post(
            "/api/auth/token/",
            None,
            json!({"username": "adam", "password": "adam-password"}),
        )
        .await;
    assert_matches(&doc, "AccessToken", &issued.json);

    let login = app
        .post(
            "/accounts/login/",
            None,
            json!({"username": "adam", "password": "adam-password"}),
        )
        .await;
    assert_matches(&doc, "SessionStarted", &login.json);
    let browser = browser_from(&login);
    let added = browser
        .send(
            app,
            Method::POST,
            &format!("/tickets/{id}/comments/add/"),
            Some(json!({"body": "Web"})),
        )
        .await;
    assert_matches(&doc, "WebCommentCreated", &added.json);
    let wid = added.json["comment"]["id"].as_i64().unwrap();
    let web_edit = browser
        .send(
            app,
            Method::PATCH,
            &format!("/tickets/comments/{wid}/edit/"),
            Some(json!({"body": "Web!"})),
        )
        .await;
    assert_matches(&doc, "WebCommentEdited", &web_edit.json);
    let web_list = browser.get(app, &format!("/tickets/{id}/comments/")).await;
    assert_matches(&doc, "WebCommentList", &web_list.json);
    let no_csrf = web(
        app,
        Method::DELETE,
        &format!("/tickets/comments/{wid}/delete/"),
        Some(&browser.session),
        None,
        None,
    )
    .await;
    assert_eq!(no_csrf.status, StatusCode::FORBIDDEN);
    assert_matches(&doc, "WebFailure", &no_csrf.json);
    let web_delete = browser
        .send(
            app,
            Method::DELETE,
            &format!("/tickets/comments/{wid}/delete/"),
            None,
        )
        .await;
    assert_matches(&doc, "WebMessage", &web_delete.json);
    let logout = browser
        .send(app, Method::POST, "/accounts/logout/", None)
        .await;
    assert_matches(&doc, "WebMessage", &logout.json);
    let mut refused = None;
    for _ in 0..10 {
        let guess = app
            .post(
                "/api/auth/token/",
                None,
                json!({"username": "adam", "password": "not-his"}),
            )
            .await;
        if guess.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(guess);
            break;
        }
    }
    let refused = refused.expect("the sign-in throttle answers 429");
    assert_matches(&doc, "RateLimitError", &refused.json);
    // Every documented 429 with the REST body says so, whether declared by hand or added to every path.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let mut response = &op["responses"]["429"];
            if let Some(name) = response["$ref"].as_str() {
                let name = name.rsplit('/').next().unwrap();
                response = &doc["components"]["responses"][name];
            }
            let schema = response["content"]["application/json"]["schema"]["$ref"]
                .as_str()
                .unwrap_or("");
            assert!(
                !schema.ends_with("/Error"),
                "{method} {path}: a 429 documented with the field-error body"
            );
        }
    }
    assert!(
        refused.json["details"]["retry_after"].is_u64(),
        "{}",
        refused.text
    );
}
db_test!(real_bodies_match_their_schemas);
