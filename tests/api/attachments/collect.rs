//! Collection of unused attachment bytes on each backend (database, folder, S3): bytes go only once no
//! attachment names them (deleted ones are kept for the retention period) and no upload touched them for
//! the grace period; uploads that reuse or rewrite bytes during a collection keep them; two instances
//! collecting at once remove each blob once.
use crate::db_test;
use crate::support::attachments::download_bytes;
use crate::support::attachments::upload;
use crate::support::helpers::TestApp;
use crate::support::s3::{create_bucket, keys, s3_storage};
use crate::support::world::world;
use axum::http::StatusCode;
use chrono::{TimeDelta, Utc};
use deskgraph::config::Config;
use deskgraph::service::attachments::{collect, GRACE, RETENTION};
use entity::blob;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Whether the backend still holds bytes under `sha`.
async fn held(app: &TestApp, sha: &str) -> bool {
    match app.state.storage.get(sha).await {
        Ok(stream) => {
            use futures_util::TryStreamExt;
            let pieces: Result<Vec<_>, _> = stream.try_collect().await;
            pieces.is_ok_and(|p| !p.is_empty())
        }
        Err(_) => false,
    }
}

async fn blob_rows(app: &TestApp) -> u64 {
    blob::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap()
}

async fn collection(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let x: Vec<u8> = (0..300_000u32).map(|i| (i % 241) as u8).collect();
    let y = b"a different file".to_vec();
    let ids: Vec<i64> = futures_util::future::join_all([
        upload(app, &w.owner, t, None, "x1.bin", &x),
        upload(app, &w.owner, t, None, "x2.bin", &x),
        upload(app, &w.owner, t, None, "y.txt", &y),
    ])
    .await
    .iter()
    .map(|r| r.json["id"].as_i64().unwrap())
    .collect();
    let now = Utc::now();
    let later = now + GRACE + TimeDelta::minutes(1);
    assert_eq!(
        collect(&app.state.db, &*app.state.storage, later)
            .await
            .unwrap(),
        0,
        "all named"
    );

    // Deleted attachments keep their bytes for the retention period.
    for id in &ids[..2] {
        let resp = app
            .delete(&format!("/api/attachments/{id}/"), Some(&w.owner.token))
            .await;
        assert_eq!(resp.status, StatusCode::NO_CONTENT);
    }
    assert_eq!(
        collect(&app.state.db, &*app.state.storage, later)
            .await
            .unwrap(),
        0
    );
    assert!(held(app, &sha256(&x)).await);

    // After it, with two instances collecting at once: removed once, the other file untouched.
    let (second, _) = app.second_instance().await;
    let after = now + RETENTION + TimeDelta::days(1);
    let (a, b) = tokio::join!(
        collect(&app.state.db, &*app.state.storage, after),
        collect(&second.db, &*second.storage, after)
    );
    assert_eq!(a.unwrap() + b.unwrap(), 1);
    assert!(!held(app, &sha256(&x)).await, "unused bytes removed");
    assert!(held(app, &sha256(&y)).await);
    assert_eq!(blob_rows(app).await, 1);
    let y_path = format!("/api/attachments/{}/download/", ids[2]);
    assert_eq!(download_bytes(app, &y_path, Some(&w.owner.token)).await, y);

    // Bytes an upload has just written but not yet named are kept through the grace period.
    let z = b"written, attachment not yet committed".to_vec();
    let z_sha = sha256(&z);
    let mut spool = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut spool, &z).unwrap();
    std::io::Seek::rewind(&mut spool).unwrap();
    app.state
        .storage
        .put(&z_sha, tokio::fs::File::from_std(spool))
        .await
        .unwrap();
    blob::Entity::insert(blob::ActiveModel {
        sha256: Set(z_sha.clone()),
        size: Set(z.len() as i64),
        created_at: Set(now),
        state: Set(entity::values::BlobState::Writing),
        touched_at: Set(Some(now)),
    })
    .exec_without_returning(&app.state.db.conn)
    .await
    .unwrap();
    assert_eq!(
        collect(&app.state.db, &*app.state.storage, now + GRACE / 2)
            .await
            .unwrap(),
        0
    );
    assert!(held(app, &z_sha).await);
    // An upload that left it unfinished (a crash) loses it after the grace period.
    assert_eq!(
        collect(&app.state.db, &*app.state.storage, later)
            .await
            .unwrap(),
        1
    );
    assert!(!held(app, &z_sha).await);

    // An upload of bytes being collected waits for the collection to finish, then stores them again.
    blob::Entity::insert(blob::ActiveModel {
        sha256: Set(sha256(&x)),
        size: Set(x.len() as i64),
        created_at: Set(now),
        state: Set(entity::values::BlobState::Collecting),
        touched_at: Set(Some(now - GRACE * 2)),
    })
    .exec_without_returning(&app.state.db.conn)
    .await
    .unwrap();
    let db = app.state.db.conn.clone();
    let x_sha = sha256(&x);
    let finisher = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        blob::Entity::delete_many()
            .filter(blob::Column::Sha256.eq(x_sha))
            .exec(&db)
            .await
            .unwrap();
    });
    let again = upload(app, &w.owner, t, None, "x3.bin", &x).await;
    finisher.await.unwrap();
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    let path = format!("/api/attachments/{}/download/", again.json["id"]);
    assert_eq!(download_bytes(app, &path, Some(&w.owner.token)).await, x);

    // Reusing stored bytes touches them, so the grace period starts again for them.
    blob::Entity::update_many()
        .col_expr(
            blob::Column::TouchedAt,
            sea_orm::sea_query::Expr::value(now - GRACE * 2),
        )
        .exec(&app.state.db.conn)
        .await
        .unwrap();
    let reuse = upload(app, &w.agent, t, None, "y-again.txt", &y).await;
    assert_eq!(reuse.status, StatusCode::CREATED);
    let row = blob::Entity::find_by_id(sha256(&y))
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    assert!(row.touched_at.unwrap() > now, "{row:?}");
    assert_eq!(blob_rows(app).await, 2);
}
db_test!(collection);

fn folder_storage(config: &mut Config) {
    let dir = std::env::temp_dir().join(format!("dg-collect-{}", rand::random::<u64>()));
    config.storage_url = Some(format!("file://{}", dir.display()));
}

async fn collection_in_a_folder(app: &TestApp) {
    collection(app).await;
    let folder = app.state.config.storage_url.clone().unwrap();
    std::fs::remove_dir_all(folder.strip_prefix("file://").unwrap()).ok();
}
db_test!(collection_in_a_folder, folder_storage);

async fn collection_on_s3(app: &TestApp) {
    if !create_bucket(&app.state.config).await {
        return;
    }
    collection(app).await;
    assert_eq!(
        keys(&app.state.config).await.len(),
        2,
        "only the named bytes remain"
    );
}
db_test!(collection_on_s3, s3_storage);
