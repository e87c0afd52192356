//! End to end in headless Chromium, driven through chromedriver: a requester comments, edits in place
//! and deletes; an agent adds an internal note and moves the ticket; the requester never sees the note.
//! Without a browser the test prints a notice and passes, unless `CI` is set. [`in_chromium`] runs other
//! flows (`browser_sla.rs`) the same way.
use crate::comments_support::actor;
use crate::helpers::TestApp;
use deskgraph::service::tickets;
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

const CHROMIUM_FLAGS: [&str; 9] = [
    // No host but this one resolves: a page that needs the internet fails here as it would offline.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1200,1400",
];

/// The first of `names` found on PATH (or given as an absolute path).
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names.iter().find_map(|name| {
        let direct = PathBuf::from(name);
        if direct.is_absolute() {
            return direct.is_file().then_some(direct);
        }
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// chromedriver and Chromium, or `None` (after the notice) when this machine has no browser.
fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let driver = find_program(&["chromedriver"]);
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    match (driver, chromium) {
        (Some(d), Some(c)) => Some((d, c)),
        _ if std::env::var_os("CI").is_some() => {
            panic!(
                "CI is set but chromium/chromedriver are missing: run scripts/install-browser.sh"
            )
        }
        _ => {
            eprintln!("NOTICE: chromium or chromedriver not installed; browser test skipped (scripts/install-browser.sh installs them)");
            None
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Poll `check` until it holds (10 s at most).
pub(crate) async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for: {what}");
}

pub(crate) async fn wait_for(client: &Client, css: &str) -> Element {
    client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element {css}: {e}"))
}

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

pub(crate) async fn sign_in(client: &Client, base: &str, username: &str) {
    client
        .goto(&format!("{base}/accounts/login/"))
        .await
        .unwrap();
    wait_for(client, "#username")
        .await
        .send_keys(username)
        .await
        .unwrap();
    let password = format!("{username}-password");
    wait_for(client, "#password")
        .await
        .send_keys(&password)
        .await
        .unwrap();
    wait_for(client, "#sign-in").await.click().await.unwrap();
    let header = wait_for(client, ".signed-in").await;
    assert!(header.text().await.unwrap().contains("Example"));
}

pub(crate) async fn sign_out(client: &Client) {
    wait_for(client, "#sign-out").await.click().await.unwrap();
    wait_for(client, "#sign-in").await;
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
        app.state.write_deps(),
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

/// Serve `app` on a local port and run `flow` in headless Chromium against it (the client, the base URL);
/// the browser is closed whatever happens. Without a browser it prints a notice and returns (see
/// [`browser_programs`]).
pub(crate) async fn in_chromium<F, Fut>(app: &TestApp, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    run_in_chromium(app, json!({}), flow).await
}

/// [`in_chromium`] with JavaScript turned off, as a browser without it (or with it blocked) sees the pages.
pub(crate) async fn in_chromium_without_javascript<F, Fut>(app: &TestApp, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let prefs = json!({ "profile.managed_default_content_settings.javascript": 2 });
    run_in_chromium(app, prefs, flow).await
}

async fn run_in_chromium<F, Fut>(app: &TestApp, prefs: serde_json::Value, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let Some((driver, chromium)) = browser_programs() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let service = app
        .router
        .clone()
        .into_make_service_with_connect_info::<SocketAddr>();
    let server = tokio::spawn(async move { axum::serve(listener, service).await });

    let port = free_port();
    let mut chromedriver = tokio::process::Command::new(&driver)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let driver_url = format!("http://127.0.0.1:{port}");
    eventually("chromedriver to listen", || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
    })
    .await;

    let profile = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.path().display()));
    let capabilities = json!({
        "goog:chromeOptions": { "binary": chromium, "args": args, "prefs": prefs }
    });
    let serde_json::Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let client = ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver_url)
        .await
        .unwrap();

    let result = std::panic::AssertUnwindSafe(flow(client.clone(), base));
    let outcome = futures_util::FutureExt::catch_unwind(result).await;
    client.close().await.ok();
    chromedriver.kill().await.ok();
    server.abort();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
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
    editor.clear().await.unwrap();
    editor
        .send_keys("It flickers <b>twice</b> an hour")
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
    let body = comment.find(Locator::Css(".comment-body")).await.unwrap();
    assert_eq!(body.text().await.unwrap(), "It flickers twice an hour");
    let bold = body.find(Locator::Css("b")).await.unwrap();
    assert_eq!(bold.text().await.unwrap(), "twice");
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
