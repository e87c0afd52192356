//! Idempotency keys: a create sent again under the key it was first sent with, by the same account within a
//! day, gets the first answer and creates nothing; under the same key, another request is a conflict.
//!
//! The key's record (`idempotency_keys`, primary key: account and key) is inserted by the create's own
//! statement, in its transaction: it commits with the record it answers for, or not at all. Two creates
//! racing with one key both find no record, and both write; the second's insert of the key then fails on
//! the primary key (PostgreSQL makes it wait for the first to commit; SQLite runs one writer at a time),
//! its transaction rolls back, and it answers what the first committed ([`Recorded::replay`]).
use crate::error::{AppError, AppResult, FieldErrors};
use chrono::{DateTime, Utc};
use entity::idempotency_key;
use sea_orm::sea_query::{Expr, ExprTrait, InsertStatement, Query};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryTrait};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::time::Duration;

/// How long a key's first answer is kept.
pub const LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// Longest key accepted.
pub const MAX_KEY_LEN: usize = 255;

/// A client's key, checked: 1-255 visible ASCII characters (a UUID, a ULID, a hash, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Check `raw`, sent as `field` (the REST header or the GraphQL input field, named in the 400).
    pub fn parse(raw: &str, field: &str) -> AppResult<Self> {
        let fits =
            (1..=MAX_KEY_LEN).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_graphic());
        if !fits {
            return Err(AppError::field(
                field,
                format!(
                    "must be 1-{MAX_KEY_LEN} visible ASCII characters (letters, digits, punctuation; no spaces)"
                ),
            ));
        }
        Ok(IdempotencyKey(raw.to_string()))
    }

    /// The key as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The fingerprint of a request: SHA-256 (hex) of what it asks, as JSON.
pub fn fingerprint(request: &impl Serialize) -> AppResult<String> {
    let text = serde_json::to_string(request).map_err(AppError::internal)?;
    Ok(hex::encode(Sha256::digest(text.as_bytes())))
}

/// What an account's key was first used for.
#[derive(Debug)]
pub struct Recorded {
    record: idempotency_key::Model,
}

/// The kept record of `user`'s `key`, if any (expired or not: see [`Recorded::expired`]).
pub async fn recall(
    db: &impl ConnectionTrait,
    user: i32,
    key: &IdempotencyKey,
) -> AppResult<Option<Recorded>> {
    let found = idempotency_key::Entity::find()
        .filter(idempotency_key::Column::UserId.eq(user))
        .filter(idempotency_key::Column::Key.eq(key.as_str()))
        .one(db)
        .await?;
    Ok(found.map(|record| Recorded { record }))
}

impl Recorded {
    /// Whether the record is older than [`LIFETIME`] at `now`: it no longer answers, and is replaced.
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        now.signed_duration_since(self.record.created_at)
            .to_std()
            .is_ok_and(|age| age >= LIFETIME)
    }

    /// The first answer, when `fingerprint` is the request it was given to; otherwise 409 naming `field`.
    pub fn replay<T: DeserializeOwned>(&self, fingerprint: &str, field: &str) -> AppResult<T> {
        if self.record.fingerprint != fingerprint {
            let mut fields = FieldErrors::new();
            fields.insert(
                field.to_string(),
                vec!["this key was already used for a different request".to_string()],
            );
            return Err(AppError::Conflict {
                message:
                    "the idempotency key was already used for a different request; use a new key \
                          for a new request"
                        .to_string(),
                fields,
            });
        }
        serde_json::from_str(&self.record.answer).map_err(AppError::internal)
    }
}

/// The insert of `user`'s `key` with its request's fingerprint and its `answer`, for the create's own
/// statement.
pub fn insert_of(
    user: i32,
    key: &IdempotencyKey,
    fingerprint: String,
    answer: &impl Serialize,
    now: DateTime<Utc>,
) -> AppResult<InsertStatement> {
    let answer = serde_json::to_string(answer).map_err(AppError::internal)?;
    let record = idempotency_key::ActiveModel {
        user_id: sea_orm::Set(user),
        key: sea_orm::Set(key.as_str().to_string()),
        fingerprint: sea_orm::Set(fingerprint),
        answer: sea_orm::Set(answer),
        created_at: sea_orm::Set(now),
    };
    Ok(idempotency_key::Entity::insert(record).into_query())
}

/// Remove `user`'s `key` if it has expired at `now`, inside the create that takes the key again.
pub async fn forget_expired(
    db: &impl ConnectionTrait,
    user: i32,
    key: &IdempotencyKey,
    now: DateTime<Utc>,
) -> AppResult<()> {
    idempotency_key::Entity::delete_many()
        .filter(idempotency_key::Column::UserId.eq(user))
        .filter(idempotency_key::Column::Key.eq(key.as_str()))
        .filter(idempotency_key::Column::CreatedAt.lte(cutoff(now)))
        .exec(db)
        .await?;
    Ok(())
}

/// Remove every key expired at `now` (one statement over the `created_at` index); returns how many.
pub async fn sweep(db: &impl ConnectionTrait, now: DateTime<Utc>) -> AppResult<u64> {
    let delete = Query::delete()
        .from_table(idempotency_key::Entity)
        .and_where(Expr::col(idempotency_key::Column::CreatedAt).lte(cutoff(now)))
        .to_owned();
    Ok(db.execute(&delete).await?.rows_affected())
}

/// Sweep expired keys every `every`, for as long as the service runs.
pub async fn sweep_forever(db: crate::db::Db, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        if let Err(err) = sweep(&db.conn, Utc::now()).await {
            tracing::warn!(error = %err, "sweeping expired idempotency keys failed");
        }
    }
}

/// The oldest `created_at` still answering at `now`.
fn cutoff(now: DateTime<Utc>) -> DateTime<Utc> {
    now - chrono::Duration::from_std(LIFETIME).unwrap_or(chrono::Duration::days(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_of_bounded_length() {
        for good in [
            "a",
            "3f2b-9c1d",
            "order:42/retry=1",
            &"k".repeat(MAX_KEY_LEN),
        ] {
            assert!(
                IdempotencyKey::parse(good, "Idempotency-Key").is_ok(),
                "{good}"
            );
        }
        for bad in [
            "",
            "with space",
            "tab\tkey",
            "ключ",
            "nul\0",
            &"k".repeat(MAX_KEY_LEN + 1),
        ] {
            let refused = IdempotencyKey::parse(bad, "Idempotency-Key").is_err_and(|err| {
                err.code() == "validation_error" && err.details().get("Idempotency-Key").is_some()
            });
            assert!(refused, "{bad:?}");
        }
    }

    #[test]
    fn a_record_expires_after_a_day() {
        let now = Utc::now();
        let record = |age: chrono::Duration| Recorded {
            record: idempotency_key::Model {
                user_id: 1,
                key: "k".into(),
                fingerprint: "f".into(),
                answer: "1".into(),
                created_at: now - age,
            },
        };
        assert!(!record(chrono::Duration::hours(23)).expired(now));
        assert!(record(chrono::Duration::hours(24)).expired(now));
        assert_eq!(
            record(chrono::Duration::hours(1))
                .replay::<i32>("f", "k")
                .ok(),
            Some(1)
        );
        let conflict = record(chrono::Duration::hours(1)).replay::<i32>("g", "k");
        assert_eq!(conflict.map_err(|e| e.code()), Err("conflict"));
    }
}
