//! The queue in Chromium: a ticket created over REST appears on an open queue page without a reload, and an
//! agent works it from the keyboard (`j`/`k` move, `a` assigns to me, `o` opens, `?` lists the keys).
use crate::support::browser::{eventually, in_chromium, sign_in, wait_for};
use crate::support::helpers::TestApp;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, Locator};
use sea_orm::EntityTrait;
use serde_json::json;
use std::time::Duration;

/// Press and release `key`, as a person at the keyboard does, wherever the focus is.
async fn press(client: &Client, key: char) {
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    client.perform_actions(actions).await.unwrap();
}

fn row(id: i64) -> String {
    format!("tr.ticket-row[data-ticket-id=\"{id}\"]")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_follows_new_tickets_and_the_keyboard() {
    let app = TestApp::sqlite().await;
    let rita = app.user("rita").await;
    app.agent("agent").await;
    let first = app
        .as_user(&rita)
        .create_ticket(json!({"title": "Printer jams", "description": "Tray 2."}))
        .await["id"]
        .as_i64()
        .unwrap();
    let app = &app;
    let rita = &rita;
    in_chromium(app, |client, base| async move {
        sign_in(&client, &base, "agent").await;
        client.goto(&format!("{base}/tickets/")).await.unwrap();
        wait_for(&client, &row(first)).await;
        // The page has opened its live feed.
        wait_for(&client, "#queue-results[data-live-state=\"open\"]").await;

        let second = app
            .as_user(rita)
            .create_ticket(json!({"title": "VPN drops", "description": "Every hour."}))
            .await["id"]
            .as_i64()
            .unwrap();
        client
            .wait()
            .at_most(Duration::from_secs(2))
            .for_element(Locator::Css(&row(second)))
            .await
            .expect("the new ticket appears within 2 s without a reload");

        // Newest first: `j` selects the new ticket, `j` again the first one; `a` assigns it to me.
        press(&client, 'j').await;
        press(&client, 'j').await;
        let selected = wait_for(&client, "tr.ticket-row.selected").await;
        assert_eq!(
            selected.attr("data-ticket-id").await.unwrap(),
            Some(first.to_string())
        );
        press(&client, 'a').await;
        eventually("the ticket to be assigned", || async {
            let stored = entity::ticket::Entity::find_by_id(first as i32)
                .one(&app.state.db.conn)
                .await
                .unwrap();
            stored.is_some_and(|t| t.assignee_id.is_some())
        })
        .await;
        // The row says so once the queue has read itself again, and keeps the selection.
        eventually("the row to show the assignee", || async {
            match client.find(Locator::Css(&row(first))).await {
                Ok(found) => found
                    .text()
                    .await
                    .unwrap_or_default()
                    .contains("Agent Example"),
                Err(_) => false,
            }
        })
        .await;
        wait_for(&client, &format!("{}.selected", row(first))).await;

        // `?` lists the keys; Escape closes the list; `k` then `o` opens the new ticket.
        press(&client, '?').await;
        let dialog = wait_for(&client, "#shortcuts").await;
        assert!(dialog
            .text()
            .await
            .unwrap()
            .contains("Assign the ticket to me"));
        press(&client, '\u{e00c}').await;
        press(&client, 'k').await;
        press(&client, 'o').await;
        eventually("the ticket page to open", || async {
            client
                .current_url()
                .await
                .is_ok_and(|u| u.path() == format!("/tickets/{second}/"))
        })
        .await;
    })
    .await;
}

/// Moving through the queue's views and pages and into a ticket, as an agent does all day: a queue page left behind
/// (kept in the browser's back/forward cache) closes its live feed, so the feeds never take up the browser's
/// few connections to the server and stall the next page; a queue brought back from that cache listens again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queue_left_behind_lets_go_of_its_feed() {
    let app = TestApp::sqlite().await;
    let rita = app.user("rita").await;
    app.agent("agent").await;
    let id = app
        .as_user(&rita)
        .create_ticket(json!({"title": "Printer jams"}))
        .await["id"]
        .as_i64()
        .unwrap();
    let app = &app;
    let rita = &rita;
    in_chromium(app, |client, base| async move {
        sign_in(&client, &base, "agent").await;
        // More round trips than a browser keeps connections to one server (six).
        // More queue pages, one after the other (the views, the pages of a list), than a browser keeps
        // connections to one server (six); then a ticket.
        for page in 1..=8 {
            let queue = format!("{base}/tickets/?page={page}");
            tokio::time::timeout(Duration::from_secs(20), client.goto(&queue))
                .await
                .expect("a queue page stalled")
                .unwrap();
            wait_for(&client, "#queue-results[data-live-state=\"open\"]").await;
        }
        let ticket = format!("{base}/tickets/{id}/");
        tokio::time::timeout(Duration::from_secs(20), client.goto(&ticket))
            .await
            .expect("the ticket page stalled")
            .unwrap();
        wait_for(&client, "#ticket-title").await;
        // Back to a queue as the browser kept it: it listens again and follows a new ticket.
        client.goto(&format!("{base}/tickets/")).await.unwrap();
        wait_for(&client, "#queue-results[data-live-state=\"open\"]").await;
        client.goto(&ticket).await.unwrap();
        wait_for(&client, "#ticket-title").await;
        client.back().await.unwrap();
        wait_for(&client, "#queue-results[data-live-state=\"open\"]").await;
        let second = app
            .as_user(rita)
            .create_ticket(json!({"title": "VPN drops"}))
            .await["id"]
            .as_i64()
            .unwrap();
        client
            .wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&row(second)))
            .await
            .expect("the queue brought back follows new tickets");
    })
    .await;
}
