//! A new hire and a leaver in headless Chromium: an administrator creates a group and an account in it from
//! the admin pages, the new user gives themselves a token from their settings page, the administrator
//! deactivates them in one click, and the token then fails over REST. Skipped like `browser.rs` without a
//! browser.
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
