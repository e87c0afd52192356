//! Links between tickets: who may make them, the tree checks (one parent, no loops, no self-links), what a
//! requester sees of links to tickets they cannot see, resolving an outage's children, GraphQL and events.
use crate::db_test;
use crate::support::events::{hooked, outbox_rows, Mode, Receiver};
use crate::support::helpers::{assert_error, TestApp, TestUser};
use axum::http::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

async fn ticket(app: &TestApp, who: &TestUser, title: &str) -> i64 {
    app.as_user(who).ticket_titled(title).await["id"]
        .as_i64()
        .unwrap()
}

async fn link(
    app: &TestApp,
    who: &TestUser,
    id: i64,
    kind: &str,
    other: i64,
) -> crate::support::helpers::TestResponse {
    app.as_user(who)
        .post(
            &format!("/api/tickets/{id}/links/"),
            json!({"type": kind, "ticket": other}),
        )
        .await
}

fn kinds(body: &Value) -> Vec<(String, i64)> {
    body.as_array()
        .unwrap_or_else(|| panic!("not a list: {body}"))
        .iter()
        .map(|l| {
            (
                l["type"].as_str().unwrap().to_string(),
                l["ticket"]["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

db_test!(an_outage_gathers_its_tickets_and_resolves_them_together);
async fn an_outage_gathers_its_tickets_and_resolves_them_together(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let outage = ticket(app, &agent, "Mail is down").await;
    let a = ticket(app, &rita, "No mail").await;
    let b = ticket(app, &rita, "Outlook offline").await;
    let done = ticket(app, &rita, "Old one").await;

    let made = link(app, &agent, a, "child_of", outage).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    assert_eq!(made.json["type"], "child_of");
    assert_eq!(made.json["ticket"]["id"], outage);
    assert_eq!(
        made.json["ticket"]["ticket_number"].as_str().unwrap().len(),
        7
    );
    let again = link(app, &agent, a, "child_of", outage).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    assert_eq!(again.json["id"], made.json["id"]);
    assert_eq!(
        link(app, &agent, outage, "parent_of", b).await.status,
        StatusCode::CREATED
    );
    assert_eq!(
        link(app, &agent, outage, "parent_of", done).await.status,
        StatusCode::CREATED
    );
    let listed = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{outage}/links/"))
        .await;
    let mut children: Vec<(String, i64)> = kinds(&listed.json);
    children.sort();
    assert_eq!(
        children,
        [
            ("parent_of".into(), a),
            ("parent_of".into(), b),
            ("parent_of".into(), done)
        ]
    );
    assert_eq!(
        kinds(
            &app.as_user(&agent)
                .get(&format!("/api/tickets/{a}/links/"))
                .await
                .json
        ),
        [("child_of".to_string(), outage)]
    );

    // Tree checks: one parent, no loops, no self-links, no unknown tickets.
    let second = link(app, &agent, a, "child_of", b).await;
    assert_error(&second, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        second.text.contains("already has a parent"),
        "{}",
        second.text
    );
    let grand = ticket(app, &agent, "Data centre").await;
    assert_eq!(
        link(app, &agent, grand, "parent_of", outage).await.status,
        StatusCode::CREATED
    );
    let looped = link(app, &agent, a, "parent_of", grand).await;
    assert_error(&looped, StatusCode::BAD_REQUEST, "validation_error");
    assert!(looped.text.contains("loop"), "{}", looped.text);
    let own = link(app, &agent, a, "relates_to", a).await;
    assert_error(&own, StatusCode::BAD_REQUEST, "validation_error");
    let missing = link(app, &agent, a, "relates_to", 999_999).await;
    assert_error(&missing, StatusCode::BAD_REQUEST, "validation_error");
    assert_eq!(
        missing.json["details"]["ticket"][0],
        "ticket 999999 does not exist"
    );
    let bad_type = link(app, &agent, a, "sibling_of", b).await;
    assert_error(&bad_type, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        bad_type.json["details"]["type"].is_array(),
        "{}",
        bad_type.text
    );

    // The requester cannot link, and may not resolve what is not theirs to change.
    assert_error(
        &link(app, &rita, a, "relates_to", b).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    app.as_user(&agent)
        .patch(
            &format!("/api/tickets/{done}/"),
            json!({"status": "resolved"}),
        )
        .await;

    // Resolving the parent's children: the open ones, each as a change by hand.
    let resolved = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{outage}/children/resolve/"),
            json!({}),
        )
        .await;
    assert_eq!(resolved.status, StatusCode::OK, "{}", resolved.text);
    let mut ids: Vec<i64> = resolved.json["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, [a, b]);
    assert_eq!(resolved.json["failures"], json!([]));
    for id in [a, b] {
        let t = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/"))
            .await;
        assert_eq!(t.json["status"], "resolved");
    }

    // Removing: only the ticket's own links, and the link is gone from both ends.
    let link_id = made.json["id"].as_i64().unwrap();
    assert_error(
        &app.as_user(&agent)
            .delete(&format!("/api/tickets/{b}/links/{link_id}/"))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let gone = app
        .as_user(&agent)
        .delete(&format!("/api/tickets/{a}/links/{link_id}/"))
        .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(
        app.as_user(&agent)
            .get(&format!("/api/tickets/{a}/links/"))
            .await
            .json,
        json!([])
    );
    // Both ends keep it in their (team's) history.
    let recorded = |id: i64| async move {
        entity::audit_event::Entity::find()
            .filter(entity::audit_event::Column::TicketId.eq(id as i32))
            .filter(entity::audit_event::Column::Action.is_in(["link", "unlink"]))
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.action, e.changes, e.is_internal))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        recorded(a).await,
        [
            (
                "link".to_string(),
                json!({"child_of": [null, outage]}),
                true
            ),
            (
                "unlink".to_string(),
                json!({"child_of": [outage, null]}),
                true
            )
        ]
    );
    assert!(recorded(outage).await.contains(&(
        "link".to_string(),
        json!({"parent_of": [null, a]}),
        true
    )));
}

db_test!(a_requester_sees_only_links_to_tickets_they_may_see);
async fn a_requester_sees_only_links_to_tickets_they_may_see(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;
    let mine = ticket(app, &rita, "My laptop").await;
    let also_mine = ticket(app, &rita, "My screen").await;
    let secret = ticket(app, &sam, "Sam's salary question").await;
    for (kind, other) in [
        ("relates_to", also_mine),
        ("duplicate_of", secret),
        ("blocked_by", secret),
    ] {
        assert_eq!(
            link(app, &agent, mine, kind, other).await.status,
            StatusCode::CREATED
        );
    }
    let as_agent = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{mine}/links/"))
        .await;
    assert_eq!(kinds(&as_agent.json).len(), 3);
    let as_rita = app
        .as_user(&rita)
        .get(&format!("/api/tickets/{mine}/links/"))
        .await;
    assert_eq!(
        kinds(&as_rita.json),
        [("relates_to".to_string(), also_mine)]
    );
    assert!(!as_rita.text.contains("salary"), "{}", as_rita.text);
    assert_error(
        &app.as_user(&sam)
            .get(&format!("/api/tickets/{mine}/links/"))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    // From the other side, seen the other way round.
    let from_secret = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{secret}/links/"))
        .await;
    let mut seen = kinds(&from_secret.json);
    seen.sort();
    assert_eq!(
        seen,
        [
            ("blocks".to_string(), mine),
            ("duplicated_by".to_string(), mine)
        ]
    );

    // GraphQL: the same links, the parent and children, and the history names no hidden ticket.
    let query = r#"query($id: Int!) { ticket(databaseId: $id) { links { type ticket { title } }
        blocked: links(type: BLOCKED_BY) { ticket { title } } parent { title } children { title }
        history(first: 50) { nodes { action changes } } } }"#;
    let rita_view = app
        .as_user(&rita)
        .graphql_data(query, json!({"id": mine}))
        .await;
    assert_eq!(
        rita_view["ticket"]["links"],
        json!([{"type": "RELATES_TO", "ticket": {"title": "My screen"}}])
    );
    assert_eq!(rita_view["ticket"]["blocked"], json!([]));
    assert!(
        !rita_view.to_string().contains(&format!("{secret}"))
            || !rita_view.to_string().contains("link"),
        "{rita_view}"
    );
    let agent_view = app
        .as_user(&agent)
        .graphql_data(query, json!({"id": mine}))
        .await;
    assert_eq!(
        agent_view["ticket"]["blocked"],
        json!([{"ticket": {"title": "Sam's salary question"}}])
    );

    // GraphQL mutations: make a parent, then remove the link.
    let gid = |data: &Value| data["ticket"]["id"].as_str().unwrap().to_string();
    let ids = app
        .as_user(&agent)
        .graphql_data(
            "query($a: Int!, $b: Int!) { a: ticket(databaseId: $a) { id } b: ticket(databaseId: $b) { id } }",
            json!({"a": mine, "b": also_mine}),
        )
        .await;
    let (a, b) = (
        gid(&json!({"ticket": ids["a"]})),
        gid(&json!({"ticket": ids["b"]})),
    );
    let made = app
        .as_user(&agent)
        .graphql_data(
            "mutation($a: ID!, $b: ID!) { addTicketLink(input: {ticketId: $a, type: PARENT_OF, otherTicketId: $b}) {
                created link { id type ticket { title } } ticket { children { title } } } }",
            json!({"a": a, "b": b}),
        )
        .await;
    assert_eq!(made["addTicketLink"]["created"], true);
    assert_eq!(
        made["addTicketLink"]["ticket"]["children"],
        json!([{"title": "My screen"}])
    );
    let child = app
        .as_user(&rita)
        .graphql_data(
            "query($id: Int!) { ticket(databaseId: $id) { parent { title } } }",
            json!({"id": also_mine}),
        )
        .await;
    assert_eq!(child["ticket"]["parent"]["title"], "My laptop");
    let refused = app
        .as_user(&rita)
        .graphql(
            "mutation($a: ID!, $b: ID!) { addTicketLink(input: {ticketId: $a, type: BLOCKS, otherTicketId: $b}) { created } }",
            json!({"a": a, "b": b}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );
    let link_id = made["addTicketLink"]["link"]["id"].as_str().unwrap();
    let removed = app
        .as_user(&agent)
        .graphql_data(
            "mutation($a: ID!, $l: ID!) { removeTicketLink(input: {ticketId: $a, linkId: $l}) { ticket { children { title } } } }",
            json!({"a": a, "l": link_id}),
        )
        .await;
    assert_eq!(removed["removeTicketLink"]["ticket"]["children"], json!([]));
}

db_test!(links_are_announced_by_webhook);
async fn links_are_announced_by_webhook(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let agent = crate::support::clients::actor(app, &app.agent("agnes").await).await;
    let rita = app.user("rita").await;
    let a = ticket(app, &rita, "One").await as i32;
    let b = ticket(app, &rita, "Two").await as i32;
    let deps = state.write_deps(deskgraph::domain::Channel::Rest);
    let (made, created) =
        deskgraph::service::links::add(deps, &agent, a, entity::values::LinkType::BlockedBy, b)
            .await
            .unwrap();
    assert!(created);
    deskgraph::service::links::remove(deps, &agent, a, made.id)
        .await
        .unwrap();
    let bodies: Vec<Value> = outbox_rows(app)
        .await
        .into_iter()
        .filter(|r| r.event.starts_with("ticket.") && r.event.ends_with("linked"))
        .map(|r| serde_json::from_str(&r.payload).unwrap())
        .collect();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert_eq!(
        (
            &bodies[0]["event"],
            &bodies[0]["ticket_id"],
            &bodies[0]["type"],
            &bodies[0]["linked_ticket_id"]
        ),
        (
            &json!("ticket.linked"),
            &json!(a),
            &json!("blocked_by"),
            &json!(b)
        )
    );
    assert_eq!(bodies[1]["event"], "ticket.unlinked");
}
