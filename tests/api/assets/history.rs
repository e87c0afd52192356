//! A ticket's history names linked assets only to viewers who may see those assets: a requester
//! reads the links of assets they own, and nothing of the others (entries, ids, counts).
use crate::db_test;
use crate::support::graphql::{data, first_code, gid, simple_ticket};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::world::actor;
use deskgraph::domain::AssetType;
use deskgraph::service::assets::{self, NewAsset};
use serde_json::{json, Value};

const HISTORY: &str = r#"query($id: ID!) { ticket(id: $id) {
  history(first: 100) { totalCount nodes { id action changes } }
} }"#;

async fn history(app: &TestApp, viewer: &TestUser, ticket_id: i32) -> Value {
    let body = app
        .graphql(
            Some(&viewer.token),
            HISTORY,
            json!({"id": gid("Ticket", ticket_id)}),
        )
        .await;
    data(&body)["ticket"]["history"].clone()
}

/// `(action, asset id)` of the link entries of a history.
fn links(history: &Value) -> Vec<(String, i64)> {
    history["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"].as_str().unwrap().ends_with("link_asset"))
        .map(|e| {
            let ids = &e["changes"]["asset_id"];
            let id = ids[1].as_i64().or(ids[0].as_i64()).unwrap();
            (e["action"].as_str().unwrap().to_string(), id)
        })
        .collect()
}

db_test!(history_hides_links_of_assets_the_viewer_may_not_see);
async fn history_hides_links_of_assets_the_viewer_may_not_see(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let team = actor(app, &agent).await;
    let ticket = simple_ticket(app, &rita, "Laptop will not boot").await;
    let asset = |name: &str, owner: Option<i32>| NewAsset {
        name: name.into(),
        asset_type: AssetType::Hardware,
        status: None,
        location: None,
        owner_id: owner,
        description: None,
        serial_number: None,
    };
    let server = assets::create(&app.state.db, &team, asset("Payroll server", None))
        .await
        .unwrap();
    let laptop = assets::create(&app.state.db, &team, asset("Rita's laptop", Some(rita.id)))
        .await
        .unwrap();
    for id in [server.id, laptop.id] {
        assets::link_asset(&app.state.db, &team, ticket.id, id)
            .await
            .unwrap();
    }
    assets::unlink_asset(&app.state.db, &team, ticket.id, server.id)
        .await
        .unwrap();

    let seen = history(app, &agent, ticket.id).await;
    assert_eq!(
        links(&seen),
        vec![
            ("link_asset".to_string(), i64::from(server.id)),
            ("link_asset".to_string(), i64::from(laptop.id)),
            ("unlink_asset".to_string(), i64::from(server.id)),
        ]
    );
    let hidden: Vec<Value> = seen["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["changes"]["asset_id"]
                .to_string()
                .contains(&server.id.to_string())
        })
        .cloned()
        .collect();
    assert_eq!(hidden.len(), 2);

    // Rita reads the link of her own laptop, and nothing about the server.
    let hers = history(app, &rita, ticket.id).await;
    assert_eq!(
        links(&hers),
        vec![("link_asset".to_string(), i64::from(laptop.id))],
        "{hers}"
    );
    let total = |h: &Value| h["totalCount"].as_i64().unwrap();
    assert_eq!(total(&hers), total(&seen) - 2, "{hers}");
    assert_eq!(total(&hers), hers["nodes"].as_array().unwrap().len() as i64);
    // Asked for by id, the server's entries do not exist for her.
    for entry in &hidden {
        let body = app
            .graphql(
                Some(&rita.token),
                "query($id: ID!) { node(id: $id) { ... on AuditEvent { action changes } } }",
                json!({"id": entry["id"]}),
            )
            .await;
        assert_eq!(body["data"]["node"], Value::Null, "{body}");
        assert_eq!(first_code(&body), "NOT_FOUND");
    }
}
