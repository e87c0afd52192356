//! GraphQL projects: queries, mutations, permissions, batched ticket counts and visible tickets.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid, project, ticket_as};
use crate::support::helpers::TestApp;
use deskgraph::service::tickets::NewTicket;
use serde_json::json;

const CREATE: &str = "mutation($input: CreateProjectInput!) {
  createProject(input: $input) { project { id databaseId name description ticketCount } } }";
const UPDATE: &str = "mutation($input: UpdateProjectInput!) {
  updateProject(input: $input) { project { name description } } }";
const DELETE: &str = "mutation($input: DeleteProjectInput!) {
  deleteProject(input: $input) { deletedProjectId } }";

async fn project_lifecycle(app: &TestApp) {
    let agent = app.agent("adam").await;
    let token = Some(agent.token.as_str());
    let created = app
        .graphql(
            token,
            CREATE,
            json!({"input": {"name": "  Office  ", "description": "Moves"}}),
        )
        .await;
    let p = &data(&created)["createProject"]["project"];
    assert_eq!(p["name"], "Office");
    assert_eq!(p["ticketCount"], 0);
    let id = p["id"].as_str().unwrap().to_string();
    let db_id = p["databaseId"].as_i64().unwrap();

    let updated = app
        .graphql(
            token,
            UPDATE,
            json!({"input": {"id": id, "description": "Desks"}}),
        )
        .await;
    assert_eq!(
        data(&updated)["updateProject"]["project"]["description"],
        "Desks"
    );
    assert_eq!(data(&updated)["updateProject"]["project"]["name"], "Office");

    let by_db = app
        .graphql(
            token,
            "query($d: Int!) { project(databaseId: $d) { id name } }",
            json!({"d": db_id}),
        )
        .await;
    assert_eq!(data(&by_db)["project"]["id"], id.as_str());
    let by_node = app
        .graphql(
            token,
            "query($id: ID!) { node(id: $id) { ... on Project { name } } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(data(&by_node)["node"]["name"], "Office");

    let deleted = app
        .graphql(token, DELETE, json!({"input": {"id": id}}))
        .await;
    assert_eq!(
        data(&deleted)["deleteProject"]["deletedProjectId"],
        id.as_str()
    );
    let gone = app
        .graphql(
            token,
            "query($id: ID!) { project(id: $id) { name } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(first_code(&gone), "NOT_FOUND");
    let list = app
        .graphql(
            token,
            "{ projects { totalCount nodes { name } } }",
            json!({}),
        )
        .await;
    assert_eq!(data(&list)["projects"]["totalCount"], 0);
}
db_test!(project_lifecycle);

async fn project_writes_are_for_the_team_and_names_are_unique(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let office = project(app, "Office").await;
    let denied = app
        .graphql(
            Some(&rita.token),
            CREATE,
            json!({"input": {"name": "Mine"}}),
        )
        .await;
    assert_eq!(first_code(&denied), "FORBIDDEN");
    let rename = app
        .graphql(
            Some(&rita.token),
            UPDATE,
            json!({"input": {"id": gid("Project", office.id), "name": "X"}}),
        )
        .await;
    assert_eq!(first_code(&rename), "FORBIDDEN");
    let delete = app
        .graphql(
            Some(&rita.token),
            DELETE,
            json!({"input": {"id": gid("Project", office.id)}}),
        )
        .await;
    assert_eq!(first_code(&delete), "FORBIDDEN");

    let duplicate = app
        .graphql(
            Some(&agent.token),
            CREATE,
            json!({"input": {"name": "Office"}}),
        )
        .await;
    assert_eq!(first_code(&duplicate), "BAD_USER_INPUT");
    assert!(
        duplicate["errors"][0]["extensions"]["fields"]["name"].is_array(),
        "{duplicate}"
    );
    let blank = app
        .graphql(
            Some(&agent.token),
            CREATE,
            json!({"input": {"name": "   "}}),
        )
        .await;
    assert_eq!(first_code(&blank), "BAD_USER_INPUT");
    let anonymous = app
        .graphql(None, "{ projects { totalCount } }", json!({}))
        .await;
    assert_eq!(first_code(&anonymous), "UNAUTHENTICATED");
}
db_test!(project_writes_are_for_the_team_and_names_are_unique);

async fn project_list_counts_tickets_in_constant_statements(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let query = "{ projects(first: 100) { totalCount nodes { name ticketCount } } }";
    // The first request of a token records its use; keep that out of the measurement.
    data(
        &app.graphql(Some(&agent.token), "{ me { id } }", json!({}))
            .await,
    );
    let mut measured = Vec::new();
    for round in 0..2 {
        for i in 0..3 {
            let p = project(app, &format!("P{round}{i}")).await;
            for _ in 0..=i {
                let input = NewTicket {
                    title: "work".into(),
                    project_id: Some(p.id),
                    ..Default::default()
                };
                ticket_as(app, &rita, input).await;
            }
        }
        let before = app.statements();
        let body = app.graphql(Some(&agent.token), query, json!({})).await;
        measured.push(app.statements() - before);
        let nodes = data(&body)["projects"]["nodes"].as_array().unwrap().clone();
        assert_eq!(nodes.len(), 3 * (round + 1));
        assert_eq!(nodes[0]["name"], "P00");
        assert_eq!(nodes[0]["ticketCount"], 1);
        assert_eq!(nodes[2]["ticketCount"], 3);
    }
    assert_eq!(
        measured[0], measured[1],
        "statements grew with the page: {measured:?}"
    );
    let paged = app
        .graphql(Some(&agent.token), "{ projects(first: 2, after: \"Y3Vyc29yOjA=\") { nodes { name } pageInfo { hasNextPage } } }", json!({}))
        .await;
    assert_eq!(data(&paged)["projects"]["nodes"][0]["name"], "P01");
    assert_eq!(data(&paged)["projects"]["pageInfo"]["hasNextPage"], true);
}
db_test!(project_list_counts_tickets_in_constant_statements);

async fn project_tickets_are_those_the_viewer_may_see(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let office = project(app, "Office").await;
    for (user, title) in [(&rita, "Rita's"), (&sam, "Sam's")] {
        let input = NewTicket {
            title: title.into(),
            project_id: Some(office.id),
            ..Default::default()
        };
        ticket_as(app, user, input).await;
    }
    let query = "query($id: ID!) { project(id: $id) { ticketCount tickets { totalCount nodes { title } } } }";
    let vars = json!({"id": gid("Project", office.id)});
    let as_rita = app.graphql(Some(&rita.token), query, vars.clone()).await;
    let p = &data(&as_rita)["project"];
    assert_eq!(p["tickets"]["nodes"], json!([{"title": "Rita's"}]));
    assert_eq!(p["tickets"]["totalCount"], 1);
    let as_agent = app.graphql(Some(&agent.token), query, vars).await;
    assert_eq!(data(&as_agent)["project"]["tickets"]["totalCount"], 2);
}
db_test!(project_tickets_are_those_the_viewer_may_see);
