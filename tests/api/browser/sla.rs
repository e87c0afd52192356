//! The agent's workspace in headless Chromium: the queue's views ("Unassigned", "Mine", "Breaching
//! soon") are clicked through, a ticket is assigned to me and its priority raised from its page, and the
//! SLA badge the new priority's policy sets shows. Skipped like `browser.rs` without a browser.
use crate::support::browser::{
    eventually, in_chromium, in_chromium_without_javascript, sign_in, wait_for,
};
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
    let agent = app.agent("agent").await;
    let agent_a = actor(&app, &agent).await;
    let db = app.state.db.conn.clone();
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

        // Raise its priority in the side panel: it saves on change, without a reload, and says so. The
        // critical policy's clock starts, and its badge shows.
        let marker = "document.title += ' (not reloaded)'";
        client.execute(marker, vec![]).await.unwrap();
        assert!(
            !wait_for(&client, "#save-details")
                .await
                .is_displayed()
                .await
                .unwrap(),
            "the Save button is for pages without JavaScript"
        );
        wait_for(&client, "#edit-priority option[value=critical]")
            .await
            .click()
            .await
            .unwrap();
        eventually("the panel to show the new SLA", || async {
            match client.find(Locator::Css("#ticket-sla")).await {
                Ok(sla) => sla.text().await.unwrap_or_default().contains("Urgent"),
                Err(_) => false,
            }
        })
        .await;
        let sla = wait_for(&client, "#ticket-sla").await;
        let text = sla.text().await.unwrap();
        assert!(text.contains("First response due in 2"), "{text}");
        assert!(text.contains("Resolution due in"), "{text}");
        let flash = wait_for(&client, "#flash").await.text().await.unwrap();
        assert_eq!(flash, "Priority set to Critical");
        let title = client.title().await.unwrap();
        assert!(title.ends_with("(not reloaded)"), "{title}");
        // The history has the change, and the focus stayed on the picker.
        let history = wait_for(&client, "#history").await.text().await.unwrap();
        assert!(history.contains("Critical"), "{history}");
        let focused: serde_json::Value = client
            .execute("return document.activeElement.id", vec![])
            .await
            .unwrap();
        assert_eq!(focused, "edit-priority");
        // The database has it.
        let saved = tickets::get(&db, &agent_a, server_down).await.unwrap();
        assert_eq!(saved.priority, Priority::Critical);
        // A name nobody has: the panel says why, in place, and nothing changes.
        let by_name = wait_for(&client, "#edit-assignee-name").await;
        by_name.send_keys("nobody-here").await.unwrap();
        client
            .execute(
                "document.getElementById('edit-assignee-name').dispatchEvent(new Event('change', {bubbles: true}))",
                vec![],
            )
            .await
            .unwrap();
        eventually("the panel to say the name is unknown", || async {
            match client.find(Locator::Css("#quick-edit .js-quick-error")).await {
                Ok(e) => e
                    .text()
                    .await
                    .unwrap_or_default()
                    .starts_with("no active user named"),
                Err(_) => false,
            }
        })
        .await;
        let still = tickets::get(&db, &agent_a, server_down).await.unwrap();
        assert_eq!(still.assignee_id, saved.assignee_id);

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_javascript_the_side_panel_saves_with_its_button() {
    let app = TestApp::sqlite().await;
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let agent_a = actor(&app, &agent).await;
    let owner_a = actor(&app, &owner).await;
    let db = app.state.db.conn.clone();
    let new = tickets::NewTicket {
        title: "Dock has no power".into(),
        ..Default::default()
    };
    let id = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &owner_a,
        new,
    )
    .await
    .unwrap()
    .id;
    in_chromium_without_javascript(&app, |client, base| async move {
        sign_in(&client, &base, "agent").await;
        client.goto(&format!("{base}/tickets/{id}/")).await.unwrap();
        wait_for(&client, "#edit-priority option[value=high]")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#edit-due")
            .await
            .send_keys("12312030")
            .await
            .unwrap();
        let save = wait_for(&client, "#save-details").await;
        assert!(save.is_displayed().await.unwrap());
        save.click().await.unwrap();
        let flash = wait_for(&client, "#flash").await.text().await.unwrap();
        assert_eq!(flash, "Changes saved");
        let saved = tickets::get(&db, &agent_a, id).await.unwrap();
        assert_eq!(saved.priority, Priority::High);
        assert_eq!(
            saved.due_date.map(|d| d.to_string()).as_deref(),
            Some("2030-12-31")
        );
    })
    .await;
}
