//! Who sees which comments, through every door: REST, the alternative path, the web list and counts.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp, TestUser};
use crate::support::world::{actor, add, login, texts, web, world};
use axum::http::{Method, StatusCode};
use deskgraph::domain::CommentType;
use deskgraph::service::comments;
use serde_json::json;
use std::collections::HashMap;

const PUBLIC_OWNER: &str = "<p>Public from the owner</p>";
const SECRET: &str = "SECRET-internal-diagnosis";
const PUBLIC_AGENT: &str = "<p>Public from the agent</p>";
const DELETED: &str = "DELETED-remark";

async fn visibility_matrix(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    add(app, &w.owner, t, PUBLIC_OWNER, CommentType::Public).await;
    add(app, &w.agent, t, SECRET, CommentType::Internal).await;
    let gone = add(app, &w.agent, t, DELETED, CommentType::Public).await;
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &w.agent).await,
        gone.id,
    )
    .await
    .unwrap();
    add(app, &w.agent, t, PUBLIC_AGENT, CommentType::Public).await;

    let everything = vec![
        PUBLIC_OWNER.to_string(),
        SECRET.to_string(),
        PUBLIC_AGENT.to_string(),
    ];
    let public_only = vec![PUBLIC_OWNER.to_string(), PUBLIC_AGENT.to_string()];
    let cases: Vec<(&TestUser, Option<&Vec<String>>)> = vec![
        (&w.owner, Some(&public_only)),
        (&w.other, None),
        (&w.assignee, Some(&everything)),
        (&w.grouper, Some(&everything)),
        (&w.agent, Some(&everything)),
        (&w.staff, Some(&everything)),
        (&w.admin, Some(&everything)),
    ];
    for (user, expected) in cases {
        let who = &user.username;
        for path in [
            format!("/api/tickets/{t}/comments/"),
            format!("/tickets/{t}/comment/"),
        ] {
            let resp = app.get(&path, Some(&user.token)).await;
            assert!(!resp.text.contains(DELETED), "{who} {path}: {}", resp.text);
            match expected {
                Some(expected) => {
                    assert_eq!(resp.status, StatusCode::OK, "{who} {path}: {}", resp.text);
                    assert_eq!(&texts(&resp.json, "content"), expected, "{who} {path}");
                    if expected.len() == 2 {
                        assert!(!resp.text.contains(SECRET), "{who} {path}: {}", resp.text);
                    }
                }
                None => {
                    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
                    assert!(!resp.text.contains("Public"), "{who}: {}", resp.text);
                }
            }
        }
        let browser = login(app, user).await;
        let resp = browser.get(app, &format!("/tickets/{t}/comments/")).await;
        assert!(!resp.text.contains(DELETED), "{who} web: {}", resp.text);
        match expected {
            Some(expected) => {
                assert_eq!(resp.status, StatusCode::OK, "{who} web: {}", resp.text);
                assert_eq!(resp.json["success"], true);
                assert_eq!(&texts(&resp.json["comments"], "body"), expected, "{who}");
                if expected.len() == 2 {
                    assert!(!resp.text.contains(SECRET), "{who} web: {}", resp.text);
                }
            }
            None => {
                assert_eq!(
                    resp.status,
                    StatusCode::NOT_FOUND,
                    "{who} web: {}",
                    resp.text
                );
                assert_eq!(resp.json["success"], false);
                assert!(resp.json["error"].is_string());
            }
        }
        // Counts are only asked for tickets the caller can see.
        if let Some(expected) = expected {
            let resp = app
                .get(&format!("/api/tickets/{t}/"), Some(&user.token))
                .await;
            assert_eq!(resp.json["comments_count"], expected.len(), "{who}");
        }
    }

    for path in [
        format!("/api/tickets/{t}/comments/"),
        format!("/tickets/{t}/comment/"),
    ] {
        let resp = app.get(&path, None).await;
        assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");
    }
    let resp = web(
        app,
        Method::GET,
        &format!("/tickets/{t}/comments/"),
        None,
        None,
        None,
    )
    .await;
    assert_eq!(resp.status, StatusCode::UNAUTHORIZED);
    assert_eq!(resp.json["success"], false);
    assert!(!resp.text.contains(SECRET));
}
db_test!(visibility_matrix);

async fn counts_are_one_query_and_per_ticket(app: &TestApp) {
    let w = world(app).await;
    let other_ticket = crate::support::world::plain_ticket(app, &w.owner).await;
    add(
        app,
        &w.agent,
        w.ticket.id,
        "internal",
        CommentType::Internal,
    )
    .await;
    add(app, &w.owner, w.ticket.id, "public", CommentType::Public).await;
    add(
        app,
        &w.agent,
        other_ticket.id,
        "internal",
        CommentType::Internal,
    )
    .await;
    // The assignee reads internal comments on their ticket only, not on the other one (which they do not
    // see at all); the list page reads the counts with the page, in one statement.
    let (statements, counts) = listed_counts(app, &w.assignee).await;
    assert_eq!(statements, 1);
    assert_eq!(counts.get(&w.ticket.id), Some(&2));
    assert_eq!(counts.get(&other_ticket.id).copied().unwrap_or(0), 0);
    let (_, counts) = listed_counts(app, &w.agent).await;
    assert_eq!(counts.get(&w.ticket.id), Some(&2));
    assert_eq!(counts.get(&other_ticket.id), Some(&1));
    let (_, counts) = listed_counts(app, &w.owner).await;
    assert_eq!(counts.get(&w.ticket.id), Some(&1));
    assert_eq!(counts.get(&other_ticket.id), Some(&0));
    // The REST detail counts the same way.
    for (user, expected) in [(&w.assignee, 2), (&w.agent, 2), (&w.owner, 1)] {
        let resp = app
            .get(&format!("/api/tickets/{}/", w.ticket.id), Some(&user.token))
            .await;
        assert_eq!(resp.json["comments_count"], expected, "{}", user.username);
    }
}

/// Statements run by a GraphQL list page showing people and comment counts, and the counts by ticket.
async fn listed_counts(app: &TestApp, user: &TestUser) -> (u64, HashMap<i32, i64>) {
    // The first request records the token's use; measure only a steady-state one.
    app.graphql(Some(&user.token), "{ me { username } }", json!({}))
        .await;
    let query =
        "{ tickets(first: 20) { nodes { databaseId commentsCount requester { username } } } }";
    let before = app.statements();
    let body = app.graphql(Some(&user.token), query, json!({})).await;
    let statements = app.statements() - before;
    let nodes = body["data"]["tickets"]["nodes"].as_array().cloned();
    let counts = nodes
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|n| {
            let id = n["databaseId"].as_i64().unwrap() as i32;
            (id, n["commentsCount"].as_i64().unwrap())
        })
        .collect();
    (statements, counts)
}
db_test!(counts_are_one_query_and_per_ticket);

async fn internal_comments_are_404_to_those_who_may_not_read_them(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let secret = add(app, &w.agent, t, SECRET, CommentType::Internal).await;
    let path = format!("/api/tickets/{t}/comments/{}/", secret.id);
    // The owner cannot learn that the internal comment exists.
    let resp = app
        .patch(&path, Some(&w.owner.token), json!({"content": "x"}))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    assert!(!resp.text.contains(SECRET));
    let resp = app.delete(&path, Some(&w.owner.token)).await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    let resp = app.delete(&path, Some(&w.other.token)).await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
}
db_test!(internal_comments_are_404_to_those_who_may_not_read_them);
