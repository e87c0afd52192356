//! Attachments over REST: exact bytes in and out on each storage backend, who sees which attachment through
//! every door, limits, names, types, deduplication and deletion.
use crate::db_test;
use crate::support::attachments::{
    download_bytes, header, ids, multipart, png, post_multipart, round_trip, upload,
};
use crate::support::helpers::{assert_error, TestApp};
use crate::support::world::{add, plain_ticket, world};
use axum::http::{header, StatusCode};
use deskgraph::config::Config;
use deskgraph::domain::CommentType;
use sea_orm::{EntityTrait, PaginatorTrait};
use serde_json::Value;

fn folder_storage(config: &mut Config) {
    let dir = std::env::temp_dir().join(format!("dg-blobs-{}", rand::random::<u64>()));
    config.storage_url = Some(format!("file://{}", dir.display()));
}

async fn round_trip_in_a_folder(app: &TestApp) {
    round_trip(app).await;
    let folder = app.state.config.storage_url.clone().unwrap();
    let folder = folder.strip_prefix("file://").unwrap();
    let chunks = entity::blob_chunk::Entity::find()
        .count(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(chunks, 0, "a folder store keeps no bytes in the database");
    let stored: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "tmp")
        .collect();
    assert_eq!(stored.len(), 1, "one blob directory");
    std::fs::remove_dir_all(folder).ok();
}
db_test!(round_trip_in_a_folder, folder_storage);

async fn visibility_matrix(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let public = add(app, &w.owner, t, "<p>see attached</p>", CommentType::Public).await;
    let internal = add(app, &w.agent, t, "<p>diagnosis</p>", CommentType::Internal).await;
    let on_ticket = upload(app, &w.owner, t, None, "screen.png", &png(100)).await;
    assert_eq!(on_ticket.status, StatusCode::CREATED, "{}", on_ticket.text);
    let on_public = upload(
        app,
        &w.owner,
        t,
        Some(public.id),
        "log.txt",
        b"public log\n",
    )
    .await;
    assert_eq!(on_public.status, StatusCode::CREATED, "{}", on_public.text);
    let on_internal = upload(
        app,
        &w.agent,
        t,
        Some(internal.id),
        "SECRET-dump.txt",
        b"SECRET bytes\n",
    )
    .await;
    assert_eq!(
        on_internal.status,
        StatusCode::CREATED,
        "{}",
        on_internal.text
    );
    let [a_ticket, a_public, a_internal] =
        [&on_ticket, &on_public, &on_internal].map(|r| r.json["id"].as_i64().unwrap());

    let all = vec![a_ticket, a_public, a_internal];
    let public_only = vec![a_ticket, a_public];
    let cases = [
        (&w.owner, Some(&public_only)),
        (&w.other, None),
        (&w.assignee, Some(&all)),
        (&w.grouper, Some(&all)),
        (&w.agent, Some(&all)),
        (&w.staff, Some(&all)),
        (&w.admin, Some(&all)),
    ];
    for (user, expected) in cases {
        let who = &user.username;
        let token = Some(user.token.as_str());
        let list = app
            .get(&format!("/api/tickets/{t}/attachments/"), token)
            .await;
        let detail = app.get(&format!("/api/tickets/{t}/"), token).await;
        match expected {
            Some(expected) => {
                assert_eq!(&ids(&list.json), expected, "{who} list");
                assert_eq!(&ids(&detail.json["attachments"]), expected, "{who} detail");
            }
            None => {
                assert_error(&list, StatusCode::NOT_FOUND, "not_found");
                assert_error(&detail, StatusCode::NOT_FOUND, "not_found");
            }
        }
        for id in &all {
            let visible = expected.is_some_and(|e| e.contains(id));
            let meta = app.get(&format!("/api/attachments/{id}/"), token).await;
            let bytes = app
                .get(&format!("/api/attachments/{id}/download/"), token)
                .await;
            if visible {
                assert_eq!(meta.status, StatusCode::OK, "{who} meta {id}");
                assert_eq!(bytes.status, StatusCode::OK, "{who} download {id}");
            } else {
                assert_error(&meta, StatusCode::NOT_FOUND, "not_found");
                assert_error(&bytes, StatusCode::NOT_FOUND, "not_found");
                assert!(!bytes.text.contains("SECRET"), "{who}: {}", bytes.text);
            }
        }
        assert_eq!(
            !list.text.contains("SECRET") && !detail.text.contains("SECRET"),
            expected != Some(&all),
            "{who}: {}",
            list.text
        );
    }

    // The agent's signed link to the internal file works without credentials, for the agent only.
    let link = on_internal.json["url"].as_str().unwrap().to_string();
    assert_eq!(app.get(&link, None).await.status, StatusCode::OK);
    let forged = link.replace(
        &format!("user={}", w.agent.id),
        &format!("user={}", w.owner.id),
    );
    assert_error(
        &app.get(&forged, None).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    // Change the signature's last character to another one (a link ending in `0` gets a `1`).
    let last = if link.ends_with('0') { '1' } else { '0' };
    let tampered = format!("{}{last}", &link[..link.len() - 1]);
    assert_error(
        &app.get(&tampered, None).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let key = &app.state.url_key;
    let expired = key.link_until(
        a_internal as i32,
        w.agent.id,
        chrono::Utc::now().timestamp() - 1,
    );
    assert_error(
        &app.get(&expired, None).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    // Even a correctly signed link made for the requester does not reach what they may not see.
    let owners = key.link(a_internal as i32, w.owner.id);
    let resp = app.get(&owners, None).await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    // Another requester's own token does not open a link, and their link to the ticket file is refused.
    let others = key.link(a_ticket as i32, w.other.id);
    assert_error(
        &app.get(&others, None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    // A requester cannot hang a file on the internal comment, nor learn that it exists.
    let resp = upload(app, &w.owner, t, Some(internal.id), "x.txt", b"x").await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
}
db_test!(visibility_matrix);

fn small_limit(config: &mut Config) {
    config.max_upload_bytes = 4096;
}

async fn limits_and_bad_input(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let path = format!("/api/tickets/{t}/attachments/");
    // Over the limit: 413 with the error body, whether or not a length was declared.
    let resp = upload(app, &w.owner, t, None, "big.bin", &vec![7u8; 4097]).await;
    assert_error(&resp, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert!(
        resp.json["error"].as_str().unwrap().contains("4096"),
        "{}",
        resp.text
    );
    let huge = multipart(&[("file", Some("huge.bin"), &vec![7u8; 200_000])]);
    let resp = post_multipart(app, &path, Some(&w.owner), huge).await;
    assert_error(&resp, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    // At the limit it is accepted.
    let resp = upload(app, &w.owner, t, None, "fits.bin", &vec![7u8; 4096]).await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);

    // Empty file, no name, no file, not multipart.
    let resp = upload(app, &w.owner, t, None, "empty.txt", b"").await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    assert!(resp.json["details"]["file"].is_array(), "{}", resp.text);
    let resp = upload(app, &w.owner, t, None, "../..", b"abc").await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    let resp = post_multipart(
        app,
        &path,
        Some(&w.owner),
        multipart(&[("comment", None, b"1")]),
    )
    .await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    let resp = app
        .post(
            &path,
            Some(&w.owner.token),
            serde_json::json!({"file": "x"}),
        )
        .await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");
    let resp = post_multipart(app, &path, None, multipart(&[("file", Some("a"), b"a")])).await;
    assert_error(&resp, StatusCode::UNAUTHORIZED, "unauthenticated");
    let resp = upload(app, &w.owner, 999_999, None, "a.txt", b"a").await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    // A comment of another ticket.
    let elsewhere = plain_ticket(app, &w.owner).await;
    let c = add(
        app,
        &w.owner,
        elsewhere.id,
        "<p>elsewhere</p>",
        CommentType::Public,
    )
    .await;
    let resp = upload(app, &w.owner, t, Some(c.id), "a.txt", b"a").await;
    assert_error(&resp, StatusCode::BAD_REQUEST, "validation_error");

    // Names lose their path and control characters; types come from the bytes, not the client.
    let resp = upload(
        app,
        &w.owner,
        t,
        None,
        "..\\..\\evil\u{202e}gnp.html",
        &png(10),
    )
    .await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    assert_eq!(resp.json["filename"], "evilgnp.html");
    assert_eq!(resp.json["content_type"], "image/png");
    let id = resp.json["id"].as_i64().unwrap();
    let got = app
        .get(
            &format!("/api/attachments/{id}/download/"),
            Some(&w.owner.token),
        )
        .await;
    assert!(header(&got, header::CONTENT_DISPOSITION).starts_with("inline;"));
    let resp = upload(
        app,
        &w.owner,
        t,
        None,
        "page.png",
        b"<html><script>alert(1)</script>",
    )
    .await;
    assert_eq!(resp.json["content_type"], "text/html", "{}", resp.text);
    let id = resp.json["id"].as_i64().unwrap();
    let got = app
        .get(
            &format!("/api/attachments/{id}/download/"),
            Some(&w.owner.token),
        )
        .await;
    assert!(header(&got, header::CONTENT_DISPOSITION).starts_with("attachment;"));
    let resp = upload(app, &w.owner, t, None, &"n".repeat(500), b"long name").await;
    assert_eq!(
        resp.json["filename"].as_str().unwrap().len(),
        200,
        "{}",
        resp.text
    );

    // Other routes keep the ordinary body limit.
    let resp = app
        .post(
            &format!("/api/tickets/{t}/comments/"),
            Some(&w.owner.token),
            serde_json::json!({"content": "x".repeat(2 * 1024 * 1024)}),
        )
        .await;
    assert_error(&resp, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
}
db_test!(limits_and_bad_input, small_limit);

async fn same_bytes_stored_once(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    let uploads = futures_util::future::join_all((0..4).map(|i| {
        let user = if i % 2 == 0 { &w.owner } else { &w.agent };
        let bytes = &bytes;
        async move { upload(app, user, t, None, &format!("copy{i}.bin"), bytes).await }
    }))
    .await;
    for resp in &uploads {
        assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    }
    let db = &app.state.db.conn;
    assert_eq!(entity::blob::Entity::find().count(db).await.unwrap(), 1);
    // 300 000 bytes in 256 KiB chunks: two.
    assert_eq!(
        entity::blob_chunk::Entity::find().count(db).await.unwrap(),
        2
    );
    assert_eq!(
        entity::attachment::Entity::find().count(db).await.unwrap(),
        4
    );
    for resp in &uploads {
        let id = resp.json["id"].as_i64().unwrap();
        let raw = download_bytes(
            app,
            &format!("/api/attachments/{id}/download/"),
            Some(&w.agent.token),
        )
        .await;
        assert_eq!(raw, bytes);
    }
}
db_test!(same_bytes_stored_once);

async fn soft_delete(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let mine = upload(app, &w.owner, t, None, "mine.txt", b"mine").await;
    let theirs = upload(app, &w.agent, t, None, "theirs.txt", b"theirs").await;
    let [mine, theirs] = [&mine, &theirs].map(|r| r.json["id"].as_i64().unwrap());
    // A detail reads the attachments (with their comments' types and uploaders: three statements) only
    // when the ticket has live ones; otherwise it is the ticket's one statement.
    let detail_statements = || async {
        let before = app.statements();
        let got = app
            .get(&format!("/api/tickets/{t}/"), Some(&w.agent.token))
            .await;
        assert_eq!(got.status, StatusCode::OK, "{}", got.text);
        (app.statements() - before, ids(&got.json["attachments"]))
    };
    detail_statements().await;
    assert_eq!(detail_statements().await, (4, vec![mine, theirs]));
    // Not the uploader, not staff: refused; cannot see it: 404.
    let resp = app
        .delete(&format!("/api/attachments/{theirs}/"), Some(&w.owner.token))
        .await;
    assert_error(&resp, StatusCode::FORBIDDEN, "forbidden");
    let resp = app
        .delete(&format!("/api/attachments/{mine}/"), Some(&w.other.token))
        .await;
    assert_error(&resp, StatusCode::NOT_FOUND, "not_found");
    let resp = app
        .delete(&format!("/api/attachments/{mine}/"), Some(&w.owner.token))
        .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT, "{}", resp.text);
    let resp = app
        .delete(&format!("/api/attachments/{theirs}/"), Some(&w.staff.token))
        .await;
    assert_eq!(resp.status, StatusCode::NO_CONTENT, "{}", resp.text);
    for id in [mine, theirs] {
        for path in [
            format!("/api/attachments/{id}/"),
            format!("/api/attachments/{id}/download/"),
        ] {
            assert_error(
                &app.get(&path, Some(&w.agent.token)).await,
                StatusCode::NOT_FOUND,
                "not_found",
            );
        }
    }
    let list = app
        .get(
            &format!("/api/tickets/{t}/attachments/"),
            Some(&w.agent.token),
        )
        .await;
    assert_eq!(list.json, serde_json::json!([]));
    let history = app
        .get(&format!("/api/tickets/{t}/"), Some(&w.agent.token))
        .await;
    assert_eq!(history.json["attachments"], serde_json::json!([]));
    assert_eq!(detail_statements().await, (1, vec![]));
}
db_test!(soft_delete);

fn with_webhook(config: &mut Config) {
    config.webhook_url = Some("http://127.0.0.1:9/hook".into());
}

async fn events_and_audit(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let internal = add(app, &w.agent, t, "<p>note</p>", CommentType::Internal).await;
    let public = upload(app, &w.owner, t, None, "shown.txt", b"shown").await;
    let hidden = upload(app, &w.agent, t, Some(internal.id), "SECRET.txt", b"SECRET").await;
    let [public, hidden] = [&public, &hidden].map(|r| r.json["id"].as_i64().unwrap());
    let rows = crate::support::events::outbox_rows(app).await;
    let added: Vec<&str> = rows
        .iter()
        .filter(|r| r.event == "attachment.added" && r.kind == "webhook")
        .map(|r| r.payload.as_str())
        .collect();
    assert_eq!(added.len(), 1, "{added:?}");
    let body: Value = serde_json::from_str(added[0]).unwrap();
    assert_eq!(body["attachment_id"], public);
    assert_eq!(body["filename"], "shown.txt");
    // The internal file leaves only as an email to the assignee, who may read the note
    // (`attachments_email.rs`).
    assert!(!rows
        .iter()
        .any(|r| r.payload.contains("SECRET") && !r.payload.contains("\"to\":\"assignee@")));
    // Both are in the audit trail; the requester's history shows the public one only.
    let audit = entity::audit_event::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let logged: Vec<i64> = audit
        .iter()
        .filter(|e| e.entity_type == "attachment")
        .map(|e| i64::from(e.entity_id))
        .collect();
    assert_eq!(logged, vec![public, hidden]);
    let history = app
        .graphql(
            Some(&w.owner.token),
            "query($n: String!) { ticket(number: $n) { history { edges { node { entityType changes } } } } }",
            serde_json::json!({ "n": w.ticket.ticket_number }),
        )
        .await;
    assert!(history.to_string().contains("shown.txt"), "{history}");
    assert!(!history.to_string().contains("SECRET"), "{history}");
}
db_test!(events_and_audit, with_webhook);
