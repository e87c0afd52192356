//! Shared set-up for the attachment tests: multipart bodies and uploads over REST.
use crate::helpers::{TestApp, TestResponse, TestUser};
use axum::body::Body;
use axum::http::{header, Method, Request};

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
    browser: &crate::comments_support::Browser,
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
