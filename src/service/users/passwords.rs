//! Passwords: the strength rule, an admin setting one, a user changing their own (with the current one),
//! and forgotten ones reset through a one-time emailed link that expires. A new password ends the
//! account's other sessions and its earlier access tokens; API tokens are separate credentials and stay.
use super::{Admin, PeopleDeps};
use crate::auth::password::{hash_password_async, verify_password_async};
use crate::auth::tokens::{hash_secret, new_secret};
use crate::auth::Actor;
use crate::counters::{address_key, now, Counters, Window};
use crate::error::{AppError, AppResult};
use crate::i18n::Lang;
use crate::notify::mailer::Email;
use crate::notify::outbox;
use crate::service::audit;
use chrono::Utc;
use entity::{password_reset, user, web_session};
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter, Set,
};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::net::IpAddr;

/// Prefix of password-reset secrets.
const RESET_PREFIX: &str = "dgr_";
/// Longest password accepted (argon2 takes any length; this bounds the work a request can ask for).
const MAX_PASSWORD: usize = 1024;
/// Reset requests allowed per email address, and per client address, in a window of the sign-in limits.
const RESETS_PER_EMAIL: u64 = 5;
const RESETS_PER_ADDRESS: u64 = 20;

/// Refuse a password shorter than `min_length` characters, longer than [`MAX_PASSWORD`] bytes, or equal to
/// the user name (any case).
pub fn check_strength(min_length: usize, username: &str, password: &str) -> AppResult<()> {
    if password.chars().count() < min_length {
        return Err(AppError::field(
            "password",
            format!("must be at least {min_length} characters"),
        ));
    }
    if password.len() > MAX_PASSWORD {
        return Err(AppError::field(
            "password",
            format!("must be at most {MAX_PASSWORD} bytes"),
        ));
    }
    if password.trim().eq_ignore_ascii_case(username.trim()) {
        return Err(AppError::field("password", "must not be the user name"));
    }
    Ok(())
}

/// Store `password` for `account` and end its other credentials: every web session but `keep` (the
/// session secret of the request, when it came through one), and every access token issued before now.
/// `claim`: the hash of a reset link this change uses up, in the same transaction (refused when it is
/// already used or expired).
async fn store(
    deps: PeopleDeps<'_>,
    actor_id: Option<i32>,
    account: user::Model,
    password: String,
    keep: Option<&str>,
    claim: Option<String>,
    action: &'static str,
) -> AppResult<user::Model> {
    let hash = hash_password_async(password).await?;
    let txn = deps.db.begin_write().await?;
    let now = Utc::now();
    if let Some(token_hash) = claim {
        // One statement: two uses racing each other cannot both pass.
        let claimed = password_reset::Entity::update_many()
            .col_expr(password_reset::Column::UsedAt, Expr::value(now))
            .filter(password_reset::Column::TokenHash.eq(token_hash))
            .filter(password_reset::Column::UsedAt.is_null())
            .filter(password_reset::Column::ExpiresAt.gt(now))
            .exec(&txn)
            .await?
            .rows_affected;
        if claimed == 0 {
            return Err(invalid_link());
        }
    }
    let id = account.id;
    let mut next = account.into_active_model();
    next.password_hash = Set(hash);
    next.credentials_changed_at = Set(Some(now));
    let updated = next.update(&txn).await?;
    let mut sessions =
        web_session::Entity::delete_many().filter(web_session::Column::UserId.eq(id));
    if let Some(secret) = keep {
        sessions = sessions.filter(web_session::Column::SessionHash.ne(hash_secret(secret)));
    }
    sessions.exec(&txn).await?;
    // The record says that it changed, never what to.
    audit::record(
        &txn,
        audit::Entry::new(actor_id, "user", id, action).changes(json!({"password": ["changed"]})),
    )
    .await?;
    txn.commit().await?;
    deps.auth_cache.changed(deps.db).await;
    Ok(updated)
}

fn invalid_link() -> AppError {
    AppError::field("token", "this reset link is invalid or has expired")
}

/// Set the password of account `id` (admins only).
pub async fn set(
    deps: PeopleDeps<'_>,
    admin: &Admin,
    id: i32,
    password: String,
) -> AppResult<user::Model> {
    let account = user::Entity::find_by_id(id)
        .one(&deps.db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("user"))?;
    check_strength(deps.min_password_length, &account.username, &password)?;
    store(
        deps,
        admin.id,
        account,
        password,
        None,
        None,
        "set_password",
    )
    .await
}

/// Change the actor's own password, given the current one (a wrong one is a 400 naming
/// `current_password`). The session the request came through (`keep`) stays signed in.
pub async fn change_mine(
    deps: PeopleDeps<'_>,
    actor: &Actor,
    current: &str,
    new: String,
    keep: Option<&str>,
) -> AppResult<user::Model> {
    let account = user::Entity::find_by_id(actor.id())
        .one(&deps.db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("user"))?;
    if !verify_password_async(account.password_hash.clone(), current.to_string()).await {
        return Err(AppError::field(
            "current_password",
            "the current password is wrong",
        ));
    }
    check_strength(deps.min_password_length, &account.username, &new)?;
    store(
        deps,
        Some(actor.id()),
        account,
        new,
        keep,
        None,
        "change_password",
    )
    .await
}

/// Ask for a reset link for `email`. The answer is the same whether an active account has that address or
/// not, and takes the same time: the lookup and the write happen after the caller has its answer. Requests
/// are counted per address and per client like failed sign-ins, over the last window (429 past the limit).
pub async fn request_reset(
    deps: PeopleDeps<'_>,
    counters: &Counters,
    window_seconds: u64,
    email: &str,
    client: Option<IpAddr>,
) -> AppResult<()> {
    crate::service::text::single_line("email", email)?;
    let email = email.trim().to_lowercase();
    if email.is_empty() || email.len() > 254 {
        return Err(AppError::field("email", "enter a valid email address"));
    }
    let window = Window(window_seconds);
    let at = now();
    let by_email = format!(
        "reset:email:{}",
        hex::encode(Sha256::digest(email.as_bytes()))
    );
    let mut keys = vec![(by_email, RESETS_PER_EMAIL)];
    if let Some(ip) = client {
        keys.push((
            format!("reset:address:{}", address_key(ip)),
            RESETS_PER_ADDRESS,
        ));
    }
    for (key, limit) in keys {
        let taken = counters.take_sliding(&key, 1, limit, window, at).await;
        if !taken.allowed {
            return Err(AppError::RateLimited {
                retry_after: Ord::max(window.reset(at).saturating_sub(at), 1),
            });
        }
    }
    let db = deps.db.clone();
    let ttl_minutes = deps.reset_ttl_minutes;
    let link_base = deps.public_url.map(str::to_string);
    tokio::spawn(async move {
        if let Err(err) = send_reset(&db, &email, ttl_minutes, link_base.as_deref()).await {
            tracing::warn!(error = %err, "password reset link not sent");
        }
    });
    Ok(())
}

/// Write a reset link for the active account with `email` (if any) and queue its email, together.
async fn send_reset(
    db: &crate::db::Db,
    email: &str,
    ttl_minutes: u64,
    link_base: Option<&str>,
) -> AppResult<()> {
    let lower = Expr::expr(Func::lower(Expr::col(user::Column::Email)));
    let Some(account) = user::Entity::find()
        .filter(lower.eq(email))
        .filter(user::Column::IsActive.eq(true))
        .one(&db.conn)
        .await?
    else {
        return Ok(());
    };
    let Some(address) = account.email.clone() else {
        return Ok(());
    };
    let secret = new_secret(RESET_PREFIX);
    let now = Utc::now();
    let expires_at = now + chrono::Duration::minutes(ttl_minutes as i64);
    let path = format!("/accounts/password-reset/{secret}/");
    let link = match link_base {
        Some(base) => format!("{}{path}", base.trim_end_matches('/')),
        None => path,
    };
    let name = if account.full_name.trim().is_empty() {
        account.username.clone()
    } else {
        account.full_name.clone()
    };
    // In the account's language, as its other emails are.
    let lang = account
        .language
        .as_deref()
        .and_then(Lang::from_tag)
        .unwrap_or_default();
    let hello = lang.t1("email-hello", "name", &name);
    let asked = lang.texts(
        "email-reset",
        [
            ("username", &account.username),
            ("minutes", &ttl_minutes.to_string()),
        ],
    );
    let ignore = lang.t("email-reset-ignore");
    let text = format!("{hello}\n\n{asked}\n\n{link}\n\n{ignore}\n");
    let escape = crate::sanitize::html_escape;
    let html = format!(
        "<p>{}</p><p>{}</p><p><a href=\"{}\">{}</a></p><p>{}</p>",
        escape(&hello),
        escape(&asked),
        escape(&link),
        escape(&link),
        escape(&ignore)
    );
    let email = Email {
        to: address,
        subject: lang.t("email-reset-subject"),
        text,
        html,
        ticket: None,
        answers: None,
    };
    let txn = db.begin_write().await?;
    password_reset::ActiveModel {
        user_id: Set(account.id),
        token_hash: Set(hash_secret(&secret)),
        created_at: Set(now),
        expires_at: Set(expires_at),
        used_at: Set(None),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    outbox::email_row(&outbox::new_event_id(), "account.password_reset", &email)?
        .insert(&txn)
        .await?;
    txn.commit().await?;
    Ok(())
}

/// Set a new password with a reset link's secret: it works once, before it expires, for an active account
/// (anything else is one 400 naming `token`).
pub async fn reset(deps: PeopleDeps<'_>, secret: &str, new: String) -> AppResult<user::Model> {
    if !secret.starts_with(RESET_PREFIX) || secret.len() > 128 {
        return Err(invalid_link());
    }
    let token_hash = hash_secret(secret);
    let link = password_reset::Entity::find()
        .filter(password_reset::Column::TokenHash.eq(token_hash.as_str()))
        .filter(password_reset::Column::UsedAt.is_null())
        .filter(password_reset::Column::ExpiresAt.gt(Utc::now()))
        .one(&deps.db.conn)
        .await?
        .ok_or_else(invalid_link)?;
    let account = user::Entity::find_by_id(link.user_id)
        .one(&deps.db.conn)
        .await?
        .filter(|u| u.is_active)
        .ok_or_else(invalid_link)?;
    check_strength(deps.min_password_length, &account.username, &new)?;
    store(
        deps,
        None,
        account,
        new,
        None,
        Some(token_hash),
        "reset_password",
    )
    .await
}

/// Forget reset links that expired a day ago or more (they can never be used again).
pub async fn forget_expired(db: &impl ConnectionTrait) -> AppResult<u64> {
    let cutoff = Utc::now() - chrono::Duration::days(1);
    Ok(password_reset::Entity::delete_many()
        .filter(password_reset::Column::ExpiresAt.lt(cutoff))
        .exec(db)
        .await?
        .rows_affected)
}
