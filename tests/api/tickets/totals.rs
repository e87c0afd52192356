//! List totals read from the `ticket_counts` counters stay equal to a real `count(*)` through creates,
//! status changes, archives and restores, for team members and requesters, over REST, GraphQL and the
//! service, including under concurrent writers.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::tickets::{create_ticket, path_of};
use axum::http::StatusCode;
use deskgraph::domain::{StatusCategory, TicketStatus};
use deskgraph::service::tickets::{self, TicketFilter};
use futures_util::FutureExt;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};

/// A real `count(*)` over live tickets matching `condition`.
async fn real(app: &TestApp, condition: &str) -> u64 {
    let sql = format!("SELECT count(*) FROM tickets WHERE archived_at IS NULL AND ({condition})");
    let conn = &app.state.db.conn;
    let row = conn
        .query_one_raw(Statement::from_string(conn.get_database_backend(), sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get_by_index::<i64>(0).unwrap() as u64
}

async fn rest_count(app: &TestApp, user: &TestUser, query: &str) -> u64 {
    let resp = app
        .get(&format!("/api/tickets/{query}"), Some(&user.token))
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    resp.json["count"].as_u64().unwrap()
}

async fn graphql_total(app: &TestApp, user: &TestUser, filter: Value) -> u64 {
    let data = app
        .graphql(
            Some(&user.token),
            "query($f: TicketFilter) { tickets(first: 1, filter: $f) { totalCount } }",
            json!({ "f": filter }),
        )
        .await;
    data["data"]["tickets"]["totalCount"]
        .as_u64()
        .unwrap_or_else(|| panic!("{data}"))
}

async fn service_count(app: &TestApp, user: &TestUser, filter: TicketFilter) -> u64 {
    let actor = deskgraph::auth::load_actor(&app.state.db.conn, user.id)
        .await
        .unwrap()
        .unwrap();
    let reads = &app.state.ticket_reads;
    reads.total(&app.state.db, &actor, &filter).await.unwrap()
}

/// Every counted shape, for the team and for each requester, against `count(*)`.
async fn assert_exact(app: &TestApp, team: &TestUser, requesters: &[&TestUser], step: &str) {
    let all = real(app, "1 = 1").await;
    assert_eq!(rest_count(app, team, "").await, all, "team, {step}");
    assert_eq!(graphql_total(app, team, json!({})).await, all, "{step}");
    for (rest, gql, sql) in [
        ("open", "OPEN", "status = 'open'"),
        ("new", "NEW", "status = 'new'"),
    ] {
        let want = real(app, sql).await;
        let query = format!("?status={rest}");
        assert_eq!(rest_count(app, team, &query).await, want, "{sql}, {step}");
        let gql_filter = json!({ "status": [gql] });
        assert_eq!(graphql_total(app, team, gql_filter).await, want, "{step}");
    }
    let in_progress = real(app, "status IN ('in_progress', 'on_hold', 'blocked')").await;
    let category = json!({ "statusCategory": "IN_PROGRESS" });
    assert_eq!(
        graphql_total(app, team, category).await,
        in_progress,
        "{step}"
    );
    let by_category = TicketFilter {
        status_category: Some(StatusCategory::InProgress),
        statuses: vec![TicketStatus::Blocked, TicketStatus::New],
        ..Default::default()
    };
    let blocked = real(app, "status = 'blocked'").await;
    assert_eq!(
        service_count(app, team, by_category).await,
        blocked,
        "{step}"
    );
    for who in requesters {
        let id = who.id;
        let visible = real(app, &format!("requester_id = {id} OR assignee_id = {id}")).await;
        assert_eq!(
            rest_count(app, who, "").await,
            visible,
            "{}, {step}",
            who.username
        );
        assert_eq!(graphql_total(app, who, json!({})).await, visible, "{step}");
        let own = real(app, &format!("requester_id = {id}")).await;
        for viewer in [team, *who] {
            let filter = TicketFilter {
                requester_id: Some(id),
                ..Default::default()
            };
            assert_eq!(service_count(app, viewer, filter).await, own, "{step}");
        }
    }
}

async fn counts_follow_every_write(app: &TestApp) {
    let carol = app.agent("carol").await;
    let alice = app.user("alice").await;
    let bob = app.user("bob").await;
    let people = [&alice, &bob];
    assert_exact(app, &carol, &people, "empty").await;

    let mut made = Vec::new();
    for i in 0..3 {
        made.push(create_ticket(app, &alice, json!({ "title": format!("A{i}") })).await);
    }
    made.push(create_ticket(app, &bob, json!({ "title": "B0" })).await);
    // Requested by alice, assigned to bob: bob sees it without having requested it.
    let body = json!({ "title": "For alice", "requester": alice.id, "assigned_to": bob.id });
    made.push(create_ticket(app, &carol, body).await);
    assert_eq!(rest_count(app, &bob, "").await, 2, "own plus assigned");
    assert_exact(app, &carol, &people, "after creates").await;

    for (t, status) in made.iter().zip(["open", "in_progress", "blocked", "open"]) {
        let resp = app
            .patch(&path_of(t), Some(&carol.token), json!({ "status": status }))
            .await;
        assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    }
    // A patch to the same status, and one that changes no status, move no counter.
    let same = json!({ "status": "open", "title": "A0 again" });
    app.patch(&path_of(&made[0]), Some(&carol.token), same)
        .await;
    assert_exact(app, &carol, &people, "after status changes").await;

    for t in [&made[1], &made[4]] {
        let resp = app.delete(&path_of(t), Some(&carol.token)).await;
        assert_eq!(resp.status, StatusCode::NO_CONTENT);
    }
    // Archiving twice counts once.
    app.delete(&path_of(&made[1]), Some(&carol.token)).await;
    assert_exact(app, &carol, &people, "after archives").await;

    let actor = deskgraph::auth::load_actor(&app.state.db.conn, carol.id)
        .await
        .unwrap()
        .unwrap();
    let id = made[4]["id"].as_i64().unwrap() as i32;
    for _ in 0..2 {
        tickets::restore(
            app.state.write_deps(deskgraph::domain::Channel::System),
            &actor,
            id,
        )
        .await
        .unwrap();
    }
    assert_eq!(
        rest_count(app, &bob, "").await,
        2,
        "restored and still assigned"
    );
    assert_exact(app, &carol, &people, "after restore").await;

    // A rebuild (what `deskgraph seed` ends with) agrees with the maintained counters.
    tickets::counters::rebuild(&app.state.db.conn)
        .await
        .unwrap();
    assert_exact(app, &carol, &people, "after rebuild").await;
}
db_test!(counts_follow_every_write);

async fn counts_stay_exact_under_concurrent_writes(app: &TestApp) {
    let carol = app.agent("carol").await;
    let dave = app.agent("dave").await;
    let alice = app.user("alice").await;
    let creates = (0..12).map(|i| {
        let who = if i % 2 == 0 { &alice } else { &carol };
        create_ticket(app, who, json!({ "title": format!("C{i}") }))
    });
    let made = futures_util::future::join_all(creates).await;
    // Two agents race on the same tickets: status moves and archives interleave.
    let paths: Vec<String> = made.iter().map(path_of).collect();
    let races = paths.iter().enumerate().flat_map(|(i, path)| {
        let first = if i % 3 == 0 {
            app.delete(path, Some(&carol.token)).boxed_local()
        } else {
            app.patch(path, Some(&carol.token), json!({ "status": "open" }))
                .boxed_local()
        };
        let second = if i % 2 == 0 {
            app.delete(path, Some(&dave.token)).boxed_local()
        } else {
            app.patch(path, Some(&dave.token), json!({ "status": "blocked" }))
                .boxed_local()
        };
        [first, second]
    });
    futures_util::future::join_all(races).await;
    assert_exact(app, &carol, &[&alice], "after racing writers").await;
}
db_test!(counts_stay_exact_under_concurrent_writes);

/// `count` of `/api/tickets/{query}` on another instance's router.
async fn rest_count_on(app: &TestApp, router: &axum::Router, user: &TestUser, query: &str) -> u64 {
    let request = axum::http::Request::builder()
        .uri(format!("/api/tickets/{query}"))
        .header("Authorization", format!("Bearer {}", user.token))
        .body(axum::body::Body::empty())
        .unwrap();
    let resp = app.send_to(router, request).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    resp.json["count"].as_u64().unwrap()
}

/// Search totals have no counter: each instance remembers them while no ticket changes. Every kind of
/// write, made on either instance, shows in the next count on both, for the team and for a requester,
/// on a first page and past the last one, over REST and GraphQL.
async fn search_totals_follow_every_write_on_every_instance(app: &TestApp) {
    let carol = app.agent("carol").await;
    let alice = app.user("alice").await;
    let (second_state, second) = app.second_instance().await;
    let printer = "(lower(title) LIKE '%printer%' OR lower(description) LIKE '%printer%')";
    let mine = format!(
        "{printer} AND (requester_id = {0} OR assignee_id = {0})",
        alice.id
    );
    let check = |step: &'static str| {
        let (carol, alice, second, mine) = (&carol, &alice, &second, &mine);
        async move {
            let team = real(app, printer).await;
            let own = real(app, mine).await;
            for query in ["?q=printer", "?q=PRINTER&page=9"] {
                assert_eq!(rest_count(app, carol, query).await, team, "{step} {query}");
                assert_eq!(
                    rest_count_on(app, second, carol, query).await,
                    team,
                    "{step}"
                );
                assert_eq!(rest_count(app, alice, query).await, own, "{step} {query}");
                assert_eq!(
                    rest_count_on(app, second, alice, query).await,
                    own,
                    "{step}"
                );
            }
            let filter = json!({ "query": "printer" });
            assert_eq!(
                graphql_total(app, carol, filter.clone()).await,
                team,
                "{step}"
            );
            assert_eq!(graphql_total(app, alice, filter).await, own, "{step}");
        }
    };
    check("empty").await;
    let first = create_ticket(app, &alice, json!({ "title": "Printer jammed" })).await;
    create_ticket(
        app,
        &carol,
        json!({ "title": "Scanner", "description": "near the printer" }),
    )
    .await;
    check("after creates").await;
    // Asked twice with nothing written in between: the remembered count.
    check("unchanged").await;

    // Writes through the second instance, read on both.
    let actor = deskgraph::auth::load_actor(&second_state.db.conn, carol.id)
        .await
        .unwrap()
        .unwrap();
    let id = first["id"].as_i64().unwrap() as i32;
    let patch = deskgraph::service::tickets::TicketPatch {
        title: Some("Toner low".into()),
        ..Default::default()
    };
    tickets::update(
        second_state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
        patch,
    )
    .await
    .unwrap();
    check("after a title no longer matches").await;
    let patch = deskgraph::service::tickets::TicketPatch {
        description: Some("the printer again".into()),
        ..Default::default()
    };
    tickets::update(
        second_state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
        patch,
    )
    .await
    .unwrap();
    check("after a description matches").await;
    tickets::archive(
        second_state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
    )
    .await
    .unwrap();
    check("after an archive").await;
    tickets::restore(
        second_state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        id,
    )
    .await
    .unwrap();
    check("after a restore").await;

    // Visibility moves with the ticket: assigned to alice, she counts it.
    let theirs = create_ticket(app, &carol, json!({ "title": "Printer for the lab" })).await;
    check("after a create by the team").await;
    let resp = app
        .patch(
            &path_of(&theirs),
            Some(&carol.token),
            json!({ "assigned_to": alice.id }),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    check("after an assignment").await;
}
db_test!(search_totals_follow_every_write_on_every_instance);
