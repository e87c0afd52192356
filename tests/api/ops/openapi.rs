//! The OpenAPI document: served publicly, valid 3.1 with resolvable references, covering every route the
//! router serves (read from the router's source), locked by a snapshot; and the self-contained docs page.
use crate::db_test;
use crate::support::helpers::TestApp;
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Every `(method, path)` registered with `.route("…", …)` or `.uploads("…", …)` anywhere under `src/`.
fn routes_in_source() -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                routes_in_file(&std::fs::read_to_string(&path).unwrap(), &mut found);
            }
        }
    }
    found
}

fn routes_in_file(text: &str, found: &mut BTreeSet<(String, String)>) {
    let calls = text
        .match_indices(".route(")
        .chain(text.match_indices(".uploads("))
        .map(|(start, name)| start + name.len());
    for start in calls {
        let call = &text[start..];
        let mut depth = 1;
        let end = call
            .char_indices()
            .find(|(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map(|(i, _)| i)
            .unwrap();
        let call = &call[..end];
        // The route builder's own forwarding call names no path.
        if !call.trim_start().starts_with('"') {
            continue;
        }
        let path = call.split('"').nth(1).unwrap().to_string();
        for method in METHODS {
            let called = call.match_indices(&format!("{method}(")).any(|(i, _)| {
                i == 0
                    || !call[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            });
            if called {
                found.insert((method.to_string(), path.clone()));
            }
        }
    }
}

fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in METHODS {
            if item.get(method).is_some() {
                out.insert((method.to_string(), path.clone()));
            }
        }
    }
    out
}

/// Every `$ref` in `value` names something that exists in `doc`.
fn assert_refs_resolve(doc: &Value, value: &Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                let pointer = target.strip_prefix('#').unwrap();
                assert!(doc.pointer(pointer).is_some(), "dangling $ref {target}");
            }
            map.values().for_each(|v| assert_refs_resolve(doc, v));
        }
        Value::Array(items) => items.iter().for_each(|v| assert_refs_resolve(doc, v)),
        _ => {}
    }
}

async fn the_document_is_public_valid_openapi_3_1(app: &TestApp) {
    let served = app.get("/api/openapi.json", None).await;
    assert_eq!(served.status, StatusCode::OK, "{}", served.text);
    let doc = served.json;
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    assert_eq!(doc["info"]["version"], "0.6.0");
    assert_eq!(
        doc,
        serde_json::to_value(deskgraph::rest::openapi::document()).unwrap()
    );
    assert_refs_resolve(&doc, &doc);
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(
        schemes["bearer"],
        json!({"type": "http", "scheme": "bearer", "description": schemes["bearer"]["description"]})
    );
    assert_eq!(schemes["session"]["in"], "cookie");
    assert_eq!(schemes["session"]["name"], "sessionid");
    assert_eq!(schemes["csrf"]["in"], "header");
    assert_eq!(schemes["csrf"]["name"], "X-CSRFToken");

    // Error responses carry the error body; web ones the web failure body.
    let patch = &doc["paths"]["/api/tickets/{id}/"]["patch"];
    for status in ["400", "401", "403", "404", "413", "429"] {
        assert!(
            patch["responses"][status]["$ref"].is_string(),
            "{status}: {patch}"
        );
    }
    let bad_request = &doc["components"]["responses"]["BadRequest"];
    assert_eq!(
        bad_request["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Error"
    );
    let web_edit = &doc["paths"]["/tickets/comments/{comment_id}/edit/"]["patch"];
    assert_eq!(
        web_edit["responses"]["403"]["$ref"],
        "#/components/responses/WebForbidden"
    );
    assert_eq!(web_edit["security"], json!([{"session": [], "csrf": []}]));
    let list = &doc["paths"]["/api/tickets/"]["get"];
    let params: Vec<&str> = list["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        [
            "q",
            "status",
            "priority",
            "assigned",
            "tag",
            "tag_any",
            "field.<key>",
            "ordering",
            "page",
            "limit"
        ]
    );
    assert!(doc["paths"]["/healthz"]["get"]["responses"]
        .get("401")
        .is_none());
}
db_test!(the_document_is_public_valid_openapi_3_1);

async fn every_route_is_documented_and_every_documented_route_is_served(app: &TestApp) {
    let doc = app.get("/api/openapi.json", None).await.json;
    let documented = documented(&doc);
    let routes = routes_in_source();
    assert!(
        routes.len() >= 30,
        "the source scan found too few routes: {routes:?}"
    );
    let missing: Vec<_> = routes.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "routes missing from the document: {missing:?}"
    );

    let agent = app.agent("adam").await;
    let fallback = app.get("/no/such/route/", Some(&agent.token)).await;
    assert_eq!(fallback.status, StatusCode::NOT_FOUND);
    for (method, path) in &documented {
        let concrete = path.replace("{id}", "1").replace("{comment_id}", "1");
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let body = (method != Method::GET && method != Method::DELETE).then(|| json!({}));
        let resp = app
            .request(method.clone(), &concrete, Some(&agent.token), body)
            .await;
        assert_ne!(
            resp.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        let is_fallback = resp.status == StatusCode::NOT_FOUND && resp.json == fallback.json;
        assert!(!is_fallback, "{method} {path} is documented but not served");
    }
}
db_test!(every_route_is_documented_and_every_documented_route_is_served);

async fn the_docs_page_is_self_contained(app: &TestApp) {
    let page = app.get("/api/docs", None).await;
    assert_eq!(page.status, StatusCode::OK);
    let content_type = page.headers["content-type"].to_str().unwrap();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(page.text.contains("fetch(\"/api/openapi.json\")"));
    assert!(
        !page.text.contains("http://") && !page.text.contains("https://"),
        "the page loads something from elsewhere"
    );
}
db_test!(the_docs_page_is_self_contained);

#[test]
fn the_document_is_locked_by_a_snapshot() {
    let doc = serde_json::to_value(deskgraph::rest::openapi::document()).unwrap();
    insta::assert_json_snapshot!("openapi", doc);
}
