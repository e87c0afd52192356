//! Shared set-up for the attachment tests: multipart bodies and uploads over REST.
use crate::db_test;
use crate::support::helpers::{TestApp, TestResponse, TestUser};
use crate::support::world::world;
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use serde_json::Value;

/// The boundary of the multipart bodies built here.
pub const BOUNDARY: &str = "----deskgraph-test-boundary-7MA4YWxkTrZu0gW";

/// A multipart/form-data body: `(name, filename, bytes)` parts (a file part when `filename` is set).
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, filename, bytes) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match filename {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                     Content-Type: text/html\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// POST a multipart body to `path` as `user`.
pub async fn post_multipart(
    app: &TestApp,
    path: &str,
    user: Option<&TestUser>,
    body: Vec<u8>,
) -> TestResponse {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header(header::CONTENT_LENGTH, body.len());
    if let Some(user) = user {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {}", user.token));
    }
    app.send(builder.body(Body::from(body)).unwrap()).await
}

/// Upload `bytes` as `filename` to ticket `ticket_id` (on `comment` when set) over REST.
pub async fn upload(
    app: &TestApp,
    user: &TestUser,
    ticket_id: i32,
    comment: Option<i32>,
    filename: &str,
    bytes: &[u8],
) -> TestResponse {
    let comment = comment.map(|c| c.to_string());
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("file", Some(filename), bytes)];
    if let Some(c) = &comment {
        parts.push(("comment", None, c.as_bytes()));
    }
    post_multipart(
        app,
        &format!("/api/tickets/{ticket_id}/attachments/"),
        Some(user),
        multipart(&parts),
    )
    .await
}

/// A PNG signature followed by `n` bytes of noise: detected as an image whatever the client says.
pub fn png(n: usize) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.extend((0..n).map(|i| (i * 7919 % 251) as u8));
    bytes
}

/// POST a multipart form (`multipart` parts) to `path` from `browser`'s session, as a page without
/// JavaScript does.
pub async fn post_form(
    app: &TestApp,
    browser: &crate::support::world::Browser,
    path: &str,
    parts: &[(&str, Option<&str>, &[u8])],
) -> TestResponse {
    let request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::COOKIE, format!("sessionid={}", browser.session))
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .body(Body::from(multipart(parts)))
        .unwrap();
    app.send(request).await
}

/// Upload, list and download over REST, checking every header and the exact bytes.
pub async fn round_trip(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    // Several chunks and a partial one, with every byte value.
    let bytes: Vec<u8> = (0..700_000u32).map(|i| (i * 31 % 256) as u8).collect();
    let resp = upload(app, &w.owner, t, None, "dump.bin", &bytes).await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let id = resp.json["id"].as_i64().unwrap();
    assert_eq!(resp.json["filename"], "dump.bin");
    assert_eq!(resp.json["content_type"], "application/octet-stream");
    assert_eq!(resp.json["size"], bytes.len());
    assert_eq!(resp.json["uploaded_by"]["username"], "owner");
    assert_eq!(resp.json["uploaded_by"]["full_name"], "Owner Example");
    assert!(resp.json["created_at"].is_string());
    // The element has exactly the properties the OpenAPI document gives it.
    let doc = app.get("/api/openapi.json", None).await.json;
    let documented: Vec<&String> = doc["components"]["schemas"]["Attachment"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    let mut sent: Vec<&String> = resp.json.as_object().unwrap().keys().collect();
    sent.sort();
    let mut documented = documented;
    documented.sort();
    assert_eq!(sent, documented);
    let url = resp.json["url"].as_str().unwrap().to_string();
    assert!(
        url.starts_with(&format!("/api/attachments/{id}/download/?")),
        "{url}"
    );

    let got = app
        .get(
            &format!("/api/attachments/{id}/download/"),
            Some(&w.owner.token),
        )
        .await;
    assert_eq!(got.status, StatusCode::OK);
    let raw = download_bytes(
        app,
        &format!("/api/attachments/{id}/download/"),
        Some(&w.owner.token),
    )
    .await;
    assert_eq!(raw, bytes, "the same bytes come back");
    assert_eq!(
        header(&got, header::CONTENT_TYPE),
        "application/octet-stream"
    );
    assert_eq!(
        header(&got, header::CONTENT_LENGTH),
        bytes.len().to_string()
    );
    assert_eq!(
        header(&got, header::CONTENT_DISPOSITION),
        "attachment; filename=\"dump.bin\"; filename*=UTF-8''dump%2Ebin"
    );
    assert_eq!(header(&got, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    assert!(header(&got, header::CONTENT_SECURITY_POLICY).contains("sandbox"));
    // The signed link works without credentials.
    assert_eq!(download_bytes(app, &url, None).await, bytes);

    // Listed on the ticket, in the detail and by id.
    let list = app
        .get(
            &format!("/api/tickets/{t}/attachments/"),
            Some(&w.owner.token),
        )
        .await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(ids(&list.json), vec![id]);
    let detail = app
        .get(&format!("/api/tickets/{t}/"), Some(&w.owner.token))
        .await;
    assert_eq!(ids(&detail.json["attachments"]), vec![id]);
    let meta = app
        .get(&format!("/api/attachments/{id}/"), Some(&w.owner.token))
        .await;
    assert_eq!(meta.status, StatusCode::OK);
    assert_eq!(meta.json["filename"], "dump.bin");
    assert_eq!(meta.json["size"], bytes.len());
}
db_test!(round_trip);

/// The raw bytes of a download.
pub async fn download_bytes(app: &TestApp, path: &str, token: Option<&str>) -> Vec<u8> {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let mut req = axum::http::Request::builder().uri(path);
    if let Some(token) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let resp = app
        .router
        .clone()
        .oneshot(req.body(axum::body::Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK, "{path}");
    resp.into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec()
}

pub fn header(resp: &crate::support::helpers::TestResponse, name: header::HeaderName) -> &str {
    resp.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

pub fn ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .map(|a| a.iter().filter_map(|x| x["id"].as_i64()).collect())
        .unwrap_or_default()
}
