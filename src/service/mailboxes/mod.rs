//! Mailboxes: IMAP folders the help desk fetches mail from, managed by administrators. Each names its
//! server by URL (`net::imap::Settings`), signs in with a password or an OAuth2 bearer token (the secret,
//! write-only), opens its new tickets in a project, and says where a message goes once taken in (moved to a
//! folder, or flagged seen) and where one that cannot be taken in goes (`failed`). The fetching itself is
//! [`fetch`].
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::net::imap::Settings;
use crate::service::audit;
use crate::service::text;
use crate::service::users::Admin;
use chrono::Utc;
use entity::mailbox;
use sea_orm::{ActiveModelTrait, EntityTrait, PaginatorTrait, QueryOrder, Set};
use serde_json::json;

pub mod fetch;

/// The most mailboxes a desk keeps: each holds a connection open on every instance that fetches it.
pub const MAX_MAILBOXES: u64 = 20;
/// The folder a message that cannot be taken in goes to, unless the mailbox names another.
pub const DEFAULT_FAILED_FOLDER: &str = "failed";

/// Fields of a new mailbox.
#[derive(Debug, Clone, Default)]
pub struct NewMailbox {
    /// What admins call it, 1-100 characters.
    pub name: String,
    /// `imaps://user@host/INBOX` (see `net::imap::Settings`).
    pub url: String,
    /// The password or the OAuth2 bearer token.
    pub secret: String,
    /// Where taken messages are moved; none: flagged seen where they are.
    pub done_folder: Option<String>,
    /// Where messages that cannot be taken in are moved (default `failed`).
    pub failed_folder: Option<String>,
    /// The project its new tickets open in; none: the default project.
    pub project_id: Option<i32>,
    /// Defaults to true.
    pub active: Option<bool>,
}

/// A partial change of a mailbox; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct MailboxPatch {
    /// New name.
    pub name: Option<String>,
    /// New URL.
    pub url: Option<String>,
    /// New secret.
    pub secret: Option<String>,
    /// New done folder (`Some(None)`: flag seen instead).
    pub done_folder: Option<Option<String>>,
    /// New failed folder.
    pub failed_folder: Option<String>,
    /// New project (`Some(None)`: the default project).
    pub project_id: Option<Option<i32>>,
    /// Fetch or not.
    pub active: Option<bool>,
}

fn admin(actor: &Actor) -> AppResult<()> {
    Admin::of(actor)
        .map(|_| ())
        .map_err(|_| AppError::forbidden("only administrators may manage mailboxes"))
}

fn clean_url(value: &str) -> AppResult<String> {
    text::single_line("url", value)?;
    if value.len() > 2000 {
        return Err(AppError::field(
            "url",
            "ensure this field has no more than 2000 characters",
        ));
    }
    Settings::parse(value).map_err(|why| AppError::field("url", why))?;
    Ok(value.trim().to_string())
}

fn clean_secret(value: &str) -> AppResult<String> {
    text::single_line("secret", value)?;
    if value.is_empty() || value.len() > 4000 {
        return Err(AppError::field("secret", "must be 1-4000 characters"));
    }
    Ok(value.to_string())
}

fn clean_folder(field: &str, value: &str) -> AppResult<String> {
    text::required_name(field, value, 200)
}

/// Every mailbox, oldest first.
pub async fn list(db: &Db, actor: &Actor) -> AppResult<Vec<mailbox::Model>> {
    admin(actor)?;
    Ok(mailbox::Entity::find()
        .order_by_asc(mailbox::Column::Id)
        .all(&db.conn)
        .await?)
}

/// One mailbox.
pub async fn get(db: &Db, actor: &Actor, id: i32) -> AppResult<mailbox::Model> {
    admin(actor)?;
    mailbox::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("mailbox"))
}

/// What the audit trail keeps of a mailbox: never its secret, only that it was set or changed.
fn changes_between(
    before: Option<&mailbox::Model>,
    after: Option<&mailbox::Model>,
) -> serde_json::Value {
    let audited = |m: &mailbox::Model| {
        json!({
            "name": m.name,
            "url": m.url,
            "done_folder": m.done_folder,
            "failed_folder": m.failed_folder,
            "project_id": m.project_id,
            "active": m.active,
        })
    };
    let mut changes = audit::Changes::between(
        before.map(audited).as_ref(),
        after.map(audited).as_ref(),
        &[
            "name",
            "url",
            "done_folder",
            "failed_folder",
            "project_id",
            "active",
        ],
    );
    let (was, is) = match (before.map(|m| &m.secret), after.map(|m| &m.secret)) {
        (None, Some(_)) => (None, Some("set")),
        (Some(old), Some(new)) if old != new => (Some("set"), Some("changed")),
        (Some(_), None) => (Some("set"), None),
        _ => (None, None),
    };
    changes.diff("secret", &was, &is);
    changes.into_value()
}

/// Add a mailbox. Nothing connects to it here: the fetcher does within seconds, and writes what went wrong
/// on the mailbox (`last_error`).
pub async fn create(db: &Db, actor: &Actor, input: NewMailbox) -> AppResult<mailbox::Model> {
    admin(actor)?;
    let name = text::required_name("name", &input.name, 100)?;
    let url = clean_url(&input.url)?;
    let secret = clean_secret(&input.secret)?;
    let done_folder = input
        .done_folder
        .as_deref()
        .map(|f| clean_folder("done_folder", f))
        .transpose()?;
    let failed_folder = clean_folder(
        "failed_folder",
        input
            .failed_folder
            .as_deref()
            .unwrap_or(DEFAULT_FAILED_FOLDER),
    )?;
    if let Some(id) = input.project_id {
        crate::service::automation::triggers::check_project(&db.conn, "project", id).await?;
    }
    if mailbox::Entity::find().count(&db.conn).await? >= MAX_MAILBOXES {
        return Err(AppError::bad_request(format!(
            "a desk keeps at most {MAX_MAILBOXES} mailboxes; remove one first"
        )));
    }
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = mailbox::ActiveModel {
        name: Set(name),
        url: Set(url),
        secret: Set(secret),
        done_folder: Set(done_folder),
        failed_folder: Set(failed_folder),
        project_id: Set(input.project_id),
        active: Set(input.active.unwrap_or(true)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "mailbox", created.id, "create")
            .changes(changes_between(None, Some(&created))),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Change a mailbox; the fetcher picks the change up at its next look (every half minute).
pub async fn update(
    db: &Db,
    actor: &Actor,
    id: i32,
    patch: MailboxPatch,
) -> AppResult<mailbox::Model> {
    let current = get(db, actor, id).await?;
    let mut active: mailbox::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        active.name = Set(text::required_name("name", name, 100)?);
    }
    if let Some(url) = &patch.url {
        active.url = Set(clean_url(url)?);
    }
    if let Some(secret) = &patch.secret {
        active.secret = Set(clean_secret(secret)?);
    }
    if let Some(done) = &patch.done_folder {
        active.done_folder = Set(done
            .as_deref()
            .map(|f| clean_folder("done_folder", f))
            .transpose()?);
    }
    if let Some(failed) = &patch.failed_folder {
        active.failed_folder = Set(clean_folder("failed_folder", failed)?);
    }
    if let Some(project) = patch.project_id {
        if let Some(pid) = project {
            crate::service::automation::triggers::check_project(&db.conn, "project", pid).await?;
        }
        active.project_id = Set(project);
    }
    if let Some(on) = patch.active {
        active.active = Set(on);
    }
    // A new address or secret deserves a fresh attempt, and a fresh verdict.
    if patch.url.is_some() || patch.secret.is_some() {
        active.last_error = Set(None);
    }
    active.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let updated = active.update(&txn).await?;
    let changes = changes_between(Some(&current), Some(&updated));
    if changes.as_object().is_some_and(|c| !c.is_empty()) {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "mailbox", id, "update").changes(changes),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(updated)
}

/// Remove a mailbox; the mail in it stays on the server.
pub async fn delete(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    let current = get(db, actor, id).await?;
    let txn = db.begin_write().await?;
    mailbox::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "mailbox", id, "delete")
            .changes(changes_between(Some(&current), None)),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}
