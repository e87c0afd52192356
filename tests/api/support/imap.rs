//! A real IMAP server for the mailbox tests: Debian's Dovecot (`scripts/install-mail.sh`, which `.ci/run`
//! runs), started once per test process on a free port with a throwaway configuration under `/tmp`; a
//! watcher stops it when this process is gone. Any user name signs in with the password [`PASSWORD`] and
//! gets a mail store of its own, so each test works in its own user's folders. Without Dovecot the tests are
//! skipped, except under CI (`CI` set), where they fail.
#![allow(dead_code)]
use async_imap::Session;
use futures_util::TryStreamExt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// The password every user signs in with.
pub const PASSWORD: &str = "letmein-imap";
const DOVECOT: &str = "/usr/sbin/dovecot";

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

fn sh(command: &str) -> Result<String, String> {
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Start a Dovecot; with `issuer`, one that also takes XOAUTH2 and OAUTHBEARER, checking each bearer token
/// at that OpenID Connect provider's userinfo endpoint (its `sub` must be the user signing in).
fn launch(issuer: Option<&str>) -> Result<u16, String> {
    if !std::path::Path::new(DOVECOT).exists() {
        return Err(format!(
            "{DOVECOT} is missing (bash scripts/install-mail.sh)"
        ));
    }
    let port = free_port()?;
    let dir = format!(
        "/tmp/dg-dovecot-{}{}",
        std::process::id(),
        if issuer.is_some() { "-oauth" } else { "" }
    );
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["run", "state", "home"] {
        std::fs::create_dir_all(format!("{dir}/{sub}")).map_err(|e| e.to_string())?;
    }
    // Dovecot gives no one mail as root: as root the stores belong to Debian's `mail` user.
    let root = sh("id -u")? == "0";
    let (uid, gid, services) = if root {
        sh(&format!("chown mail:mail {dir}/home"))?;
        ("mail".to_string(), "mail".to_string(), String::new())
    } else {
        let me = sh("id -un")?;
        (
            sh("id -u")?,
            sh("id -g")?,
            format!("default_login_user = {me}\ndefault_internal_user = {me}\n"),
        )
    };
    // Tokens for XOAUTH2 go to the provider; passwords (the helpers below) to the static password.
    let (mechanisms, oauth) = match issuer {
        Some(issuer) => {
            let checks = format!(
                "introspection_mode = auth\nintrospection_url = {issuer}/userinfo\nusername_attribute = sub\n"
            );
            std::fs::write(format!("{dir}/oauth2.conf.ext"), checks).map_err(|e| e.to_string())?;
            (
                "plain login xoauth2 oauthbearer",
                format!(
                    "passdb {{\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = {dir}/oauth2.conf.ext\n}}\n"
                ),
            )
        }
        None => ("plain login", String::new()),
    };
    let config = format!(
        "protocols = imap
listen = 127.0.0.1
base_dir = {dir}/run
state_dir = {dir}/state
log_path = {dir}/dovecot.log
instance_name = dg-dovecot-{port}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = {mechanisms}
first_valid_uid = 0
mail_location = maildir:~/Maildir
{services}namespace inbox {{
  inbox = yes
  separator = /
}}
{oauth}passdb {{
  driver = static
  mechanisms = plain login
  args = password={PASSWORD}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={dir}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
"
    );
    let path = format!("{dir}/dovecot.conf");
    std::fs::write(&path, config).map_err(|e| e.to_string())?;
    // In the foreground, under a shell that stops it once this test process is gone.
    let watcher = format!(
        "{DOVECOT} -F -c {path} & child=$!; while kill -0 {parent} 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done; kill $child 2>/dev/null",
        parent = std::process::id()
    );
    std::process::Command::new("sh")
        .args(["-c", &watcher])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run dovecot: {e}"))?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!(
        "dovecot did not listen within 20 s: {}",
        std::fs::read_to_string(format!("{dir}/dovecot.log")).unwrap_or_default()
    ))
}

/// The port of this process's Dovecot, or `None` (after saying why) when it cannot run outside CI.
pub fn server() -> Option<u16> {
    static PORT: OnceLock<Result<u16, String>> = OnceLock::new();
    available(PORT.get_or_init(|| launch(None)))
}

fn available(launched: &Result<u16, String>) -> Option<u16> {
    match launched {
        Ok(port) => Some(*port),
        Err(why) if std::env::var_os("CI").is_some() => panic!("IMAP server: {why}"),
        Err(why) => {
            eprintln!("IMAP server unavailable, mailbox test skipped: {why}");
            None
        }
    }
}

/// The port of this process's Dovecot that also signs in with OAuth2 bearer tokens (XOAUTH2) issued by the
/// OpenID Connect provider at the issuer returned with it, or `None` when either cannot run outside CI.
pub fn oauth_server() -> Option<(u16, String)> {
    static PORT: OnceLock<Result<u16, String>> = OnceLock::new();
    let issuer = crate::support::oidc::provider(crate::support::oidc::Kind::Main)?;
    let port = available(PORT.get_or_init(|| launch(Some(&issuer))))?;
    Some((port, issuer))
}

/// An access token the provider at `issuer` issues for `user` (its `sub`), as a mail client gets one through
/// the authorization code flow.
pub async fn bearer(issuer: &str, user: &str) -> String {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let back = "http://127.0.0.1/mail-client";
    let encode = |pairs: &[(&str, &str)]| {
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    };
    let form = |pairs: &[(&str, &str)]| {
        client
            .post(format!("{issuer}/oauth2/token"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encode(pairs))
    };
    let ask = encode(&[
        ("client_id", "mail-client"),
        ("redirect_uri", back),
        ("response_type", "code"),
        ("scope", "openid email"),
        ("nonce", "n-0"),
    ]);
    let authorized = client
        .post(format!("{issuer}/oauth2/authorize?{ask}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(&[("sub", user)]))
        .send()
        .await
        .unwrap();
    let location = authorized.headers()["location"]
        .to_str()
        .unwrap()
        .to_string();
    let code = url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.to_string())
        .unwrap_or_else(|| panic!("no code in {location}"));
    let token: serde_json::Value = form(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", back),
        ("client_id", "mail-client"),
        ("client_secret", "mail-client-secret"),
    ])
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    token["access_token"].as_str().unwrap().to_string()
}

/// Withdraw every token the provider at `issuer` issued for `user`, as an administrator revoking access does.
pub async fn revoke(issuer: &str, user: &str) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let done = reqwest::Client::new()
        .post(format!("{issuer}/users/{user}/revoke-tokens"))
        .send()
        .await
        .unwrap();
    assert!(done.status().is_success(), "{}", done.status());
}

/// A user name no other test in this process uses.
pub fn fresh_user(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!("{prefix}{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The mailbox URL of `user`'s `folder` on this Dovecot (no TLS: it is on this host).
pub fn url(port: u16, user: &str, folder: &str) -> String {
    format!("imap://{user}@127.0.0.1:{port}/{folder}?tls=none")
}

/// A signed-in session of `user`, as a mail client or the mail server delivering would have.
pub async fn session(port: u16, user: &str) -> Session<TcpStream> {
    let tcp = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.unwrap();
    client.login(user, PASSWORD).await.map_err(|e| e.0).unwrap()
}

/// Deliver `raw` into `user`'s `folder` (made when missing).
pub async fn deliver(port: u16, user: &str, folder: &str, raw: &[u8]) {
    let mut s = session(port, user).await;
    let _ = s.create(folder).await;
    s.append(folder, None, None, raw).await.unwrap();
    s.logout().await.unwrap();
}

/// The messages in `user`'s `folder` (0 when it does not exist), and how many of them are flagged seen.
pub async fn count(port: u16, user: &str, folder: &str) -> (usize, usize) {
    let mut s = session(port, user).await;
    let found = match s.examine(folder).await {
        Ok(_) => {
            let all = s.uid_search("ALL").await.unwrap().len();
            let seen = s.uid_search("SEEN").await.unwrap().len();
            (all, seen)
        }
        Err(_) => (0, 0),
    };
    s.logout().await.unwrap();
    found
}

/// The whole messages in `user`'s `folder`, oldest first.
pub async fn messages(port: u16, user: &str, folder: &str) -> Vec<Vec<u8>> {
    let mut s = session(port, user).await;
    s.examine(folder).await.unwrap();
    let fetched: Vec<_> = s
        .fetch("1:*", "BODY.PEEK[]")
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let bodies = fetched
        .iter()
        .filter_map(|f| f.body().map(<[u8]>::to_vec))
        .collect();
    s.logout().await.unwrap();
    bodies
}
