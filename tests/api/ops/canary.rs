//! The canary sweep: markers planted through every way text becomes internal (see `canary_support`)
//! must be absent from the raw bytes of every door for those who may not read them, and present for
//! those who may, so that the sweep can fail.
use crate::db_test;
use crate::support::canary::{mails_to, plant, received, Canary, Mark, Role};
use crate::support::graphql::gid;
use crate::support::helpers::TestApp;
use crate::support::world::login;
use axum::http::Method;
use serde_json::{json, Value};

/// One way of looking: what came back, and the marks it can show to someone who may read them.
struct Door {
    name: &'static str,
    shows: &'static [Mark],
    text: String,
}

const COMMENT_MARKS: &[Mark] = &[Mark::Internal, Mark::NowInternal];
const PAGE_MARKS: &[Mark] = &[Mark::Internal, Mark::NowInternal, Mark::WasInternal];
const WEB_PAGE_MARKS: &[Mark] = &[
    Mark::Internal,
    Mark::NowInternal,
    Mark::WasInternal,
    Mark::Tag,
    Mark::HiddenLink,
    Mark::Field,
];
const GRAPHQL_TICKET_MARKS: &[Mark] = &[
    Mark::Internal,
    Mark::WasInternal,
    Mark::NowInternal,
    Mark::Deleted,
    Mark::Asset,
    Mark::Link,
    Mark::Tag,
    Mark::HiddenLink,
    Mark::Field,
];
const HISTORY_MARKS: &[Mark] = &[
    Mark::Internal,
    Mark::WasInternal,
    Mark::NowInternal,
    Mark::Deleted,
    Mark::Link,
    Mark::Field,
];

const TICKET: &str = r#"query($id: ID!) { ticket(id: $id) { commentsCount assets { name }
  tags links { type ticket { title } } timeSpent fields { value { ... on TextFieldValue { text } } }
  comments { nodes { id body edits { previousBody } } }
  history(first: 100) { totalCount nodes { id action changes } } } }"#;
const NODES: &str = r#"query($ids: [ID!]!) { nodes(ids: $ids) { id
  ... on Comment { body edits { previousBody } }
  ... on AuditEvent { action changes }
  ... on Asset { name } } }"#;
const NODE: &str = r#"query($id: ID!) { node(id: $id) { id
  ... on Comment { body edits { previousBody } }
  ... on AuditEvent { action changes }
  ... on Asset { name } } }"#;
const SEARCH: &str =
    r#"query($q: String!) { tickets(filter: {query: $q}) { totalCount nodes { id title } } }"#;

async fn graphql(app: &TestApp, token: &str, query: &str, variables: Value) -> String {
    let body = json!({ "query": query, "variables": variables });
    app.request(Method::POST, "/graphql", Some(token), Some(body))
        .await
        .text
}

/// The ranked search for every marker as `token` sees it, with the highlights' marks taken out (they would
/// split a marker's text). The internal note's marker is found by those who may read it.
async fn ranked(app: &TestApp, token: &str, base: &str) -> String {
    let query = r#"query($q: String!) { search(query: $q, first: 100) {
        totalCount nodes { highlights ticket { title } } } }"#;
    let mut all = String::new();
    for mark in Mark::ALL {
        let q = format!("\"{}\"", mark.text(base));
        let found = graphql(app, token, query, json!({ "q": q })).await;
        all.push_str(&found.replace("<mark>", "").replace("</mark>", ""));
    }
    all
}

/// `node` for each id, one request each, answers concatenated.
async fn one_by_one(app: &TestApp, token: &str, ids: &[String]) -> String {
    let mut all = String::new();
    for id in ids {
        all.push_str(&graphql(app, token, NODE, json!({ "id": id })).await);
    }
    all
}

/// Every door that can show the ticket's text, opened as `role`.
async fn doors(app: &TestApp, canary: &Canary, audit: &[String], role: &mut Role) -> Vec<Door> {
    let t = canary.ticket_id;
    let token = role.user.token.clone();
    let get = |path: String| {
        let token = token.clone();
        async move { app.get(&path, Some(&token)).await.text }
    };
    let comments: Vec<String> = canary
        .comment_ids
        .iter()
        .map(|id| gid("Comment", *id))
        .collect();
    let browser = login(app, &role.user).await;
    let sees_ticket = !role.may_read.is_empty() || role.name == "requester";
    let door = |name, shows, text| Door { name, shows, text };
    vec![
        door(
            "REST detail",
            &[Mark::Field],
            get(format!("/api/tickets/{t}/")).await,
        ),
        door(
            "REST list",
            &[],
            get("/api/tickets/?limit=100".into()).await,
        ),
        door(
            "ranked search and its highlights",
            &[Mark::Internal],
            ranked(app, &token, &canary.base).await,
        ),
        door(
            "REST comments",
            COMMENT_MARKS,
            get(format!("/api/tickets/{t}/comments/")).await,
        ),
        door(
            "REST alternative path",
            COMMENT_MARKS,
            get(format!("/tickets/{t}/comment/")).await,
        ),
        door(
            "web JSON list",
            COMMENT_MARKS,
            browser
                .get(app, &format!("/tickets/{t}/comments/"))
                .await
                .text,
        ),
        door(
            "REST tags",
            &[Mark::Tag],
            get(format!("/api/tickets/{t}/tags/")).await,
        ),
        door(
            "REST time",
            &[Mark::Time],
            get(format!("/api/tickets/{t}/time/")).await,
        ),
        door(
            // The team's report: no presence check (the assignee, who may read the entry, is not on the team).
            "REST time report",
            &[],
            get("/api/time-entries/".into()).await,
        ),
        door(
            "REST links",
            &[Mark::HiddenLink],
            get(format!("/api/tickets/{t}/links/")).await,
        ),
        door(
            "web ticket page",
            WEB_PAGE_MARKS,
            browser.page(app, &format!("/tickets/{t}/")).await.text,
        ),
        door(
            "GraphQL ticket",
            GRAPHQL_TICKET_MARKS,
            graphql(app, &token, TICKET, json!({ "id": gid("Ticket", t) })).await,
        ),
        door(
            "GraphQL nodes (comments)",
            PAGE_MARKS,
            graphql(app, &token, NODES, json!({ "ids": comments })).await,
        ),
        door(
            "GraphQL node (comments)",
            PAGE_MARKS,
            one_by_one(app, &token, &comments).await,
        ),
        door(
            "GraphQL nodes (history)",
            HISTORY_MARKS,
            graphql(app, &token, NODES, json!({ "ids": audit })).await,
        ),
        door(
            "GraphQL node (history)",
            HISTORY_MARKS,
            one_by_one(app, &token, audit).await,
        ),
        door(
            "GraphQL node (asset)",
            &[Mark::Asset],
            one_by_one(app, &token, &[gid("Asset", canary.asset_id)]).await,
        ),
        door(
            "subscription",
            Mark::TEXT,
            received(&mut role.live, sees_ticket).await,
        ),
        door(
            "emails",
            // Internal notes are mailed to the assignee only; the agent made every change.
            if role.name == "assignee" {
                &[Mark::Internal, Mark::WasInternal, Mark::Deleted]
            } else {
                &[]
            },
            mails_to(canary, &role.user),
        ),
    ]
}

/// Searching for a marker finds nothing for `role` (the search text itself is echoed back, so the
/// check is on what was found).
async fn searches(app: &TestApp, canary: &Canary, role: &Role) {
    let (base, token, t) = (&canary.base, &role.user.token, canary.ticket_id);
    let rest = app
        .get(&format!("/api/tickets/?q={base}"), Some(token))
        .await;
    assert_eq!(
        rest.json["count"], 0,
        "{} finds by REST search: {}",
        role.name, rest.text
    );
    let found = graphql(app, token, SEARCH, json!({ "q": base })).await;
    let found: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(
        found["data"]["tickets"]["totalCount"], 0,
        "{} finds: {found}",
        role.name
    );
    let queue = login(app, &role.user)
        .await
        .page(app, &format!("/tickets/?q={base}"))
        .await;
    assert_eq!(queue.status, 200, "{}", queue.text);
    assert!(
        !queue.text.contains(&format!("/tickets/{t}/")),
        "{} finds on the queue: {}",
        role.name,
        queue.text
    );
}

db_test!(no_door_shows_a_marker_to_anyone_who_may_not_read_it);
async fn no_door_shows_a_marker_to_anyone_who_may_not_read_it(app: &TestApp) {
    let mut canary = plant(app).await;
    let base = canary.base.clone();
    let agent = canary
        .roles
        .iter()
        .find(|r| r.name == "agent")
        .unwrap()
        .user
        .token
        .clone();
    let seen = graphql(
        app,
        &agent,
        TICKET,
        json!({ "id": gid("Ticket", canary.ticket_id) }),
    )
    .await;
    let seen: Value = serde_json::from_str(&seen).unwrap();
    let audit: Vec<String> = seen["data"]["ticket"]["history"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("{seen}"))
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();

    let roles = std::mem::take(&mut canary.roles);
    for mut role in roles {
        for door in doors(app, &canary, &audit, &mut role).await {
            for mark in Mark::ALL {
                let found = door.text.contains(&mark.text(&base));
                if !role.may_read.contains(&mark) {
                    assert!(
                        !found,
                        "{} reads {mark:?} through {}: {}",
                        role.name, door.name, door.text
                    );
                } else if door.shows.contains(&mark) {
                    assert!(
                        found,
                        "{} should read {mark:?} through {}: {}",
                        role.name, door.name, door.text
                    );
                }
            }
            if role.may_read.is_empty() {
                assert!(
                    !door.text.contains(&base),
                    "{} reads a marker through {}: {}",
                    role.name,
                    door.name,
                    door.text
                );
            }
        }
        if role.may_read.is_empty() {
            searches(app, &canary, &role).await;
        }
    }

    // Webhooks carry no comment text at all, and no internal note leaves through them.
    let hits = canary.hooks.hits();
    let comments = hits
        .iter()
        .filter(|h| h.body.contains("\"comment.created\""))
        .count();
    assert_eq!(comments, 2, "one per public comment: {hits:?}");
    for hit in &hits {
        assert!(
            !hit.body.contains(&base),
            "a webhook carries a marker: {}",
            hit.body
        );
    }
    // A channel that is not the team's own hears of the public comments, with their text, and of no
    // internal note.
    let posts = canary.chat.hits();
    assert!(
        posts
            .iter()
            .any(|h| h.body.contains(crate::support::canary::TRIGGER)),
        "the public comment reached the channel: {posts:?}"
    );
    for post in &posts {
        assert!(
            !post.body.contains(&base) && !post.body.contains("Internal note"),
            "a chat message carries a marker: {}",
            post.body
        );
    }
}
