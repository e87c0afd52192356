//! The webhook target policy (issue 16, item 11): internal addresses are refused when an endpoint is saved
//! and again at delivery, redirects are not followed, and nothing is signed with an empty key.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::config::Config;
use deskgraph::jobs::worker;
use entity::webhook_delivery;
use sea_orm::EntityTrait;
use serde_json::json;

const CREATE: &str =
    "mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id url } } }";

fn strict(config: &mut Config) {
    config.webhook_allow_private = false;
}

const INTERNAL: [&str; 9] = [
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.5/hook",
    "http://192.168.1.1/hook",
    "http://100.64.0.1/hook",
    "http://[::1]/hook",
    "http://[fe80::1]/hook",
    "http://[::ffff:169.254.169.254]/hook",
];

async fn internal_targets_are_refused_when_saved(app: &TestApp) {
    let admin = app.admin("root").await;
    let token = Some(admin.token.as_str());
    for url in INTERNAL {
        let body = app
            .graphql(
                token,
                CREATE,
                json!({"input": {"url": url, "secret": "very-secret-key"}}),
            )
            .await;
        let ext = &body["errors"][0]["extensions"];
        assert_eq!(ext["code"], "BAD_USER_INPUT", "{url}: {body}");
        assert!(ext["fields"]["url"].is_array(), "{url}: {body}");
    }
    // A public name is accepted, and cannot be changed into an internal one.
    let body = app
        .graphql(
            token,
            CREATE,
            json!({"input": {"url": "https://hooks.example.com/h", "secret": "very-secret-key"}}),
        )
        .await;
    let id = body["data"]["createWebhook"]["webhook"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_string();
    let body = app
        .graphql(
            token,
            "mutation($input: UpdateWebhookInput!) { updateWebhook(input: $input) { webhook { url } } }",
            json!({"input": {"id": id, "url": "http://169.254.169.254/"}}),
        )
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{body}"
    );
    assert!(
        body["errors"][0]["extensions"]["fields"]["url"].is_array(),
        "{body}"
    );
}
db_test!(internal_targets_are_refused_when_saved, strict);

async fn delivery_to_an_internal_address_is_refused(app: &TestApp) {
    // The configured endpoint is not saved through the service: its check is the one at delivery.
    let receiver = Receiver::start(Mode::Ok).await;
    let by_name = receiver.url.replace("127.0.0.1", "localhost");
    for (i, url) in [receiver.url.clone(), by_name].into_iter().enumerate() {
        let (state, _) = state_with(app, |c| {
            c.webhook_url = Some(url.clone());
            c.webhook_secret = "s3cret".into();
        });
        let ann = app.user(&format!("ann{i}")).await;
        create_ticket(&state, &actor(app, &ann).await, titled("VPN down")).await;
        while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    }
    assert!(
        receiver.hits().is_empty(),
        "an internal receiver was called"
    );
    let rows = outbox_rows(app).await;
    assert_eq!(rows.len(), 2);
    for row in rows {
        // Refused once, not retried.
        assert_eq!(
            (row.status.as_str(), row.attempts),
            ("failed", 1),
            "{row:?}"
        );
        let error = row.last_error.unwrap_or_default();
        assert!(error.contains("loopback"), "{error}");
    }
}
db_test!(delivery_to_an_internal_address_is_refused, strict);

async fn redirects_are_not_followed(app: &TestApp) {
    let receiver = Receiver::start(Mode::Redirect).await;
    let state = hooked(app, &receiver);
    let ann = app.user("ann").await;
    create_ticket(&state, &actor(app, &ann).await, titled("VPN down")).await;
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1, "the redirect was followed: {hits:?}");
    let rows = outbox_rows(app).await;
    assert_eq!(rows[0].status, "failed");
    assert!(
        rows[0].last_error.as_deref().unwrap_or("").contains("302"),
        "{:?}",
        rows[0].last_error
    );
    let log = webhook_delivery::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status_code, Some(302));
}
db_test!(redirects_are_not_followed);

async fn nothing_is_signed_with_an_empty_key(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let url = receiver.url.clone();
    let (state, _) = state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = String::new();
    });
    let ann = app.user("ann").await;
    create_ticket(&state, &actor(app, &ann).await, titled("VPN down")).await;
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    assert!(receiver.hits().is_empty());
    let rows = outbox_rows(app).await;
    assert_eq!(rows[0].status, "failed");
    assert!(
        rows[0]
            .last_error
            .as_deref()
            .unwrap_or("")
            .contains("secret"),
        "{:?}",
        rows[0].last_error
    );
}
db_test!(nothing_is_signed_with_an_empty_key);
