//! The queue's live feed (`GET /tickets/live/`): server-sent events naming each ticket the signed-in user may
//! see as it is created or changed, never one they may not see nor an internal note they may not read; it ends
//! when the session ends, and a user holds a bounded number of feeds.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::world::{add, login};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::domain::CommentType;
use http_body_util::BodyExt;
use serde_json::json;
use std::time::Duration;
use tower::ServiceExt;

/// An open feed and what it has said so far.
struct Feed {
    body: Body,
    said: String,
}

async fn open(app: &TestApp, session: &str) -> Result<Feed, StatusCode> {
    let request = Request::get("/tickets/live/")
        .header(header::COOKIE, format!("sessionid={session}"))
        .header(header::ACCEPT, "text/event-stream")
        .body(Body::empty())
        .unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    if response.status() != StatusCode::OK {
        return Err(response.status());
    }
    let kind = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
    Ok(Feed {
        body: response.into_body(),
        said: String::new(),
    })
}

impl Feed {
    /// Read the next piece of the feed into `said` (or panic after 10 s); `false` once the feed has ended.
    async fn read(&mut self, waiting_for: &str) -> bool {
        let frame = tokio::time::timeout(Duration::from_secs(10), self.body.frame())
            .await
            .unwrap_or_else(|_| panic!("{waiting_for}: nothing within 10 s; said {:?}", self.said));
        match frame {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    self.said.push_str(&String::from_utf8_lossy(data));
                }
                true
            }
            _ => false,
        }
    }

    /// Read until the feed has said `wanted`.
    async fn until(&mut self, wanted: &str) {
        while !self.said.contains(wanted) {
            let going = self.read(wanted).await;
            assert!(
                going,
                "the feed ended before {wanted:?}; said {:?}",
                self.said
            );
        }
    }

    /// Read to the feed's end.
    async fn end(&mut self) {
        while self.read("the end").await {}
    }
}

fn event(id: i64, kind: &str) -> String {
    format!("event: ticket\ndata: {{\"id\":{id},\"kind\":\"{kind}\"}}")
}

async fn the_live_feed_names_only_what_its_user_may_see(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let bob = app.user("bob").await;
    let (as_agent, as_rita) = (login(app, &agent).await, login(app, &rita).await);
    let mut team_feed = open(app, &as_agent.session).await.unwrap();
    let mut rita_feed = open(app, &as_rita.session).await.unwrap();

    let create = |who| async move {
        app.as_user(who)
            .create_ticket(json!({"title": "Screen flickers", "description": "Since Monday."}))
            .await["id"]
            .as_i64()
            .unwrap()
    };
    let bobs = create(&bob).await;
    let ritas = create(&rita).await;
    rita_feed.until(&event(ritas, "created")).await;
    team_feed.until(&event(bobs, "created")).await;
    team_feed.until(&event(ritas, "created")).await;

    // An internal note is not named to the requester; the public reply after it is.
    let ticket = ritas as i32;
    add(
        app,
        &agent,
        ticket,
        "<p>Check the cable.</p>",
        CommentType::Internal,
    )
    .await;
    add(app, &agent, ticket, "<p>On it.</p>", CommentType::Public).await;
    let reply = event(ritas, "comment_added");
    // A ticket of her own after both comments: once it is named, both comments' events have gone by.
    let after = create(&rita).await;
    rita_feed.until(&event(after, "created")).await;
    team_feed.until(&event(after, "created")).await;
    assert_eq!(
        rita_feed.said.matches(&reply).count(),
        1,
        "{}",
        rita_feed.said
    );
    assert_eq!(
        team_feed.said.matches(&reply).count(),
        2,
        "{}",
        team_feed.said
    );
    assert!(
        !rita_feed.said.contains(&format!("\"id\":{bobs},")),
        "another requester's ticket was named: {}",
        rita_feed.said
    );

    // Signing out ends the feed, saying so.
    let resp = as_rita
        .send(app, Method::POST, "/accounts/logout/", None)
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    create(&bob).await;
    rita_feed.end().await;
    assert!(rita_feed.said.contains("event: end"), "{}", rita_feed.said);
    // And a signed-out browser gets no feed.
    assert_eq!(
        open(app, &as_rita.session).await.err(),
        Some(StatusCode::UNAUTHORIZED)
    );
}
db_test!(the_live_feed_names_only_what_its_user_may_see);

async fn a_user_holds_a_bounded_number_of_feeds(app: &TestApp) {
    let agent = app.agent("adam").await;
    let browser = login(app, &agent).await;
    let mut feeds = Vec::new();
    for _ in 0..deskgraph::notify::live::Lasting::QueueFeed.most() {
        feeds.push(open(app, &browser.session).await.unwrap());
    }
    assert_eq!(
        open(app, &browser.session).await.err(),
        Some(StatusCode::TOO_MANY_REQUESTS)
    );
    // Closing one (a tab closed) frees its place.
    feeds.pop();
    assert!(open(app, &browser.session).await.is_ok());
}
db_test!(a_user_holds_a_bounded_number_of_feeds);
