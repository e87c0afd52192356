//! Plain answers (src/graphql/engine/one_pass/) against the general executor: the same documents, as every kind
//! of viewer, give byte-identical responses from an instance with plain answers and one without, and the
//! one-pass path is taken where it should be (and not where it must not be).
use crate::db_test;
use crate::support::graphql::ask;
use crate::support::graphql::{gid, project, ticket_as};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::{actor, add, world};
use axum::Router;
use deskgraph::domain::{CommentType, Priority};
use deskgraph::service::comments::{self, CommentPatch};
use deskgraph::service::tickets::NewTicket;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;

/// Whether a document's ticket objects must be answered in one pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Expect {
    /// Every field is plain and its relations are loaded with the page.
    Plain,
    /// Some field needs the executor.
    Executor,
    /// Either, by what the viewer can see (only the answers are compared).
    Either,
}

const EVERY_PLAIN_FIELD: &str = r#"{ tickets(first: 20) { totalCount nodes {
  __typename id databaseId ticketNumber title description status statusCategory priority dueDate
  createdAt updatedAt firstRespondedAt resolvedAt closedAt commentsCount allowedTransitions
  viewerCanUpdate viewerCanComment viewerCanCommentInternally
  requester { __typename id databaseId username fullName email isStaff }
  assignee { username email }
  assignedGroup { __typename id databaseId name }
  project { __typename id databaseId name description createdAt }
} } }"#;

const FRAGMENTS: &str = r#"query { tickets(first: 10, orderBy: {field: NUMBER, direction: ASC}) {
  edges { cursor node { ...Row ... on Node { id } ... on Ticket { title } ... on User { username } } }
} }
fragment Row on Ticket { id ticketNumber requester { ...Person } assignee { ...Person } }
fragment Person on User { id fullName ... on Node { id } }"#;

const ALIASES: &str = r#"{ tickets(first: 10) { nodes {
  a: title b: title title id id who: requester { username } asked: requester { fullName }
  n: commentsCount
} } }"#;

const MERGED_OBJECT: &str =
    r#"{ tickets(first: 10) { nodes { title requester { username } requester { fullName } } } }"#;

const NOT_PLAIN_FIELD: &str = r#"{ tickets(first: 10) { nodes { title assets { name } } } }"#;

const PROJECT_COUNTS: &str =
    r#"{ tickets(first: 10) { nodes { title project { name ticketCount } } } }"#;

const BY_STATUS: &str =
    r#"{ tickets(first: 10, filter: {status: [OPEN]}) { nodes { title status } } }"#;

const DETAIL: &str = r#"query($id: ID!) { ticket(id: $id) {
  id title requester { username email } assignee { username } project { name }
  comments(first: 20) { totalCount nodes {
    __typename id databaseId body commentType isInternal isEdited editCount editedAt createdAt updatedAt
    viewerCanUpdate viewerCanDelete author { username email } editedBy { username }
    ticket { ticketNumber }
  } }
} }"#;

const NODE: &str =
    r#"query($id: ID!) { node(id: $id) { id ... on Ticket { title requester { username } } } }"#;

const PROJECT_TICKETS: &str = r#"{ projects(first: 5) { nodes { name tickets(first: 5) { nodes { title requester { username } } } } } }"#;

const MISSING: &str = r#"{ ticket(databaseId: 999999) { title } }"#;

/// Every document as every viewer on both instances: the same bytes, and plain answers where expected.
pub(crate) async fn compare(
    app: &TestApp,
    executor: &Router,
    viewers: &[&TestUser],
    cases: &[(&str, Value, Expect)],
) {
    for viewer in viewers {
        for (query, vars, expect) in cases {
            let before = app.state.plain_objects.load(Ordering::Relaxed);
            let plain = ask(app, &app.router, viewer, query, vars).await;
            let answered = app.state.plain_objects.load(Ordering::Relaxed) - before;
            let general = ask(app, executor, viewer, query, vars).await;
            let case = format!("{query} as {}", viewer.username);
            assert_eq!(plain.status, general.status, "{case}");
            assert_eq!(plain.text, general.text, "{case}");
            let shown = plain.json["data"]["tickets"]["nodes"]
                .as_array()
                .or(plain.json["data"]["tickets"]["edges"].as_array())
                .map_or(0, Vec::len);
            match expect {
                Expect::Plain => assert_eq!(answered as usize, shown, "{case}: {}", plain.text),
                Expect::Executor => assert_eq!(answered, 0, "{case}"),
                Expect::Either => {}
            }
        }
    }
}

async fn plain_answers_are_the_executors_answers(app: &TestApp) {
    let w = world(app).await;
    let (executor_state, executor) = app
        .second_instance_with(|config| config.graphql_plain = false)
        .await;
    let hardware = project(app, "Hardware").await;
    let with_project = ticket_as(
        app,
        &w.agent,
        NewTicket {
            title: "Laptop <b>broken</b>".into(),
            description: Some("<p>It <em>will not</em> boot</p>".into()),
            priority: Some(Priority::High),
            project_id: Some(hardware.id),
            assignee_id: Some(w.agent.id),
            due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 31),
            requester_id: Some(w.other.id),
            ..Default::default()
        },
    )
    .await;
    let t = w.ticket.id;
    add(app, &w.owner, t, "hello", CommentType::Public).await;
    add(app, &w.agent, t, "SECRET root cause", CommentType::Internal).await;
    let edited = add(app, &w.agent, t, "first words", CommentType::Public).await;
    comments::edit(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, &w.agent).await,
        edited.id,
        CommentPatch {
            body: Some("second words".into()),
            comment_type: None,
        },
    )
    .await
    .unwrap();
    add(app, &w.other, with_project.id, "mine", CommentType::Public).await;

    let none = json!({});
    let ticket = json!({ "id": gid("Ticket", t) });
    let cases = [
        (EVERY_PLAIN_FIELD, none.clone(), Expect::Plain),
        (FRAGMENTS, none.clone(), Expect::Plain),
        (ALIASES, none.clone(), Expect::Plain),
        (BY_STATUS, none.clone(), Expect::Plain),
        (MERGED_OBJECT, none.clone(), Expect::Executor),
        (NOT_PLAIN_FIELD, none.clone(), Expect::Executor),
        (PROJECT_COUNTS, none.clone(), Expect::Either),
        (DETAIL, ticket.clone(), Expect::Either),
        (NODE, ticket.clone(), Expect::Either),
        (PROJECT_TICKETS, none.clone(), Expect::Either),
        (MISSING, none.clone(), Expect::Either),
    ];
    let viewers = [
        &w.owner,
        &w.other,
        &w.assignee,
        &w.grouper,
        &w.agent,
        &w.staff,
        &w.admin,
    ];
    compare(app, &executor, &viewers, &cases).await;
    assert_eq!(executor_state.plain_objects.load(Ordering::Relaxed), 0);

    // A row the general executor reports as an error is left to it: same error, same path.
    let db = &app.state.db.conn;
    db.execute_raw(Statement::from_string(
        db.get_database_backend(),
        format!(
            "UPDATE tickets SET status = 'bogus' WHERE id = {}",
            with_project.id
        ),
    ))
    .await
    .unwrap();
    let broken = [(EVERY_PLAIN_FIELD, none.clone(), Expect::Either)];
    compare(app, &executor, &[&w.agent], &broken).await;
    let answer = ask(app, &app.router, &w.agent, EVERY_PLAIN_FIELD, &none).await;
    assert!(
        answer.json["errors"][0]["path"].is_array(),
        "{}",
        answer.text
    );
}
db_test!(plain_answers_are_the_executors_answers);
