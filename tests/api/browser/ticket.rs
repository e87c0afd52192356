use crate::support::browser::{eventually, in_chromium, sign_in, sign_out, wait_for};
use crate::support::helpers::TestApp;
use crate::support::world::actor;
use deskgraph::service::tickets;
use fantoccini::elements::Element;
use fantoccini::{Client, Locator};
use std::path::PathBuf;
use std::time::Duration;

/// The comment whose body contains `text`.
async fn comment_with(client: &Client, text: &str) -> Element {
    let xpath = format!(
        "//article[contains(@class,'comment')][.//div[contains(@class,'comment-body')][contains(., '{text}')]]"
    );
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|e| panic!("no comment with {text}: {e}"))
}

/// Type and send a comment; `shown` is a part of the text as the page renders it.
async fn add_comment(client: &Client, text: &str, internal: bool, shown: &str) {
    wait_for(client, "#comment-body")
        .await
        .send_keys(text)
        .await
        .unwrap();
    if internal {
        wait_for(client, "#type-internal")
            .await
            .click()
            .await
            .unwrap();
    }
    wait_for(client, "#add-comment")
        .await
        .click()
        .await
        .unwrap();
    comment_with(client, shown).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_is_worked_end_to_end_in_chromium() {
    let app = TestApp::sqlite().await;
    let owner = app.user("owner").await;
    app.agent("agent").await;
    let ticket = tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor(&app, &owner).await,
        tickets::NewTicket {
            title: "Monitor flickers".into(),
            description: Some("<p>Since Monday, every few minutes.</p>".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    in_chromium(&app, |client, base| async move {
        run_flow(&client, &base, ticket.id).await
    })
    .await;
}

async fn run_flow(client: &Client, base: &str, ticket_id: i32) {
    let ticket_url = format!("{base}/tickets/{ticket_id}/");

    // The requester: open the ticket from the queue, comment, edit in place, delete.
    sign_in(client, base, "owner").await;
    wait_for(client, ".ticket-title")
        .await
        .click()
        .await
        .unwrap();
    let title = wait_for(client, "#ticket-title")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(title, "Monitor flickers");
    assert!(client.find(Locator::Css("#type-internal")).await.is_err());
    add_comment(client, "It flickers again", false, "It flickers again").await;

    let comment = comment_with(client, "It flickers again").await;
    let editor_form = comment.find(Locator::Css(".comment-editor")).await.unwrap();
    assert!(
        !editor_form.is_displayed().await.unwrap(),
        "editor shown before Edit"
    );
    comment
        .find(Locator::Css(".js-edit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let editor = comment.find(Locator::Css("textarea")).await.unwrap();
    // The box holds the text the comment shows, never its markup.
    assert_eq!(
        editor.prop("value").await.unwrap().unwrap_or_default(),
        "It flickers again"
    );
    editor.clear().await.unwrap();
    editor
        .send_keys("It flickers <b>twice</b> an hour\nsince Monday")
        .await
        .unwrap();
    comment
        .find(Locator::Css(".js-save"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let marker = comment.find(Locator::Css(".edited")).await.unwrap();
    eventually("the edited marker", || async {
        marker.is_displayed().await.unwrap_or(false)
    })
    .await;
    // The endpoint answers in the contract's UTC; the page does not show that as if it were the reader's time.
    assert_eq!(marker.text().await.unwrap(), "(edited just now)");
    let body = comment.find(Locator::Css(".comment-body")).await.unwrap();
    // What was typed is shown as typed, its line break kept and its tags as text.
    assert_eq!(
        body.text().await.unwrap(),
        "It flickers <b>twice</b> an hour\nsince Monday"
    );
    assert!(body.find(Locator::Css("b")).await.is_err());
    // The history is there on demand, with the text before the edit.
    let history = comment.find(Locator::Css(".history")).await.unwrap();
    history
        .find(Locator::Css("summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let old = history.find(Locator::Css(".history-body")).await.unwrap();
    assert_eq!(old.text().await.unwrap(), "It flickers again");

    // After a reload the server shows the same: marker and history.
    client.goto(&ticket_url).await.unwrap();
    let comment = comment_with(client, "twice").await;
    let marker = comment.find(Locator::Css(".edited")).await.unwrap();
    assert!(marker.is_displayed().await.unwrap());
    assert!(client.source().await.unwrap().contains("It flickers again"));

    comment
        .find(Locator::Css(".delete-confirm summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    comment
        .find(Locator::Css(".js-confirm-delete"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually("the comment to go", || async {
        client.find(Locator::Css(".comment")).await.is_err()
    })
    .await;
    client.goto(&ticket_url).await.unwrap();
    wait_for(client, "#comment-body").await;
    assert!(!client.source().await.unwrap().contains("twice"));
    sign_out(client).await;

    // The agent: an internal note, and a status change.
    sign_in(client, base, "agent").await;
    client.goto(&ticket_url).await.unwrap();
    add_comment(
        client,
        "Replace the cable before ordering",
        true,
        "Replace the cable",
    )
    .await;
    let note = comment_with(client, "Replace the cable").await;
    assert!(note
        .attr("class")
        .await
        .unwrap()
        .unwrap_or_default()
        .contains("internal"));
    assert!(note.text().await.unwrap().contains("Internal note"));
    wait_for(client, "button[name=status][value=in_progress]")
        .await
        .click()
        .await
        .unwrap();
    eventually("the new status", || async {
        match client.find(Locator::Css("#ticket-status")).await {
            Ok(el) => el.text().await.map(|t| t == "In progress").unwrap_or(false),
            Err(_) => false,
        }
    })
    .await;
    // Only moves away from the current status are offered.
    assert!(client
        .find(Locator::Css("button[name=status][value=in_progress]"))
        .await
        .is_err());
    wait_for(client, "button[name=status][value=on_hold]").await;
    add_comment(
        client,
        "On it, <i>replacing</i> the cable today.",
        false,
        "replacing",
    )
    .await;
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let png = client.screenshot().await.unwrap();
    std::fs::write(shots.join("ticket.png"), png).unwrap();
    sign_out(client).await;

    // The requester again: the status moved, the note is nowhere on the page.
    sign_in(client, base, "owner").await;
    client.goto(&ticket_url).await.unwrap();
    let status = wait_for(client, "#ticket-status")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(status, "In progress");
    comment_with(client, "replacing").await;
    let source = client.source().await.unwrap();
    assert!(
        !source.contains("Replace the cable"),
        "internal note leaked"
    );
    assert!(!source.contains("Internal note"));
}
