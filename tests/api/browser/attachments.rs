//! Files through the web forms in headless Chromium with JavaScript turned off: a requester opens a ticket
//! with a screenshot and comments with a log, an agent adds an internal note with a dump; images show inline,
//! other files as download links, and the note's file is marked internal (and never reaches the requester).
//! Skipped like `browser.rs` without a browser.
use crate::support::browser::{
    eventually, in_chromium, in_chromium_without_javascript, sign_in, sign_out, wait_for,
};
use crate::support::helpers::TestApp;
use fantoccini::{Client, Locator};

/// A real 1×1 PNG, which a browser decodes.
const PIXEL: [u8; 67] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// Write `bytes` to `dir/name` and return the path, for a file input.
fn file(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

/// Choose `path` in the file input `selector`.
async fn choose(client: &Client, selector: &str, path: &str) {
    wait_for(client, selector)
        .await
        .send_keys(path)
        .await
        .unwrap();
}

/// The `(href, text)` of the download links on the page. A page still replacing the one before it (after a
/// form post) can turn a found link stale: the links are then read again.
async fn links(client: &Client) -> Vec<(String, String)> {
    for _ in 0..50 {
        let mut out = Vec::new();
        let mut stale = false;
        for link in client
            .find_all(Locator::Css("a.attachment-link"))
            .await
            .unwrap()
        {
            match (link.attr("href").await, link.text().await) {
                (Ok(href), Ok(text)) => out.push((href.unwrap_or_default(), text)),
                _ => {
                    stale = true;
                    break;
                }
            }
        }
        if !stale {
            return out;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the attachment links stayed stale")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_go_up_through_the_forms_without_javascript() {
    let app = TestApp::sqlite().await;
    app.user("owner").await;
    app.agent("agent").await;
    let dir = tempfile::tempdir().unwrap();
    let screenshot = file(dir.path(), "screenshot.png", &PIXEL);
    let log = file(dir.path(), "app.log", b"line one\nline two\n");
    let dump = file(dir.path(), "core-dump.bin", b"\0\x01\x02 private");
    in_chromium_without_javascript(&app, |client, base| async move {
        // The requester: a new ticket with a screenshot, shown inline.
        sign_in(&client, &base, "owner").await;
        client.goto(&format!("{base}/tickets/new/")).await.unwrap();
        wait_for(&client, "#title")
            .await
            .send_keys("Screen goes black")
            .await
            .unwrap();
        choose(&client, "#file", &screenshot).await;
        wait_for(&client, "form[action='/tickets/new/'] button[type=submit]")
            .await
            .click()
            .await
            .unwrap();
        let image = wait_for(&client, "section.attachments img.attachment-image").await;
        let ticket_url = client.current_url().await.unwrap().to_string();
        assert_eq!(
            image.attr("alt").await.unwrap().as_deref(),
            Some("screenshot.png")
        );
        let src = image.attr("src").await.unwrap().unwrap_or_default();
        assert!(src.contains("/api/attachments/"), "{src}");

        // A comment with a log: a download link, no image.
        wait_for(&client, "#comment-body")
            .await
            .send_keys("Log attached")
            .await
            .unwrap();
        choose(&client, "#comment-file", &log).await;
        wait_for(&client, "#add-comment")
            .await
            .click()
            .await
            .unwrap();
        eventually("the log's link", || async {
            links(&client)
                .await
                .iter()
                .any(|(_, text)| text == "app.log")
        })
        .await;
        let comment_images = client
            .find_all(Locator::Css("ul.attachments img"))
            .await
            .unwrap();
        assert!(comment_images.is_empty(), "a log is not shown as an image");
        let (href, _) = links(&client)
            .await
            .into_iter()
            .find(|(_, text)| text == "app.log")
            .unwrap();
        assert!(href.contains("/api/attachments/"), "{href}");
        sign_out(&client).await;

        // The agent: an internal note with a dump, marked internal.
        sign_in(&client, &base, "agent").await;
        client.goto(&ticket_url).await.unwrap();
        wait_for(&client, "#comment-body")
            .await
            .send_keys("Dump from the machine")
            .await
            .unwrap();
        wait_for(&client, "#type-internal")
            .await
            .click()
            .await
            .unwrap();
        choose(&client, "#comment-file", &dump).await;
        wait_for(&client, "#add-comment")
            .await
            .click()
            .await
            .unwrap();
        let internal = wait_for(&client, "ul.attachments.internal").await;
        let text = internal.text().await.unwrap();
        assert!(text.contains("core-dump.bin"), "{text}");
        assert!(text.contains("Internal"), "{text}");
        sign_out(&client).await;

        // The requester never sees the note's file.
        sign_in(&client, &base, "owner").await;
        client.goto(&ticket_url).await.unwrap();
        wait_for(&client, "#comment-body").await;
        let names: Vec<String> = links(&client).await.into_iter().map(|(_, t)| t).collect();
        assert!(names.contains(&"app.log".to_string()), "{names:?}");
        assert!(!names.contains(&"core-dump.bin".to_string()), "{names:?}");
    })
    .await;
}

/// With JavaScript, files dropped on the comment form and a screenshot pasted into its text join the file the
/// input chose, and the form's post carries them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_and_pasted_files_go_with_the_comment() {
    let app = TestApp::sqlite().await;
    let owner = app.user("owner").await;
    let t = app
        .as_user(&owner)
        .create_ticket(serde_json::json!({"title": "Printer jams"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let chosen = file(dir.path(), "chosen.txt", b"chosen\n");
    in_chromium(&app, |client, base| async move {
        sign_in(&client, &base, "owner").await;
        client
            .goto(&format!("{base}/tickets/{id}/"))
            .await
            .unwrap();
        let hint = wait_for(&client, "#comment-form .drop-hint").await;
        assert!(hint.is_displayed().await.unwrap());
        choose(&client, "#comment-file", &chosen).await;
        // What a drop and a paste hand the page: files in a DataTransfer.
        let script = r#"
            const form = document.getElementById('comment-form');
            const dropped = new DataTransfer();
            dropped.items.add(new File(['one'], 'dropped-1.txt', { type: 'text/plain' }));
            dropped.items.add(new File(['two'], 'dropped-2.txt', { type: 'text/plain' }));
            form.dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
            const pasted = new DataTransfer();
            pasted.items.add(new File(['png'], 'image.png', { type: 'image/png' }));
            document.getElementById('comment-body').dispatchEvent(
                new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true }));
            return document.getElementById('comment-file').files.length;
        "#;
        let count = client.execute(script, vec![]).await.unwrap();
        assert_eq!(count, serde_json::json!(4));
        wait_for(&client, "#comment-body")
            .await
            .send_keys("Four files")
            .await
            .unwrap();
        wait_for(&client, "#add-comment")
            .await
            .click()
            .await
            .unwrap();
        eventually("the four files' links", || async {
            let shown: Vec<String> = links(&client).await.into_iter().map(|(_, t)| t).collect();
            ["chosen.txt", "dropped-1.txt", "dropped-2.txt", "image.png"]
                .iter()
                .all(|name| shown.iter().any(|s| s == name))
        })
        .await;
    })
    .await;
}
