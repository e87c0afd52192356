//! What a viewer sees of other people: the team sees the whole directory; anyone else sees
//! themselves whole and, of the people on tickets they can see, only the name (never an account
//! they are not connected to, whatever door they knock on).
use crate::db_test;
use crate::support::graphql::{data, first_code, gid};
use crate::support::helpers::{TestApp, TestUser};
use deskgraph::domain::CommentType;
use deskgraph::service::tickets::NewTicket;
use serde_json::{json, Value};

const PERSON: &str = "username fullName email isStaff groups { name }";

fn node_query() -> String {
    format!("query($id: ID!) {{ node(id: $id) {{ ... on User {{ {PERSON} }} }} }}")
}

async fn node(app: &TestApp, viewer: &TestUser, user: &TestUser) -> Value {
    app.graphql(
        Some(&viewer.token),
        &node_query(),
        json!({"id": gid("User", user.id)}),
    )
    .await
}

/// Only the name of someone else.
fn named(user: &TestUser) -> Value {
    let full_name = format!(
        "{}{} Example",
        user.username[..1].to_uppercase(),
        &user.username[1..]
    );
    json!({"username": user.username, "fullName": full_name, "email": null, "isStaff": false, "groups": []})
}

db_test!(node_shows_a_non_team_viewer_only_people_connected_to_their_tickets);
async fn node_shows_a_non_team_viewer_only_people_connected_to_their_tickets(app: &TestApp) {
    let rita = app.user_with("rita", &["Facilities"], false, false).await;
    let stranger = app.user("stranger").await;
    let helper = app.user_with("helper", &["Agents"], true, false).await;
    let commenter = app.agent("commenter").await;
    let lurker = app.agent("lurker").await;
    let ticket = app
        .open_for(
            &app.actor(&rita).await,
            NewTicket {
                title: "Badge does not open the door".into(),
                assignee_id: Some(helper.id),
                ..Default::default()
            },
        )
        .await;
    crate::support::world::add(
        app,
        &commenter,
        ticket.id,
        "Which door?",
        CommentType::Public,
    )
    .await;

    // Unconnected accounts, requesters and team alike, are not there for her.
    for unknown in [&stranger, &lurker] {
        let body = node(app, &rita, unknown).await;
        assert_eq!(body["data"]["node"], Value::Null, "{body}");
        assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
        assert!(!body.to_string().contains(&unknown.username), "{body}");
    }
    // Herself whole; the people on her ticket by name only.
    assert_eq!(
        data(&node(app, &rita, &rita).await)["node"],
        json!({"username": "rita", "fullName": "Rita Example", "email": "rita@example.com",
               "isStaff": false, "groups": [{"name": "Facilities"}]})
    );
    assert_eq!(
        data(&node(app, &rita, &helper).await)["node"],
        named(&helper)
    );
    assert_eq!(
        data(&node(app, &rita, &commenter).await)["node"],
        named(&commenter)
    );

    // `nodes` answers the same, id by id.
    let ids = [&stranger, &rita, &helper].map(|u| gid("User", u.id));
    let query =
        format!("query($ids: [ID!]!) {{ nodes(ids: $ids) {{ ... on User {{ {PERSON} }} }} }}");
    let body = app
        .graphql(Some(&rita.token), &query, json!({"ids": ids}))
        .await;
    let listed = &body["data"]["nodes"];
    assert_eq!(listed[0], Value::Null, "{body}");
    assert_eq!(listed[1]["email"], "rita@example.com", "{body}");
    assert_eq!(listed[2], named(&helper), "{body}");
    assert_eq!(first_code(&body), "NOT_FOUND");
    assert!(!body.to_string().contains("stranger"), "{body}");

    // Through the ticket, the same limited view of its people.
    let through_ticket = format!(
        "query($id: ID!) {{ ticket(id: $id) {{ requester {{ {PERSON} }} assignee {{ {PERSON} }}
           comments {{ nodes {{ author {{ {PERSON} }} }} }} }} }}"
    );
    let body = app
        .graphql(
            Some(&rita.token),
            &through_ticket,
            json!({"id": gid("Ticket", ticket.id)}),
        )
        .await;
    let t = &data(&body)["ticket"];
    assert_eq!(t["assignee"], named(&helper), "{body}");
    assert_eq!(t["comments"]["nodes"][0]["author"], named(&commenter));
    assert_eq!(t["requester"]["email"], "rita@example.com");

    // The team sees everyone whole.
    let seen = node(app, &lurker, &stranger).await;
    assert_eq!(data(&seen)["node"]["email"], "stranger@example.com");
    let seen = node(app, &lurker, &helper).await;
    assert_eq!(
        data(&seen)["node"],
        json!({"username": "helper", "fullName": "Helper Example", "email": "helper@example.com",
               "isStaff": true, "groups": [{"name": "Agents"}]})
    );
}
