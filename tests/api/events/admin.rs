//! Webhook endpoints managed by administrators: permissions, validation, event filters, log, redelivery.
use crate::db_test;
use crate::support::events::*;
use crate::support::helpers::TestApp;
use deskgraph::domain::TicketStatus;
use deskgraph::error::AppError;
use deskgraph::jobs::worker;
use deskgraph::service::tickets;
use deskgraph::service::webhooks::{self, NewWebhook, WebhookPatch};
use deskgraph::service::Take;

fn hook(url: &str, events: &[&str]) -> NewWebhook {
    NewWebhook {
        url: url.to_string(),
        secret: "endpoint-secret".to_string(),
        events: events.iter().map(|e| e.to_string()).collect(),
        active: None,
    }
}

db_test!(only_admins_manage_webhooks);
async fn only_admins_manage_webhooks(app: &TestApp) {
    let agent = actor(app, &app.agent("bob").await).await;
    let admin = actor(app, &app.admin("root").await).await;
    let refused = webhooks::create(
        &app.state.db,
        app.state.config.webhook_allow_private,
        &agent,
        hook("https://example.com/h", &[]),
    )
    .await;
    assert!(
        matches!(refused, Err(AppError::Forbidden { .. })),
        "{refused:?}"
    );
    assert!(matches!(
        webhooks::list(&app.state.db, &agent, Take::All).await,
        Err(AppError::Forbidden { .. })
    ));
    let created = webhooks::create(
        &app.state.db,
        app.state.config.webhook_allow_private,
        &admin,
        hook("https://example.com/h", &[]),
    )
    .await
    .unwrap();
    assert!(matches!(
        webhooks::delete(&app.state.db, &agent, created.id).await,
        Err(AppError::Forbidden { .. })
    ));
    assert!(matches!(
        webhooks::deliveries(&app.state.db, &agent, None, 10).await,
        Err(AppError::Forbidden { .. })
    ));
    for bad in ["ftp://example.com/h", "not a url", "http://"] {
        let result = webhooks::create(
            &app.state.db,
            app.state.config.webhook_allow_private,
            &admin,
            hook(bad, &[]),
        )
        .await;
        assert!(
            matches!(result, Err(AppError::Validation { .. })),
            "{bad}: {result:?}"
        );
    }
    let result = webhooks::create(
        &app.state.db,
        app.state.config.webhook_allow_private,
        &admin,
        hook("https://example.com/h", &["ticket.exploded"]),
    )
    .await;
    assert!(
        matches!(result, Err(AppError::Validation { .. })),
        "{result:?}"
    );
    let updated = webhooks::update(
        &app.state.db,
        app.state.config.webhook_allow_private,
        &admin,
        created.id,
        WebhookPatch {
            active: Some(false),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(!updated.active);
    webhooks::delete(&app.state.db, &admin, created.id)
        .await
        .unwrap();
    assert!(webhooks::list(&app.state.db, &admin, Take::All)
        .await
        .unwrap()
        .is_empty());
}

db_test!(stored_endpoint_gets_only_the_events_it_wants_and_can_redeliver);
async fn stored_endpoint_gets_only_the_events_it_wants_and_can_redeliver(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let (state, _) = state_with(app, |_| {});
    let admin = actor(app, &app.admin("root").await).await;
    let agent = actor(app, &app.agent("bob").await).await;
    let endpoint = webhooks::create(
        &state.db,
        state.config.webhook_allow_private,
        &admin,
        hook(&receiver.url, &["ticket.status_changed"]),
    )
    .await
    .unwrap();
    let t = create_ticket(&state, &agent, titled("Disk full")).await;
    tickets::change_status(
        state.write_deps(deskgraph::domain::Channel::System),
        &agent,
        t.id,
        TicketStatus::Open,
    )
    .await
    .unwrap();
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1, "ticket.created was not wanted");
    let body: serde_json::Value = serde_json::from_str(&hits[0].body).unwrap();
    assert_eq!(body["event"], "ticket.status_changed");
    assert_eq!(
        (body["from"].as_str(), body["to"].as_str()),
        (Some("new"), Some("open"))
    );

    let log = webhooks::deliveries(&state.db, &admin, Some(Some(endpoint.id)), 10)
        .await
        .unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].status_code, Some(200));
    webhooks::redeliver(&state.db, &admin, log[0].id)
        .await
        .unwrap();
    while worker::run_once(&state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[1].body, hits[0].body);
    assert_eq!(
        hits[1].headers.get("x-webhook-id"),
        hits[0].headers.get("x-webhook-id")
    );
    assert!(matches!(
        webhooks::redeliver(&state.db, &agent, log[0].id).await,
        Err(AppError::Forbidden { .. })
    ));
}
