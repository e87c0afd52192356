//! A real OpenID Connect provider for the single sign-on tests: PyPI's `oidc-provider-mock` (`pip install
//! oidc-provider-mock`, which `.ci/run` does), started once per test process and kind on a free port; it
//! exits when this process does. Without it the tests are skipped, except under CI (`CI` set), where they
//! fail. The service is served on a real socket and driven by `oidc_browser::Browser`.
#![allow(dead_code)]
use crate::support::helpers::TestApp;
use deskgraph::config::{Config, OidcSettings};
use serde_json::Value;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Runs the provider and exits as soon as its parent (the test process) is gone.
const LAUNCH: &str = "import os, sys, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from oidc_provider_mock.__main__ import run
run(sys.argv[1:])
";

/// Which provider a test talks to.
#[derive(Clone, Copy)]
pub enum Kind {
    /// Tokens valid for an hour; nonces required.
    Main,
    /// ID tokens valid for a second (`--token-max-age 1`), reaching the service a little later.
    Expiring,
    /// The main provider seen through a proxy that serves another provider's keys.
    OtherKeys,
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

fn launch(args: &[&str]) -> Result<String, String> {
    let port = free_port()?;
    let mut child = std::process::Command::new("python3")
        .args(["-c", LAUNCH, "--port", &port.to_string()])
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "oidc-provider-mock exited with {status} (is it installed?)"
            ));
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(format!("http://127.0.0.1:{port}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    Err("oidc-provider-mock did not listen within 30 s".into())
}

fn main_provider() -> &'static Result<String, String> {
    static MAIN: OnceLock<Result<String, String>> = OnceLock::new();
    MAIN.get_or_init(|| launch(&["--require-nonce"]))
}

/// The issuer URL of a provider of `kind`, or `None` (after saying why) when it cannot run outside CI.
pub fn provider(kind: Kind) -> Option<String> {
    static EXPIRING: OnceLock<Result<String, String>> = OnceLock::new();
    static OTHER_KEYS: OnceLock<Result<String, String>> = OnceLock::new();
    let found = match kind {
        Kind::Main => main_provider(),
        Kind::Expiring => EXPIRING.get_or_init(|| {
            let short = launch(&["--token-max-age", "1"])?;
            proxy(short.clone(), short, TOKEN_DELAY)
        }),
        Kind::OtherKeys => OTHER_KEYS.get_or_init(|| {
            let main = main_provider().clone()?;
            let other = launch(&[])?;
            proxy(main, other, Duration::ZERO)
        }),
    };
    match found {
        Ok(url) => Some(url.clone()),
        Err(why) if std::env::var_os("CI").is_some() => panic!("OpenID Connect provider: {why}"),
        Err(why) => {
            eprintln!("OpenID Connect provider unavailable, single sign-on test skipped: {why}");
            None
        }
    }
}

/// How long the expiring provider's token answers take to arrive: longer than the ID tokens in them live.
const TOKEN_DELAY: Duration = Duration::from_millis(1200);

/// A proxy in front of the `main` provider that keeps the `Host` it was reached by (so the provider names
/// the proxy as issuer and in every endpoint), answers `/jwks` with the keys of `keys` (another provider:
/// ID tokens signed by a key the service was never shown), and holds token answers back for `token_delay`.
fn proxy(main: String, keys: String, token_delay: Duration) -> Result<String, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap();
            let forward = move |req: axum::extract::Request| {
                let (client, main, keys) = (client.clone(), main.clone(), keys.clone());
                async move {
                    let path = req.uri().path_and_query().map(|p| p.to_string());
                    let path = path.unwrap_or_default();
                    let upstream = if path == "/jwks" { keys } else { main };
                    let (parts, body) = req.into_parts();
                    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                    let mut headers = parts.headers.clone();
                    headers.remove(axum::http::header::CONTENT_LENGTH);
                    let answer = client
                        .request(parts.method, format!("{upstream}{path}"))
                        .headers(headers)
                        .body(body)
                        .send()
                        .await
                        .unwrap();
                    let mut response = axum::http::Response::builder().status(answer.status());
                    for (name, value) in answer.headers() {
                        if name != axum::http::header::TRANSFER_ENCODING {
                            response = response.header(name, value);
                        }
                    }
                    let bytes = answer.bytes().await.unwrap();
                    if path.starts_with("/oauth2/token") {
                        tokio::time::sleep(token_delay).await;
                    }
                    response.body(axum::body::Body::from(bytes)).unwrap()
                }
            };
            let router = axum::Router::new().fallback(forward);
            axum::serve(listener, router).await.ok();
        });
    });
    Ok(format!("http://{addr}"))
}

/// Listeners bound for the service before its configuration was made, by public URL.
fn listeners() -> &'static Mutex<Vec<(String, std::net::TcpListener)>> {
    static BOUND: OnceLock<Mutex<Vec<(String, std::net::TcpListener)>>> = OnceLock::new();
    BOUND.get_or_init(Mutex::default)
}

/// The provider settings of these tests for `issuer`, with the service reached at `public_url`.
pub fn settings(issuer: &str, public_url: &str) -> OidcSettings {
    OidcSettings {
        issuer_url: issuer.to_string(),
        client_id: "deskgraph-test".into(),
        client_secret: "client-secret-never-in-audit".into(),
        provider_name: "Mock IdP".into(),
        scopes: vec!["email".into(), "profile".into()],
        redirect_url: format!("{public_url}/accounts/oidc/callback/"),
        groups_claim: "groups".into(),
        group_map: vec![
            ("idp-net".into(), "Network".into()),
            ("idp-help".into(), "Agents".into()),
        ],
        staff_groups: vec!["idp-staff".into()],
        admin_groups: vec!["idp-admins".into()],
        sso_only: false,
        break_glass_user: None,
    }
}

fn configure(config: &mut Config, kind: Kind) {
    let Some(issuer) = provider(kind) else { return };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let public_url = format!("http://{}", listener.local_addr().unwrap());
    listeners()
        .lock()
        .unwrap()
        .push((public_url.clone(), listener));
    config.oidc = Some(settings(&issuer, &public_url));
    config.accounts.public_url = Some(public_url);
}

/// Configure single sign-on with the main provider.
pub fn sso(config: &mut Config) {
    configure(config, Kind::Main);
}

/// Configure single sign-on with the provider whose ID tokens expire at once.
pub fn sso_expiring(config: &mut Config) {
    configure(config, Kind::Expiring);
}

/// Configure single sign-on with the provider whose keys are not the ones it signs with.
pub fn sso_other_keys(config: &mut Config) {
    configure(config, Kind::OtherKeys);
}

/// Give the provider's user `sub` these claims (`email`, `groups`, …).
pub async fn set_user(app: &TestApp, sub: &str, claims: Value) {
    let issuer = &app.state.config.oidc.as_ref().unwrap().issuer_url;
    let resp = reqwest::Client::new()
        .put(format!("{issuer}/users/{sub}"))
        .json(&claims)
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
}

/// The listener bound for the service reached at `public_url`, once.
pub fn take_listener(public_url: &str) -> Option<std::net::TcpListener> {
    let mut bound = listeners().lock().unwrap();
    let at = bound.iter().position(|(url, _)| url == public_url)?;
    Some(bound.remove(at).1)
}
