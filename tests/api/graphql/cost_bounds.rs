//! Bounds beside the node limit (docs/graphql.md): a list under an object returns at most what it is
//! priced at per parent, and subscriptions take their selection's cost from the viewer's points when they
//! start (their events are not charged).
use crate::db_test;
use crate::support::clients::actor;
use crate::support::helpers::TestApp;
use crate::support::subscriptions::{serve, wait_for_subscribers, WsClient};
use deskgraph::config::Config;
use deskgraph::domain::AssetType;
use deskgraph::graphql::limits::cost::LIST_MAX;
use deskgraph::service::assets::{self, NewAsset};
use deskgraph::service::tickets::{self, NewTicket};
use deskgraph::service::Take;
use serde_json::json;

fn small_budget(config: &mut Config) {
    config.graphql.points_authenticated = 50;
}

/// 100 comments and 100 history entries: 200 nodes, 2 points.
const TWO_POINTS: &str = "subscription { ticketEvents { kind ticket { \
    comments(first: 100) { nodes { id } } history(first: 100) { nodes { id } } } } }";
/// 100 comments with their attachments (a list counted as 100): 10,100 nodes, 101 points.
const TOO_DEAR: &str = "subscription { ticketEvents { kind ticket { \
    comments(first: 100) { nodes { attachments { id } } } } } }";

async fn used(app: &TestApp, token: &str) -> u64 {
    let body = app
        .graphql(Some(token), "{ rateLimit { used } }", json!({}))
        .await;
    body["data"]["rateLimit"]["used"]
        .as_u64()
        .unwrap_or_else(|| panic!("{body}"))
}

db_test!(subscriptions_take_their_cost_when_they_start, small_budget);
async fn subscriptions_take_their_cost_when_they_start(app: &TestApp) {
    let ava = app.agent("ava").await;
    let url = serve(app.state.clone()).await;
    assert_eq!(used(app, &ava.token).await, 1);
    let mut client = WsClient::connect(&url, &ava.token).await;
    client.subscribe_to("cheap", TWO_POINTS, json!({})).await;
    wait_for_subscribers(&app.state, 1).await;
    // One point for each `rateLimit` query, two for the subscription.
    assert_eq!(used(app, &ava.token).await, 1 + 2 + 1);

    // A subscription that costs more than is left is refused with the budget's error.
    client.subscribe_to("dear", TOO_DEAR, json!({})).await;
    let last = client.expect_end("dear").await;
    assert_eq!(
        last["errors"][0]["extensions"]["code"], "RATE_LIMITED",
        "{last}"
    );
    assert_eq!(last["errors"][0]["extensions"]["cost"], 101, "{last}");
}

db_test!(lists_under_an_object_return_at_most_their_price);
async fn lists_under_an_object_return_at_most_their_price(app: &TestApp) {
    let agent = app.agent("ava").await;
    let team = actor(app, &agent).await;
    let ticket = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &team,
        NewTicket {
            title: "Many things".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let linked = LIST_MAX as usize + 5;
    for i in 0..linked {
        let asset = assets::create(
            &app.state.db,
            &team,
            NewAsset {
                name: format!("Laptop {i:03}"),
                asset_type: AssetType::Hardware,
                status: None,
                location: None,
                owner_id: None,
                description: None,
                serial_number: None,
            },
        )
        .await
        .unwrap();
        assets::link_asset(&app.state.db, &team, ticket.id, asset.id)
            .await
            .unwrap();
    }
    let body = app
        .graphql(
            Some(&agent.token),
            "query($id: Int) { rateLimit { nodeCount } ticket(databaseId: $id) { assets { name } } }",
            json!({ "id": ticket.id }),
        )
        .await;
    assert!(body["errors"].is_null(), "{body}");
    let names: Vec<&str> = body["data"]["ticket"]["assets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    // The first hundred by name, as priced.
    assert_eq!(names.len(), LIST_MAX as usize);
    assert_eq!(names.first(), Some(&"Laptop 000"));
    assert_eq!(names.last(), Some(&"Laptop 099"));
    assert_eq!(body["data"]["rateLimit"]["nodeCount"], LIST_MAX);
    // The service still has every link.
    let links = assets::assets_of_tickets(&app.state.db.conn, &team, &[ticket.id], Take::All)
        .await
        .unwrap();
    assert_eq!(links[&ticket.id].len(), linked);
}
