//! A local S3-compatible server for the S3 storage tests: Python's `moto` server (`pip install
//! 'moto[server]'`, which `.ci/run` does), started once per test process on a free port. It exits when this
//! process does. Without it the S3 tests are skipped, except under CI (`CI` set), where they fail.
use deskgraph::config::Config;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Runs moto's server and exits as soon as its parent (the test process) is gone.
const LAUNCH: &str = "import os, sys, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
main(['-H', '127.0.0.1', '-p', sys.argv[1]])
";

fn start() -> Result<String, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let mut child = std::process::Command::new("python3")
        .args(["-c", LAUNCH, &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "moto server exited with {status} (is moto[server] installed?)"
            ));
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(format!("http://127.0.0.1:{port}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    Err("moto server did not listen within 30 s".into())
}

/// The endpoint of the process's S3 server, or `None` (after saying why) when it cannot run outside CI.
pub fn endpoint() -> Option<String> {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    match SERVER.get_or_init(start) {
        Ok(url) => Some(url.clone()),
        Err(why) if std::env::var_os("CI").is_some() => panic!("S3 test server: {why}"),
        Err(why) => {
            eprintln!("S3 test server unavailable, S3 run skipped: {why}");
            None
        }
    }
}

/// Point `config` at a fresh bucket (created by [`create_bucket`]) of the test server, under a prefix.
pub fn s3_storage(config: &mut Config) {
    let Some(endpoint) = endpoint() else { return };
    config.storage_url = Some(format!("s3://dg-test-{:x}/blobs", rand::random::<u64>()));
    config.s3.endpoint = Some(endpoint);
    config.s3.region = Some("us-east-1".into());
    config.s3.access_key_id = Some("testing".into());
    config.s3.secret_access_key = Some("testing".into());
}

/// The bucket `config` names, and the test server's endpoint; `None` when the server is not running.
fn bucket(config: &Config) -> Option<(String, String)> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = config.storage_url.as_deref()?.strip_prefix("s3://")?;
    let bucket = url.split('/').next()?.to_string();
    Some((config.s3.endpoint.clone()?, bucket))
}

/// Create the bucket `config` names (moto takes unsigned requests); false when there is no S3 server.
pub async fn create_bucket(config: &Config) -> bool {
    let Some((endpoint, bucket)) = bucket(config) else {
        return false;
    };
    let resp = reqwest::Client::new()
        .put(format!("{endpoint}/{bucket}"))
        .send()
        .await
        .unwrap();
    assert!(
        resp.status().is_success(),
        "create bucket: {}",
        resp.status()
    );
    true
}

/// The keys stored in the bucket `config` names.
pub async fn keys(config: &Config) -> Vec<String> {
    let (endpoint, bucket) = bucket(config).unwrap();
    let body = reqwest::Client::new()
        .get(format!("{endpoint}/{bucket}?list-type=2"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    body.split("<Key>")
        .skip(1)
        .filter_map(|part| part.split("</Key>").next())
        .map(str::to_string)
        .collect()
}
