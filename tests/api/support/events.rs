//! Shared pieces of the events tests: a local webhook receiver and a state with events configured.
#![allow(dead_code)]
use crate::support::helpers::TestApp;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use axum::Router;
use deskgraph::auth::Actor;
use deskgraph::config::Config;
use deskgraph::notify::mailer::MemoryMailer;
use deskgraph::notify::Notifier;
use deskgraph::service::tickets::{self, NewTicket};
use deskgraph::state::AppState;
use entity::{comment, outbox, ticket};
use sea_orm::{EntityTrait, QueryOrder};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the receiver answers.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// 200 every time.
    Ok,
    /// 500 for the first N calls, then 200.
    FailFirst(usize),
    /// Never answers (sleeps far beyond any delivery timeout).
    Hang,
    /// 302 to `/elsewhere` on the same receiver (which records a hit when a client follows it).
    Redirect,
}

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Hit {
    pub headers: HeaderMap,
    pub body: String,
}

struct Shared {
    mode: Mode,
    calls: AtomicUsize,
    hits: Mutex<Vec<Hit>>,
}

/// A webhook receiver on 127.0.0.1 with a random port.
pub struct Receiver {
    pub url: String,
    shared: Arc<Shared>,
}

impl Receiver {
    pub async fn start(mode: Mode) -> Receiver {
        let shared = Arc::new(Shared {
            mode,
            calls: AtomicUsize::new(0),
            hits: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/hook", post(receive))
            .route("/elsewhere", any(followed))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        Receiver {
            url: format!("http://{addr}/hook"),
            shared,
        }
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.shared.hits.lock().unwrap().clone()
    }
}

async fn receive(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: String) -> Response {
    let call = shared.calls.fetch_add(1, Ordering::SeqCst);
    shared.hits.lock().unwrap().push(Hit { headers, body });
    match shared.mode {
        Mode::Ok => StatusCode::OK.into_response(),
        Mode::FailFirst(n) if call < n => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Mode::FailFirst(_) => StatusCode::NO_CONTENT.into_response(),
        Mode::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK.into_response()
        }
        Mode::Redirect => (StatusCode::FOUND, [("location", "/elsewhere")]).into_response(),
    }
}

async fn followed(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> StatusCode {
    shared.hits.lock().unwrap().push(Hit {
        headers,
        body: "followed a redirect".into(),
    });
    StatusCode::OK
}

/// The app's state with `change` applied to its configuration and an in-memory mailer.
pub fn state_with(
    app: &TestApp,
    change: impl FnOnce(&mut Config),
) -> (AppState, Arc<MemoryMailer>) {
    let mut config = (*app.state.config).clone();
    change(&mut config);
    let mailer = Arc::new(MemoryMailer::default());
    let mut state = (*app.state).clone();
    state.notifier = Notifier::from_config(&config)
        .unwrap()
        .with_mailer(mailer.clone());
    state.config = Arc::new(config);
    (state.into(), mailer)
}

/// The state sending every event to `receiver` with secret `s3cret`.
pub fn hooked(app: &TestApp, receiver: &Receiver) -> AppState {
    let url = receiver.url.clone();
    state_with(app, |c| {
        c.webhook_url = Some(url);
        c.webhook_secret = "s3cret".to_string();
    })
    .0
}

pub use crate::support::clients::actor;

pub async fn create_ticket(state: &AppState, actor: &Actor, input: NewTicket) -> ticket::Model {
    tickets::create(
        state.write_deps(deskgraph::domain::Channel::System),
        actor,
        input,
    )
    .await
    .unwrap()
}

/// A comment record as the comments service hands it to `events::comment_created` (not stored).
pub fn comment_on(t: &ticket::Model, id: i32, body: &str, internal: bool) -> comment::Model {
    let now = chrono::Utc::now();
    comment::Model {
        id,
        ticket_id: t.id,
        author_id: None,
        body: body.to_string(),
        comment_type: if internal {
            deskgraph::domain::CommentType::Internal
        } else {
            deskgraph::domain::CommentType::Public
        },
        created_at: now,
        updated_at: now,
        edited_at: None,
        edited_by_id: None,
        edit_count: 0,
        public_edit_count: 0,
        is_deleted: false,
        deleted_at: None,
        deleted_by_id: None,
    }
}

pub fn titled(title: &str) -> NewTicket {
    NewTicket {
        title: title.to_string(),
        ..Default::default()
    }
}

pub async fn outbox_rows(app: &TestApp) -> Vec<outbox::Model> {
    outbox::Entity::find()
        .order_by_asc(outbox::Column::Id)
        .all(&app.state.db.conn)
        .await
        .unwrap()
}

/// The token of the password-reset link the service mailed (its outbox row), waiting for the row while the
/// request that asked for it may still be writing it.
pub async fn password_reset_token(app: &TestApp) -> String {
    for _ in 0..100 {
        let found = outbox_rows(app)
            .await
            .into_iter()
            .filter(|r| r.event == "account.password_reset")
            .find_map(|r| {
                let start = r.payload.find("/accounts/password-reset/dgr_")?
                    + "/accounts/password-reset/".len();
                let token: String = r.payload[start..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                Some(token)
            });
        if let Some(token) = found {
            return token;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no password reset email")
}

/// One message an SMTP sink accepted.
#[derive(Clone, Debug)]
pub struct SmtpMessage {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

/// A tiny SMTP server on 127.0.0.1 that accepts everything and keeps the messages.
pub struct SmtpSink {
    pub url: String,
    messages: Arc<Mutex<Vec<SmtpMessage>>>,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let store = messages.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(smtp_session(socket, store.clone()));
            }
        });
        SmtpSink {
            url: format!("smtp://{addr}"),
            messages,
        }
    }

    pub fn messages(&self) -> Vec<SmtpMessage> {
        self.messages.lock().unwrap().clone()
    }
}

async fn smtp_session(socket: tokio::net::TcpStream, store: Arc<Mutex<Vec<SmtpMessage>>>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut current = SmtpMessage {
        from: String::new(),
        to: Vec::new(),
        data: String::new(),
    };
    if write.write_all(b"220 sink ESMTP\r\n").await.is_err() {
        return;
    }
    while let Ok(Some(line)) = lines.next_line().await {
        let upper = line.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") {
            b"250-sink\r\n250 8BITMIME\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            current.from = line[10..].trim().trim_matches(['<', '>']).to_string();
            b"250 OK\r\n"
        } else if upper.starts_with("RCPT TO:") {
            current
                .to
                .push(line[8..].trim().trim_matches(['<', '>']).to_string());
            b"250 OK\r\n"
        } else if upper == "DATA" {
            if write.write_all(b"354 go on\r\n").await.is_err() {
                return;
            }
            let mut data = String::new();
            while let Ok(Some(l)) = lines.next_line().await {
                if l == "." {
                    break;
                }
                data.push_str(&l);
                data.push('\n');
            }
            current.data = data;
            store.lock().unwrap().push(current.clone());
            current.to.clear();
            b"250 queued\r\n"
        } else if upper == "QUIT" {
            let _ = write.write_all(b"221 bye\r\n").await;
            return;
        } else {
            b"250 OK\r\n"
        };
        if write.write_all(reply).await.is_err() {
            return;
        }
    }
}

/// The app's state with `change` applied to its configuration and the notifier it describes.
pub fn state_configured(app: &TestApp, change: impl FnOnce(&mut Config)) -> AppState {
    let mut config = (*app.state.config).clone();
    change(&mut config);
    let mut state = (*app.state).clone();
    state.notifier = Notifier::from_config(&config).unwrap();
    state.config = Arc::new(config);
    state.into()
}
