//! Shared set-up for the comment tests: a ticket with every kind of person around it, web sessions,
//! and comments created through the service.
use crate::support::helpers::{TestApp, TestResponse, TestUser};
use axum::body::Body;
use axum::http::{header, Method, Request};
use deskgraph::domain::CommentType;
use deskgraph::service::{comments, tickets, users};
use entity::{comment, ticket};
use serde_json::{json, Value};

/// The people around one ticket.
pub struct World {
    pub owner: TestUser,
    pub other: TestUser,
    pub assignee: TestUser,
    pub grouper: TestUser,
    pub agent: TestUser,
    pub staff: TestUser,
    pub admin: TestUser,
    pub ticket: ticket::Model,
}

pub use crate::support::clients::actor;

/// A ticket of `owner`, opened by an agent, assigned to a plain user and to the non-team group Facilities.
pub async fn world(app: &TestApp) -> World {
    let owner = app.user("owner").await;
    let other = app.user("other").await;
    let assignee = app.user("assignee").await;
    let grouper = app
        .user_with("grouper", &["Facilities"], false, false)
        .await;
    let agent = app.agent("agent").await;
    let staff = app.user_with("staff", &[], true, false).await;
    let admin = app.admin("admin").await;
    let facilities = users::ensure_group(&app.state.db.conn, "Facilities")
        .await
        .unwrap();
    // Only the team assigns: an agent opens it for the owner.
    let ticket = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &agent).await,
        tickets::NewTicket {
            title: "Printer on fire".into(),
            assignee_id: Some(assignee.id),
            assigned_group_id: Some(facilities.id),
            requester_id: Some(owner.id),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    World {
        owner,
        other,
        assignee,
        grouper,
        agent,
        staff,
        admin,
        ticket,
    }
}

/// A plain ticket of `owner` with nobody assigned.
pub async fn plain_ticket(app: &TestApp, owner: &TestUser) -> ticket::Model {
    tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, owner).await,
        tickets::NewTicket {
            title: "Another ticket".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

/// Add a comment through the service.
pub async fn add(
    app: &TestApp,
    author: &TestUser,
    ticket_id: i32,
    body: &str,
    kind: CommentType,
) -> comment::Model {
    comments::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, author).await,
        ticket_id,
        comments::NewComment {
            body: body.into(),
            comment_type: kind,
        },
    )
    .await
    .unwrap()
}

/// A signed-in browser: the session cookie and the CSRF token.
pub struct Browser {
    pub session: String,
    pub csrf: String,
}

/// The value of a cookie set by a response.
pub fn set_cookie(resp: &TestResponse, name: &str) -> Option<String> {
    resp.headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(str::to_string)
}

fn cookie_value(set_cookie: &str) -> String {
    let first = set_cookie.split(';').next().unwrap();
    first.split_once('=').unwrap().1.to_string()
}

/// Sign in through `POST /accounts/login/` (JSON).
pub async fn login(app: &TestApp, user: &TestUser) -> Browser {
    let resp = app
        .post(
            "/accounts/login/",
            None,
            json!({"username": user.username, "password": format!("{}-password", user.username)}),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.text);
    browser_from(&resp)
}

/// The browser a login response set up.
pub fn browser_from(resp: &TestResponse) -> Browser {
    Browser {
        session: cookie_value(&set_cookie(resp, "sessionid").unwrap()),
        csrf: cookie_value(&set_cookie(resp, "csrftoken").unwrap()),
    }
}

/// Send a web request with the session cookie and, when given, `X-CSRFToken`.
pub async fn web(
    app: &TestApp,
    method: Method,
    path: &str,
    session: Option<&str>,
    csrf: Option<&str>,
    body: Option<Value>,
) -> TestResponse {
    let mut builder = Request::builder().method(method).uri(path);
    if let Some(session) = session {
        builder = builder.header(header::COOKIE, format!("csrftoken=x; sessionid={session}"));
    }
    if let Some(csrf) = csrf {
        builder = builder.header("X-CSRFToken", csrf);
    }
    let body = match body {
        Some(json) => {
            builder = builder.header(header::CONTENT_TYPE, "application/json");
            Body::from(json.to_string())
        }
        None => Body::empty(),
    };
    app.send(builder.body(body).unwrap()).await
}

impl Browser {
    pub async fn get(&self, app: &TestApp, path: &str) -> TestResponse {
        web(app, Method::GET, path, Some(&self.session), None, None).await
    }

    pub async fn send(
        &self,
        app: &TestApp,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> TestResponse {
        web(
            app,
            method,
            path,
            Some(&self.session),
            Some(&self.csrf),
            body,
        )
        .await
    }
}

/// The `content` (REST) or `body` (web) texts of a list, in order.
pub fn texts(items: &Value, key: &str) -> Vec<String> {
    items
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {items}"))
        .iter()
        .map(|c| c[key].as_str().unwrap().to_string())
        .collect()
}
