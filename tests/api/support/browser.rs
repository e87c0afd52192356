//! End to end in headless Chromium, driven through chromedriver: a requester comments, edits in place
//! and deletes; an agent adds an internal note and moves the ticket; the requester never sees the note.
//! Without a browser the test prints a notice and passes, unless `CI` is set. [`in_chromium`] runs other
//! flows (`browser_sla.rs`) the same way.
use crate::support::helpers::TestApp;
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

pub(crate) async fn sign_in(client: &Client, base: &str, username: &str) {
    sign_in_with(client, base, username, &format!("{username}-password")).await;
    let header = wait_for(client, ".signed-in").await;
    assert!(header.text().await.unwrap().contains("Example"));
}

/// Sign in through the sign-in form with `password`, and wait for the signed-in header.
pub(crate) async fn sign_in_with(client: &Client, base: &str, username: &str, password: &str) {
    client
        .goto(&format!("{base}/accounts/login/"))
        .await
        .unwrap();
    wait_for(client, "#username")
        .await
        .send_keys(username)
        .await
        .unwrap();
    wait_for(client, "#password")
        .await
        .send_keys(password)
        .await
        .unwrap();
    wait_for(client, "#sign-in").await.click().await.unwrap();
    wait_for(client, ".signed-in").await;
}

pub(crate) async fn sign_out(client: &Client) {
    wait_for(client, "#sign-out").await.click().await.unwrap();
    wait_for(client, "#sign-in").await;
}

/// Serve `app` on a local port and run `flow` in headless Chromium against it (the client, the base URL);
/// the browser is closed whatever happens. Without a browser it prints a notice and returns (see
/// [`browser_programs`]).
pub(crate) async fn in_chromium<F, Fut>(app: &TestApp, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    run_in_chromium(app, json!({}), &[], flow).await
}

/// [`in_chromium`] with JavaScript turned off, as a browser without it (or with it blocked) sees the pages.
pub(crate) async fn in_chromium_without_javascript<F, Fut>(app: &TestApp, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let prefs = json!({ "profile.managed_default_content_settings.javascript": 2 });
    run_in_chromium(app, prefs, &[], flow).await
}

/// [`in_chromium`] with the system's colour scheme dark, as `prefers-color-scheme: dark` pages see it.
pub(crate) async fn in_chromium_dark<F, Fut>(app: &TestApp, flow: F)
where
    F: FnOnce(Client, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let dark = ["--blink-settings=preferredColorScheme=0"];
    run_in_chromium(app, json!({}), &dark, flow).await
}

async fn run_in_chromium<F, Fut>(
    app: &TestApp,
    prefs: serde_json::Value,
    extra_args: &[&str],
    flow: F,
) where
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
    args.extend(extra_args.iter().map(|a| a.to_string()));
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
