//! Fetching mail: every instance watches the active mailboxes, and one at a time holds each one's lease
//! (`mailboxes.lease_owner`, `leased_until`) and its IMAP connection. A message is read without being
//! flagged, taken in by `mail_in::receive` (a ticket or a comment, committed), and only then moved to the
//! done folder or flagged seen. A message that cannot be taken in goes to the failed folder, with the reason
//! in the log and a count in `/metrics`; one the service could not take for its own trouble (the database
//! away) is tried again, at most [`MAX_ATTEMPTS`] times. If the fetcher dies between the commit and the
//! move, the message is read again and known by its `Message-ID`: nothing is made twice.
use crate::auth::cache::AuthCache;
use crate::config::Config;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::net::imap::{self, Connection, Settings};
use crate::notify::live::LiveBus;
use crate::service::automation::KnownTriggers;
use crate::service::custom_fields::KnownFields;
use crate::service::mail_in::{self, Received, Refused, MAX_BYTES};
use crate::service::sla::policies::KnownPolicies;
use crate::service::users::PeopleDeps;
use crate::service::WriteDeps;
use chrono::Utc;
use entity::mailbox;
use sea_orm::sea_query::{Condition, Expr};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a lease lasts; renewed after every look at the folder, so at most this long passes before
/// another instance takes over from one that died.
const LEASE: Duration = Duration::from_secs(120);
/// The longest wait between looks at a folder (in IDLE, or asleep where the server has no IDLE).
const WAIT: Duration = Duration::from_secs(60);
/// How often each instance looks for mailboxes added, changed or removed: one small read, often enough that
/// an administrator who adds a mailbox sees it read within seconds, whichever instance holds it.
const RESCAN: Duration = Duration::from_secs(5);
/// Messages taken per look, so a full folder is worked through in bounded steps.
const BATCH: usize = 100;
/// Attempts at a message the service could not take for its own trouble, before it goes to failed.
pub const MAX_ATTEMPTS: u32 = 5;
/// How long a sender's message past their hourly pace waits before it is tried again.
const DEFER: Duration = Duration::from_secs(10 * 60);

/// What fetching works with, owned, for a task that runs as long as the service.
#[derive(Clone, Debug)]
pub struct Fetcher {
    /// The database.
    pub db: Db,
    /// The configuration.
    pub config: Arc<Config>,
    /// Where live events are published.
    pub live: LiveBus,
    /// SLA policies by priority, remembered.
    pub policies: KnownPolicies,
    /// The active triggers, compiled.
    pub triggers: KnownTriggers,
    /// The active custom field definitions.
    pub fields: KnownFields,
    /// The names of tags known to exist.
    pub tags: crate::service::tags::KnownTags,
    /// Credentials cached (a requester account made for a new sender).
    pub auth_cache: AuthCache,
    /// Where the files mail carries are kept.
    pub storage: Arc<dyn crate::storage::BlobStore>,
}

impl Fetcher {
    fn write_deps(&self) -> WriteDeps<'_> {
        WriteDeps {
            db: &self.db,
            config: &self.config,
            live: &self.live,
            policies: &self.policies,
            triggers: &self.triggers,
            fields: &self.fields,
            tags: &self.tags,
            channel: crate::domain::Channel::Email,
        }
    }

    fn people_deps(&self) -> PeopleDeps<'_> {
        PeopleDeps {
            db: &self.db,
            auth_cache: &self.auth_cache,
            min_password_length: self.config.accounts.password_min_length,
            reset_ttl_minutes: self.config.accounts.password_reset_minutes,
            public_url: self.config.accounts.public_url.as_deref(),
        }
    }
}

/// What one look at a folder did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Look {
    /// Messages that became a ticket or a comment.
    pub taken: u32,
    /// Messages that made nothing on purpose (auto-replies, bounces, duplicates).
    pub ignored: u32,
    /// Messages moved to the failed folder.
    pub failed: u32,
    /// Messages left for later (the sender's pace, or the service's own trouble).
    pub left: u32,
}

/// What a fetcher remembers of a folder between looks: attempts at messages the service failed on, and
/// messages put off until a time.
#[derive(Debug, Default)]
struct Memory {
    attempts: HashMap<u32, u32>,
    later: HashMap<u32, Instant>,
}

fn counted(outcome: &'static str) {
    metrics::counter!("mail_in_messages_total", "outcome" => outcome).increment(1);
}

/// Read `mailbox` once: sign in, take in what waits (at most one batch), sign out. For the command line
/// and the tests; the service itself keeps a connection per mailbox ([`run`]).
pub async fn fetch_once(fetcher: &Fetcher, id: i32) -> AppResult<Look> {
    let mailbox = mailbox::Entity::find_by_id(id)
        .one(&fetcher.db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("mailbox"))?;
    let attempt = async {
        let mut connection = open(&mailbox).await?;
        let look = look(fetcher, &mailbox, &mut connection, &mut Memory::default()).await;
        connection.logout().await;
        look.map(|(done, _)| done)
    };
    let result = attempt.await;
    record(&fetcher.db, id, result.as_ref().err()).await?;
    // The mail server's failure, not the caller's: 503, as a database that cannot be reached.
    result.map_err(|why| AppError::Unavailable(anyhow::anyhow!("mailbox {id}: {why}")))
}

async fn open(mailbox: &mailbox::Model) -> Result<Connection, String> {
    let settings = Settings::parse(&mailbox.url)?;
    let mut folders = vec![mailbox.failed_folder.as_str()];
    if let Some(done) = &mailbox.done_folder {
        folders.push(done);
    }
    imap::connect(&settings, &mailbox.secret, &folders).await
}

/// Take in what waits in the selected folder, at most [`BATCH`] messages; the flag says more wait. An error
/// of the connection ends the look (the messages stay for the next); an error of the service leaves that
/// message for later and ends the look too, since the next would meet the same trouble.
async fn look(
    fetcher: &Fetcher,
    mailbox: &mailbox::Model,
    connection: &mut Connection,
    memory: &mut Memory,
) -> Result<(Look, bool), String> {
    let mut done = Look::default();
    let now = Instant::now();
    memory.later.retain(|_, until| *until > now);
    let mut waiting = connection.waiting(mailbox.done_folder.is_none()).await?;
    let put_off = waiting.len();
    waiting.retain(|uid| !memory.later.contains_key(uid));
    done.left += (put_off - waiting.len()) as u32;
    let more = waiting.len() > BATCH;
    waiting.truncate(BATCH);
    let sizes = connection.sizes(&waiting).await?;
    for uid in waiting {
        let size = sizes.get(&uid).copied().unwrap_or(0) as usize;
        let verdict = if size > MAX_BYTES {
            // Not fetched whole; its header is enough to tell the sender (a mail server would have bounced it).
            if let Some(head) = connection.header(uid).await? {
                answer_too_large(fetcher, mailbox, uid, &head, size).await;
            }
            Err(format!(
                "larger than {} MiB ({size} bytes)",
                MAX_BYTES >> 20
            ))
        } else {
            let Some(raw) = connection.message(uid).await? else {
                // Removed by someone else since the search.
                continue;
            };
            let received = mail_in::receive(
                fetcher.write_deps(),
                fetcher.people_deps(),
                fetcher.storage.as_ref(),
                &raw,
                mailbox.project_id,
            )
            .await;
            match received {
                Ok(Ok(Received::Ignored(why))) => {
                    tracing::info!(mailbox = mailbox.id, uid, why, "mail ignored");
                    done.ignored += 1;
                    counted("ignored");
                    Ok(())
                }
                Ok(Ok(made)) => {
                    tracing::info!(mailbox = mailbox.id, uid, ?made, "mail taken in");
                    done.taken += 1;
                    counted(match made {
                        Received::Ticket(_) => "ticket",
                        _ => "comment",
                    });
                    Ok(())
                }
                Ok(Err(Refused::TooMany)) => {
                    memory.later.insert(uid, Instant::now() + DEFER);
                    done.left += 1;
                    counted("deferred");
                    continue;
                }
                Ok(Err(Refused::TooLarge)) => {
                    answer_too_large(fetcher, mailbox, uid, &raw, raw.len()).await;
                    Err("too large".to_string())
                }
                Ok(Err(Refused::Unreadable(why))) => Err(why),
                Ok(Err(Refused::Sender(why))) => Err(format!("sender refused: {why}")),
                Err(e) => {
                    let tries = memory.attempts.entry(uid).or_insert(0);
                    *tries += 1;
                    if *tries < MAX_ATTEMPTS {
                        counted("retried");
                        return Err(format!("the help desk could not take a message: {e}"));
                    }
                    Err(format!("not taken after {MAX_ATTEMPTS} attempts: {e}"))
                }
            }
        };
        memory.attempts.remove(&uid);
        match verdict {
            Ok(()) => match &mailbox.done_folder {
                Some(folder) => connection.move_to(uid, folder).await?,
                None => connection.flag_seen(uid).await?,
            },
            Err(why) => {
                tracing::warn!(
                    mailbox = mailbox.id,
                    uid,
                    reason = why.as_str(),
                    folder = mailbox.failed_folder.as_str(),
                    "mail not taken in: moved to the failed folder"
                );
                counted("failed");
                done.failed += 1;
                connection.move_to(uid, &mailbox.failed_folder).await?;
            }
        }
    }
    Ok((done, more))
}

/// Tell the sender of message `uid` (`size` bytes, `head` its header or more) that it was too large; a failure
/// to is logged, and the message goes to the failed folder all the same.
async fn answer_too_large(
    fetcher: &Fetcher,
    mailbox: &mailbox::Model,
    uid: u32,
    head: &[u8],
    size: usize,
) {
    match mail_in::answer_too_large(&fetcher.db, &fetcher.config, head, size).await {
        Ok(true) => tracing::info!(
            mailbox = mailbox.id,
            uid,
            "its sender was told it was too large"
        ),
        Ok(false) => {}
        Err(e) => {
            tracing::warn!(mailbox = mailbox.id, uid, error = %e, "the sender of a large message was not told")
        }
    }
}

/// Write down how the last attempt went: the time of a good one, or why it failed.
async fn record(db: &Db, id: i32, error: Option<&String>) -> AppResult<()> {
    let update = mailbox::Entity::update_many().filter(mailbox::Column::Id.eq(id));
    let update = match error {
        None => update
            .col_expr(mailbox::Column::CheckedAt, Expr::value(Utc::now()))
            .col_expr(
                mailbox::Column::LastError,
                Expr::value(Option::<String>::None),
            ),
        Some(why) => update.col_expr(
            mailbox::Column::LastError,
            Expr::value(why.chars().take(500).collect::<String>()),
        ),
    };
    update.exec(&db.conn).await?;
    Ok(())
}

/// Take or keep the lease on mailbox `id` for `owner`: true when this instance now holds it.
async fn lease(db: &Db, id: i32, owner: &str) -> AppResult<bool> {
    let now = Utc::now();
    let until = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
    let taken = mailbox::Entity::update_many()
        .col_expr(mailbox::Column::LeaseOwner, Expr::value(owner))
        .col_expr(mailbox::Column::LeasedUntil, Expr::value(until))
        .filter(mailbox::Column::Id.eq(id))
        .filter(mailbox::Column::Active.eq(true))
        .filter(
            Condition::any()
                .add(mailbox::Column::LeasedUntil.is_null())
                .add(mailbox::Column::LeasedUntil.lt(now))
                .add(mailbox::Column::LeaseOwner.eq(owner)),
        )
        .exec(&db.conn)
        .await?;
    Ok(taken.rows_affected == 1)
}

/// Keep one mailbox: hold its lease and a connection, look, wait for news, look again; after a failure,
/// wait longer each time (up to five minutes) before trying again.
async fn keep(fetcher: Arc<Fetcher>, mailbox: mailbox::Model, owner: Arc<str>) {
    let mut pause = Duration::from_secs(5);
    let mut memory = Memory::default();
    loop {
        match lease(&fetcher.db, mailbox.id, &owner).await {
            Ok(true) => {}
            Ok(false) => {
                tokio::time::sleep(LEASE / 2).await;
                continue;
            }
            Err(e) => {
                tracing::warn!(mailbox = mailbox.id, error = %e, "cannot lease the mailbox");
                tokio::time::sleep(pause).await;
                continue;
            }
        }
        match session(&fetcher, &mailbox, &owner, &mut memory).await {
            Ok(()) => pause = Duration::from_secs(5),
            Err(why) => {
                tracing::warn!(
                    mailbox = mailbox.id,
                    error = why.as_str(),
                    "mailbox unreachable"
                );
                let _ = record(&fetcher.db, mailbox.id, Some(&why)).await;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(300));
            }
        }
    }
}

/// One connection's life: look, renew the lease, wait; until the lease is lost or something fails.
async fn session(
    fetcher: &Fetcher,
    mailbox: &mailbox::Model,
    owner: &str,
    memory: &mut Memory,
) -> Result<(), String> {
    let mut connection = open(mailbox).await?;
    loop {
        let (_, more) = look(fetcher, mailbox, &mut connection, memory).await?;
        let _ = record(&fetcher.db, mailbox.id, None).await;
        if !lease(&fetcher.db, mailbox.id, owner)
            .await
            .map_err(|e| e.to_string())?
        {
            connection.logout().await;
            return Ok(());
        }
        // A full folder is worked through batch after batch; an empty one waits for news.
        if !more {
            connection = connection.wait(WAIT).await?;
        }
    }
}

/// Watch the active mailboxes for as long as the service runs: one task per mailbox, restarted when an
/// administrator changes it, stopped when they remove it or switch it off.
pub async fn run(fetcher: Fetcher) {
    let fetcher = Arc::new(fetcher);
    let owner: Arc<str> = uuid::Uuid::new_v4().to_string().into();
    let mut kept: HashMap<i32, (chrono::DateTime<Utc>, tokio::task::JoinHandle<()>)> =
        HashMap::new();
    loop {
        let found = mailbox::Entity::find()
            .filter(mailbox::Column::Active.eq(true))
            .all(&fetcher.db.conn)
            .await;
        match found {
            Ok(mailboxes) => {
                kept.retain(|id, (changed, task)| {
                    let same = mailboxes
                        .iter()
                        .any(|m| m.id == *id && m.updated_at == *changed);
                    if !same {
                        task.abort();
                    }
                    same && !task.is_finished()
                });
                for mailbox in mailboxes {
                    if !kept.contains_key(&mailbox.id) {
                        let (id, changed) = (mailbox.id, mailbox.updated_at);
                        let task = tokio::spawn(keep(fetcher.clone(), mailbox, owner.clone()));
                        kept.insert(id, (changed, task));
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the mailboxes"),
        }
        tokio::time::sleep(RESCAN).await;
    }
}
