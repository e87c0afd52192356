//! GraphQL assets: queries with filters, mutations, permissions, links and visibility both ways.
use crate::db_test;
use crate::support::graphql::{data, first_code, gid, simple_ticket};
use crate::support::helpers::{TestApp, TestUser};
use serde_json::{json, Value};

const CREATE: &str = "mutation($input: CreateAssetInput!) {
  createAsset(input: $input) { asset { id databaseId name type status location owner { username } serialNumber } } }";
const LINK: &str = "mutation($input: LinkAssetInput!) {
  linkAsset(input: $input) { ticket { title assets { name } } asset { name tickets { title } } } }";
const UNLINK: &str = "mutation($input: UnlinkAssetInput!) {
  unlinkAsset(input: $input) { ticket { assets { name } } asset { tickets { title } } } }";

async fn create(app: &TestApp, token: &str, input: Value) -> Value {
    app.graphql(Some(token), CREATE, json!({ "input": input }))
        .await
}

async fn asset_id(app: &TestApp, agent: &TestUser, name: &str, owner: Option<&TestUser>) -> String {
    let mut input = json!({"name": name, "type": "HARDWARE"});
    if let Some(owner) = owner {
        input["ownerId"] = json!(gid("User", owner.id));
    }
    let body = create(app, &agent.token, input).await;
    data(&body)["createAsset"]["asset"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn asset_lifecycle(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let input = json!({"name": "Laptop 7", "type": "HARDWARE", "location": "Desk 4",
        "ownerId": gid("User", rita.id), "serialNumber": "SN-1"});
    let body = create(app, &agent.token, input).await;
    let a = &data(&body)["createAsset"]["asset"];
    assert_eq!(a["type"], "HARDWARE");
    assert_eq!(a["status"], "IN_STOCK");
    assert_eq!(a["owner"]["username"], "rita");
    let id = a["id"].as_str().unwrap().to_string();

    let update = "mutation($input: UpdateAssetInput!) { updateAsset(input: $input) { asset { status owner { username } } } }";
    let changed = app
        .graphql(
            Some(&agent.token),
            update,
            json!({"input": {"id": id, "status": "IN_USE", "ownerId": null}}),
        )
        .await;
    assert_eq!(
        data(&changed)["updateAsset"]["asset"],
        json!({"status": "IN_USE", "owner": null})
    );

    let by_db = app
        .graphql(
            Some(&agent.token),
            "query($d: Int!) { asset(databaseId: $d) { name } }",
            json!({"d": a["databaseId"]}),
        )
        .await;
    assert_eq!(data(&by_db)["asset"]["name"], "Laptop 7");
    let node = app
        .graphql(
            Some(&agent.token),
            "query($id: ID!) { node(id: $id) { ... on Asset { serialNumber } } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(data(&node)["node"]["serialNumber"], "SN-1");

    let delete =
        "mutation($input: DeleteAssetInput!) { deleteAsset(input: $input) { deletedAssetId } }";
    let deleted = app
        .graphql(Some(&agent.token), delete, json!({"input": {"id": id}}))
        .await;
    assert_eq!(data(&deleted)["deleteAsset"]["deletedAssetId"], id.as_str());
    let gone = app
        .graphql(
            Some(&agent.token),
            "query($id: ID!) { asset(id: $id) { name } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(first_code(&gone), "NOT_FOUND");
}
db_test!(asset_lifecycle);

async fn asset_writes_are_checked(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let denied = create(app, &rita.token, json!({"name": "Mine", "type": "OTHER"})).await;
    assert_eq!(first_code(&denied), "FORBIDDEN");
    // Rita sees the asset she owns but may not change or archive it.
    let hers = asset_id(app, &agent, "Rita laptop", Some(&rita)).await;
    let update =
        "mutation($input: UpdateAssetInput!) { updateAsset(input: $input) { asset { name } } }";
    let renamed = app
        .graphql(
            Some(&rita.token),
            update,
            json!({"input": {"id": hers, "name": "Mine now"}}),
        )
        .await;
    assert_eq!(first_code(&renamed), "FORBIDDEN");
    let delete =
        "mutation($input: DeleteAssetInput!) { deleteAsset(input: $input) { deletedAssetId } }";
    let archived = app
        .graphql(Some(&rita.token), delete, json!({"input": {"id": hers}}))
        .await;
    assert_eq!(first_code(&archived), "FORBIDDEN");
    let bad_update_enum = app
        .graphql(
            Some(&agent.token),
            update,
            json!({"input": {"id": hers, "status": "MISSING"}}),
        )
        .await;
    assert_eq!(first_code(&bad_update_enum), "BAD_USER_INPUT");
    let bad_enum = create(app, &agent.token, json!({"name": "X", "type": "SPACESHIP"})).await;
    assert_eq!(first_code(&bad_enum), "BAD_USER_INPUT");
    let blank = create(app, &agent.token, json!({"name": " ", "type": "OTHER"})).await;
    assert_eq!(first_code(&blank), "BAD_USER_INPUT");
    assert!(
        blank["errors"][0]["extensions"]["fields"]["name"].is_array(),
        "{blank}"
    );
    let no_owner = create(
        app,
        &agent.token,
        json!({"name": "X", "type": "OTHER", "ownerId": gid("User", 9999)}),
    )
    .await;
    assert_eq!(first_code(&no_owner), "BAD_USER_INPUT");
    let bad_status = app
        .graphql(
            Some(&agent.token),
            "{ assets(filter: {status: BROKEN}) { totalCount } }",
            json!({}),
        )
        .await;
    assert_eq!(first_code(&bad_status), "BAD_USER_INPUT");
}
db_test!(asset_writes_are_checked);

async fn asset_filters_and_owner_visibility(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    asset_id(app, &agent, "Rita laptop", Some(&rita)).await;
    asset_id(app, &agent, "Spare laptop", None).await;
    let body = create(
        app,
        &agent.token,
        json!({"name": "Office licence", "type": "LICENSE", "status": "IN_USE"}),
    )
    .await;
    data(&body);
    let names = |body: &Value| -> Vec<String> {
        data(body)["assets"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect()
    };
    let q = "query($f: AssetFilter) { assets(filter: $f) { totalCount nodes { name } } }";
    let all = app.graphql(Some(&agent.token), q, json!({})).await;
    assert_eq!(
        names(&all),
        ["Office licence", "Rita laptop", "Spare laptop"]
    );
    let by_type = app
        .graphql(Some(&agent.token), q, json!({"f": {"type": "LICENSE"}}))
        .await;
    assert_eq!(names(&by_type), ["Office licence"]);
    let by_status = app
        .graphql(Some(&agent.token), q, json!({"f": {"status": "IN_STOCK"}}))
        .await;
    assert_eq!(names(&by_status), ["Rita laptop", "Spare laptop"]);
    let by_search = app
        .graphql(Some(&agent.token), q, json!({"f": {"search": "SPARE"}}))
        .await;
    assert_eq!(names(&by_search), ["Spare laptop"]);
    let as_rita = app.graphql(Some(&rita.token), q, json!({})).await;
    assert_eq!(names(&as_rita), ["Rita laptop"]);
}
db_test!(asset_filters_and_owner_visibility);

async fn links_show_only_what_the_viewer_may_see(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let ritas = simple_ticket(app, &rita, "Rita's ticket").await;
    let sams = simple_ticket(app, &sam, "Sam's ticket").await;
    let laptop = asset_id(app, &agent, "Rita laptop", Some(&rita)).await;
    let router = asset_id(app, &agent, "Router", None).await;
    let link = |ticket: i32, asset: &str| json!({"input": {"ticketId": gid("Ticket", ticket), "assetId": asset}});

    let linked = app
        .graphql(Some(&agent.token), LINK, link(ritas.id, &laptop))
        .await;
    let payload = &data(&linked)["linkAsset"];
    assert_eq!(
        payload["ticket"]["assets"],
        json!([{"name": "Rita laptop"}])
    );
    assert_eq!(
        payload["asset"]["tickets"],
        json!([{"title": "Rita's ticket"}])
    );
    data(
        &app.graphql(Some(&agent.token), LINK, link(sams.id, &laptop))
            .await,
    );
    data(
        &app.graphql(Some(&agent.token), LINK, link(ritas.id, &router))
            .await,
    );

    // Rita owns the laptop but may not see Sam's ticket, nor the router she does not own.
    let laptop_q = "query($id: ID!) { asset(id: $id) { tickets { title } } }";
    let as_rita = app
        .graphql(Some(&rita.token), laptop_q, json!({"id": laptop}))
        .await;
    assert_eq!(
        data(&as_rita)["asset"]["tickets"],
        json!([{"title": "Rita's ticket"}])
    );
    let as_agent = app
        .graphql(Some(&agent.token), laptop_q, json!({"id": laptop}))
        .await;
    assert_eq!(
        data(&as_agent)["asset"]["tickets"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let ticket_q = "query($id: ID!) { ticket(id: $id) { assets { name } } }";
    let vars = json!({"id": gid("Ticket", ritas.id)});
    let rita_ticket = app.graphql(Some(&rita.token), ticket_q, vars.clone()).await;
    assert_eq!(
        data(&rita_ticket)["ticket"]["assets"],
        json!([{"name": "Rita laptop"}])
    );
    let agent_ticket = app.graphql(Some(&agent.token), ticket_q, vars).await;
    assert_eq!(
        data(&agent_ticket)["ticket"]["assets"],
        json!([{"name": "Rita laptop"}, {"name": "Router"}])
    );

    // A requester may not change links on their own ticket.
    let denied = app
        .graphql(Some(&rita.token), UNLINK, link(ritas.id, &laptop))
        .await;
    assert_eq!(first_code(&denied), "FORBIDDEN");
    let unlinked = app
        .graphql(Some(&agent.token), UNLINK, link(ritas.id, &router))
        .await;
    assert_eq!(
        data(&unlinked)["unlinkAsset"]["ticket"]["assets"],
        json!([{"name": "Rita laptop"}])
    );
    assert_eq!(
        data(&unlinked)["unlinkAsset"]["asset"]["tickets"],
        json!([])
    );
}
db_test!(links_show_only_what_the_viewer_may_see);

async fn asset_list_with_owners_and_tickets_runs_constant_statements(app: &TestApp) {
    let agent = app.agent("adam").await;
    let query = "{ assets(first: 100) { nodes { name owner { username } tickets { title assets { name } } } } }";
    let mut measured = Vec::new();
    for round in 0..2 {
        for i in 0..3 {
            let owner = app.user(&format!("owner{round}{i}")).await;
            let ticket = simple_ticket(app, &owner, "Broken").await;
            let asset = asset_id(app, &agent, &format!("A{round}{i}"), Some(&owner)).await;
            let input = json!({"input": {"ticketId": gid("Ticket", ticket.id), "assetId": asset}});
            data(&app.graphql(Some(&agent.token), LINK, input).await);
        }
        let before = app.statements();
        let body = app.graphql(Some(&agent.token), query, json!({})).await;
        measured.push(app.statements() - before);
        let nodes = data(&body)["assets"]["nodes"].as_array().unwrap().clone();
        assert_eq!(nodes.len(), 3 * (round + 1));
        assert_eq!(nodes[0]["owner"]["username"], "owner00");
        assert_eq!(nodes[0]["tickets"][0]["assets"][0]["name"], "A00");
    }
    assert_eq!(
        measured[0], measured[1],
        "statements grew with the page: {measured:?}"
    );
}
/// Each asset's tickets and each ticket's assets are plain lists, priced at 100 each: a page of assets with
/// both is over the default node limit and budget, which this statement count is not about.
fn many_nodes(config: &mut deskgraph::config::Config) {
    config.graphql.max_nodes = 10_000_000;
    config.graphql.points_authenticated = 1_000_000;
}
db_test!(
    asset_list_with_owners_and_tickets_runs_constant_statements,
    many_nodes
);

/// A page of assets is read as a window: walking `first`/`after` meets every asset once, in name order, with the
/// same total on every page; a requester's window and total count only their own.
async fn asset_pages_walk_the_inventory_in_windows(app: &TestApp) {
    let agent = app.agent("adam").await;
    let rita = app.user("rita").await;
    for name in ["Echo", "Alpha", "Delta", "Bravo", "Charlie"] {
        asset_id(app, &agent, name, None).await;
    }
    asset_id(app, &agent, "Rita phone", Some(&rita)).await;
    asset_id(app, &agent, "Rita laptop", Some(&rita)).await;
    let q = "query($after: String, $f: AssetFilter) { assets(first: 2, after: $after, filter: $f) {
        totalCount nodes { name } pageInfo { hasNextPage hasPreviousPage endCursor } } }";
    let walk = |token: String, filter: Value| async move {
        let (mut names, mut after, mut pages) = (Vec::new(), Value::Null, 0);
        loop {
            let body = app
                .graphql(Some(&token), q, json!({"after": after, "f": filter}))
                .await;
            let page = data(&body)["assets"].clone();
            pages += 1;
            assert_eq!(page["pageInfo"]["hasPreviousPage"], pages > 1);
            for n in page["nodes"].as_array().unwrap() {
                names.push(n["name"].as_str().unwrap().to_string());
            }
            let total = page["totalCount"].as_i64().unwrap();
            if page["pageInfo"]["hasNextPage"] != json!(true) {
                return (names, total, pages);
            }
            after = page["pageInfo"]["endCursor"].clone();
        }
    };
    let (names, total, pages) = walk(agent.token.clone(), Value::Null).await;
    let all = [
        "Alpha",
        "Bravo",
        "Charlie",
        "Delta",
        "Echo",
        "Rita laptop",
        "Rita phone",
    ];
    assert_eq!(names, all);
    assert_eq!((total, pages), (7, 4));
    let (names, total, _) = walk(agent.token.clone(), json!({"search": "a"})).await;
    let with_a: Vec<&str> = all
        .iter()
        .copied()
        .filter(|n| n.to_lowercase().contains('a'))
        .collect();
    assert_eq!(names, with_a);
    assert_eq!(total, with_a.len() as i64);
    let (names, total, pages) = walk(rita.token.clone(), Value::Null).await;
    assert_eq!(names, ["Rita laptop", "Rita phone"]);
    assert_eq!((total, pages), (2, 1));
    // A cursor past the end is an empty page with the same total, not an error.
    let far = app
        .graphql(
            Some(&agent.token),
            q,
            json!({"after": gql_cursor(500), "f": null}),
        )
        .await;
    assert_eq!(data(&far)["assets"]["nodes"], json!([]));
    assert_eq!(data(&far)["assets"]["totalCount"], 7);
    assert_eq!(data(&far)["assets"]["pageInfo"]["hasNextPage"], false);
}
db_test!(asset_pages_walk_the_inventory_in_windows);

/// The connections' cursor for a position (opaque to clients, but stable).
fn gql_cursor(position: u64) -> String {
    deskgraph::graphql::connection::cursor(position)
}
