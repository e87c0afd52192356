//! The agent's workspace in headless Chromium: the queue's views ("Unassigned", "Mine", "Breaching
//! soon") are clicked through, a ticket is assigned to me and its priority raised from its page, and the
//! SLA badge the new priority's policy sets shows. Skipped like `browser.rs` without a browser.
use crate::support::browser::{eventually, in_chromium, sign_in, wait_for};
use crate::support::helpers::TestApp;
use crate::support::world::actor;
use deskgraph::domain::Priority;
use deskgraph::service::tickets;
use fantoccini::{Client, Locator};
use serde_json::json;

/// The titles of the queue's rows as the page shows them.
async fn rows(client: &Client) -> Vec<String> {
    let mut titles = Vec::new();
    for link in client
        .find_all(Locator::Css("a.ticket-title"))
        .await
        .unwrap()
    {
        titles.push(link.text().await.unwrap());
    }
    titles.sort();
    titles
}

/// Click the queue view labelled `label` and wait for it to be the current one.
async fn view(client: &Client, base: &str, label: &str) -> Vec<String> {
    client.goto(&format!("{base}/tickets/")).await.unwrap();
    let link = client
        .find(Locator::XPath(&format!(
            "//nav[contains(@class,'views')]//a[normalize-space()='{label}']"
        )))
        .await
        .unwrap_or_else(|e| panic!("no view {label}: {e}"));
    link.click().await.unwrap();
    eventually(&format!("the {label} view"), || async {
        match client.find(Locator::Css("nav.views a.current")).await {
            Ok(current) => current.text().await.is_ok_and(|t| t == label),
            Err(_) => false,
        }
    })
    .await;
    rows(client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_assigns_prioritises_and_watches_the_clock_in_chromium() {
    let app = TestApp::sqlite().await;
    let admin = app.admin("admin").await;
    let owner = app.user("owner").await;
    app.agent("agent").await;
    let policy = app
        .graphql(
            Some(&admin.token),
            "mutation($input: CreateSlaPolicyInput!) { createSlaPolicy(input: $input) { slaPolicy { id } } }",
            json!({"input": {"name": "Urgent", "priority": "CRITICAL", "firstResponseMinutes": 30, "resolutionMinutes": 240}}),
        )
        .await;
    assert!(policy["errors"].is_null(), "{policy}");
    let owner_a = actor(&app, &owner).await;
    let mut ids = Vec::new();
    for (title, priority) in [
        ("Server down", Priority::Medium),
        ("Calm one", Priority::Low),
    ] {
        let new = tickets::NewTicket {
            title: title.into(),
            priority: Some(priority),
            ..Default::default()
        };
        ids.push(
            tickets::create(
                app.state.write_deps(deskgraph::domain::Channel::System),
                &owner_a,
                new,
            )
            .await
            .unwrap()
            .id,
        );
    }
    let server_down = ids[0];
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "agent").await;
        assert_eq!(
            view(&client, &base, "Unassigned").await,
            ["Calm one", "Server down"]
        );
        assert!(view(&client, &base, "Mine").await.is_empty());
        assert!(view(&client, &base, "Breaching soon").await.is_empty());

        // Assign to me from the ticket's page.
        client
            .goto(&format!("{base}/tickets/{server_down}/"))
            .await
            .unwrap();
        assert!(client.find(Locator::Css("#ticket-sla")).await.is_err());
        wait_for(&client, "#assign-to-me")
            .await
            .click()
            .await
            .unwrap();
        eventually("the ticket to be mine", || async {
            client.find(Locator::Css("#assign-to-me")).await.is_err()
                && client.find(Locator::Css("#ticket-title")).await.is_ok()
        })
        .await;

        // Raise its priority: the critical policy's clock starts, and its badge shows.
        wait_for(&client, "details.edit-ticket summary")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#edit-priority option[value=critical]")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#save-ticket")
            .await
            .click()
            .await
            .unwrap();
        let sla = wait_for(&client, "#ticket-sla").await;
        let text = sla.text().await.unwrap();
        assert!(text.contains("Urgent"), "{text}");
        assert!(text.contains("First response due in 2"), "{text}");
        assert!(text.contains("Resolution due in"), "{text}");

        assert_eq!(view(&client, &base, "Mine").await, ["Server down"]);
        assert_eq!(view(&client, &base, "Unassigned").await, ["Calm one"]);
        assert_eq!(
            view(&client, &base, "Breaching soon").await,
            ["Server down"]
        );
        // The queue shows when it is due.
        let due = wait_for(&client, "td.sla-cell").await.text().await.unwrap();
        assert!(!due.trim().is_empty(), "no due time in the queue");
    })
    .await;
}
