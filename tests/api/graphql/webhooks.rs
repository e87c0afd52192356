//! Webhook administration over GraphQL: CRUD for admins, FORBIDDEN for others, the secret never
//! shown, the delivery log and redelivery.
use crate::db_test;
use crate::support::events::{Mode, Receiver};
use crate::support::helpers::TestApp;
use deskgraph::jobs::worker;
use serde_json::{json, Value};

const FIELDS: &str = "id databaseId url events active createdAt updatedAt";

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("")
}

async fn create(app: &TestApp, token: &str, url: &str, events: Value) -> Value {
    let query = format!(
        "mutation($input: CreateWebhookInput!) {{ createWebhook(input: $input) {{ webhook {{ {FIELDS} }} }} }}"
    );
    let input = json!({"url": url, "secret": "very-secret-key", "events": events});
    app.graphql(Some(token), &query, json!({ "input": input }))
        .await
}

db_test!(admins_manage_webhooks_and_never_see_the_secret);
async fn admins_manage_webhooks_and_never_see_the_secret(app: &TestApp) {
    let admin = app.admin("root").await;
    let mut seen = String::new();

    let created = create(
        app,
        &admin.token,
        "https://example.com/hook",
        json!(["ticket.created"]),
    )
    .await;
    seen.push_str(&created.to_string());
    let hook = &created["data"]["createWebhook"]["webhook"];
    assert_eq!(hook["url"], "https://example.com/hook", "{created}");
    assert_eq!(hook["events"], json!(["ticket.created"]));
    assert_eq!(hook["active"], true);
    let id = hook["id"].as_str().unwrap().to_string();

    let update = "mutation($input: UpdateWebhookInput!) { updateWebhook(input: $input) { webhook { id url events active } } }";
    let updated = app
        .graphql(
            Some(&admin.token),
            update,
            json!({"input": {"id": id, "active": false, "events": [], "secret": "rotated-secret"}}),
        )
        .await;
    seen.push_str(&updated.to_string());
    let hook = &updated["data"]["updateWebhook"]["webhook"];
    assert_eq!(hook["active"], false, "{updated}");
    assert_eq!(hook["events"], json!([]));
    assert_eq!(hook["url"], "https://example.com/hook");

    let listed = app
        .graphql(
            Some(&admin.token),
            &format!("{{ webhooks {{ {FIELDS} }} }}"),
            json!({}),
        )
        .await;
    seen.push_str(&listed.to_string());
    assert_eq!(
        listed["data"]["webhooks"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
    let node = app
        .graphql(
            Some(&admin.token),
            "query($id: ID!) { node(id: $id) { ... on Webhook { url } } }",
            json!({ "id": id }),
        )
        .await;
    seen.push_str(&node.to_string());
    assert_eq!(
        node["data"]["node"]["url"], "https://example.com/hook",
        "{node}"
    );

    // No field of the schema can return the secret: asking for one is a validation error.
    let asked = app
        .graphql(Some(&admin.token), "{ webhooks { secret } }", json!({}))
        .await;
    assert!(asked["errors"].is_array(), "{asked}");
    seen.push_str(&asked.to_string());
    assert!(!seen.contains("very-secret-key"), "{seen}");
    assert!(!seen.contains("rotated-secret"), "{seen}");

    let bad = create(app, &admin.token, "ftp://example.com/h", json!([])).await;
    assert_eq!(code(&bad), "BAD_USER_INPUT", "{bad}");
    let bad = create(
        app,
        &admin.token,
        "https://example.com/h",
        json!(["ticket.exploded"]),
    )
    .await;
    assert_eq!(code(&bad), "BAD_USER_INPUT", "{bad}");

    let delete = "mutation($input: DeleteWebhookInput!) { deleteWebhook(input: $input) { deletedWebhookId } }";
    let deleted = app
        .graphql(Some(&admin.token), delete, json!({"input": {"id": id}}))
        .await;
    assert_eq!(
        deleted["data"]["deleteWebhook"]["deletedWebhookId"], id,
        "{deleted}"
    );
    let listed = app
        .graphql(Some(&admin.token), "{ webhooks { id } }", json!({}))
        .await;
    assert_eq!(listed["data"]["webhooks"], json!([]), "{listed}");
}

db_test!(agents_and_requesters_are_forbidden);
async fn agents_and_requesters_are_forbidden(app: &TestApp) {
    let admin = app.admin("root").await;
    let created = create(app, &admin.token, "https://example.com/hook", json!([])).await;
    let id = created["data"]["createWebhook"]["webhook"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for user in [app.agent("bob").await, app.user("alice").await] {
        let listed = app
            .graphql(Some(&user.token), "{ webhooks { id url } }", json!({}))
            .await;
        assert_eq!(code(&listed), "FORBIDDEN", "{listed}");
        let made = create(app, &user.token, "https://evil.example/h", json!([])).await;
        assert_eq!(code(&made), "FORBIDDEN", "{made}");
        let update = "mutation($input: UpdateWebhookInput!) { updateWebhook(input: $input) { webhook { id } } }";
        let changed = app
            .graphql(
                Some(&user.token),
                update,
                json!({"input": {"id": id, "url": "https://evil.example/h"}}),
            )
            .await;
        assert_eq!(code(&changed), "FORBIDDEN", "{changed}");
        let delete = "mutation($input: DeleteWebhookInput!) { deleteWebhook(input: $input) { deletedWebhookId } }";
        let deleted = app
            .graphql(Some(&user.token), delete, json!({"input": {"id": id}}))
            .await;
        assert_eq!(code(&deleted), "FORBIDDEN", "{deleted}");
        let node = app
            .graphql(
                Some(&user.token),
                "query($id: ID!) { node(id: $id) { id } }",
                json!({ "id": id }),
            )
            .await;
        assert_eq!(code(&node), "NOT_FOUND", "{node}");
    }
    let anonymous = app.graphql(None, "{ webhooks { id } }", json!({})).await;
    assert_eq!(code(&anonymous), "UNAUTHENTICATED", "{anonymous}");
    let listed = app
        .graphql(Some(&admin.token), "{ webhooks { url } }", json!({}))
        .await;
    assert_eq!(
        listed["data"]["webhooks"],
        json!([{"url": "https://example.com/hook"}]),
        "nothing was changed: {listed}"
    );
}

db_test!(admins_read_the_delivery_log_and_redeliver);
async fn admins_read_the_delivery_log_and_redeliver(app: &TestApp) {
    let receiver = Receiver::start(Mode::FailFirst(1)).await;
    let admin = app.admin("root").await;
    let agent = app.agent("bob").await;
    let created = create(app, &admin.token, &receiver.url, json!(["ticket.created"])).await;
    let hook_id = created["data"]["createWebhook"]["webhook"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let made = app
        .post(
            "/api/tickets/",
            Some(&agent.token),
            json!({"title": "Printer on fire"}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text);
    // The first call fails (500); retry at once so the log holds a failure and a success.
    let (state, _) = crate::support::events::state_with(app, |c| c.outbox_backoff_ms = 0);
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    assert_eq!(receiver.hits().len(), 2);

    let log_query = "query($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on Webhook { deliveries(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id databaseId eventId event attempt statusCode error durationMs createdAt } } } } }";
    let page = app
        .graphql(
            Some(&admin.token),
            log_query,
            json!({"id": hook_id, "first": 1}),
        )
        .await;
    let log = &page["data"]["node"]["deliveries"];
    assert_eq!(log["totalCount"], 2, "{page}");
    assert_eq!(log["pageInfo"]["hasNextPage"], true, "{page}");
    let newest = &log["nodes"][0];
    assert_eq!(newest["statusCode"], 204, "{page}");
    assert_eq!(newest["attempt"], 2);
    assert_eq!(newest["event"], "ticket.created");
    let after = log["pageInfo"]["endCursor"].clone();
    let page = app
        .graphql(
            Some(&admin.token),
            log_query,
            json!({"id": hook_id, "first": 10, "after": after}),
        )
        .await;
    let oldest = &page["data"]["node"]["deliveries"]["nodes"][0];
    assert_eq!(oldest["statusCode"], 500, "{page}");
    assert_eq!(oldest["attempt"], 1);
    assert_eq!(oldest["eventId"], newest["eventId"]);

    let redeliver = "mutation($input: RedeliverWebhookInput!) { redeliverWebhook(input: $input) { eventId event } }";
    let refused = app
        .graphql(
            Some(&agent.token),
            redeliver,
            json!({"input": {"deliveryId": newest["id"]}}),
        )
        .await;
    assert_eq!(code(&refused), "FORBIDDEN", "{refused}");
    let again = app
        .graphql(
            Some(&admin.token),
            redeliver,
            json!({"input": {"deliveryId": newest["id"]}}),
        )
        .await;
    assert_eq!(
        again["data"]["redeliverWebhook"]["eventId"], newest["eventId"],
        "{again}"
    );
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[2].body, hits[1].body);
    let bad = app
        .graphql(
            Some(&admin.token),
            redeliver,
            json!({"input": {"deliveryId": hook_id}}),
        )
        .await;
    assert_eq!(code(&bad), "BAD_USER_INPUT", "{bad}");
}
