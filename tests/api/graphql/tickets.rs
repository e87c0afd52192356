//! GraphQL tickets: lookups, visibility, the connection's paging and filters, batching of nested fields.
use crate::db_test;
use crate::support::graphql::{comment, data, first_code, gid, project, simple_ticket, ticket_as};
use crate::support::helpers::TestApp;
use deskgraph::service::tickets::NewTicket;
use deskgraph::service::{tags, users};
use serde_json::{json, Value};

const PAGE_QUERY: &str = "query($first: Int) { tickets(first: $first) { nodes {
    ticketNumber requester { username groups { name } } assignee { username }
    assignedGroup { name } project { name } commentsCount tags } } }";

async fn tag(app: &TestApp, who: &crate::support::helpers::TestUser, id: i32, names: &[&str]) {
    let actor = crate::support::clients::actor(app, who).await;
    let names = names.iter().map(|n| n.to_string()).collect();
    tags::change(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
        tags::Edit::Add(names),
    )
    .await
    .unwrap();
}

async fn nested_fields_run_a_constant_number_of_statements(app: &TestApp) {
    let requester = app.user("rita").await;
    let agent = app.agent("adam").await;
    let group = users::ensure_group(&app.state.db.conn, "Network")
        .await
        .unwrap();
    let proj = project(app, "Office").await;
    let make = |i: usize| NewTicket {
        title: format!("ticket {i}"),
        assignee_id: Some(agent.id),
        assigned_group_id: Some(group.id),
        project_id: Some(proj.id),
        requester_id: Some(requester.id),
        ..Default::default()
    };
    let mut made = Vec::new();
    for i in 0..5 {
        made.push(ticket_as(app, &agent, make(i)).await);
    }
    comment(app, made[0].id, agent.id, "public", false).await;
    tag(app, &agent, made[0].id, &["vpn", "urgent"]).await;
    // The first request records the token's use; measure only steady-state requests.
    app.graphql(Some(&agent.token), "{ me { username } }", json!({}))
        .await;
    let token = agent.token.as_str();
    let measure = |first: i64| async move {
        let before = app.statements();
        let body = app
            .graphql(Some(token), PAGE_QUERY, json!({"first": first}))
            .await;
        let nodes = data(&body)["tickets"]["nodes"].as_array().unwrap().len();
        (app.statements() - before, nodes, body)
    };
    let (five, n5, body) = measure(50).await;
    assert_eq!(n5, 5);
    let first = &data(&body)["tickets"]["nodes"][4];
    assert_eq!(first["requester"]["username"], "rita");
    assert_eq!(first["assignee"]["username"], "adam");
    assert_eq!(first["assignedGroup"]["name"], "Network");
    assert_eq!(first["project"]["name"], "Office");
    assert_eq!(first["commentsCount"], 1);
    assert_eq!(first["tags"], json!(["urgent", "vpn"]));
    for i in 5..50 {
        made.push(ticket_as(app, &agent, make(i)).await);
        if i % 3 == 0 {
            tag(app, &agent, made[i].id, &["printer"]).await;
        }
    }
    let (fifty, n50, _) = measure(50).await;
    assert_eq!(n50, 50);
    assert_eq!(five, fifty, "statements for 5 tickets vs 50 tickets");
}
db_test!(nested_fields_run_a_constant_number_of_statements);

async fn comments_count_follows_who_may_read_internal_comments(app: &TestApp) {
    let requester = app.user("rita").await;
    let agent = app.agent("adam").await;
    let t = simple_ticket(app, &requester, "printer").await;
    comment(app, t.id, agent.id, "public", false).await;
    comment(app, t.id, agent.id, "internal", false).await;
    comment(app, t.id, agent.id, "public", true).await;
    let query =
        "query($n: String) { ticket(number: $n) { commentsCount viewerCanCommentInternally } }";
    let vars = json!({"n": t.ticket_number});
    let as_requester = app
        .graphql(Some(&requester.token), query, vars.clone())
        .await;
    assert_eq!(
        data(&as_requester)["ticket"],
        json!({"commentsCount": 1, "viewerCanCommentInternally": false})
    );
    let as_agent = app.graphql(Some(&agent.token), query, vars).await;
    assert_eq!(
        data(&as_agent)["ticket"],
        json!({"commentsCount": 2, "viewerCanCommentInternally": true})
    );
}
db_test!(comments_count_follows_who_may_read_internal_comments);

async fn node_round_trip_and_visibility(app: &TestApp) {
    let rita = app.user("rita").await;
    let other = app.user("oscar").await;
    let t = simple_ticket(app, &rita, "vpn down").await;
    let id = gid("Ticket", t.id);
    let query = "query($id: ID!) { node(id: $id) { id ... on Ticket { databaseId title } } }";
    let mine = app
        .graphql(Some(&rita.token), query, json!({"id": id}))
        .await;
    assert_eq!(
        data(&mine)["node"],
        json!({"id": id, "databaseId": t.id, "title": "vpn down"})
    );
    let theirs = app
        .graphql(Some(&other.token), query, json!({"id": id}))
        .await;
    assert_eq!(theirs["data"]["node"], Value::Null);
    assert_eq!(first_code(&theirs), "NOT_FOUND");

    // Oscar shares no ticket with Rita: neither her ticket nor her account exists for him.
    let user_id = gid("User", rita.id);
    let nodes = "query($ids: [ID!]!) { nodes(ids: $ids) { id ... on User { username } } }";
    let many = app
        .graphql(Some(&other.token), nodes, json!({"ids": [user_id, id]}))
        .await;
    assert_eq!(many["data"]["nodes"], json!([null, null]));
    assert_eq!(first_code(&many), "NOT_FOUND");
    let own = app
        .graphql(Some(&rita.token), nodes, json!({"ids": [user_id, id]}))
        .await;
    assert_eq!(
        data(&own)["nodes"],
        json!([{"id": user_id, "username": "rita"}, {"id": id}])
    );
}
db_test!(node_round_trip_and_visibility);

async fn ticket_lookup_by_number_and_database_id(app: &TestApp) {
    let rita = app.user("rita").await;
    let t = simple_ticket(app, &rita, "laptop").await;
    let by_number = app
        .graphql(
            Some(&rita.token),
            r#"{ ticket(number: "tkt-1") { ticketNumber status statusCategory priority allowedTransitions viewerCanUpdate } }"#,
            json!({}),
        )
        .await;
    assert_eq!(
        data(&by_number)["ticket"],
        json!({"ticketNumber": "TKT-001", "status": "NEW", "statusCategory": "TODO",
               "priority": "MEDIUM", "allowedTransitions": [], "viewerCanUpdate": true})
    );
    let by_db_id = app
        .graphql(
            Some(&rita.token),
            "query($id: Int) { ticket(databaseId: $id) { title } }",
            json!({"id": t.id}),
        )
        .await;
    assert_eq!(data(&by_db_id)["ticket"]["title"], "laptop");
    let missing = app
        .graphql(
            Some(&rita.token),
            r#"{ ticket(number: "TKT-999") { title } }"#,
            json!({}),
        )
        .await;
    assert_eq!(missing["data"]["ticket"], Value::Null);
    assert_eq!(first_code(&missing), "NOT_FOUND");
}
db_test!(ticket_lookup_by_number_and_database_id);

const CONNECTION: &str = "query($first: Int, $after: String, $last: Int, $before: String) {
  tickets(first: $first, after: $after, last: $last, before: $before, orderBy: {field: NUMBER, direction: ASC}) {
    edges { cursor node { ticketNumber } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount } }";

fn numbers(body: &Value) -> Vec<String> {
    data(body)["tickets"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["node"]["ticketNumber"].as_str().unwrap().to_string())
        .collect()
}

async fn tickets_connection_pages_both_ways(app: &TestApp) {
    let rita = app.user("rita").await;
    for i in 0..5 {
        simple_ticket(app, &rita, &format!("t{i}")).await;
    }
    let token = Some(rita.token.as_str());
    let page1 = app.graphql(token, CONNECTION, json!({"first": 2})).await;
    assert_eq!(numbers(&page1), ["TKT-001", "TKT-002"]);
    let info = &data(&page1)["tickets"]["pageInfo"];
    assert_eq!(info["hasNextPage"], true);
    assert_eq!(info["hasPreviousPage"], false);
    assert_eq!(data(&page1)["tickets"]["totalCount"], 5);

    let after = info["endCursor"].clone();
    let page2 = app
        .graphql(token, CONNECTION, json!({"first": 10, "after": after}))
        .await;
    assert_eq!(numbers(&page2), ["TKT-003", "TKT-004", "TKT-005"]);
    let info2 = &data(&page2)["tickets"]["pageInfo"];
    assert_eq!(info2["hasNextPage"], false);
    assert_eq!(info2["hasPreviousPage"], true);

    let tail = app.graphql(token, CONNECTION, json!({"last": 2})).await;
    assert_eq!(numbers(&tail), ["TKT-004", "TKT-005"]);
    assert_eq!(data(&tail)["tickets"]["pageInfo"]["hasNextPage"], false);
    assert_eq!(data(&tail)["tickets"]["pageInfo"]["hasPreviousPage"], true);
    let before = data(&tail)["tickets"]["pageInfo"]["startCursor"].clone();
    let back = app
        .graphql(token, CONNECTION, json!({"last": 2, "before": before}))
        .await;
    assert_eq!(numbers(&back), ["TKT-002", "TKT-003"]);
    assert_eq!(data(&back)["tickets"]["pageInfo"]["hasNextPage"], true);

    let too_many = app.graphql(token, CONNECTION, json!({"first": 101})).await;
    assert_eq!(first_code(&too_many), "BAD_USER_INPUT");
    assert_eq!(
        too_many["errors"][0]["extensions"]["fields"]["first"][0],
        "must be between 0 and 100"
    );
}
db_test!(tickets_connection_pages_both_ways);

async fn total_count_runs_only_when_selected(app: &TestApp) {
    let rita = app.user("rita").await;
    simple_ticket(app, &rita, "one").await;
    app.graphql(Some(&rita.token), "{ me { username } }", json!({}))
        .await;
    let token = rita.token.as_str();
    let run = |q: &'static str| async move {
        let before = app.statements();
        let body = app.graphql(Some(token), q, json!({})).await;
        let total = data(&body)["tickets"]["totalCount"].clone();
        (app.statements() - before, total)
    };
    let (without, _) = run("{ tickets { nodes { title } } }").await;
    let (with, total) = run("{ tickets { nodes { title } totalCount } }").await;
    assert_eq!(with, without + 1);
    assert_eq!(total, 1);
    // A page read with its people carries the total in the same statement.
    let (without, _) = run("{ tickets { nodes { title requester { username } } } }").await;
    let (with, total) =
        run("{ tickets { nodes { title requester { username } } totalCount } }").await;
    assert_eq!((with, without), (1, 1));
    assert_eq!(total, 1);
    // Past the end there is no row to carry it; it is still exact.
    let first = app
        .graphql(
            Some(token),
            "{ tickets(first: 1) { pageInfo { endCursor } } }",
            json!({}),
        )
        .await;
    let end = data(&first)["tickets"]["pageInfo"]["endCursor"].clone();
    let past = app
        .graphql(
            Some(token),
            "query($a: String) { tickets(first: 5, after: $a) { nodes { requester { username } } totalCount } }",
            json!({"a": end}),
        )
        .await;
    assert_eq!(data(&past)["tickets"]["nodes"], json!([]));
    let total = data(&past)["tickets"]["totalCount"].clone();
    assert_eq!(total, 1);
}
db_test!(total_count_runs_only_when_selected);

async fn tickets_filters(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let proj = project(app, "Office").await;
    let a = simple_ticket(app, &rita, "printer jam").await;
    let b = ticket_as(
        app,
        &agent,
        NewTicket {
            title: "server room".into(),
            assignee_id: Some(agent.id),
            project_id: Some(proj.id),
            priority: Some(deskgraph::domain::Priority::High),
            ..Default::default()
        },
    )
    .await;
    let query =
        "query($f: TicketFilter) { tickets(filter: $f) { nodes { databaseId } totalCount } }";
    let token = agent.token.as_str();
    let ids_for = |f: Value| async move {
        let body = app.graphql(Some(token), query, json!({"f": f})).await;
        data(&body)["tickets"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["databaseId"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };
    let (a, b) = (i64::from(a.id), i64::from(b.id));
    assert_eq!(ids_for(json!({"query": "PRINTER"})).await, [a]);
    assert_eq!(ids_for(json!({"priority": ["HIGH"]})).await, [b]);
    assert_eq!(ids_for(json!({"assignee": "ME"})).await, [b]);
    assert_eq!(ids_for(json!({"assignee": "NONE"})).await, [a]);
    assert_eq!(
        ids_for(json!({"requesterId": gid("User", rita.id)})).await,
        [a]
    );
    assert_eq!(
        ids_for(json!({"projectId": gid("Project", proj.id)})).await,
        [b]
    );
    assert_eq!(
        ids_for(json!({"status": ["NEW"], "statusCategory": "TODO"})).await,
        [b, a]
    );
    assert!(ids_for(json!({"statusCategory": "DONE"})).await.is_empty());
    // A requester sees only their own ticket whatever the filter.
    let mine = app
        .graphql(Some(&rita.token), query, json!({"f": {}}))
        .await;
    assert_eq!(data(&mine)["tickets"]["totalCount"], 1);
    let bad = app
        .graphql(
            Some(&agent.token),
            query,
            json!({"f": {"status": ["NOPE"]}}),
        )
        .await;
    assert_eq!(first_code(&bad), "BAD_USER_INPUT");
}
db_test!(tickets_filters);
