//! Web sessions: login (JSON and form), cookies, logout and expiry.
use crate::db_test;
use crate::support::helpers::assert_web_error;
use crate::support::helpers::TestApp;
use crate::support::world::{add, browser_from, login, set_cookie, web, world};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::domain::CommentType;
use sea_orm::EntityTrait;
use serde_json::json;

async fn login_sets_cookies_and_logout_ends_the_session(app: &TestApp) {
    let w = world(app).await;
    let resp = app
        .post(
            "/accounts/login/",
            None,
            json!({"username": "owner", "password": "owner-password"}),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["success"], true);
    assert_eq!(resp.json["user"]["username"], "owner");
    let session = set_cookie(&resp, "sessionid").unwrap();
    assert!(session.contains("HttpOnly"), "{session}");
    assert!(session.contains("SameSite=Lax"), "{session}");
    assert!(session.contains("Path=/"), "{session}");
    let csrf = set_cookie(&resp, "csrftoken").unwrap();
    assert!(!csrf.contains("HttpOnly"), "{csrf}");
    let browser = browser_from(&resp);
    // Only the hash is stored.
    let stored = entity::web_session::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0].session_hash, browser.session);
    assert_eq!(stored[0].csrf_token, browser.csrf);

    let list = format!("/tickets/{}/comments/", w.ticket.id);
    assert_eq!(browser.get(app, &list).await.status, StatusCode::OK);
    // Logout needs the CSRF token like any unsafe request.
    let resp = web(
        app,
        Method::POST,
        "/accounts/logout/",
        Some(&browser.session),
        None,
        None,
    )
    .await;
    assert_web_error(&resp, StatusCode::FORBIDDEN);
    let resp = browser
        .send(app, Method::POST, "/accounts/logout/", None)
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    assert_eq!(resp.json["success"], true);
    assert_web_error(&browser.get(app, &list).await, StatusCode::UNAUTHORIZED);
    let resp = browser
        .send(
            app,
            Method::POST,
            &format!("/tickets/{}/comments/add/", w.ticket.id),
            Some(json!({"body": "late"})),
        )
        .await;
    assert_web_error(&resp, StatusCode::UNAUTHORIZED);
}
db_test!(login_sets_cookies_and_logout_ends_the_session);

async fn bad_logins(app: &TestApp) {
    app.user("owner").await;
    let resp = app
        .post(
            "/accounts/login/",
            None,
            json!({"username": "owner", "password": "wrong"}),
        )
        .await;
    assert_web_error(&resp, StatusCode::UNAUTHORIZED);
    assert!(set_cookie(&resp, "sessionid").is_none());
    let resp = app
        .post("/accounts/login/", None, json!({"username": "owner"}))
        .await;
    assert_web_error(&resp, StatusCode::BAD_REQUEST);

    // A form post is the sign-in page's: it needs the pre-session CSRF token, and answers with pages.
    let form = |cookie: &str, body: &str| {
        Request::builder()
            .method(Method::POST)
            .uri("/accounts/login/")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::COOKIE, cookie.to_string())
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let token = "ab".repeat(32);
    let resp = app
        .send(form("", "username=owner&password=owner-password"))
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    assert!(set_cookie(&resp, "sessionid").is_none());
    let resp = app
        .send(form(
            &format!("csrftoken={token}"),
            &format!("csrfmiddlewaretoken={token}&username=owner&password=owner-password"),
        ))
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    assert_eq!(resp.headers[header::LOCATION], "/tickets/");
    assert!(set_cookie(&resp, "sessionid").is_some());
    let resp = app
        .send(form(
            &format!("csrftoken={token}"),
            &format!("csrfmiddlewaretoken={token}&username=owner&password=nope"),
        ))
        .await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED, "{}", resp.text);
    assert!(set_cookie(&resp, "sessionid").is_none());
}
db_test!(bad_logins);

async fn expired_sessions_are_refused(app: &TestApp) {
    use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
    let w = world(app).await;
    let browser = login(app, &w.owner).await;
    let list = format!("/tickets/{}/comments/", w.ticket.id);
    assert_eq!(browser.get(app, &list).await.status, StatusCode::OK);
    let stored = entity::web_session::Entity::find()
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let mut active = stored.into_active_model();
    active.expires_at = Set(chrono::Utc::now() - chrono::Duration::minutes(1));
    active.update(&app.state.db.conn).await.unwrap();
    assert_web_error(&browser.get(app, &list).await, StatusCode::UNAUTHORIZED);
    // An edit with nothing in it is a 400, once signed in again.
    let fresh = login(app, &w.owner).await;
    let c = add(app, &w.owner, w.ticket.id, "mine", CommentType::Public).await;
    let resp = fresh
        .send(
            app,
            Method::PATCH,
            &format!("/tickets/comments/{}/edit/", c.id),
            Some(json!({})),
        )
        .await;
    assert_web_error(&resp, StatusCode::BAD_REQUEST);
}
db_test!(expired_sessions_are_refused);
