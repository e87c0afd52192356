//! The web sign-in's defences: `next` leads only to this site, the JSON branch refuses what another site
//! can make a browser send, and cookies carry `Secure` (with HSTS) when configured.
use crate::db_test;
use crate::support::helpers::assert_web_error;
use crate::support::helpers::{TestApp, TestResponse};
use crate::support::pages::{form, location, page};
use crate::support::world::{browser_from, set_cookie};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::config::{Config, SecureCookies};
use serde_json::json;

const FORM_TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// `next` values that must not lead away from this site (as the query or form field decodes them).
const BAD_NEXT: [&str; 16] = [
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    "/ /evil.example",
    "/%09/evil.example",
    "/%0A/evil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "javascript:alert(1)",
    "evil.example",
    "/\u{0}x",
    "/\u{2028}/evil.example",
];

async fn sign_in_with_next(app: &TestApp, next: &str) -> TestResponse {
    let fields = [
        ("csrfmiddlewaretoken", FORM_TOKEN),
        ("username", "owner"),
        ("password", "owner-password"),
        ("next", next),
    ];
    form(
        app,
        "/accounts/login/",
        Some(&format!("csrftoken={FORM_TOKEN}")),
        &fields,
    )
    .await
}

async fn next_leads_only_to_this_site(app: &TestApp) {
    app.user("owner").await;
    for bad in BAD_NEXT {
        let resp = sign_in_with_next(app, bad).await;
        assert_eq!(location(&resp), "/tickets/", "next = {bad:?}");
    }
    let resp = sign_in_with_next(app, "/tickets/?status=open").await;
    assert_eq!(location(&resp), "/tickets/?status=open");
    let browser = browser_from(&resp);
    let cookies = format!("sessionid={}; csrftoken={}", browser.session, browser.csrf);

    // The query form of the same, as a link would carry it (the tab sent percent-encoded): the page's
    // hidden field, and the redirect of a visitor already signed in.
    let query = |next: &str| {
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("next", next)
            .finish()
    };
    let raw = "/accounts/login/?next=/%09/evil.example";
    let resp = page(app, raw, Some(&cookies)).await;
    assert_eq!(location(&resp), "/tickets/");
    let resp = page(app, raw, None).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert!(resp.text.contains(r#"name="next" value="/tickets/""#));
    for bad in BAD_NEXT {
        let path = format!("/accounts/login/?{}", query(bad));
        let resp = page(app, &path, Some(&cookies)).await;
        assert_eq!(location(&resp), "/tickets/", "next = {bad:?}");
        let resp = page(app, &path, None).await;
        assert!(
            resp.text.contains(r#"name="next" value="/tickets/""#),
            "next = {bad:?}"
        );
    }
}
db_test!(next_leads_only_to_this_site);

fn json_login(content_type: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("/accounts/login/")
        .header(header::CONTENT_TYPE, content_type)
        .header(header::HOST, "desk.example");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    let body = json!({"username": "owner", "password": "owner-password"});
    builder.body(Body::from(body.to_string())).unwrap()
}

fn no_session(resp: &TestResponse) {
    assert!(
        set_cookie(resp, "sessionid").is_none(),
        "{:?}",
        resp.headers
    );
}

async fn the_json_sign_in_refuses_other_sites(app: &TestApp) {
    app.user("owner").await;
    let cross = [
        ("origin", "https://evil.example"),
        ("sec-fetch-site", "cross-site"),
    ];
    // What `<form enctype="text/plain">` on another site sends: a body that parses as JSON.
    for content_type in ["text/plain", "text/plain; charset=utf-8"] {
        let resp = app.send(json_login(content_type, &cross)).await;
        assert_web_error(&resp, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        no_session(&resp);
    }
    for content_type in ["application/x-json", "multipart/form-data; boundary=x"] {
        let resp = app.send(json_login(content_type, &[])).await;
        assert_web_error(&resp, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    // JSON from a page of another site (as a browser would label it) is refused.
    for headers in [
        &cross[..],
        &cross[..1],
        &cross[1..],
        &[("origin", "null")][..],
        &[("sec-fetch-site", "same-site")][..],
        &[("origin", "http://desk.example.evil.example")][..],
    ] {
        let resp = app.send(json_login("application/json", headers)).await;
        assert_web_error(&resp, StatusCode::FORBIDDEN);
        no_session(&resp);
    }
    // A page of this site, and a client that is not a browser, sign in.
    for headers in [
        &[
            ("origin", "https://desk.example"),
            ("sec-fetch-site", "same-origin"),
        ][..],
        &[("origin", "http://desk.example")][..],
        &[][..],
    ] {
        let resp = app
            .send(json_login("application/json; charset=utf-8", headers))
            .await;
        assert_eq!(resp.status, StatusCode::OK, "{headers:?}: {}", resp.text);
        assert_eq!(resp.json["success"], true);
        assert!(set_cookie(&resp, "sessionid").is_some());
    }
}
db_test!(the_json_sign_in_refuses_other_sites);

fn trusted_front_end(config: &mut Config) {
    config.cors_origins = vec!["https://app.example".into()];
}

async fn configured_front_ends_may_sign_in(app: &TestApp) {
    app.user("owner").await;
    let from = |origin| [("origin", origin), ("sec-fetch-site", "cross-site")];
    let resp = app
        .send(json_login("application/json", &from("https://app.example")))
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let resp = app
        .send(json_login(
            "application/json",
            &from("https://evil.example"),
        ))
        .await;
    assert_web_error(&resp, StatusCode::FORBIDDEN);
}
db_test!(configured_front_ends_may_sign_in, trusted_front_end);

/// The `Set-Cookie` values of a response.
fn cookies(resp: &TestResponse) -> Vec<String> {
    resp.headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

fn is_secure(cookie: &str) -> bool {
    cookie.split(';').any(|a| a.trim() == "Secure")
}

/// Every cookie of a sign-in page, a JSON sign-in, a form sign-in and a sign-out, as seen from `peer`
/// with `X-Forwarded-Proto: https`; asserts each session cookie's other attributes.
async fn every_cookie(app: &TestApp, peer: &str) -> Vec<String> {
    let https = |mut req: Request<Body>| {
        req.headers_mut()
            .insert("x-forwarded-proto", "https".parse().unwrap());
        req
    };
    let get = Request::builder()
        .uri("/accounts/login/")
        .body(Body::empty())
        .unwrap();
    let login_page = app.send_from(peer, https(get)).await;
    let json = app
        .send_from(peer, https(json_login("application/json", &[])))
        .await;
    let login_form = crate::support::login::sign_in_request(
        crate::support::login::Door::WebForm,
        "owner",
        "owner-password",
    );
    let form = app.send_from(peer, https(login_form)).await;
    assert_eq!(form.status, StatusCode::SEE_OTHER, "{}", form.text);
    let browser = browser_from(&json);
    let logout = Request::builder()
        .method(Method::POST)
        .uri("/accounts/logout/")
        .header(
            header::COOKIE,
            format!("sessionid={}; csrftoken={}", browser.session, browser.csrf),
        )
        .header("x-csrftoken", &browser.csrf)
        .body(Body::empty())
        .unwrap();
    let logout = app.send_from(peer, https(logout)).await;
    assert_eq!(logout.status, StatusCode::OK, "{}", logout.text);
    let all: Vec<String> = [&login_page, &json, &form, &logout]
        .into_iter()
        .flat_map(cookies)
        .collect();
    assert_eq!(all.len(), 7, "{all:?}");
    for session in all.iter().filter(|c| c.starts_with("sessionid=")) {
        assert!(session.contains("; HttpOnly"), "{session}");
        assert!(session.contains("; SameSite=Lax"), "{session}");
    }
    all
}

fn behind_tls_proxy(config: &mut Config) {
    config.trusted_proxies = vec!["10.0.0.0/8".parse().unwrap()];
}

async fn cookies_are_secure_behind_a_tls_proxy(app: &TestApp) {
    app.user("owner").await;
    let all = every_cookie(app, "10.0.0.2:443").await;
    assert!(all.iter().all(|c| is_secure(c)), "{all:?}");
    // `auto`: the header is not believed from a peer that is not a trusted proxy.
    let all = every_cookie(app, "203.0.113.9:5000").await;
    assert!(all.iter().all(|c| !is_secure(c)), "{all:?}");
    // HSTS is off unless configured.
    let resp = app.get("/healthz", None).await;
    assert!(!resp.headers.contains_key(header::STRICT_TRANSPORT_SECURITY));
}
db_test!(cookies_are_secure_behind_a_tls_proxy, behind_tls_proxy);

fn always_secure_with_hsts(config: &mut Config) {
    config.secure_cookies = SecureCookies::Always;
    config.hsts_seconds = 31_536_000;
}

async fn cookies_always_secure_and_hsts_when_configured(app: &TestApp) {
    app.user("owner").await;
    let all = every_cookie(app, "203.0.113.9:5000").await;
    assert!(all.iter().all(|c| is_secure(c)), "{all:?}");
    for path in ["/healthz", "/accounts/login/", "/api/tickets/"] {
        let resp = app.get(path, None).await;
        assert_eq!(
            resp.headers[header::STRICT_TRANSPORT_SECURITY],
            "max-age=31536000",
            "{path}"
        );
    }
}
db_test!(
    cookies_always_secure_and_hsts_when_configured,
    always_secure_with_hsts
);
