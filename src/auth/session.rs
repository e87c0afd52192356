//! Web sessions over the `web_sessions` table: the cookie holds a random secret, the table only its
//! SHA-256, next to the session's CSRF token and expiry.
use super::cache::AuthCache;
use super::tokens::{hash_secret, new_secret};
use super::{cached_actor, Actor};
use crate::error::AppResult;
use axum::http::{header, HeaderMap};
use chrono::{Duration, Utc};
use entity::web_session;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use std::sync::Arc;

/// Name of the HttpOnly session cookie.
pub const SESSION_COOKIE: &str = "sessionid";
/// Name of the readable cookie carrying the session's CSRF token.
pub const CSRF_COOKIE: &str = "csrftoken";
/// Header the web client echoes the CSRF token in on unsafe requests.
pub const CSRF_HEADER: &str = "x-csrftoken";

/// A freshly started session: the cookie secret is only ever known here and to the browser.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// Value of the session cookie.
    pub secret: String,
    /// The stored record (with the CSRF token).
    pub record: web_session::Model,
}

/// Start a session for `user_id` lasting `ttl_hours`.
pub async fn create(
    db: &impl ConnectionTrait,
    user_id: i32,
    ttl_hours: i64,
) -> AppResult<NewSession> {
    let secret = new_secret("");
    let now = Utc::now();
    let record = web_session::ActiveModel {
        session_hash: Set(hash_secret(&secret)),
        csrf_token: Set(new_secret("")),
        user_id: Set(user_id),
        created_at: Set(now),
        expires_at: Set(now + Duration::hours(ttl_hours)),
        ..Default::default()
    }
    .insert(db)
    .await?;
    Ok(NewSession { secret, record })
}

/// The live session for a cookie secret; `None` when unknown or expired.
pub async fn lookup(
    db: &impl ConnectionTrait,
    secret: &str,
) -> AppResult<Option<web_session::Model>> {
    let found = web_session::Entity::find()
        .filter(web_session::Column::SessionHash.eq(hash_secret(secret)))
        .one(db)
        .await?;
    Ok(found.filter(|s| s.expires_at > Utc::now()))
}

/// The live session for a cookie secret and its user; `None` when the session is unknown or expired or the
/// account can no longer sign in. The session is read every time (signing out ends it at once, on every
/// instance); the user and their groups come through `auth_cache`, which every change to them clears. Every
/// door that takes a session (the auth middleware, the web extractor, the queue's live feed at each check)
/// resolves it here.
pub async fn signed_in(
    db: &impl ConnectionTrait,
    auth_cache: &AuthCache,
    secret: &str,
) -> AppResult<Option<(web_session::Model, Arc<Actor>)>> {
    let generation = auth_cache.generation();
    let Some(record) = lookup(db, secret).await? else {
        return Ok(None);
    };
    Ok(cached_actor(db, auth_cache, generation, record.user_id)
        .await?
        .map(|actor| (record, actor)))
}

/// End the session for a cookie secret, and sweep expired sessions while at it.
pub async fn delete(db: &impl ConnectionTrait, secret: &str) -> AppResult<()> {
    web_session::Entity::delete_many()
        .filter(web_session::Column::SessionHash.eq(hash_secret(secret)))
        .exec(db)
        .await?;
    web_session::Entity::delete_many()
        .filter(web_session::Column::ExpiresAt.lte(Utc::now()))
        .exec(db)
        .await?;
    Ok(())
}

/// The value of cookie `name` in the request's Cookie headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}
