//! A new hire and a leaver in headless Chromium: an administrator creates a group and an account in it from
//! the admin pages, the new user gives themselves a token from their settings page, the administrator
//! deactivates them in one click, and the token then fails over REST; and an administrator adds a Teams
//! channel for critical tickets. Skipped like `browser.rs` without a browser.
use crate::support::browser::{eventually, in_chromium, sign_in, sign_out, wait_for};
use crate::support::helpers::TestApp;
use fantoccini::Locator;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_hire_and_a_leaver_through_the_admin_pages_in_chromium() {
    let app = TestApp::sqlite().await;
    app.admin("root").await;
    let token = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let kept = token.clone();
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "root").await;
        client.goto(&format!("{base}/admin/groups/")).await.unwrap();
        wait_for(&client, "#group-name")
            .await
            .send_keys("Network")
            .await
            .unwrap();
        wait_for(&client, "#create-group")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, ".flash").await;

        // The account, with the new group ticked.
        wait_for(&client, "a[href='/admin/users/']")
            .await
            .click()
            .await
            .unwrap();
        for (field, value) in [
            ("#new-username", "dana"),
            ("#new-full-name", "Dana Example"),
            ("#new-email", "dana@example.com"),
            ("#new-password", "dana-password"),
        ] {
            wait_for(&client, field)
                .await
                .send_keys(value)
                .await
                .unwrap();
        }
        let network = client
            .find(Locator::XPath(
                "//label[contains(@class,'check')][contains(., 'Network')]/input",
            ))
            .await
            .unwrap();
        network.click().await.unwrap();
        wait_for(&client, "#create-user")
            .await
            .click()
            .await
            .unwrap();
        let flash = wait_for(&client, ".flash").await;
        assert!(flash.text().await.unwrap().contains("created"));
        let account_url = client.current_url().await.unwrap().to_string();
        sign_out(&client).await;

        // The new hire makes a token on their settings page.
        sign_in(&client, &base, "dana").await;
        wait_for(&client, "a[href='/settings/']")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#token-name")
            .await
            .send_keys("laptop")
            .await
            .unwrap();
        wait_for(&client, "#create-token")
            .await
            .click()
            .await
            .unwrap();
        let secret = wait_for(&client, "#new-token").await.text().await.unwrap();
        assert!(secret.starts_with("dg_"), "{secret}");
        *kept.lock().unwrap() = secret;
        sign_out(&client).await;

        // The administrator off-boards them in one click.
        sign_in(&client, &base, "root").await;
        client.goto(&account_url).await.unwrap();
        wait_for(&client, "#deactivate")
            .await
            .click()
            .await
            .unwrap();
        // The account page may already show a flash (from its creation): wait for the new page's.
        eventually("the deactivation is confirmed", || async {
            match client.find(Locator::Css(".flash")).await {
                Ok(flash) => flash
                    .text()
                    .await
                    .is_ok_and(|text| text.contains("Deactivated")),
                Err(_) => false,
            }
        })
        .await;
    })
    .await;
    let secret = token.lock().unwrap().clone();
    if secret.is_empty() {
        return; // no browser here: skipped
    }
    let refused = app.get("/api/tickets/", Some(&secret)).await;
    assert_eq!(refused.status, 401, "{}", refused.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_a_teams_channel_for_critical_tickets_in_chromium() {
    let app = TestApp::sqlite().await;
    let root = app.admin("root").await;
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = ran.clone();
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "root").await;
        client.goto(&format!("{base}/admin/")).await.unwrap();
        wait_for(&client, "a[href='/admin/chat/']")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#chat-name")
            .await
            .send_keys("Service desk")
            .await
            .unwrap();
        wait_for(&client, "#chat-kind option[value='teams']")
            .await
            .click()
            .await
            .unwrap();
        wait_for(&client, "#chat-url")
            .await
            .send_keys("http://127.0.0.1:9/workflows/desk")
            .await
            .unwrap();
        let critical = client
            .find(Locator::XPath(
                "//form[@id='new-chat-form']//label[contains(@class,'check')][contains(., 'Critical')]/input",
            ))
            .await
            .unwrap();
        critical.click().await.unwrap();
        wait_for(&client, "#create-chat")
            .await
            .click()
            .await
            .unwrap();
        let flash = wait_for(&client, ".flash").await;
        assert!(flash.text().await.unwrap().contains("Destination added"));
        let listed = wait_for(&client, "#chat-table").await;
        assert!(listed.text().await.unwrap().contains("Service desk"));
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
    })
    .await;
    if !ran.load(std::sync::atomic::Ordering::SeqCst) {
        return; // no browser here: skipped
    }
    let stored = app.get("/api/chat-destinations/", Some(&root.token)).await;
    assert_eq!(stored.json[0]["kind"], "teams", "{}", stored.text);
    assert_eq!(
        stored.json[0]["priorities"],
        serde_json::json!(["critical"])
    );
    assert_eq!(stored.json[0]["has_webhook_url"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_a_mailbox_in_chromium_and_mail_in_it_becomes_a_ticket() {
    let Some(port) = crate::support::imap::server() else {
        return;
    };
    let app = TestApp::sqlite().await;
    let root = app.admin("root").await;
    let user = crate::support::imap::fresh_user("chromium");
    let url = crate::support::imap::url(port, &user, "INBOX");
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = ran.clone();
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "root").await;
        client.goto(&format!("{base}/admin/")).await.unwrap();
        wait_for(&client, "a[href='/admin/mail/']")
            .await
            .click()
            .await
            .unwrap();
        for (field, value) in [
            ("#mail-name", "Help desk"),
            ("#mail-url", url.as_str()),
            ("#mail-secret", crate::support::imap::PASSWORD),
            ("#mail-done", "Done"),
        ] {
            wait_for(&client, field)
                .await
                .send_keys(value)
                .await
                .unwrap();
        }
        wait_for(&client, "#create-mail")
            .await
            .click()
            .await
            .unwrap();
        let flash = wait_for(&client, ".flash").await;
        assert!(flash.text().await.unwrap().contains("Mailbox added"));
        let listed = wait_for(&client, "#mail-table").await;
        assert!(listed.text().await.unwrap().contains("Not read yet"));
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
    })
    .await;
    if !ran.load(std::sync::atomic::Ordering::SeqCst) {
        return; // no browser here: skipped
    }
    let stored = app.get("/api/mailboxes/", Some(&root.token)).await;
    assert_eq!(stored.json[0]["done_folder"], "Done", "{}", stored.text);
    let id = stored.json[0]["id"].as_i64().unwrap() as i32;
    crate::support::imap::deliver(
        port,
        &user,
        "INBOX",
        b"From: hal@example.com\r\nSubject: Pod bay doors\r\nMessage-ID: <pod@x>\r\n\r\nThey will not open.\r\n",
    )
    .await;
    let look = deskgraph::service::mailboxes::fetch::fetch_once(&app.state.mail_fetcher(), id)
        .await
        .unwrap();
    assert_eq!(look.taken, 1);
    let tickets = app.get("/api/tickets/", Some(&root.token)).await;
    assert_eq!(
        tickets.json["results"][0]["title"], "Pod bay doors",
        "{}",
        tickets.text
    );
}
