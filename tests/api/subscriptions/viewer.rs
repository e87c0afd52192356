//! A subscription sees each event as its subscriber is when the event is delivered: the credential
//! is resolved again for every event, nested fields use that viewer, and a revoked token, an expired
//! JWT or a deactivated account ends the subscription with UNAUTHENTICATED.
use crate::db_test;
use crate::support::graphql::{gid, simple_ticket};
use crate::support::helpers::{TestApp, TestUser};
use crate::support::subscriptions::{serve, wait_for_subscribers, WsClient};
use crate::support::world::{actor, add};
use chrono::Utc;
use deskgraph::domain::{CommentType, TicketStatus};
use deskgraph::service::{tickets, tokens};
use entity::{user, user_group};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::{json, Value};

const WATCH: &str = r#"subscription($t: ID) { ticketEvents(ticketId: $t) {
  kind
  ticket { commentsCount viewerCanCommentInternally viewerCanUpdate allowedTransitions
           comments { nodes { body } } history { nodes { changes } } }
} }"#;

/// Move `ticket_id` as `agent`, which every subscriber of the ticket hears about.
async fn poke(app: &TestApp, agent: &TestUser, ticket_id: i32, to: TicketStatus) {
    tickets::change_status(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(app, agent).await,
        ticket_id,
        to,
    )
    .await
    .unwrap();
}

/// Subscribe `client` to `ticket_id` with [`WATCH`] and wait until the subscription is in place.
async fn watch(app: &TestApp, client: &mut WsClient, ticket_id: i32) {
    client
        .subscribe_to("w", WATCH, json!({"t": gid("Ticket", ticket_id)}))
        .await;
    wait_for_subscribers(&app.state, 1).await;
}

db_test!(nested_fields_use_the_subscriber_as_they_are_at_each_event);
async fn nested_fields_use_the_subscriber_as_they_are_at_each_event(app: &TestApp) {
    // Rita is on the team when she subscribes to her own ticket, and leaves it before the event.
    let rita = app.user_with("rita", &["Agents"], false, false).await;
    let agent = app.agent("adam").await;
    let ticket = simple_ticket(app, &rita, "Monitor flickers").await;
    add(
        app,
        &agent,
        ticket.id,
        "INTERNAL-NOTE: replace the whole batch",
        CommentType::Internal,
    )
    .await;
    let url = serve(app.state.clone()).await;
    let mut client = WsClient::connect(&url, &rita.token).await;
    watch(app, &mut client, ticket.id).await;

    user_group::Entity::delete_many()
        .filter(user_group::Column::UserId.eq(rita.id))
        .exec(&app.state.db.conn)
        .await
        .unwrap();
    // What the credentials cache lifetime would do on its own.
    app.state.auth_cache.clear();
    add(app, &agent, ticket.id, "Public reply", CommentType::Public).await;

    let event = client.expect_event().await;
    assert_eq!(event["kind"], "COMMENT_ADDED", "{event}");
    let t = &event["ticket"];
    assert_eq!(
        t["comments"]["nodes"],
        json!([{"body": "Public reply"}]),
        "{event}"
    );
    assert_eq!(t["commentsCount"], 1, "{event}");
    assert_eq!(t["viewerCanCommentInternally"], false, "{event}");
    assert_eq!(t["allowedTransitions"], json!([]), "{event}");
    assert!(!event.to_string().contains("INTERNAL-NOTE"), "{event}");
}

/// Rita's ticket, Rita subscribed to it with `token`, and one event that still reaches her.
async fn subscribed(
    app: &TestApp,
    rita: &TestUser,
    agent: &TestUser,
    token: &str,
) -> (WsClient, i32) {
    let ticket = simple_ticket(app, rita, "Phone will not charge").await;
    let url = serve(app.state.clone()).await;
    let mut client = WsClient::connect(&url, token).await;
    watch(app, &mut client, ticket.id).await;
    poke(app, agent, ticket.id, TicketStatus::Open).await;
    assert_eq!(client.expect_event().await["kind"], "STATUS_CHANGED");
    (client, ticket.id)
}

fn code(last: &Value) -> &str {
    last["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("")
}

db_test!(a_revoked_token_ends_the_subscription);
async fn a_revoked_token_ends_the_subscription(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let (mut client, ticket_id) = subscribed(app, &rita, &agent, &rita.token).await;
    tokens::revoke_by_name(&app.state.db, &app.state.auth_cache, rita.id, "test")
        .await
        .unwrap();
    poke(app, &agent, ticket_id, TicketStatus::InProgress).await;
    let last = client.expect_end("w").await;
    assert_eq!(code(&last), "UNAUTHENTICATED", "{last}");
    assert_eq!(last["data"], Value::Null, "{last}");
    poke(app, &agent, ticket_id, TicketStatus::OnHold).await;
    client.expect_silence().await;
}

/// A JWT for `user` issued almost a lifetime ago: it expires three seconds from now (expiry has whole
/// seconds).
fn expiring_jwt(app: &TestApp, user: &TestUser) -> String {
    let ttl = app.state.config.jwt_ttl_seconds;
    let (jwt, _) = app
        .state
        .jwt
        .issue_at(user.id, Utc::now() - chrono::Duration::seconds(ttl - 3))
        .unwrap();
    jwt
}

db_test!(an_expired_jwt_ends_the_subscription);
async fn an_expired_jwt_ends_the_subscription(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let jwt = expiring_jwt(app, &rita);
    let (mut client, ticket_id) = subscribed(app, &rita, &agent, &jwt).await;
    tokio::time::sleep(std::time::Duration::from_millis(4100)).await;
    poke(app, &agent, ticket_id, TicketStatus::InProgress).await;
    let last = client.expect_end("w").await;
    assert_eq!(code(&last), "UNAUTHENTICATED", "{last}");
}

fn quick_recheck(config: &mut deskgraph::config::Config) {
    config.auth_cache_seconds = 1;
}

db_test!(
    a_quiet_subscription_ends_when_its_jwt_expires,
    quick_recheck
);
/// No event arrives after the expiry: the timer alone ends the subscription.
async fn a_quiet_subscription_ends_when_its_jwt_expires(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let jwt = expiring_jwt(app, &rita);
    let (mut client, _) = subscribed(app, &rita, &agent, &jwt).await;
    let last = client.expect_end("w").await;
    assert_eq!(code(&last), "UNAUTHENTICATED", "{last}");
}

db_test!(
    a_quiet_subscription_ends_when_its_token_is_revoked,
    quick_recheck
);
async fn a_quiet_subscription_ends_when_its_token_is_revoked(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let (mut client, _) = subscribed(app, &rita, &agent, &rita.token).await;
    tokens::revoke_by_name(&app.state.db, &app.state.auth_cache, rita.id, "test")
        .await
        .unwrap();
    let last = client.expect_end("w").await;
    assert_eq!(code(&last), "UNAUTHENTICATED", "{last}");
}

db_test!(a_deactivated_account_ends_the_subscription);
async fn a_deactivated_account_ends_the_subscription(app: &TestApp) {
    let rita = app.user("rita").await;
    let agent = app.agent("adam").await;
    let (mut client, ticket_id) = subscribed(app, &rita, &agent, &rita.token).await;
    user::Entity::update(user::ActiveModel {
        id: Set(rita.id),
        is_active: Set(false),
        ..Default::default()
    })
    .exec(&app.state.db.conn)
    .await
    .unwrap();
    app.state.auth_cache.clear();
    poke(app, &agent, ticket_id, TicketStatus::InProgress).await;
    let last = client.expect_end("w").await;
    assert_eq!(code(&last), "UNAUTHENTICATED", "{last}");

    // New operations on the same connection are refused too.
    client.send_operation("q", "{ me { username } }").await;
    let answer = client
        .receive(crate::support::subscriptions::ARRIVES)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        answer["payload"]["errors"][0]["extensions"]["code"], "UNAUTHENTICATED",
        "{answer}"
    );
}
