//! GraphQL comments: what each role reads through every GraphQL door, and the comment mutations.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::{actor, add, world, World};
use deskgraph::domain::CommentType;
use deskgraph::service::comments::{self, CommentPatch};
use serde_json::{json, Value};

const TICKET_QUERY: &str = r#"query($id: ID!) { ticket(id: $id) {
  commentsCount
  comments(first: 50) { totalCount nodes { body isInternal commentType edits { previousBody } } }
  history(first: 100) { totalCount nodes { action entityType changes } }
} }"#;

const NODE_QUERY: &str =
    r#"query($id: ID!) { node(id: $id) { id ... on Comment { body isInternal } } }"#;

/// A ticket whose comments cover every way internal text can exist: an internal note, a comment
/// switched from internal to public (its old text was internal) and one switched from public to
/// internal (its earlier public entries hold text that is internal now).
struct Secrets {
    world: World,
    internal_id: i32,
}

async fn secrets(app: &TestApp) -> Secrets {
    let w = world(app).await;
    let t = w.ticket.id;
    add(app, &w.owner, t, "hello", CommentType::Public).await;
    let internal = add(app, &w.agent, t, "SECRET-root-cause", CommentType::Internal).await;
    let was_internal = add(
        app,
        &w.agent,
        t,
        "SECRET-was-internal",
        CommentType::Internal,
    )
    .await;
    let agent = actor(app, &w.agent).await;
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        was_internal.id,
        CommentPatch {
            body: Some("now public".into()),
            comment_type: Some(CommentType::Public),
        },
    )
    .await
    .unwrap();
    let leaked = add(
        app,
        &w.agent,
        t,
        "SECRET-leaked-public",
        CommentType::Public,
    )
    .await;
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        leaked.id,
        CommentPatch {
            body: None,
            comment_type: Some(CommentType::Internal),
        },
    )
    .await
    .unwrap();
    Secrets {
        world: w,
        internal_id: internal.id,
    }
}

async fn ticket_as(app: &TestApp, token: Option<&str>, s: &Secrets) -> Value {
    app.graphql(
        token,
        TICKET_QUERY,
        json!({"id": gid("Ticket", s.world.ticket.id)}),
    )
    .await
}

async fn node_as(app: &TestApp, token: Option<&str>, s: &Secrets) -> Value {
    app.graphql(
        token,
        NODE_QUERY,
        json!({"id": gid("Comment", s.internal_id)}),
    )
    .await
}

fn bodies(ticket: &Value) -> Vec<&str> {
    ticket["comments"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["body"].as_str().unwrap())
        .collect()
}

fn actions(ticket: &Value) -> Vec<String> {
    ticket["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{}.{}",
                e["entityType"].as_str().unwrap(),
                e["action"].as_str().unwrap()
            )
        })
        .collect()
}

async fn assert_reads_internal(app: &TestApp, user: &TestUser, s: &Secrets) {
    let body = ticket_as(app, Some(&user.token), s).await;
    let t = &data(&body)["ticket"];
    assert_eq!(t["commentsCount"], 4, "{}: {body}", user.username);
    assert_eq!(t["comments"]["totalCount"], 4);
    assert_eq!(
        bodies(t),
        [
            "hello",
            "SECRET-root-cause",
            "now public",
            "SECRET-leaked-public"
        ],
        "{}",
        user.username
    );
    assert_eq!(
        t["comments"]["nodes"][2]["edits"],
        json!([{"previousBody": "SECRET-was-internal"}])
    );
    assert_eq!(t["history"]["totalCount"], 7, "{}: {body}", user.username);
    let node = node_as(app, Some(&user.token), s).await;
    assert_eq!(data(&node)["node"]["body"], "SECRET-root-cause");
    assert_eq!(data(&node)["node"]["isInternal"], true);
}

async fn assert_public_only(app: &TestApp, user: &TestUser, s: &Secrets) {
    let body = ticket_as(app, Some(&user.token), s).await;
    let t = &data(&body)["ticket"];
    assert_eq!(t["commentsCount"], 2, "{body}");
    assert_eq!(t["comments"]["totalCount"], 2);
    assert_eq!(bodies(t), ["hello", "now public"]);
    assert_eq!(t["comments"]["nodes"][1]["edits"], json!([]));
    assert_eq!(actions(t), ["ticket.create", "comment.create"]);
    assert_eq!(t["history"]["totalCount"], 2);
    let node = node_as(app, Some(&user.token), s).await;
    assert_eq!(node["data"]["node"], Value::Null, "{node}");
    assert_eq!(first_code(&node), "NOT_FOUND");
    for raw in [body.to_string(), node.to_string()] {
        assert!(!raw.contains("SECRET"), "{} saw {raw}", user.username);
    }
}

db_test!(each_role_reads_exactly_what_it_may);
async fn each_role_reads_exactly_what_it_may(app: &TestApp) {
    let s = secrets(app).await;
    let w = &s.world;
    for reader in [&w.assignee, &w.grouper, &w.agent, &w.staff, &w.admin] {
        assert_reads_internal(app, reader, &s).await;
    }
    assert_public_only(app, &w.owner, &s).await;

    // Another requester cannot see the ticket at all, nor the comment.
    let body = ticket_as(app, Some(&w.other.token), &s).await;
    assert_eq!(body["data"]["ticket"], Value::Null, "{body}");
    assert_eq!(first_code(&body), "NOT_FOUND");
    let node = node_as(app, Some(&w.other.token), &s).await;
    assert_eq!(first_code(&node), "NOT_FOUND");
    // Anonymous callers get nothing.
    for body in [ticket_as(app, None, &s).await, node_as(app, None, &s).await] {
        assert_eq!(first_code(&body), "UNAUTHENTICATED");
        assert!(!body.to_string().contains("SECRET"), "{body}");
    }
    for body in [
        ticket_as(app, Some(&w.other.token), &s).await,
        node_as(app, Some(&w.other.token), &s).await,
    ] {
        assert!(!body.to_string().contains("SECRET"), "{body}");
    }
}

db_test!(deleted_comments_leave_lists_counts_and_nodes);
async fn deleted_comments_leave_lists_counts_and_nodes(app: &TestApp) {
    let w = world(app).await;
    let keep = add(app, &w.owner, w.ticket.id, "keep", CommentType::Public).await;
    let gone = add(app, &w.owner, w.ticket.id, "gone", CommentType::Public).await;
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &w.owner).await,
        gone.id,
    )
    .await
    .unwrap();
    let body = app
        .graphql(
            Some(&w.agent.token),
            r#"query($id: ID!) { ticket(id: $id) { commentsCount comments { nodes { databaseId } } } }"#,
            json!({"id": gid("Ticket", w.ticket.id)}),
        )
        .await;
    let t = &data(&body)["ticket"];
    assert_eq!(t["commentsCount"], 1);
    assert_eq!(t["comments"]["nodes"], json!([{"databaseId": keep.id}]));
    let node = app
        .graphql(
            Some(&w.agent.token),
            NODE_QUERY,
            json!({"id": gid("Comment", gone.id)}),
        )
        .await;
    assert_eq!(first_code(&node), "NOT_FOUND");
}

db_test!(comments_page_forward_oldest_first);
async fn comments_page_forward_oldest_first(app: &TestApp) {
    let w = world(app).await;
    for i in 0..5 {
        add(
            app,
            &w.owner,
            w.ticket.id,
            &format!("c{i}"),
            CommentType::Public,
        )
        .await;
    }
    let query = r#"query($id: ID!, $after: String) { ticket(id: $id) {
      comments(first: 2, after: $after) { nodes { body } pageInfo { hasNextPage hasPreviousPage endCursor } }
    } }"#;
    let mut after = Value::Null;
    let mut seen = Vec::new();
    loop {
        let body = app
            .graphql(
                Some(&w.owner.token),
                query,
                json!({"id": gid("Ticket", w.ticket.id), "after": after}),
            )
            .await;
        let page = data(&body)["ticket"]["comments"].clone();
        seen.extend(
            bodies(&json!({"comments": page}))
                .into_iter()
                .map(String::from),
        );
        if page["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen, ["c0", "c1", "c2", "c3", "c4"]);
}

/// Comments and their authors come in one statement after the ticket's: two in all, however many
/// authors. Authors of comments the viewer may not read are neither shown nor needed.
async fn comments_with_authors_take_two_statements(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    add(app, &w.owner, t, "first", CommentType::Public).await;
    add(app, &w.agent, t, "internal note", CommentType::Internal).await;
    add(app, &w.staff, t, "second", CommentType::Public).await;
    add(app, &w.admin, t, "third", CommentType::Public).await;
    let query = r#"query($id: Int!) { ticket(databaseId: $id) {
      comments(first: 20) { nodes { body author { username } } } } }"#;
    let read = |user: &TestUser| {
        let token = user.token.clone();
        async move {
            // The first request of a token records its use; measure a steady-state one.
            app.graphql(Some(&token), query, json!({ "id": t })).await;
            let before = app.statements();
            let body = app.graphql(Some(&token), query, json!({ "id": t })).await;
            let statements = app.statements() - before;
            let nodes = data(&body)["ticket"]["comments"]["nodes"].clone();
            let shown: Vec<(String, String)> = nodes
                .as_array()
                .unwrap_or_else(|| panic!("{body}"))
                .iter()
                .map(|n| {
                    let body = n["body"].as_str().unwrap_or_default();
                    let author = n["author"]["username"].as_str().unwrap_or_default();
                    (
                        body.replace("<p>", "").replace("</p>", ""),
                        author.to_string(),
                    )
                })
                .collect();
            (statements, shown)
        }
    };
    let pair = |body: &str, user: &TestUser| (body.to_string(), user.username.clone());
    let (statements, shown) = read(&w.agent).await;
    assert_eq!(statements, 2);
    assert_eq!(
        shown,
        [
            pair("first", &w.owner),
            pair("internal note", &w.agent),
            pair("second", &w.staff),
            pair("third", &w.admin),
        ]
    );
    let (statements, shown) = read(&w.owner).await;
    assert_eq!(statements, 2);
    assert_eq!(
        shown,
        [
            pair("first", &w.owner),
            pair("second", &w.staff),
            pair("third", &w.admin),
        ]
    );
}
db_test!(comments_with_authors_take_two_statements);
