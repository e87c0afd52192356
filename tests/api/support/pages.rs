//! Helpers for the page tests: form posts with cookies, and reading redirects and pages.
use crate::support::helpers::{TestApp, TestResponse};
use crate::support::world::Browser;
use axum::body::Body;
use axum::http::{header, Method, Request};

/// The exact policy every page carries.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; frame-ancestors 'none'";

/// GET a page with these cookies (`None`: signed out).
pub async fn page(app: &TestApp, path: &str, cookies: Option<&str>) -> TestResponse {
    let mut builder = Request::builder().method(Method::GET).uri(path);
    if let Some(cookies) = cookies {
        builder = builder.header(header::COOKIE, cookies);
    }
    app.send(builder.body(Body::empty()).unwrap()).await
}

/// POST an HTML form with these cookies.
pub async fn form(
    app: &TestApp,
    path: &str,
    cookies: Option<&str>,
    fields: &[(&str, &str)],
) -> TestResponse {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(cookies) = cookies {
        builder = builder.header(header::COOKIE, cookies);
    }
    app.send(builder.body(Body::from(body)).unwrap()).await
}

/// Where a 303 points.
pub fn location(resp: &TestResponse) -> String {
    assert_eq!(resp.status, 303, "{}", resp.text);
    resp.headers[header::LOCATION].to_str().unwrap().to_string()
}

impl Browser {
    /// The Cookie header this browser sends.
    pub fn cookies(&self) -> String {
        format!("sessionid={}; csrftoken={}", self.session, self.csrf)
    }

    /// GET a page as this browser.
    pub async fn page(&self, app: &TestApp, path: &str) -> TestResponse {
        page(app, path, Some(&self.cookies())).await
    }

    /// POST a form as this browser, with its CSRF field.
    pub async fn form(&self, app: &TestApp, path: &str, fields: &[(&str, &str)]) -> TestResponse {
        let mut all = vec![("csrfmiddlewaretoken", self.csrf.as_str())];
        all.extend_from_slice(fields);
        form(app, path, Some(&self.cookies()), &all).await
    }

    /// POST a form as this browser with a wrong CSRF field.
    pub async fn forged(&self, app: &TestApp, path: &str, fields: &[(&str, &str)]) -> TestResponse {
        let mut all = vec![("csrfmiddlewaretoken", "0000")];
        all.extend_from_slice(fields);
        form(app, path, Some(&self.cookies()), &all).await
    }
}
