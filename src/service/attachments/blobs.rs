//! Blob rows, the lock between uploads and the collector on every instance. An upload claims a row
//! (`writing`, or touches a `stored` one to reuse its bytes) before it writes or names the bytes; the
//! collector takes a row (`collecting`) only when no attachment names it and no upload touched it for
//! [`GRACE`], deletes the bytes, then the row. An upload that meets a `collecting` row waits for it to go,
//! so bytes are never deleted under an upload, whatever the backend.
use super::upload::Spooled;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::storage::BlobStore;
use chrono::{DateTime, Utc};
use entity::{attachment, blob};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set, TryInsertResult,
};
use std::io::Seek;
use std::sync::Arc;
use std::time::Duration;

use entity::values::BlobState::{
    self, Collecting as COLLECTING, Stored as STORED, Writing as WRITING,
};

/// How long a blob nothing names is kept after an upload last wrote or reused it: far longer than an
/// upload takes, so an upload in flight keeps its bytes.
pub const GRACE: chrono::TimeDelta = chrono::TimeDelta::hours(1);
/// How long a deleted attachment's row (and so its bytes) is kept before the collector removes it.
pub const RETENTION: chrono::TimeDelta = chrono::TimeDelta::days(30);
/// Blobs examined per collection.
const BATCH: u64 = 500;
/// How often an upload looks again at a blob being collected, and how many times.
const WAIT: Duration = Duration::from_millis(100);
const WAIT_TRIES: u32 = 100;

/// Mark the row of `sha256` touched now if it is in `state`; whether it was.
pub async fn touch(db: &impl ConnectionTrait, sha256: &str, state: BlobState) -> AppResult<bool> {
    let done = blob::Entity::update_many()
        .col_expr(blob::Column::TouchedAt, Expr::value(Utc::now()))
        .filter(blob::Column::Sha256.eq(sha256))
        .filter(blob::Column::State.eq(state))
        .exec(db)
        .await?;
    Ok(done.rows_affected > 0)
}

/// Make the bytes of `upload` stored and touched: reuse them when stored already, else write them (beside
/// any other upload of the same bytes) in `storage`. Call [`still_stored`] in the transaction that names
/// them.
pub async fn store(db: &Db, storage: &dyn BlobStore, upload: &Spooled) -> AppResult<()> {
    let db = &db.conn;
    let sha = &upload.sha256;
    for _ in 0..WAIT_TRIES {
        if touch(db, sha, STORED).await? {
            return Ok(());
        }
        let now = Utc::now();
        let created = blob::Entity::insert(blob::ActiveModel {
            sha256: Set(sha.clone()),
            size: Set(upload.size as i64),
            created_at: Set(now),
            state: Set(WRITING),
            touched_at: Set(Some(now)),
        })
        .on_conflict_do_nothing()
        .exec_without_returning(db)
        .await?;
        let created = matches!(created, TryInsertResult::Inserted(n) if n > 0);
        if created || touch(db, sha, WRITING).await? {
            write(storage, upload).await?;
            let done = blob::Entity::update_many()
                .col_expr(blob::Column::State, Expr::value(STORED))
                .col_expr(blob::Column::TouchedAt, Expr::value(Utc::now()))
                .filter(blob::Column::Sha256.eq(sha.as_str()))
                .filter(blob::Column::State.is_in([WRITING, STORED]))
                .exec(db)
                .await?;
            if done.rows_affected > 0 {
                return Ok(());
            }
            // The collector took the row (the upload outlasted GRACE): write again once it is gone.
        }
        tokio::time::sleep(WAIT).await;
    }
    Err(AppError::Unavailable(anyhow::anyhow!(
        "the stored copy of this file is being removed; try again"
    )))
}

/// In the transaction that names the bytes of `sha256`: touch them, failing if they are no longer stored.
pub async fn still_stored(db: &impl ConnectionTrait, sha256: &str) -> AppResult<()> {
    if touch(db, sha256, STORED).await? {
        Ok(())
    } else {
        Err(AppError::Unavailable(anyhow::anyhow!(
            "the stored copy of this file was removed during the upload; try again"
        )))
    }
}

async fn write(storage: &dyn BlobStore, upload: &Spooled) -> AppResult<()> {
    let mut file = upload.file.try_clone().map_err(AppError::internal)?;
    file.rewind().map_err(AppError::internal)?;
    storage
        .put(&upload.sha256, tokio::fs::File::from_std(file))
        .await
        .map_err(AppError::internal)
}

/// One collection as of `now`: remove attachments deleted more than [`RETENTION`] ago, then the bytes and
/// rows of blobs no attachment names that no upload touched for [`GRACE`] (and of collections an
/// instance left unfinished). Returns the number of blobs removed. Safe to run on several instances.
pub async fn collect(db: &Db, storage: &dyn BlobStore, now: DateTime<Utc>) -> AppResult<usize> {
    let db = &db.conn;
    attachment::Entity::delete_many()
        .filter(attachment::Column::DeletedAt.lt(now - RETENTION))
        .exec(db)
        .await?;
    let cutoff = now - GRACE;
    let unnamed = || {
        Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(attachment::Entity)
                .and_where(
                    Expr::col((attachment::Entity, attachment::Column::Sha256))
                        .equals((blob::Entity, blob::Column::Sha256)),
                )
                .to_owned(),
        )
        .not()
    };
    let candidates: Vec<String> = blob::Entity::find()
        .select_only()
        .column(blob::Column::Sha256)
        .filter(blob::Column::TouchedAt.lt(cutoff))
        .filter(unnamed())
        .limit(BATCH)
        .into_tuple()
        .all(db)
        .await?;
    let mut removed = 0;
    for sha in candidates {
        // Taken only if it is still unnamed and untouched: an upload that touched it since keeps it, and
        // another collector that took it since owns it (one that took it a GRACE ago has died).
        let taken = blob::Entity::update_many()
            .col_expr(blob::Column::State, Expr::value(COLLECTING))
            .col_expr(blob::Column::TouchedAt, Expr::value(now))
            .filter(blob::Column::Sha256.eq(sha.as_str()))
            .filter(blob::Column::TouchedAt.lt(cutoff))
            .filter(unnamed())
            .exec(db)
            .await?;
        if taken.rows_affected == 0 {
            continue;
        }
        storage.delete(&sha).await.map_err(AppError::internal)?;
        blob::Entity::delete_many()
            .filter(blob::Column::Sha256.eq(sha.as_str()))
            .filter(blob::Column::State.eq(COLLECTING))
            .exec(db)
            .await?;
        removed += 1;
    }
    Ok(removed)
}

/// Run [`collect`] every `every` for as long as the process serves, logging what it removed or why it
/// could not.
pub async fn collect_forever(db: Db, storage: Arc<dyn BlobStore>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        match collect(&db, &*storage, Utc::now()).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "unused attachment bytes collected"),
            Err(error) => tracing::error!(%error, "attachment collection failed"),
        }
    }
}
