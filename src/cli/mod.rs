//! Command line: serve, migrate, users, tokens and the demo.
use crate::config::{Config, LogFormat};
use crate::service::{tokens, users};
use crate::state::AppState;
use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use std::net::SocketAddr;

mod people;
mod serve;
pub use serve::serve;
use serve::shutdown_signal;

/// deskgraph: IT service management over GraphQL and REST.
#[derive(Debug, Parser)]
#[command(name = "deskgraph", version, about)]
pub struct Cli {
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Sub-commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply pending migrations, then serve HTTP.
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        bind: SocketAddr,
    },
    /// Apply pending migrations and exit.
    Migrate,
    /// Deliver outbox rows (webhooks, emails) and fetch mail from the mailboxes without serving HTTP, until
    /// SIGINT or SIGTERM.
    Worker,
    /// Manage users.
    User {
        /// User action.
        #[command(subcommand)]
        action: UserCommand,
    },
    /// Manage groups.
    Group {
        /// Group action.
        #[command(subcommand)]
        action: GroupCommand,
    },
    /// Manage API tokens.
    Token {
        /// Token action.
        #[command(subcommand)]
        action: TokenCommand,
    },
    /// Print the GraphQL schema (SDL) and exit; `deskgraph schema > schema.graphql` regenerates the
    /// committed copy that the schema drift test compares with.
    Schema,
    /// Fill the database with bulk test data (benchmarks, load tests), then exit.
    Seed(crate::seed::SeedOptions),
    /// Take in one email (RFC 5322) from standard input, as a mail server's pipe delivers it: a new ticket,
    /// or a comment on the ticket it answers. Exits 0 when taken in (or ignored on purpose: an auto-reply,
    /// a duplicate), 65 when the message is unreadable or too large, 67 when the sender is refused, and 75
    /// when the service cannot take it now (the mail server retries), 78 when `--project` names no project
    /// (or, with `--url`, the service does not take mail over HTTP or the secret is wrong).
    MailIn {
        /// Open new tickets in this project (by id), for an address of that project's own.
        #[arg(long)]
        project: Option<i32>,
        /// Hand the message to the running service at this base URL (`POST /api/mail/in/`, showing
        /// `DESKGRAPH_MAIL_IN_SECRET`) instead of opening the database: the mail server needs no database
        /// access, and each message costs a short request rather than a start-up.
        #[arg(long, env = "DESKGRAPH_MAIL_IN_URL")]
        url: Option<String>,
    },
    /// Seed demo data on an empty database, print the ways in, then serve.
    Demo {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        bind: SocketAddr,
    },
}

/// `deskgraph user …`
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user.
    Create {
        /// Login name.
        username: String,
        /// Password.
        #[arg(long)]
        password: String,
        /// Display name.
        #[arg(long)]
        full_name: Option<String>,
        /// Email address.
        #[arg(long)]
        email: Option<String>,
        /// Staff flag.
        #[arg(long)]
        staff: bool,
        /// Superuser flag.
        #[arg(long)]
        superuser: bool,
        /// Group membership (repeatable; missing groups are created).
        #[arg(long = "group")]
        groups: Vec<String>,
    },
    /// List accounts (deactivated ones too), with their state and role.
    List {
        /// Only active (true) or deactivated (false) accounts.
        #[arg(long)]
        active: Option<bool>,
        /// Only accounts of this role: requester, agent or admin.
        #[arg(long)]
        role: Option<String>,
        /// Only members of this group (by name).
        #[arg(long)]
        group: Option<String>,
        /// User name, full name or email containing this.
        #[arg(long)]
        q: Option<String>,
    },
    /// Change an account's name, email or flags.
    Update {
        /// Login name.
        username: String,
        /// New display name.
        #[arg(long)]
        full_name: Option<String>,
        /// New email (an empty value clears it).
        #[arg(long)]
        email: Option<String>,
        /// Staff flag.
        #[arg(long)]
        staff: Option<bool>,
        /// Superuser flag.
        #[arg(long)]
        superuser: Option<bool>,
    },
    /// Deactivate an account: its sessions, tokens and subscriptions stop at once, everywhere.
    Deactivate {
        /// Login name.
        username: String,
    },
    /// Reactivate an account (its earlier sessions and tokens stay ended).
    Reactivate {
        /// Login name.
        username: String,
    },
    /// Set an account's password (read from standard input when --password is not given).
    SetPassword {
        /// Login name.
        username: String,
        /// The new password.
        #[arg(long)]
        password: Option<String>,
    },
}

/// `deskgraph group …`
#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// List groups with their members.
    List,
    /// Create a group.
    Create {
        /// Name.
        name: String,
    },
    /// Rename a group.
    Rename {
        /// Current name.
        name: String,
        /// New name.
        new_name: String,
    },
    /// Delete a group (refused while open tickets are assigned to it).
    Delete {
        /// Name.
        name: String,
    },
    /// Add an account to a group.
    Add {
        /// Group name.
        name: String,
        /// Login name.
        username: String,
    },
    /// Remove an account from a group.
    Remove {
        /// Group name.
        name: String,
        /// Login name.
        username: String,
    },
}

/// `deskgraph token …`
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Issue a token; it is printed alone on the last line.
    Create {
        /// Owner's username.
        username: String,
        /// Token name.
        #[arg(long, default_value = "cli")]
        name: String,
        /// Lifetime in days (none: never expires).
        #[arg(long)]
        expires_days: Option<i64>,
    },
    /// List a user's tokens (never their secrets).
    List {
        /// Owner's username.
        username: String,
    },
    /// Revoke the user's active tokens with this name.
    Revoke {
        /// Owner's username.
        username: String,
        /// Token name.
        name: String,
    },
}

/// An exit with a documented status (sysexits): what `main` returns for it.
#[derive(Debug)]
pub struct Exit {
    /// The status.
    pub code: u8,
    /// Said on standard error.
    pub message: String,
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// `deskgraph mail-in`: one message from standard input.
async fn mail_in(config: Config, project: Option<i32>, url: Option<String>) -> anyhow::Result<()> {
    use crate::rest::mail_in::MailTaken;
    use crate::service::mail_in::{self, MAX_BYTES};
    use tokio::io::AsyncReadExt;
    let exit = |code: u8, message: String| anyhow::Error::new(Exit { code, message });
    let mut raw = Vec::new();
    tokio::io::stdin()
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut raw)
        .await
        .map_err(|e| exit(75, format!("cannot read the message: {e}")))?;
    if let Some(url) = url {
        return mail_over_http(&config, &url, project, raw).await;
    }
    let state = AppState::init(config)
        .await
        .map_err(|e| exit(75, format!("the help desk cannot take mail now: {e:#}")))?;
    if let Some(id) = project {
        match crate::service::automation::triggers::check_project(&state.db.conn, "project", id)
            .await
        {
            Ok(()) => {}
            Err(crate::error::AppError::Validation { .. }) => {
                return Err(exit(78, format!("--project {id}: no such project")))
            }
            Err(e) => return Err(exit(75, format!("the help desk cannot take mail now: {e}"))),
        }
    }
    let received = mail_in::receive(
        state.write_deps(crate::domain::Channel::Email),
        state.people_deps(),
        state.storage.as_ref(),
        &raw,
        project,
    )
    .await
    .map_err(|e| exit(75, format!("the help desk cannot take mail now: {e}")))?;
    match received {
        Ok(received) => println!("{}", MailTaken::from(&received)),
        Err(refused) => return Err(exit(refused.exit_code(), refused.to_string())),
    }
    Ok(())
}

/// `deskgraph mail-in --url`: hand the message to the running service and say what it did, with the exit
/// codes of the command taking it in itself.
async fn mail_over_http(
    config: &Config,
    url: &str,
    project: Option<i32>,
    raw: Vec<u8>,
) -> anyhow::Result<()> {
    let exit = |code: u8, message: String| anyhow::Error::new(Exit { code, message });
    let Some(secret) = &config.mail_in_secret else {
        return Err(exit(
            78,
            "--url needs DESKGRAPH_MAIL_IN_SECRET, the secret the service was given".into(),
        ));
    };
    // The service may be served under a path (`https://example.com/desk`): the route is below it either way.
    let mut target = reqwest::Url::parse(&format!("{}/", url.trim_end_matches('/')))
        .and_then(|base| base.join("api/mail/in/"))
        .map_err(|e| exit(78, format!("--url {url:?}: {e}")))?;
    if let Some(id) = project {
        target
            .query_pairs_mut()
            .append_pair("project", &id.to_string());
    }
    // reqwest is built without a TLS provider of its own; the process uses ring (as for webhooks).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut client = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .timeout(std::time::Duration::from_secs(120));
    if target.scheme() == "http" {
        // Reading the system's trusted certificates was half of what a message cost this process; plain HTTP
        // (the service on this host or this network) needs none.
        client = client.tls_certs_only(std::iter::empty());
    }
    let client = client
        .build()
        .map_err(|e| exit(75, format!("cannot make an HTTP client: {e}")))?;
    let response = client
        .post(target)
        .header(reqwest::header::CONTENT_TYPE, "message/rfc822")
        .header(crate::http::routes::MAIL_SECRET_HEADER, secret.as_str())
        .body(raw)
        .send()
        .await
        .map_err(|e| exit(75, format!("the help desk cannot take mail now: {e}")))?;
    let status = response.status();
    let body = response.bytes().await.unwrap_or_default();
    if status.is_success() {
        return match serde_json::from_slice::<crate::rest::mail_in::MailTaken>(&body) {
            Ok(taken) if taken.is_whole() => {
                println!("{taken}");
                Ok(())
            }
            // Not the service's answer (a proxy's or another site's page): the message was not taken in, so
            // the mail server must keep it rather than count it delivered.
            _ => Err(exit(
                75,
                format!("{url} answered {status} but not as the help desk does"),
            )),
        };
    }
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let error = body
        .get("error")
        .and_then(|v| v.as_str())
        .unwrap_or("no answer");
    if status == reqwest::StatusCode::BAD_REQUEST && body.pointer("/details/project").is_some() {
        return Err(exit(78, format!("--project: {error}")));
    }
    if let Some(refused) = crate::rest::mail_in::refusal_of(status.as_u16(), error) {
        return Err(exit(refused.exit_code(), refused.to_string()));
    }
    match status.as_u16() {
        401 | 404 => Err(exit(
            78,
            format!("{url} does not take mail with this secret ({status}: {error})"),
        )),
        _ => Err(exit(
            75,
            format!("the help desk cannot take mail now ({status}: {error})"),
        )),
    }
}

/// Run the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    // Needs no configuration or database, so it works in any checkout.
    if let Some(Command::Schema) = cli.command {
        print!("{}", crate::graphql::sdl());
        return Ok(());
    }
    let config = Config::from_env()?;
    init_tracing(config.log_format);
    let command = cli.command.unwrap_or(Command::Serve {
        bind: default_bind(),
    });
    match command {
        Command::Serve { bind } => {
            let state = AppState::init_serving(config).await?;
            serve(state, bind).await
        }
        Command::Migrate => {
            AppState::init(config).await?;
            println!("migrations applied");
            Ok(())
        }
        Command::User { action } => people::user(config, action).await,
        Command::Group { action } => people::group(config, action).await,
        Command::Token {
            action: TokenCommand::List { username },
        } => people::tokens(config, &username).await,
        Command::Token {
            action:
                TokenCommand::Create {
                    username,
                    name,
                    expires_days,
                },
        } => {
            let state = AppState::init(config).await?;
            let user = find_user(&state, &username).await?;
            let issued = tokens::create(&state.db, None, user.id, &name, expires_days)
                .await
                .map_err(|e| anyhow::anyhow!(e.to_string()))?;
            println!(
                "token {:?} for {} (shown once):",
                issued.record.name, user.username
            );
            println!("{}", issued.secret);
            Ok(())
        }
        Command::Token {
            action: TokenCommand::Revoke { username, name },
        } => {
            let state = AppState::init(config).await?;
            let user = find_user(&state, &username).await?;
            let count = tokens::revoke_by_name(&state.db, &state.auth_cache, user.id, &name)
                .await
                .map_err(|e| anyhow::anyhow!(e.to_string()))?;
            if count == 0 {
                bail!("{username} has no active token named {name:?}");
            }
            println!("revoked {count} token(s)");
            Ok(())
        }
        Command::MailIn { project, url } => mail_in(config, project, url).await,
        Command::Worker => {
            let state = AppState::init(config).await?;
            tracing::info!("deskgraph outbox worker started");
            tokio::select! {
                _ = crate::jobs::worker::run(state.delivery_deps()) => {}
                _ = crate::service::mailboxes::fetch::run(state.mail_fetcher()) => {}
                _ = shutdown_signal() => {}
            }
            tracing::info!("deskgraph outbox worker stopped");
            Ok(())
        }
        Command::Schema => {
            print!("{}", crate::graphql::sdl());
            Ok(())
        }
        Command::Seed(options) => {
            let state = AppState::init(config).await?;
            let report = crate::seed::seed(&state, &options).await?;
            println!(
                "seeded {} tickets, {} comments, {} users in {:.1}s",
                report.tickets, report.comments, report.users, report.seconds
            );
            println!("requester: {}", report.requester);
            println!("agent: {}", report.agent);
            Ok(())
        }
        Command::Demo { bind } => {
            let state = AppState::init_serving(config).await?;
            crate::demo::seed_and_print(&state, bind).await?;
            serve(state, bind).await
        }
    }
}

fn default_bind() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}

pub(crate) async fn find_user(
    state: &AppState,
    username: &str,
) -> anyhow::Result<entity::user::Model> {
    users::find_by_username(&state.db.conn, username)
        .await
        .map_err(|e| anyhow::anyhow!(e.to_string()))?
        .with_context(|| format!("no user named {username:?}"))
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn,sea_orm=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.try_init(),
    };
}
