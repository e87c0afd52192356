//! Graceful shutdown of the real binary: a request in flight when SIGTERM arrives completes, what it wrote
//! is committed, and the process exits 0.
use crate::db_test;
use crate::support::helpers::TestApp;
use entity::ticket;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn wait_until_up(port: u16) {
    for _ in 0..200 {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await {
            let probe = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
            if stream.write_all(probe.as_bytes()).await.is_ok() {
                let mut answer = String::new();
                stream.read_to_string(&mut answer).await.ok();
                if answer.starts_with("HTTP/1.1 200") {
                    return;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not come up on port {port}");
}

async fn sigterm_lets_requests_in_flight_finish(app: &TestApp) {
    let alice = app.user("alice").await;
    let port = free_port();
    let cwd = tempfile::tempdir().unwrap();
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_deskgraph"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .current_dir(cwd.path())
        .env("DATABASE_URL", &app.state.config.database_url)
        .env_remove("DESKGRAPH_REDIS_URL")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    wait_until_up(port).await;

    let body = r#"{"title": "Written during shutdown", "description": "must not be lost"}"#;
    let head = format!(
        "POST /api/tickets/ HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        alice.token,
        body.len()
    );
    let (first, rest) = body.split_at(20);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(first.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let pid = server.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Still running: it waits for the request in flight.
    assert!(
        server.try_wait().unwrap().is_none(),
        "exited with a request in flight"
    );

    stream.write_all(rest.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");

    let status = tokio::time::timeout(Duration::from_secs(10), server.wait())
        .await
        .expect("the server did not stop after its last request")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let saved = ticket::Entity::find()
        .filter(ticket::Column::Title.eq("Written during shutdown"))
        .one(&app.state.db.conn)
        .await
        .unwrap();
    assert!(
        saved.is_some(),
        "the committed ticket is there after the stop"
    );
    // And the port is closed.
    assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
}
db_test!(sigterm_lets_requests_in_flight_finish);
