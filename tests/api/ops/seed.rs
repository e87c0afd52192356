//! `deskgraph seed`: bulk data the service reads back, gapless numbers, exact counters.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::tickets::create_ticket;
use deskgraph::seed::{seed, SeedOptions};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::json;

async fn scalar(app: &TestApp, sql: &str) -> i64 {
    let conn = &app.state.db.conn;
    let row = conn
        .query_one_raw(Statement::from_string(conn.get_database_backend(), sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index::<i64>(0).unwrap()
}

async fn seeded_data_reads_back_and_numbers_continue(app: &TestApp) {
    let carol = app.agent("carol").await;
    create_ticket(app, &carol, json!({ "title": "Before the seed" })).await;
    let options = SeedOptions {
        tickets: 60,
        users: 5,
        projects: 2,
        comments_per_ticket: 2,
        password: "seed-password".into(),
        random_seed: 7,
        open_share: None,
        sla_policies: false,
    };
    let report = seed(&app.state, &options).await.unwrap();
    assert_eq!(report.tickets, 60);
    let after = create_ticket(app, &carol, json!({ "title": "After the seed" })).await;
    assert_eq!(
        after["ticket_number"], "TKT-062",
        "numbers continue without gaps"
    );
    assert_eq!(
        scalar(app, "SELECT count(DISTINCT number) FROM tickets").await,
        62
    );
    assert_eq!(scalar(app, "SELECT max(number) FROM tickets").await, 62);
    assert!(scalar(app, "SELECT count(*) FROM comments").await > 0);
    // Each seeded ticket carries one of eight tags in turn, so a tag filter has something to find.
    assert_eq!(scalar(app, "SELECT count(*) FROM ticket_tags").await, 60);
    let printers = app
        .as_user(&carol)
        .get("/api/tickets/?tag=printer&limit=100")
        .await;
    assert_eq!(printers.json["count"], 7, "{}", printers.text);
    // Fifty custom fields are defined, and each seeded ticket holds one of eight sites.
    assert_eq!(scalar(app, "SELECT count(*) FROM custom_fields").await, 50);
    app.state.custom_fields.clear();
    let oslo = app
        .as_user(&carol)
        .get("/api/tickets/?field.site=Oslo&limit=100")
        .await;
    assert_eq!(oslo.json["count"], 7, "{}", oslo.text);
    // Each ticket was written with its comment counts (not updated after: that doubles every index).
    let miscounted = scalar(
        app,
        "SELECT count(*) FROM tickets t WHERE public_comment_count <> (SELECT count(*) FROM comments c \
         WHERE c.ticket_id = t.id AND c.comment_type = 'public') \
         OR all_comment_count <> (SELECT count(*) FROM comments c WHERE c.ticket_id = t.id)",
    )
    .await;
    assert_eq!(miscounted, 0);
    assert!(
        scalar(
            app,
            "SELECT count(*) FROM tickets WHERE public_comment_count > 0"
        )
        .await
            > 0
    );

    // Every seeded row is one the service can serve: the whole list, over REST and GraphQL.
    let live = scalar(
        app,
        "SELECT count(*) FROM tickets WHERE archived_at IS NULL",
    )
    .await;
    let list = app.get("/api/tickets/?limit=100", Some(&carol.token)).await;
    assert_eq!(list.status, axum::http::StatusCode::OK, "{}", list.text);
    assert_eq!(list.json["count"].as_i64().unwrap(), live);
    let data = app
        .graphql(
            Some(&carol.token),
            "{ tickets(first: 100) { totalCount nodes { status priority requester { username } } } }",
            json!({}),
        )
        .await;
    assert!(data["errors"].is_null(), "{data}");
    assert_eq!(
        data["data"]["tickets"]["totalCount"].as_i64().unwrap(),
        live
    );
    let counted = scalar(app, "SELECT n FROM ticket_counts WHERE scope = 'all'").await;
    assert_eq!(counted, live);
}
db_test!(seeded_data_reads_back_and_numbers_continue);

/// A seed for the SLA benchmark: a tenth of the tickets open, every open ticket on a clock, and no check
/// already due (a freshly seeded server must not start by firing a year of breaches).
async fn seeded_open_share_with_sla_clocks(app: &TestApp) {
    let carol = app.agent("carol").await;
    let options = SeedOptions {
        tickets: 300,
        users: 5,
        projects: 2,
        comments_per_ticket: 0,
        password: "seed-password".into(),
        random_seed: 11,
        open_share: Some(0.1),
        sla_policies: true,
    };
    seed(&app.state, &options).await.unwrap();
    let open_sql = "status NOT IN ('resolved', 'closed')";
    let open = scalar(
        app,
        &format!("SELECT count(*) FROM tickets WHERE {open_sql}"),
    )
    .await;
    assert!((10..=60).contains(&open), "{open} of 300 open");
    let clocked = scalar(
        app,
        &format!(
            "SELECT count(*) FROM tickets t JOIN ticket_slas s ON s.ticket_id = t.id \
             WHERE s.policy_id IS NOT NULL AND t.{open_sql}"
        ),
    )
    .await;
    assert_eq!(clocked, open, "every open ticket has a clock");
    let now_ms = chrono::Utc::now().timestamp_millis();
    let overdue = scalar(
        app,
        &format!("SELECT count(*) FROM outbox WHERE kind = 'sla_check' AND due_at_ms < {now_ms}"),
    )
    .await;
    assert_eq!(overdue, 0, "no check queued for an instant already passed");

    // Tickets opened over the past year are mostly past their targets: the breached view shows them.
    let data = app
        .graphql(
            Some(&carol.token),
            "{ tickets(first: 5, filter: {sla: BREACHED}) { totalCount nodes { status sla { policy { name } resolutionBreached } } } }",
            json!({}),
        )
        .await;
    assert!(data["errors"].is_null(), "{data}");
    assert!(
        data["data"]["tickets"]["totalCount"].as_i64().unwrap() > 0,
        "{data}"
    );
    let node = &data["data"]["tickets"]["nodes"][0];
    assert!(node["sla"]["policy"]["name"]
        .as_str()
        .unwrap()
        .starts_with("Seeded "));
}
db_test!(seeded_open_share_with_sla_clocks);

/// `deskgraph demo` seeds its world through the same services as every door, rules included: its tickets
/// come out in every status, assigned by the team, and a requester reads their own.
async fn the_demo_seeds_through_the_services(app: &TestApp) {
    let bind: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
    deskgraph::demo::seed_and_print(&app.state, bind)
        .await
        .unwrap();
    assert_eq!(scalar(app, "SELECT count(*) FROM tickets").await, 8);
    assert_eq!(
        scalar(app, "SELECT count(DISTINCT status) FROM tickets").await,
        7,
        "every status"
    );
    assert!(
        scalar(
            app,
            "SELECT count(*) FROM tickets WHERE assignee_id IS NOT NULL"
        )
        .await
            >= 2
    );
    // It ships service levels, so SLA badges show from the start.
    assert_eq!(scalar(app, "SELECT count(*) FROM sla_policies").await, 4);
    assert!(scalar(app, "SELECT count(*) FROM ticket_slas").await >= 4);
    // And a trigger and a macro, so automation shows at work: a new VPN ticket goes to the Network Team.
    assert_eq!(scalar(app, "SELECT count(*) FROM triggers").await, 1);
    assert_eq!(scalar(app, "SELECT count(*) FROM macros").await, 1);
    let carol: i32 = scalar(
        app,
        "SELECT CAST(id AS BIGINT) FROM users WHERE username = 'carol'",
    )
    .await
    .try_into()
    .unwrap();
    let carol = deskgraph::auth::load_actor(&app.state.db.conn, carol)
        .await
        .unwrap()
        .unwrap();
    let vpn = deskgraph::service::tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::Web),
        &carol,
        deskgraph::service::tickets::NewTicket {
            title: "VPN drops every hour".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let network: i64 = scalar(
        app,
        "SELECT CAST(id AS BIGINT) FROM groups WHERE name = 'Network Team'",
    )
    .await;
    assert_eq!(vpn.assigned_group_id.map(i64::from), Some(network));
    assert!(
        vpn.assignee_id.is_some(),
        "handed to the team's least loaded agent"
    );
    assert_eq!(vpn.public_comment_count, 1, "the rule's reply: {vpn:?}");
    // Run again on the seeded database, it seeds nothing more and still prints its ways in.
    deskgraph::demo::seed_and_print(&app.state, bind)
        .await
        .unwrap();
    assert_eq!(
        scalar(app, "SELECT count(*) FROM tickets").await,
        9,
        "the 8 and the VPN one"
    );
    assert_eq!(scalar(app, "SELECT count(*) FROM triggers").await, 1);
}
db_test!(the_demo_seeds_through_the_services);
