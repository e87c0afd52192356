//! The status workflow of DECISIONS.md, move by move, over REST.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::tickets::{create_ticket, path_of};
use axum::http::StatusCode;
use entity::ticket;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::json;

const STATUSES: [&str; 7] = [
    "new",
    "open",
    "in_progress",
    "on_hold",
    "blocked",
    "resolved",
    "closed",
];

/// The table of DECISIONS.md, written out independently of the code under test.
fn allowed_from(status: &str) -> &'static [&'static str] {
    match status {
        "new" | "open" => &["open", "in_progress", "on_hold", "blocked", "resolved"],
        "in_progress" | "on_hold" | "blocked" => {
            &["in_progress", "on_hold", "blocked", "open", "resolved"]
        }
        "resolved" => &["closed", "open"],
        "closed" => &[],
        other => panic!("unknown status {other}"),
    }
}

async fn set_status(app: &TestApp, id: i32, status: &str) {
    let found = ticket::Entity::find_by_id(id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    let mut active: ticket::ActiveModel = found.into();
    active.status = Set(deskgraph::domain::TicketStatus::parse(status).unwrap());
    active.update(&app.state.db.conn).await.unwrap();
}

async fn every_move_of_the_table(app: &TestApp) {
    let agent = app.agent("carol").await;
    let t = create_ticket(app, &agent, json!({"title": "Moves"})).await;
    let id = t["id"].as_i64().unwrap() as i32;
    let path = path_of(&t);
    for from in STATUSES {
        let allowed = allowed_from(from);
        for to in STATUSES {
            set_status(app, id, from).await;
            let resp = app
                .as_user(&agent)
                .patch(&path, json!({"status": to}))
                .await;
            if from == to || allowed.contains(&to) {
                assert_eq!(resp.status, StatusCode::OK, "{from} -> {to}: {}", resp.text);
                assert_eq!(resp.json["status"], to, "{from} -> {to}");
            } else {
                assert_error(&resp, StatusCode::BAD_REQUEST, "invalid_transition");
                let mut got: Vec<&str> = resp.json["details"]["allowed"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{from} -> {to}: {}", resp.text))
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .collect();
                got.sort();
                let mut want = allowed.to_vec();
                want.sort();
                assert_eq!(got, want, "{from} -> {to}");
                let now = app.as_user(&agent).get(&path).await.json;
                assert_eq!(now["status"], from, "a refused move changes nothing");
            }
        }
    }
}
db_test!(every_move_of_the_table);

async fn a_ticket_lives_through_the_workflow(app: &TestApp) {
    let alice = app.user("alice").await;
    let agent = app.agent("carol").await;
    let t = create_ticket(app, &alice, json!({"title": "Life"})).await;
    let path = path_of(&t);
    let mut updated_at = app.as_user(&agent).get(&path).await.json["updated_at"].clone();
    for (to, category) in [
        ("open", "todo"),
        ("in_progress", "in_progress"),
        ("blocked", "in_progress"),
        ("resolved", "done"),
        ("open", "todo"),
        ("resolved", "done"),
        ("closed", "done"),
    ] {
        let resp = app
            .as_user(&agent)
            .patch(&path, json!({"status": to}))
            .await;
        assert_eq!(resp.status, StatusCode::OK, "{to}: {}", resp.text);
        let d = app.as_user(&alice).get(&path).await.json;
        assert_eq!(
            (d["status"].as_str(), d["status_category"].as_str()),
            (Some(to), Some(category))
        );
        assert_ne!(
            d["updated_at"], updated_at,
            "updated_at moves with the status"
        );
        updated_at = d["updated_at"].clone();
    }
    let stuck = app
        .as_user(&agent)
        .patch(&path, json!({"status": "open"}))
        .await;
    assert_error(&stuck, StatusCode::BAD_REQUEST, "invalid_transition");
    assert_eq!(stuck.json["details"], json!({"allowed": []}));
    // Staying put is always allowed, even when terminal.
    let same = app
        .as_user(&agent)
        .patch(&path, json!({"status": "closed"}))
        .await;
    assert_eq!(same.status, StatusCode::OK, "{}", same.text);
    // The requester may not move status at all.
    let t2 = create_ticket(app, &alice, json!({"title": "Mine"})).await;
    let refused = app
        .as_user(&alice)
        .patch(&path_of(&t2), json!({"status": "open"}))
        .await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
}
db_test!(a_ticket_lives_through_the_workflow);
