//! Followers: who may follow and add others, what they see, and the mail they get: public updates for anyone
//! copied in, internal notes only for followers who may read them.
use crate::db_test;
use crate::support::events::{actor, state_with};
use crate::support::helpers::{assert_error, TestApp};
use crate::support::pages::location;
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use deskgraph::jobs::worker;
use deskgraph::service::comments::{self, NewComment};
use serde_json::json;

db_test!(followers_hear_what_they_may_read);
async fn followers_hear_what_they_may_read(app: &TestApp) {
    let (state, mailer) = state_with(app, |_| {});
    let agent = app.agent("agnes").await;
    let bob = app.agent("bob").await;
    let rita = app.user("rita").await;
    let carl = app.user("carl").await;
    let sam = app.user("sam").await;
    let t = app.as_user(&rita).ticket_titled("Printer jams").await;
    let id = t["id"].as_i64().unwrap();
    let path = format!("/api/tickets/{id}/followers/");

    // The agent follows; adds a colleague; the requester copies Carl in by email.
    let me = app.as_user(&agent).post(&path, json!({})).await;
    assert_eq!(me.status, StatusCode::CREATED, "{}", me.text);
    assert_eq!(me.json["username"], "agnes");
    assert_eq!(
        app.as_user(&agent).post(&path, json!({})).await.status,
        StatusCode::OK
    );
    let colleague = app
        .as_user(&agent)
        .post(&path, json!({"user": bob.id}))
        .await;
    assert_eq!(colleague.status, StatusCode::CREATED, "{}", colleague.text);
    let cc = app
        .as_user(&rita)
        .post(&path, json!({"email": "CARL@example.com"}))
        .await;
    assert_eq!(cc.status, StatusCode::CREATED, "{}", cc.text);
    assert_eq!(cc.json["username"], "carl");
    assert!(cc.json.get("email").is_none(), "{}", cc.text);
    let unknown = app
        .as_user(&rita)
        .post(&path, json!({"email": "nobody@example.com"}))
        .await;
    assert_error(&unknown, StatusCode::BAD_REQUEST, "validation_error");
    assert_error(
        &app.as_user(&rita).post(&path, json!({"user": "x"})).await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );
    // Someone who cannot see the ticket can neither follow it nor read its followers.
    assert_error(
        &app.as_user(&sam).post(&path, json!({})).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&sam).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let names: Vec<String> = app
        .as_user(&rita)
        .get(&path)
        .await
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["username"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["agnes", "bob", "carl"]);

    // Mail: a public reply reaches the requester and every follower but its author; an internal note only the
    // followers who may read it.
    let deliver = async || while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {};
    deliver().await;
    let mut seen = mailer.sent().len();
    let mut to = async || {
        deliver().await;
        let sent = mailer.sent();
        let mut out: Vec<String> = sent[seen..].iter().map(|e| e.to.clone()).collect();
        seen = sent.len();
        out.sort();
        out
    };
    let agnes = actor(app, &agent).await;
    let say = |kind: CommentType, text: &str| NewComment {
        body: text.into(),
        comment_type: kind,
    };
    comments::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &agnes,
        id as i32,
        say(CommentType::Public, "On my way"),
    )
    .await
    .unwrap();
    assert_eq!(
        to().await,
        ["bob@example.com", "carl@example.com", "rita@example.com"]
    );
    comments::create(
        state.write_deps(deskgraph::domain::Channel::System),
        &agnes,
        id as i32,
        say(CommentType::Internal, "Toner is fake"),
    )
    .await
    .unwrap();
    assert_eq!(to().await, ["bob@example.com"]);

    // GraphQL shows the followers; the requester removes Carl again; Bob unfollows himself.
    let data = app
        .as_user(&agent)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { followers { username } } }",
            json!({"n": id}),
        )
        .await;
    assert_eq!(
        data["ticket"]["followers"],
        json!([{"username": "agnes"}, {"username": "bob"}, {"username": "carl"}])
    );
    assert_eq!(
        app.as_user(&rita)
            .delete(&format!("{path}{}/", carl.id))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.as_user(&bob).delete(&format!("{path}me/")).await.status,
        StatusCode::NO_CONTENT
    );
    assert_error(
        &app.as_user(&bob).delete(&format!("{path}me/")).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let gid = app
        .as_user(&agent)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { id } }",
            json!({"n": id}),
        )
        .await["ticket"]["id"]
        .clone();
    let followed = app
        .as_user(&bob)
        .graphql_data(
            "mutation($t: ID!) { followTicket(input: {ticketId: $t}) { created ticket { followers { username } } } }",
            json!({"t": gid}),
        )
        .await;
    assert_eq!(followed["followTicket"]["created"], true);
    assert_eq!(
        followed["followTicket"]["ticket"]["followers"],
        json!([{"username": "agnes"}, {"username": "bob"}])
    );
}

db_test!(the_team_follows_and_adds_followers_from_the_page);
async fn the_team_follows_and_adds_followers_from_the_page(app: &TestApp) {
    let agent = app.agent("agnes").await;
    app.agent("bob").await;
    let rita = app.user("rita").await;
    let id = app.as_user(&rita).ticket_titled("VPN").await["id"]
        .as_i64()
        .unwrap();
    let browser = crate::support::world::login(app, &agent).await;
    let followed = browser
        .form(
            app,
            &format!("/tickets/{id}/followers/"),
            &[("follow", "me")],
        )
        .await;
    assert_eq!(location(&followed), format!("/tickets/{id}/"));
    let added = browser
        .form(app, &format!("/tickets/{id}/followers/"), &[("add", "bob")])
        .await;
    assert_eq!(location(&added), format!("/tickets/{id}/"));
    let page = browser.page(app, &format!("/tickets/{id}/")).await;
    let shown = page
        .text
        .split("id=\"ticket-followers\"")
        .nth(1)
        .and_then(|rest| rest.split("</dd>").next())
        .unwrap_or_default()
        .to_string();
    assert!(
        shown.contains("Agnes Example") && shown.contains("Bob Example"),
        "{shown}"
    );
    assert!(shown.contains("id=\"unfollow\""), "{shown}");
    let unknown = browser
        .form(
            app,
            &format!("/tickets/{id}/followers/"),
            &[("add", "nobody")],
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.text);
}
