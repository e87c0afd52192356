//! Signing in through each door (REST token, GraphQL `login`, web JSON, web form), optionally from a client
//! address, and reading each door's answer as one outcome.
use crate::support::helpers::{TestApp, TestResponse};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use serde_json::json;

/// The doors that take a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    Rest,
    GraphQl,
    WebJson,
    WebForm,
}

/// What a sign-in came to, read from the door's own shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Signed in (a token, or a session cookie).
    SignedIn,
    /// Wrong credentials (401 / UNAUTHENTICATED).
    Refused,
    /// Locked out (429 / RATE_LIMITED), retry after this many seconds.
    Locked(u64),
    /// Passwords are turned off for this user (403 / FORBIDDEN): single sign-on only.
    PasswordsOff,
}

/// What every door says when passwords are turned off.
const PASSWORDS_OFF: &str = "password sign-in is turned off";

const LOGIN: &str =
    "mutation($u: String!, $p: String!) { login(input: {username: $u, password: $p}) { token } }";

/// The pre-session CSRF token the form posts carry (a cookie and the same field).
const FORM_TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The request for one sign-in.
pub fn sign_in_request(door: Door, username: &str, password: &str) -> Request<Body> {
    let json = |uri: &str, body: serde_json::Value| {
        Request::builder()
            .method(Method::POST)
            .uri(uri)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    match door {
        Door::Rest => json(
            "/api/auth/token/",
            json!({"username": username, "password": password}),
        ),
        Door::GraphQl => json(
            "/graphql",
            json!({"query": LOGIN, "variables": {"u": username, "p": password}}),
        ),
        Door::WebJson => json(
            "/accounts/login/",
            json!({"username": username, "password": password}),
        ),
        Door::WebForm => {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("csrfmiddlewaretoken", FORM_TOKEN)
                .append_pair("username", username)
                .append_pair("password", password)
                .finish();
            Request::builder()
                .method(Method::POST)
                .uri("/accounts/login/")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header(header::COOKIE, format!("csrftoken={FORM_TOKEN}"))
                .body(Body::from(body))
                .unwrap()
        }
    }
}

/// Sign in through `door` of `router` (the app's own when `None`), from `peer` when given.
pub async fn sign_in_via(
    app: &TestApp,
    router: Option<&Router>,
    door: Door,
    peer: Option<&str>,
    username: &str,
    password: &str,
) -> Outcome {
    let mut request = sign_in_request(door, username, password);
    if let Some(peer) = peer {
        let addr: std::net::SocketAddr = peer.parse().unwrap();
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(addr));
    }
    let resp = app.send_to(router.unwrap_or(&app.router), request).await;
    outcome(door, &resp)
}

/// Sign in through `door` of the app, over no socket.
pub async fn sign_in(app: &TestApp, door: Door, username: &str, password: &str) -> Outcome {
    sign_in_via(app, None, door, None, username, password).await
}

fn retry_after_header(resp: &TestResponse) -> u64 {
    let value = resp
        .headers
        .get(header::RETRY_AFTER)
        .unwrap_or_else(|| panic!("429 without Retry-After: {:?}", resp.headers));
    value.to_str().unwrap().parse().unwrap()
}

/// Read the answer of `door`, asserting its documented shape.
pub fn outcome(door: Door, resp: &TestResponse) -> Outcome {
    let body = &resp.json;
    match door {
        Door::GraphQl => {
            assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
            if body["data"]["login"]["token"].is_string() {
                return Outcome::SignedIn;
            }
            let ext = &body["errors"][0]["extensions"];
            match ext["code"].as_str() {
                Some("UNAUTHENTICATED") => Outcome::Refused,
                Some("RATE_LIMITED") => Outcome::Locked(ext["retryAfter"].as_u64().unwrap()),
                Some("FORBIDDEN") => {
                    let message = body["errors"][0]["message"].as_str().unwrap_or("");
                    assert!(message.contains(PASSWORDS_OFF), "{}", resp.text);
                    Outcome::PasswordsOff
                }
                _ => panic!("unexpected GraphQL answer: {}", resp.text),
            }
        }
        _ => match resp.status {
            StatusCode::TOO_MANY_REQUESTS => {
                let seconds = retry_after_header(resp);
                match door {
                    Door::Rest => {
                        assert_eq!(body["code"], "rate_limited", "{}", resp.text);
                        assert_eq!(body["details"]["retry_after"], seconds, "{}", resp.text);
                    }
                    Door::WebJson => {
                        assert_eq!(body["success"], false, "{}", resp.text);
                        assert!(body["error"].is_string(), "{}", resp.text);
                    }
                    _ => assert!(
                        resp.text.contains("Too many failed sign-in attempts"),
                        "{}",
                        resp.text
                    ),
                }
                no_session(resp);
                Outcome::Locked(seconds)
            }
            StatusCode::UNAUTHORIZED => {
                match door {
                    Door::Rest => assert_eq!(body["code"], "unauthenticated"),
                    Door::WebJson => assert_eq!(body["success"], false),
                    _ => assert!(resp.text.contains("invalid username or password")),
                }
                no_session(resp);
                Outcome::Refused
            }
            StatusCode::FORBIDDEN => {
                match door {
                    Door::Rest => assert_eq!(body["code"], "forbidden", "{}", resp.text),
                    Door::WebJson => assert_eq!(body["success"], false, "{}", resp.text),
                    _ => {}
                }
                assert!(resp.text.contains(PASSWORDS_OFF), "{}", resp.text);
                no_session(resp);
                Outcome::PasswordsOff
            }
            StatusCode::OK if door != Door::WebForm => Outcome::SignedIn,
            StatusCode::SEE_OTHER if door == Door::WebForm => {
                assert!(session_cookie(resp).is_some(), "{:?}", resp.headers);
                Outcome::SignedIn
            }
            other => panic!("unexpected {other} from {door:?}: {}", resp.text),
        },
    }
}

fn session_cookie(resp: &TestResponse) -> Option<String> {
    crate::support::world::set_cookie(resp, "sessionid")
}

fn no_session(resp: &TestResponse) {
    assert!(session_cookie(resp).is_none(), "{:?}", resp.headers);
}
