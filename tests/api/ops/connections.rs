//! Connection hygiene over real sockets: a crawling header, an idle keep-alive connection and a full
//! house are cut off or kept waiting, while normal requests keep answering.
use crate::support::helpers::TestApp;
use deskgraph::config::ConnectionLimits;
use deskgraph::http::connections;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start(app: &TestApp, limits: ConnectionLimits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app.router.clone();
    tokio::spawn(connections::serve(
        listener,
        router,
        limits,
        std::future::pending(),
    ));
    addr
}

const HEALTHZ: &str = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";

/// Read until the server closes the connection; how long that took from `since`.
async fn closed(stream: &mut TcpStream, since: Instant, limit: Duration) -> Duration {
    let mut sink = Vec::new();
    let read = tokio::time::timeout(limit, stream.read_to_end(&mut sink)).await;
    assert!(read.is_ok(), "still open after {limit:?}");
    since.elapsed()
}

/// One request on a fresh connection; its status line and how long it took.
async fn healthz(addr: SocketAddr) -> (String, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer.lines().next().unwrap_or_default().to_string();
    (status, started.elapsed())
}

fn limits(header: u64, idle: u64, max: usize) -> ConnectionLimits {
    ConnectionLimits {
        header_timeout_seconds: header,
        idle_timeout_seconds: idle,
        max_connections: max,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawling_headers_are_cut_while_others_answer() {
    let app = TestApp::sqlite().await;
    let addr = start(&app, limits(1, 30, 10_000)).await;
    let started = Instant::now();
    let mut crawlers = Vec::new();
    for _ in 0..300 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            .await
            .unwrap();
        crawlers.push(stream);
    }
    for _ in 0..20 {
        let (status, took) = healthz(addr).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(took < Duration::from_millis(500), "took {took:?}");
    }
    for stream in &mut crawlers {
        let after = closed(stream, started, Duration::from_secs(4)).await;
        assert!(
            after >= Duration::from_millis(900),
            "closed after {after:?}"
        );
    }
    // The server is as good as before.
    assert_eq!(healthz(addr).await.0, "HTTP/1.1 200 OK");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_keep_alive_connections_close_after_the_idle_timeout() {
    let app = TestApp::sqlite().await;
    let addr = start(&app, limits(1, 3, 10_000)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(HEALTHZ.as_bytes()).await.unwrap();
    let mut buf = [0u8; 1024];
    let n = stream.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    let answered = Instant::now();
    // Idle longer than the header timeout and still usable: idle is not a crawling header.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    stream.write_all(HEALTHZ.as_bytes()).await.unwrap();
    let n = stream.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "kept-alive request");
    let answered_again = Instant::now();
    let after = closed(&mut stream, answered_again, Duration::from_secs(5)).await;
    assert!(
        after >= Duration::from_millis(2500) && answered.elapsed() >= Duration::from_secs(4),
        "closed after {after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_house_keeps_new_connections_waiting() {
    let app = TestApp::sqlite().await;
    let addr = start(&app, limits(1, 1, 2)).await;
    let started = Instant::now();
    let _silent = (
        TcpStream::connect(addr).await.unwrap(),
        TcpStream::connect(addr).await.unwrap(),
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Accepted only once a silent connection is cut, after the idle timeout.
    let (status, _) = healthz(addr).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "answered after {waited:?}"
    );
}
