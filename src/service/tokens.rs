//! API tokens: issue (shown once), list, revoke, and record use.
use crate::auth::cache::AuthCache;
use crate::auth::tokens::{hash_secret, new_secret, API_TOKEN_PREFIX};
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::text;
use crate::service::Take;
use chrono::Utc;
use entity::api_token;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use serde_json::json;

/// A freshly issued token: the secret is available only here.
#[derive(Debug)]
pub struct IssuedToken {
    /// The stored record.
    pub record: api_token::Model,
    /// The secret to hand to the user once.
    pub secret: String,
}

/// Issue a token for `user_id`. `actor_id` is who asked (None for the CLI).
pub async fn create(
    db: &Db,
    actor_id: Option<i32>,
    user_id: i32,
    name: &str,
    expires_in_days: Option<i64>,
) -> AppResult<IssuedToken> {
    text::single_line("name", name)?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AppError::field("name", "must be 1-100 characters"));
    }
    if let Some(days) = expires_in_days {
        if !(1..=3650).contains(&days) {
            return Err(AppError::field(
                "expiresInDays",
                "must be between 1 and 3650",
            ));
        }
    }
    let now = Utc::now();
    let secret = new_secret(API_TOKEN_PREFIX);
    let txn = db.begin_write().await?;
    let record = api_token::ActiveModel {
        user_id: Set(user_id),
        name: Set(name.to_string()),
        token_hash: Set(hash_secret(&secret)),
        created_at: Set(now),
        expires_at: Set(expires_in_days.map(|d| now + chrono::Duration::days(d))),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(actor_id, "api_token", record.id, "create")
            .changes(json!({"name": [null, name]})),
    )
    .await?;
    txn.commit().await?;
    Ok(IssuedToken { record, secret })
}

/// The user's tokens, newest first (secrets are never returned); `take` may keep only the first.
pub async fn list_for(
    db: &impl ConnectionTrait,
    actor: &Actor,
    take: Take,
) -> AppResult<Vec<api_token::Model>> {
    list_of(db, actor.id(), take).await
}

/// The tokens of account `user_id`, newest first, for an administrator (never their secrets).
pub async fn list_of_account(
    db: &impl ConnectionTrait,
    _admin: &crate::service::users::Admin,
    user_id: i32,
    take: Take,
) -> AppResult<Vec<api_token::Model>> {
    list_of(db, user_id, take).await
}

async fn list_of(
    db: &impl ConnectionTrait,
    user_id: i32,
    take: Take,
) -> AppResult<Vec<api_token::Model>> {
    let select = api_token::Entity::find()
        .filter(api_token::Column::UserId.eq(user_id))
        .order_by_desc(api_token::Column::CreatedAt)
        .order_by_desc(api_token::Column::Id);
    Ok(take.limit(select).all(db).await?)
}

/// Revoke one token of the actor's by id (404 for someone else's); `auth_cache` forgets it everywhere.
pub async fn revoke(
    db: &Db,
    auth_cache: &AuthCache,
    actor: &Actor,
    token_id: i32,
) -> AppResult<api_token::Model> {
    let txn = db.begin_write().await?;
    let record = api_token::Entity::find_by_id(token_id)
        .one(&txn)
        .await?
        .filter(|t| t.user_id == actor.id())
        .ok_or_else(|| AppError::not_found("API token"))?;
    let updated = revoke_record(&txn, Some(actor.id()), record).await?;
    txn.commit().await?;
    auth_cache.changed(db).await;
    Ok(updated)
}

/// Revoke every active token named `name` of `user_id`; returns how many were revoked.
pub async fn revoke_by_name(
    db: &Db,
    auth_cache: &AuthCache,
    user_id: i32,
    name: &str,
) -> AppResult<usize> {
    let txn = db.begin_write().await?;
    let records = api_token::Entity::find()
        .filter(api_token::Column::UserId.eq(user_id))
        .filter(api_token::Column::Name.eq(name))
        .filter(api_token::Column::RevokedAt.is_null())
        .all(&txn)
        .await?;
    let count = records.len();
    for record in records {
        revoke_record(&txn, None, record).await?;
    }
    txn.commit().await?;
    auth_cache.changed(db).await;
    Ok(count)
}

async fn revoke_record(
    txn: &impl ConnectionTrait,
    actor_id: Option<i32>,
    record: api_token::Model,
) -> AppResult<api_token::Model> {
    if record.revoked_at.is_some() {
        return Ok(record);
    }
    let id = record.id;
    let mut active: api_token::ActiveModel = record.into();
    active.revoked_at = Set(Some(Utc::now()));
    let updated = active.update(txn).await?;
    audit::record(txn, audit::Entry::new(actor_id, "api_token", id, "revoke")).await?;
    Ok(updated)
}
