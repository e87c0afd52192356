//! GraphQL comment mutations (permissions, codes, field errors) and the batched comment loads.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid};
use crate::support::helpers::TestApp;
use crate::support::world::{actor, add, world};
use deskgraph::domain::CommentType;
use deskgraph::service::comments::{self, CommentPatch};
use deskgraph::service::tickets::NewTicket;
use serde_json::{json, Value};

const ADD: &str = r#"mutation($input: AddCommentInput!) { addComment(input: $input) {
  comment { databaseId body commentType isInternal author { username } viewerCanUpdate viewerCanDelete ticket { databaseId } }
} }"#;
const EDIT: &str = r#"mutation($input: EditCommentInput!) { editComment(input: $input) {
  comment { body commentType isEdited editCount editedBy { username } edits { previousBody editedBy { username } } }
} }"#;
const DELETE: &str = r#"mutation($input: DeleteCommentInput!) { deleteComment(input: $input) { deletedCommentId } }"#;

fn field_error<'a>(body: &'a Value, field: &str) -> &'a Value {
    assert_eq!(first_code(body), "BAD_USER_INPUT", "{body}");
    &body["errors"][0]["extensions"]["fields"][field]
}

db_test!(add_comment_checks_who_and_what);
async fn add_comment_checks_who_and_what(app: &TestApp) {
    let w = world(app).await;
    let ticket_id = gid("Ticket", w.ticket.id);
    let input = |body: &str, kind: &str| json!({"input": {"ticketId": ticket_id, "body": body, "commentType": kind}});

    let body = app
        .graphql(
            Some(&w.owner.token),
            ADD,
            input("<b>hi</b><script>x()</script>", "PUBLIC"),
        )
        .await;
    let c = &data(&body)["addComment"]["comment"];
    assert_eq!(c["body"], "<b>hi</b>");
    assert_eq!(c["commentType"], "PUBLIC");
    assert_eq!(c["author"]["username"], "owner");
    assert_eq!(c["viewerCanUpdate"], true);
    assert_eq!(c["ticket"]["databaseId"], w.ticket.id);

    // The requester may not write internal notes; the non-team assignee may.
    let body = app
        .graphql(Some(&w.owner.token), ADD, input("psst", "INTERNAL"))
        .await;
    assert_eq!(first_code(&body), "FORBIDDEN", "{body}");
    let body = app
        .graphql(Some(&w.assignee.token), ADD, input("psst", "INTERNAL"))
        .await;
    assert_eq!(data(&body)["addComment"]["comment"]["isInternal"], true);

    // Someone who cannot see the ticket gets NOT_FOUND; nobody signed in, UNAUTHENTICATED.
    let body = app
        .graphql(Some(&w.other.token), ADD, input("hi", "PUBLIC"))
        .await;
    assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
    let body = app.graphql(None, ADD, input("hi", "PUBLIC")).await;
    assert_eq!(first_code(&body), "UNAUTHENTICATED", "{body}");

    // Bodies: blank, script-only and oversized are field errors on `body`.
    for bad in ["   ", "<script>alert(1)</script>", &"x".repeat(70 * 1024)] {
        let body = app
            .graphql(Some(&w.owner.token), ADD, input(bad, "PUBLIC"))
            .await;
        assert!(field_error(&body, "body").is_array(), "{body}");
    }
    // A bad id is a field error; an unknown comment type never reaches the service.
    let body = app
        .graphql(
            Some(&w.owner.token),
            ADD,
            json!({"input": {"ticketId": "nonsense", "body": "hi"}}),
        )
        .await;
    assert!(field_error(&body, "ticketId").is_array(), "{body}");
    let body = app
        .graphql(Some(&w.owner.token), ADD, input("hi", "SECRET"))
        .await;
    assert_eq!(first_code(&body), "BAD_USER_INPUT", "{body}");
    let count = app
        .graphql(
            Some(&w.agent.token),
            "query($id: ID!) { ticket(id: $id) { commentsCount } }",
            json!({"id": ticket_id}),
        )
        .await;
    assert_eq!(data(&count)["ticket"]["commentsCount"], 2);
}

db_test!(edit_and_delete_follow_authorship);
async fn edit_and_delete_follow_authorship(app: &TestApp) {
    let w = world(app).await;
    let mine = add(app, &w.owner, w.ticket.id, "first", CommentType::Public).await;
    let note = add(app, &w.agent, w.ticket.id, "note", CommentType::Internal).await;
    let id = gid("Comment", mine.id);
    let edit = |body: &str| json!({"input": {"id": id, "body": body}});

    // Another reader of the ticket may not edit or delete it.
    let body = app.graphql(Some(&w.grouper.token), EDIT, edit("x")).await;
    assert_eq!(first_code(&body), "FORBIDDEN", "{body}");
    let body = app
        .graphql(Some(&w.agent.token), DELETE, json!({"input": {"id": id}}))
        .await;
    assert_eq!(first_code(&body), "FORBIDDEN", "{body}");
    // The requester cannot even find the internal note.
    let body = app
        .graphql(
            Some(&w.owner.token),
            EDIT,
            json!({"input": {"id": gid("Comment", note.id), "body": "x"}}),
        )
        .await;
    assert_eq!(first_code(&body), "NOT_FOUND", "{body}");

    // The author edits, then staff edits: two history entries, oldest first.
    let body = app
        .graphql(Some(&w.owner.token), EDIT, edit("second"))
        .await;
    assert_eq!(data(&body)["editComment"]["comment"]["editCount"], 1);
    let body = app.graphql(Some(&w.staff.token), EDIT, edit("third")).await;
    let c = &data(&body)["editComment"]["comment"];
    assert_eq!(c["body"], "third");
    assert_eq!(c["isEdited"], true);
    assert_eq!(c["editedBy"]["username"], "staff");
    assert_eq!(
        c["edits"],
        json!([
            {"previousBody": "first", "editedBy": {"username": "owner"}},
            {"previousBody": "second", "editedBy": {"username": "staff"}},
        ])
    );
    // Nothing to change, a blank body, or an internal switch by the requester.
    let body = app
        .graphql(Some(&w.owner.token), EDIT, json!({"input": {"id": id}}))
        .await;
    assert_eq!(first_code(&body), "BAD_USER_INPUT", "{body}");
    let body = app.graphql(Some(&w.owner.token), EDIT, edit(" ")).await;
    assert!(field_error(&body, "body").is_array(), "{body}");
    let body = app
        .graphql(
            Some(&w.owner.token),
            EDIT,
            json!({"input": {"id": id, "commentType": "INTERNAL"}}),
        )
        .await;
    assert_eq!(first_code(&body), "FORBIDDEN", "{body}");

    // The author deletes it; it is gone for good.
    let body = app
        .graphql(Some(&w.owner.token), DELETE, json!({"input": {"id": id}}))
        .await;
    assert_eq!(data(&body)["deleteComment"]["deletedCommentId"], id);
    for (query, vars) in [
        (DELETE, json!({"input": {"id": id}})),
        (EDIT, edit("again")),
    ] {
        let body = app.graphql(Some(&w.owner.token), query, vars).await;
        assert_eq!(first_code(&body), "NOT_FOUND", "{body}");
    }
}

const PAGE: &str = r#"query($first: Int) { tickets(first: $first) { nodes {
  commentsCount
  comments(first: 5) { nodes { author { username } editedBy { username } edits { editedBy { username } } } }
} } }"#;

db_test!(comment_pages_run_a_constant_number_of_statements);
async fn comment_pages_run_a_constant_number_of_statements(app: &TestApp) {
    let agent = app.agent("adam").await;
    let agent_a = actor(app, &agent).await;
    let fill = async |range: std::ops::Range<usize>| {
        for i in range {
            let requester = app.user(&format!("req{i}")).await;
            let t = crate::support::graphql::ticket_as(
                app,
                &agent,
                NewTicket {
                    title: format!("ticket {i}"),
                    requester_id: Some(requester.id),
                    ..Default::default()
                },
            )
            .await;
            add(app, &requester, t.id, "public", CommentType::Public).await;
            let note = add(app, &agent, t.id, "note", CommentType::Internal).await;
            comments::edit(
                app.state.write_deps(deskgraph::domain::Channel::System),
                &agent_a,
                note.id,
                CommentPatch {
                    body: Some(format!("note {i}")),
                    comment_type: None,
                },
            )
            .await
            .unwrap();
        }
    };
    fill(0..5).await;
    app.graphql(Some(&agent.token), "{ me { username } }", json!({}))
        .await;
    let measure = async || {
        let before = app.statements();
        let body = app
            .graphql(Some(&agent.token), PAGE, json!({"first": 50}))
            .await;
        (app.statements() - before, body)
    };
    let (five, body) = measure().await;
    let nodes = data(&body)["tickets"]["nodes"].as_array().unwrap().clone();
    assert_eq!(nodes.len(), 5);
    assert_eq!(nodes[0]["commentsCount"], 2);
    assert_eq!(
        nodes[0]["comments"]["nodes"][0]["author"]["username"],
        "req4"
    );
    assert_eq!(
        nodes[0]["comments"]["nodes"][1]["edits"][0]["editedBy"]["username"],
        "adam"
    );
    fill(5..50).await;
    // Filling can outlast the credentials cache on a busy machine; its lookups are not the page's.
    app.graphql(Some(&agent.token), "{ me { username } }", json!({}))
        .await;
    let (fifty, body) = measure().await;
    assert_eq!(
        data(&body)["tickets"]["nodes"].as_array().unwrap().len(),
        50
    );
    assert_eq!(five, fifty, "statements for 5 tickets vs 50 tickets");
}
