//! Attachments on S3-compatible storage, against a real local S3 server (`s3_support`): the REST round trip,
//! bytes kept only in the bucket under content addresses, deduplication, two instances sharing one bucket,
//! and deletion of the bytes once no attachment needs them.
use crate::db_test;
use crate::support::attachments::upload;
use crate::support::attachments::{download_bytes, round_trip};
use crate::support::helpers::TestApp;
use crate::support::s3::{create_bucket, keys, s3_storage};
use crate::support::world::world;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use sea_orm::{EntityTrait, PaginatorTrait};

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

async fn round_trip_on_s3(app: &TestApp) {
    if !create_bucket(&app.state.config).await {
        return;
    }
    round_trip(app).await;
    let bytes: Vec<u8> = (0..700_000u32).map(|i| (i * 31 % 256) as u8).collect();
    let sha = sha256(&bytes);
    // Only the content address names the object; the database holds no bytes.
    assert_eq!(
        keys(&app.state.config).await,
        vec![format!("blobs/{}/{sha}", &sha[..2])]
    );
    let chunks = entity::blob_chunk::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(chunks, 0);
}
db_test!(round_trip_on_s3, s3_storage);

async fn shared_deduplicated_and_deleted_on_s3(app: &TestApp) {
    if !create_bucket(&app.state.config).await {
        return;
    }
    let w = world(app).await;
    let t = w.ticket.id;
    // Over one part (5 MiB), so the bytes go up as a multipart upload.
    let big: Vec<u8> = (0..6_000_000u32).map(|i| (i % 251) as u8).collect();
    let first = upload(app, &w.owner, t, None, "a.bin", &big).await;
    let again = upload(app, &w.agent, t, None, "b.bin", &big).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.text);
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    assert_eq!(keys(&app.state.config).await.len(), 1, "stored once");

    // A second instance on the same database and bucket serves what the first stored, and the reverse.
    let (_, second) = app.second_instance().await;
    let id = first.json["id"].as_i64().unwrap();
    let path = format!("/api/attachments/{id}/download/");
    let request = Request::get(&path)
        .header(header::AUTHORIZATION, format!("Bearer {}", w.agent.token))
        .body(Body::empty())
        .unwrap();
    let resp = app.send_to(&second, request).await;
    assert_eq!(resp.status, StatusCode::OK);
    assert_eq!(resp.headers[header::CONTENT_LENGTH], big.len().to_string());
    assert_eq!(
        sha256(&download_bytes(app, &path, Some(&w.owner.token)).await),
        sha256(&big)
    );
    let text = "written through the second instance\n".repeat(1000);
    let body =
        crate::support::attachments::multipart(&[("file", Some("note.txt"), text.as_bytes())]);
    let request = Request::post(format!("/api/tickets/{t}/attachments/"))
        .header(header::AUTHORIZATION, format!("Bearer {}", w.owner.token))
        .header(
            header::CONTENT_TYPE,
            format!(
                "multipart/form-data; boundary={}",
                crate::support::attachments::BOUNDARY
            ),
        )
        .body(Body::from(body))
        .unwrap();
    let resp = app.send_to(&second, request).await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let note = resp.json["id"].as_i64().unwrap();
    let got = app
        .get(
            &format!("/api/attachments/{note}/download/"),
            Some(&w.owner.token),
        )
        .await;
    assert_eq!(got.text, text);
    assert_eq!(keys(&app.state.config).await.len(), 2);

    // The store forgets bytes by name; absent names are not an error.
    app.state
        .storage
        .delete(&sha256(text.as_bytes()))
        .await
        .unwrap();
    app.state
        .storage
        .delete(&sha256(text.as_bytes()))
        .await
        .unwrap();
    assert_eq!(
        keys(&app.state.config).await,
        vec![format!("blobs/{}/{}", &sha256(&big)[..2], sha256(&big))]
    );
}
db_test!(shared_deduplicated_and_deleted_on_s3, s3_storage);
