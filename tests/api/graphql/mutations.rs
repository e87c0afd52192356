//! GraphQL ticket mutations: create, update, status moves, delete and restore, with their error codes.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid, simple_ticket};
use crate::support::helpers::TestApp;
use serde_json::{json, Value};

const CREATE: &str = "mutation($input: CreateTicketInput!) { createTicket(input: $input) {
    ticket { id ticketNumber title priority status requester { username } assignee { username } dueDate } } }";
const UPDATE: &str = "mutation($input: UpdateTicketInput!) { updateTicket(input: $input) {
    ticket { title priority assignee { username } dueDate } } }";
const STATUS: &str =
    "mutation($input: ChangeTicketStatusInput!) { changeTicketStatus(input: $input) {
    ticket { status resolvedAt allowedTransitions } } }";

async fn create_and_update_tickets(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let created = app
        .graphql(
            Some(&rita.token),
            CREATE,
            json!({"input": {"title": "  New laptop ", "priority": "HIGH", "dueDate": "2026-12-01"}}),
        )
        .await;
    let ticket = &data(&created)["createTicket"]["ticket"];
    assert_eq!(ticket["ticketNumber"], "TKT-001");
    assert_eq!(ticket["title"], "New laptop");
    assert_eq!(ticket["priority"], "HIGH");
    assert_eq!(ticket["status"], "NEW");
    assert_eq!(ticket["requester"]["username"], "rita");
    assert_eq!(ticket["dueDate"], "2026-12-01");
    let id = ticket["id"].clone();

    let blank = app
        .graphql(Some(&rita.token), CREATE, json!({"input": {"title": " "}}))
        .await;
    assert_eq!(first_code(&blank), "BAD_USER_INPUT");
    assert_eq!(
        blank["errors"][0]["extensions"]["fields"]["title"][0],
        "this field may not be blank"
    );
    // Field errors are named as the input fields a GraphQL client sent, not as REST names them.
    let nobody = app
        .graphql(
            Some(&agent.token),
            CREATE,
            json!({"input": {"title": "Who?", "assigneeId": gid("User", 999_999), "dueDate": "2026-12-01"}}),
        )
        .await;
    assert_eq!(first_code(&nobody), "BAD_USER_INPUT", "{nobody}");
    let fields = &nobody["errors"][0]["extensions"]["fields"];
    assert!(fields["assigneeId"].is_array(), "{nobody}");
    assert!(fields.get("assigned_to").is_none(), "{nobody}");

    // A requester may retitle their ticket but not assign it.
    let retitled = app
        .graphql(
            Some(&rita.token),
            UPDATE,
            json!({"input": {"id": id, "title": "Laptop"}}),
        )
        .await;
    assert_eq!(data(&retitled)["updateTicket"]["ticket"]["title"], "Laptop");
    let assign = json!({"input": {"id": id, "assigneeId": gid("User", agent.id)}});
    let refused = app.graphql(Some(&rita.token), UPDATE, assign.clone()).await;
    assert_eq!(first_code(&refused), "FORBIDDEN");
    let assigned = app.graphql(Some(&agent.token), UPDATE, assign).await;
    assert_eq!(
        data(&assigned)["updateTicket"]["ticket"]["assignee"]["username"],
        "adam"
    );
    // null clears, absence keeps.
    let cleared = app
        .graphql(
            Some(&agent.token),
            UPDATE,
            json!({"input": {"id": id, "assigneeId": null, "dueDate": null}}),
        )
        .await;
    assert_eq!(
        data(&cleared)["updateTicket"]["ticket"],
        json!({"title": "Laptop", "priority": "HIGH", "assignee": null, "dueDate": null})
    );
    let wrong_kind = app
        .graphql(
            Some(&agent.token),
            UPDATE,
            json!({"input": {"id": gid("User", agent.id), "title": "x"}}),
        )
        .await;
    assert_eq!(first_code(&wrong_kind), "BAD_USER_INPUT");
}
db_test!(create_and_update_tickets);

async fn status_changes_follow_the_workflow(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let t = simple_ticket(app, &rita, "disk full").await;
    let id = gid("Ticket", t.id);
    let closed = app
        .graphql(
            Some(&agent.token),
            STATUS,
            json!({"input": {"id": id, "status": "CLOSED"}}),
        )
        .await;
    assert_eq!(first_code(&closed), "INVALID_TRANSITION");
    assert_eq!(
        closed["errors"][0]["extensions"]["details"]["allowed"],
        json!(["OPEN", "IN_PROGRESS", "ON_HOLD", "BLOCKED", "RESOLVED"]),
        "{closed}"
    );
    assert_eq!(closed["data"], Value::Null);
    let by_requester = app
        .graphql(
            Some(&rita.token),
            STATUS,
            json!({"input": {"id": id, "status": "OPEN"}}),
        )
        .await;
    assert_eq!(first_code(&by_requester), "FORBIDDEN");
    let resolved = app
        .graphql(
            Some(&agent.token),
            STATUS,
            json!({"input": {"id": id, "status": "RESOLVED"}}),
        )
        .await;
    let ticket = &data(&resolved)["changeTicketStatus"]["ticket"];
    assert_eq!(ticket["status"], "RESOLVED");
    assert!(ticket["resolvedAt"].is_string());
    assert_eq!(ticket["allowedTransitions"], json!(["CLOSED", "OPEN"]));
}
db_test!(status_changes_follow_the_workflow);

async fn delete_and_restore_are_for_the_team(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let t = simple_ticket(app, &rita, "old").await;
    let id = gid("Ticket", t.id);
    let delete = "mutation($id: ID!) { deleteTicket(input: {id: $id}) { deletedTicketId } }";
    let restore = "mutation($id: ID!) { restoreTicket(input: {id: $id}) { ticket { title } } }";
    let refused = app
        .graphql(Some(&rita.token), delete, json!({"id": id}))
        .await;
    assert_eq!(first_code(&refused), "FORBIDDEN");
    let deleted = app
        .graphql(Some(&agent.token), delete, json!({"id": id}))
        .await;
    assert_eq!(data(&deleted)["deleteTicket"]["deletedTicketId"], id);
    let gone = app
        .graphql(
            Some(&rita.token),
            "query($id: ID!) { node(id: $id) { id } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(first_code(&gone), "NOT_FOUND");
    let not_for_requester = app
        .graphql(Some(&rita.token), restore, json!({"id": id}))
        .await;
    assert_eq!(first_code(&not_for_requester), "NOT_FOUND");
    let restored = app
        .graphql(Some(&agent.token), restore, json!({"id": id}))
        .await;
    assert_eq!(data(&restored)["restoreTicket"]["ticket"]["title"], "old");
}
db_test!(delete_and_restore_are_for_the_team);
