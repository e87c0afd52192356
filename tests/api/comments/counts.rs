//! Comment counts kept on the ticket row: after every kind of comment write, and under racing writers,
//! they equal `count(*)` of the comments table, and every door shows each viewer the count it did.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::{actor, add, world, World};
use deskgraph::domain::CommentType;
use deskgraph::service::comments;
use entity::{comment, ticket};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;

/// `count(*)` of the ticket's live comments, public only unless `all`.
async fn counted(app: &TestApp, ticket_id: i32, all: bool) -> i64 {
    let mut select = comment::Entity::find()
        .filter(comment::Column::TicketId.eq(ticket_id))
        .filter(comment::Column::IsDeleted.eq(false));
    if !all {
        select = select.filter(comment::Column::CommentType.eq("public"));
    }
    select.count(&app.state.db.conn).await.unwrap() as i64
}

/// The row's two counts equal `count(*)`; returns them (public, all).
async fn assert_exact(app: &TestApp, ticket_id: i32, step: &str) -> (i64, i64) {
    let row = ticket::Entity::find_by_id(ticket_id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let public = counted(app, ticket_id, false).await;
    let all = counted(app, ticket_id, true).await;
    assert_eq!(row.public_comment_count, public, "public after {step}");
    assert_eq!(row.all_comment_count, all, "all after {step}");
    (public, all)
}

/// Edit comment `id` as `actor` through the service (it must succeed).
async fn edit(
    app: &TestApp,
    actor: &deskgraph::auth::Actor,
    id: i32,
    body: Option<&str>,
    kind: Option<CommentType>,
) {
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        actor,
        id,
        patch(body, kind),
    )
    .await
    .unwrap();
}

fn patch(body: Option<&str>, kind: Option<CommentType>) -> comments::CommentPatch {
    comments::CommentPatch {
        body: body.map(str::to_string),
        comment_type: kind,
    }
}

async fn every_write_keeps_the_counts(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    assert_eq!(assert_exact(app, t, "create ticket").await, (0, 0));
    let first = add(app, &w.owner, t, "<p>one</p>", CommentType::Public).await;
    let note = add(app, &w.agent, t, "<p>note</p>", CommentType::Internal).await;
    add(app, &w.agent, t, "<p>two</p>", CommentType::Public).await;
    assert_eq!(assert_exact(app, t, "creates").await, (2, 3));
    // Staff may edit and delete anyone's comments.
    let agent = actor(app, &w.staff).await;
    edit(app, &agent, note.id, None, Some(CommentType::Public)).await;
    assert_eq!(assert_exact(app, t, "made public").await, (3, 3));
    edit(app, &agent, first.id, None, Some(CommentType::Internal)).await;
    assert_eq!(assert_exact(app, t, "made internal").await, (2, 3));
    edit(app, &agent, first.id, Some("<p>new</p>"), None).await;
    assert_eq!(assert_exact(app, t, "body edit").await, (2, 3));
    // The same type again changes nothing.
    edit(app, &agent, note.id, None, Some(CommentType::Public)).await;
    assert_eq!(assert_exact(app, t, "same type").await, (2, 3));
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        first.id,
    )
    .await
    .unwrap();
    assert_eq!(assert_exact(app, t, "delete internal").await, (2, 2));
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        note.id,
    )
    .await
    .unwrap();
    assert_eq!(assert_exact(app, t, "delete public").await, (1, 1));
    // A second delete of the same comment is a 404 and counts nothing.
    assert!(comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        note.id
    )
    .await
    .is_err());
    assert_eq!(assert_exact(app, t, "repeated delete").await, (1, 1));
}
db_test!(every_write_keeps_the_counts);

/// Several writers create, retype and delete comments on one ticket at once.
async fn racing_writers_keep_the_counts(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let agent = actor(app, &w.agent).await;
    let mut tasks = Vec::new();
    for writer in 0..6 {
        let state = app.state.clone();
        let agent = agent.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..5 {
                let kind = if (writer + round) % 3 == 0 {
                    CommentType::Internal
                } else {
                    CommentType::Public
                };
                let input = comments::NewComment {
                    body: format!("<p>{writer}-{round}</p>"),
                    comment_type: kind,
                };
                let made = comments::create(
                    state.write_deps(deskgraph::domain::Channel::System),
                    &agent,
                    t,
                    input,
                )
                .await
                .unwrap();
                match round % 3 {
                    0 => comments::delete(
                        state.write_deps(deskgraph::domain::Channel::System),
                        &agent,
                        made.id,
                    )
                    .await
                    .unwrap(),
                    1 => {
                        let flipped = match kind {
                            CommentType::Public => CommentType::Internal,
                            _ => CommentType::Public,
                        };
                        let change = patch(None, Some(flipped));
                        comments::edit(
                            state.write_deps(deskgraph::domain::Channel::System),
                            &agent,
                            made.id,
                            change,
                        )
                        .await
                        .unwrap();
                    }
                    _ => {}
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let (_, all) = assert_exact(app, t, "racing writers").await;
    // 6 writers × 5 rounds, of which rounds 0 and 3 delete what they made.
    assert_eq!(all, 6 * 3);
}
db_test!(racing_writers_keep_the_counts);

/// Comments the viewer can list through REST, for comparison with the counts the doors show.
async fn listed(app: &TestApp, user: &TestUser, t: i32) -> i64 {
    let resp = app
        .get(&format!("/api/tickets/{t}/comments/"), Some(&user.token))
        .await;
    resp.json.as_array().map_or_else(
        || resp.json["results"].as_array().map_or(0, Vec::len),
        Vec::len,
    ) as i64
}

async fn every_door_shows_what_the_viewer_may_read(app: &TestApp) {
    let World {
        owner,
        assignee,
        grouper,
        agent,
        staff,
        ticket,
        ..
    } = world(app).await;
    let t = ticket.id;
    add(app, &owner, t, "<p>public</p>", CommentType::Public).await;
    add(app, &agent, t, "<p>internal</p>", CommentType::Internal).await;
    let gone = add(app, &agent, t, "<p>gone</p>", CommentType::Public).await;
    comments::delete(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &agent).await,
        gone.id,
    )
    .await
    .unwrap();
    let detail =
        "query($id: Int!) { ticket(databaseId: $id) { commentsCount requester { username } } }";
    let plain = "query($id: Int!) { ticket(databaseId: $id) { commentsCount } }";
    let list = "{ tickets(first: 5) { nodes { databaseId commentsCount assignee { username } } } }";
    let bare = "{ tickets(first: 5) { nodes { databaseId commentsCount } } }";
    for (user, expected) in [
        (&owner, 1),
        (&assignee, 2),
        (&grouper, 2),
        (&agent, 2),
        (&staff, 2),
    ] {
        let who = &user.username;
        assert_eq!(listed(app, user, t).await, expected, "{who} listed");
        let rest = app
            .get(&format!("/api/tickets/{t}/"), Some(&user.token))
            .await;
        assert_eq!(rest.json["comments_count"], expected, "{who} REST");
        for query in [detail, plain] {
            let body = app
                .graphql(Some(&user.token), query, json!({ "id": t }))
                .await;
            assert_eq!(
                body["data"]["ticket"]["commentsCount"], expected,
                "{who} {query}"
            );
        }
        for query in [list, bare] {
            let body = app.graphql(Some(&user.token), query, json!({})).await;
            let nodes = body["data"]["tickets"]["nodes"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let node = nodes.iter().find(|n| n["databaseId"] == t);
            let node = node.unwrap_or_else(|| panic!("{who}: {body}"));
            assert_eq!(node["commentsCount"], expected, "{who} {query}");
        }
    }
}
db_test!(every_door_shows_what_the_viewer_may_read);

/// Comments written without the service (bulk loads such as `deskgraph seed`) are counted by a recount,
/// as the migration back-fills them.
async fn a_recount_takes_comments_written_directly(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    for (kind, deleted) in [("public", false), ("internal", false), ("public", true)] {
        app.comment_row(t, w.agent.id, kind, deleted).await;
    }
    comments::recount_all(&app.state.db.conn).await.unwrap();
    assert_eq!(assert_exact(app, t, "recount").await, (1, 2));
}
db_test!(a_recount_takes_comments_written_directly);
