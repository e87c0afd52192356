//! The test app: a router over a fresh database per test, users of every role, and raw request helpers
//! (tests speak through the typed clients in `clients.rs`: `app.as_user(&alice).get(path)`).
#![allow(dead_code)]
use axum::body::Body;
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::Router;
use deskgraph::config::Config;
use deskgraph::db::Db;
use deskgraph::service::tokens;
use deskgraph::service::users::{self, accounts, Admin};
use deskgraph::state::AppState;
use http_body_util::BodyExt;
use sea_orm::{ConnectionTrait, Database, Statement};
use serde_json::Value;
use tower::ServiceExt;

/// A short hash of every migration's source: a migrated template is reused only while it is the same.
fn migrations_hash() -> String {
    use sha2::{Digest, Sha256};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migration/src");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut digest = Sha256::new();
    for file in files {
        digest.update(file.file_name().unwrap().to_string_lossy().as_bytes());
        digest.update(std::fs::read(&file).unwrap());
    }
    hex::encode(&digest.finalize()[..6])
}

/// A migrated SQLite database for this test process to copy (migrating each test's own took a third of a
/// second).
async fn sqlite_template() -> &'static std::path::Path {
    static TEMPLATE: tokio::sync::OnceCell<(tempfile::TempDir, std::path::PathBuf)> =
        tokio::sync::OnceCell::const_new();
    let (_, path) = TEMPLATE
        .get_or_init(|| async {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("template.db");
            let db = Db::connect(&format!("sqlite://{}?mode=rwc", path.display()), 1)
                .await
                .unwrap();
            db.migrate().await.unwrap();
            // Closing checkpoints the write-ahead log into the file that is copied.
            db.conn.close().await.unwrap();
            (dir, path)
        })
        .await;
    path
}

/// The name of a migrated PostgreSQL database that test databases are created from (`CREATE DATABASE …
/// TEMPLATE`), made once for every process that runs the same migrations; test processes running at once
/// take turns through an advisory lock.
async fn postgres_template(base: &str) -> String {
    static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            let name = format!("dg_template_{}", migrations_hash());
            // One connection: the advisory lock belongs to the session that takes it.
            let mut options = sea_orm::ConnectOptions::new(format!("{base}/postgres"));
            options.max_connections(1).min_connections(1);
            let admin = Database::connect(options).await.unwrap();
            let backend = admin.get_database_backend();
            let run = |sql: String| admin.execute_raw(Statement::from_string(backend, sql));
            run("SELECT pg_advisory_lock(74031)".into()).await.unwrap();
            let exists = admin
                .query_one_raw(Statement::from_string(
                    backend,
                    format!("SELECT 1 FROM pg_database WHERE datname = '{name}'"),
                ))
                .await
                .unwrap()
                .is_some();
            if !exists {
                let building = format!("{name}_building");
                run(format!("DROP DATABASE IF EXISTS {building} WITH (FORCE)"))
                    .await
                    .unwrap();
                run(format!("CREATE DATABASE {building}")).await.unwrap();
                let db = Db::connect(&format!("{base}/{building}"), 1).await.unwrap();
                db.migrate().await.unwrap();
                db.conn.close().await.unwrap();
                run(format!("ALTER DATABASE {building} RENAME TO {name}"))
                    .await
                    .unwrap();
            }
            run("SELECT pg_advisory_unlock(74031)".into())
                .await
                .unwrap();
            admin.close().await.ok();
            name
        })
        .await
        .clone()
}

/// Runs an async test body `fn(TestApp)` on SQLite, and on PostgreSQL when configured.
#[macro_export]
macro_rules! db_test {
    ($name:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = $crate::support::helpers::TestApp::sqlite().await;
                super::$name(&app).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some(app) = $crate::support::helpers::TestApp::postgres().await else {
                    eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
                    return;
                };
                super::$name(&app).await;
                app.cleanup().await;
            }
        }
    };
    ($name:ident, $configure:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = $crate::support::helpers::TestApp::sqlite_with(super::$configure).await;
                super::$name(&app).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some(app) =
                    $crate::support::helpers::TestApp::postgres_with(super::$configure).await
                else {
                    eprintln!("DESKGRAPH_TEST_POSTGRES_URL unset: PostgreSQL run skipped");
                    return;
                };
                super::$name(&app).await;
                app.cleanup().await;
            }
        }
    };
}

/// A user of the test world with an API token.
#[derive(Clone, Debug)]
pub struct TestUser {
    /// User id.
    pub id: i32,
    /// Username.
    pub username: String,
    /// A valid API token.
    pub token: String,
}

/// The application under test.
pub struct TestApp {
    /// Shared state (database, config).
    pub state: AppState,
    /// The router, driven in-process.
    pub router: Router,
    _dir: Option<tempfile::TempDir>,
    pg: Option<(String, String)>,
}

/// A response, with its body parsed as JSON when it is JSON.
#[derive(Debug)]
pub struct TestResponse {
    /// Status code.
    pub status: StatusCode,
    /// Headers.
    pub headers: HeaderMap,
    /// Body as text.
    pub text: String,
    /// Body as JSON (Null when empty or not JSON).
    pub json: Value,
}

impl TestApp {
    /// A fresh SQLite database in a temporary directory.
    pub async fn sqlite() -> TestApp {
        TestApp::sqlite_with(|_| {}).await
    }

    /// A fresh SQLite database, with the test configuration changed by `configure`: a copy of one migrated
    /// per test process.
    pub async fn sqlite_with(configure: impl FnOnce(&mut Config)) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.db");
        std::fs::copy(sqlite_template().await, &file).unwrap();
        let url = format!("sqlite://{}?mode=rwc", file.display());
        let mut app = TestApp::with_url(&url, configure).await;
        app._dir = Some(dir);
        app
    }

    /// A fresh PostgreSQL database, when `DESKGRAPH_TEST_POSTGRES_URL` is set.
    pub async fn postgres() -> Option<TestApp> {
        TestApp::postgres_with(|_| {}).await
    }

    /// A fresh PostgreSQL database with the configuration changed by `configure`, when configured.
    pub async fn postgres_with(configure: impl FnOnce(&mut Config)) -> Option<TestApp> {
        let Some(base) = std::env::var("DESKGRAPH_TEST_POSTGRES_URL")
            .ok()
            .filter(|s| !s.is_empty())
        else {
            // As for Redis, S3 and the browser: CI must not pass by skipping half of every test.
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but DESKGRAPH_TEST_POSTGRES_URL is not: the PostgreSQL half would be skipped"
            );
            return None;
        };
        let base = base.trim_end_matches('/').to_string();
        let template = postgres_template(&base).await;
        let name = format!("dg_test_{}", rand::random::<u64>());
        let admin = Database::connect(format!("{base}/postgres")).await.unwrap();
        // A template may not be copied while anyone is connected to it: the session that built it can
        // take a moment to go.
        for attempt in 0.. {
            let created = admin
                .execute_raw(Statement::from_string(
                    admin.get_database_backend(),
                    format!("CREATE DATABASE {name} TEMPLATE {template}"),
                ))
                .await;
            match created {
                Ok(_) => break,
                Err(err) if attempt < 100 && err.to_string().contains("being accessed") => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(err) => panic!("creating {name} from {template}: {err}"),
            }
        }
        admin.close().await.ok();
        let mut app = TestApp::with_url(&format!("{base}/{name}"), configure).await;
        app.pg = Some((base, name));
        Some(app)
    }

    async fn with_url(url: &str, configure: impl FnOnce(&mut Config)) -> TestApp {
        let mut config = Config::for_database(url);
        // Test receivers listen on 127.0.0.1; the target policy tests turn this off again.
        config.webhook_allow_private = true;
        configure(&mut config);
        let db = Db::connect(url, config.db_pool_size).await.unwrap();
        db.migrate().await.unwrap();
        let state = AppState::from_db(db, config).await.unwrap();
        let router = deskgraph::app::router(state.clone()).unwrap();
        TestApp {
            state,
            router,
            _dir: None,
            pg: None,
        }
    }

    /// Drop the PostgreSQL database of this test.
    pub async fn cleanup(&self) {
        if let Some((base, name)) = &self.pg {
            self.state.db.conn.clone().close().await.ok();
            if let Ok(admin) = Database::connect(format!("{base}/postgres")).await {
                let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                admin
                    .execute_raw(Statement::from_string(admin.get_database_backend(), sql))
                    .await
                    .ok();
                admin.close().await.ok();
            }
        }
    }

    /// End every session the service has open with the PostgreSQL database of this test, as a restart or
    /// an administrator would, and wait until they are gone. Returns how many were ended.
    pub async fn end_database_sessions(&self) -> usize {
        let Some((base, name)) = &self.pg else {
            return 0;
        };
        let admin = Database::connect(format!("{base}/{name}")).await.unwrap();
        let backend = admin.get_database_backend();
        let ended = admin
            .query_all_raw(Statement::from_string(
                backend,
                // In the select list, so that it runs only on the rows the filter keeps.
                "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
            ))
            .await
            .unwrap();
        let pids: Vec<i32> = ended
            .iter()
            .map(|row| row.try_get_by_index(0).unwrap())
            .collect();
        let list = pids
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        for _ in 0..100 {
            let left = admin
                .query_all_raw(Statement::from_string(
                    backend,
                    format!("SELECT pid FROM pg_stat_activity WHERE pid IN ({list})"),
                ))
                .await
                .unwrap();
            if left.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        admin.close().await.ok();
        pids.len()
    }

    /// Whether this run is on PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        self.pg.is_some()
    }

    /// Create a user with `groups` (and flags) and an API token.
    pub async fn user_with(
        &self,
        username: &str,
        groups: &[&str],
        staff: bool,
        superuser: bool,
    ) -> TestUser {
        let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        let group_ids = users::ensure_groups(&self.state.db.conn, &groups)
            .await
            .unwrap();
        let account = accounts::NewAccount {
            username: username.to_string(),
            password: Some(format!("{username}-password")),
            full_name: format!("{} Example", capitalise(username)),
            email: Some(format!("{username}@example.com")),
            is_staff: staff,
            is_superuser: superuser,
            group_ids,
        };
        let user = accounts::create(self.state.people_deps(), &Admin::command_line(), account)
            .await
            .unwrap();
        let issued = tokens::create(&self.state.db, None, user.id, "test", None)
            .await
            .unwrap();
        TestUser {
            id: user.id,
            username: user.username,
            token: issued.secret,
        }
    }

    /// A plain user (a requester).
    pub async fn user(&self, username: &str) -> TestUser {
        self.user_with(username, &[], false, false).await
    }

    /// A member of the Agents group (a team member).
    pub async fn agent(&self, username: &str) -> TestUser {
        self.user_with(username, &["Agents"], false, false).await
    }

    /// A member of the Administrators group.
    pub async fn admin(&self, username: &str) -> TestUser {
        self.user_with(username, &["Administrators"], false, false)
            .await
    }

    /// Send a request with an optional bearer token and JSON body.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let body = match body {
            Some(json) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Body::from(json.to_string())
            }
            None => Body::empty(),
        };
        self.send(builder.body(body).unwrap()).await
    }

    /// Send a raw request.
    pub async fn send(&self, request: Request<Body>) -> TestResponse {
        self.send_to(&self.router, request).await
    }

    /// Send a raw request to another router (a [`TestApp::second_instance`]).
    pub async fn send_to(&self, router: &Router, request: Request<Body>) -> TestResponse {
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        TestResponse {
            status,
            headers,
            text,
            json,
        }
    }

    /// Send a raw request as if it came over a socket from `peer` (in-process requests have no address).
    pub async fn send_from(&self, peer: &str, mut request: Request<Body>) -> TestResponse {
        let addr: std::net::SocketAddr = peer.parse().unwrap();
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(addr));
        self.send(request).await
    }

    /// A second app over the same database, with its own state and connections (its own in-memory
    /// caches and rate-limit counters, or the same Redis): what a second instance of the service sees.
    pub async fn second_instance(&self) -> (AppState, Router) {
        self.second_instance_with(|_| {}).await
    }

    /// A [`TestApp::second_instance`] with its configuration changed by `configure`.
    pub async fn second_instance_with(
        &self,
        configure: impl FnOnce(&mut Config),
    ) -> (AppState, Router) {
        let mut config = (*self.state.config).clone();
        configure(&mut config);
        let db = Db::connect(&config.database_url, config.db_pool_size)
            .await
            .unwrap();
        let state = AppState::from_db(db, config).await.unwrap();
        let router = deskgraph::app::router(state.clone()).unwrap();
        (state, router)
    }

    /// A [`TestApp::second_instance`] connected as `deskgraph serve` connects (`Db::connect_serving`): with
    /// the statement timeout, the acquire timeout and the pool's check of connections given back.
    pub async fn serving_instance_with(
        &self,
        configure: impl FnOnce(&mut Config),
    ) -> (AppState, Router) {
        let mut config = (*self.state.config).clone();
        configure(&mut config);
        let db = Db::connect_serving(
            &config.database_url,
            config.db_pool_size,
            std::time::Duration::from_millis(config.statement_timeout_ms),
            std::time::Duration::from_millis(config.db_acquire_timeout_ms),
        )
        .await
        .unwrap();
        let state = AppState::from_db(db, config).await.unwrap();
        let router = deskgraph::app::router(state.clone()).unwrap();
        (state, router)
    }

    /// GET as `token`.
    pub async fn get(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.request(Method::GET, path, token, None).await
    }

    /// POST JSON as `token`.
    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> TestResponse {
        self.request(Method::POST, path, token, Some(body)).await
    }

    /// PATCH JSON as `token`.
    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> TestResponse {
        self.request(Method::PATCH, path, token, Some(body)).await
    }

    /// DELETE as `token`.
    pub async fn delete(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.request(Method::DELETE, path, token, None).await
    }

    /// Run a GraphQL operation as `token`; returns the whole response body.
    pub async fn graphql(&self, token: Option<&str>, query: &str, variables: Value) -> Value {
        let body = serde_json::json!({ "query": query, "variables": variables });
        self.request(Method::POST, "/graphql", token, Some(body))
            .await
            .json
    }

    /// The raw body of a GET to `path` without credentials (200 asserted).
    pub async fn body_bytes(&self, path: &str) -> Vec<u8> {
        let response = self
            .router
            .clone()
            .oneshot(Request::builder().uri(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec()
    }

    /// SQL statements run so far on this app's database.
    pub fn statements(&self) -> u64 {
        self.state.db.statement_count()
    }
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// Assert the REST error body shape and code.
/// Credentials cached for an hour on PostgreSQL, where instances tell each other of changes at once, and for a
/// second on SQLite, where that lifetime is what bounds another instance's view (a test's `db_test!` set-up).
pub fn cache_for_one_second_on_sqlite(config: &mut deskgraph::config::Config) {
    config.auth_cache_seconds = if config.database_url.starts_with("sqlite") {
        1
    } else {
        3600
    };
}

pub fn assert_error(response: &TestResponse, status: StatusCode, code: &str) {
    assert_eq!(response.status, status, "body: {}", response.text);
    assert_eq!(response.json["code"], code, "body: {}", response.text);
    assert!(
        response.json["error"].is_string(),
        "body: {}",
        response.text
    );
    assert!(
        response.json["details"].is_object(),
        "body: {}",
        response.text
    );
}

/// The web failure shape: exactly `{success: false, error}`.
pub fn assert_web_error(resp: &TestResponse, status: StatusCode) {
    assert_eq!(resp.status, status, "{}", resp.text);
    assert_eq!(resp.json["success"], false, "{}", resp.text);
    assert!(resp.json["error"].is_string(), "{}", resp.text);
    assert_eq!(resp.json.as_object().unwrap().len(), 2, "{}", resp.text);
}
