//! Attachments over GraphQL: multipart uploads (with the preflight header a form cannot send), the fields
//! and `node` as each viewer may see them, deletion, and batched loads.
use crate::db_test;
use crate::support::attachments::{png, upload};
use crate::support::graphql::{add_over_multipart, ticket_id};
use crate::support::helpers::TestApp;
use crate::support::world::{add, plain_ticket, world};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::domain::CommentType;
use serde_json::{json, Value};

async fn upload_over_multipart(app: &TestApp) {
    let w = world(app).await;
    let vars = json!({ "input": { "ticketId": ticket_id(&w.ticket), "file": null } });
    let bytes = png(5000);
    // Without the preflight header, a form could have sent it: refused before anything runs.
    let refused = add_over_multipart(app, &w.owner, vars.clone(), "shot.png", &bytes, false).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(refused.json["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("apollo-require-preflight"));
    assert_eq!(
        app.get(
            &format!("/api/tickets/{}/attachments/", w.ticket.id),
            Some(&w.owner.token)
        )
        .await
        .json,
        json!([])
    );

    let resp = add_over_multipart(app, &w.owner, vars, "shot.png", &bytes, true).await;
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let a = &resp.json["data"]["addAttachment"]["attachment"];
    assert_eq!(a["filename"], "shot.png", "{}", resp.text);
    assert_eq!(a["contentType"], "image/png");
    assert_eq!(a["size"], bytes.len());
    assert_eq!(a["uploadedBy"]["username"], "owner");
    // The signed url serves the exact bytes without credentials.
    let url = a["url"].as_str().unwrap();
    let got = app.get(url, None).await;
    assert_eq!(got.status, StatusCode::OK);
    let raw = crate::support::helpers::TestApp::body_bytes(app, url).await;
    assert_eq!(raw, bytes);

    // Bad files: empty and over the limit.
    let vars = json!({ "input": { "ticketId": ticket_id(&w.ticket), "file": null } });
    let resp = add_over_multipart(app, &w.owner, vars, "empty.txt", b"", true).await;
    assert_eq!(
        resp.json["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{}",
        resp.text
    );
    assert!(resp.json["data"]["addAttachment"].is_null());
    // JSON requests still work and other content types are still refused.
    let plain = Request::builder()
        .method(Method::POST)
        .uri("/graphql")
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(
        app.send(plain).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
}
db_test!(upload_over_multipart);

fn small_limit(config: &mut deskgraph::config::Config) {
    config.max_upload_bytes = 1000;
}

async fn graphql_upload_limit(app: &TestApp) {
    let w = world(app).await;
    let vars = json!({ "input": { "ticketId": ticket_id(&w.ticket), "file": null } });
    let resp = add_over_multipart(app, &w.owner, vars, "big.bin", &vec![1u8; 1001], true).await;
    assert_eq!(resp.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", resp.text);
    let vars = json!({ "input": { "ticketId": ticket_id(&w.ticket), "file": null } });
    let resp = add_over_multipart(app, &w.owner, vars, "ok.bin", &vec![1u8; 1000], true).await;
    assert_eq!(
        resp.json["data"]["addAttachment"]["attachment"]["size"], 1000,
        "{}",
        resp.text
    );
}
db_test!(graphql_upload_limit, small_limit);

const FIELDS: &str = r#"query($id: ID!) { ticket(id: $id) {
  attachments { filename }
  comments { nodes { databaseId attachments { filename url } } } } }"#;

const NODE: &str = r#"query($id: ID!) { node(id: $id) { ... on Attachment { filename url } } }"#;

async fn internal_files_stay_internal(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let public = add(app, &w.owner, t, "<p>see attached</p>", CommentType::Public).await;
    let internal = add(app, &w.agent, t, "<p>diagnosis</p>", CommentType::Internal).await;
    upload(app, &w.owner, t, None, "on-ticket.txt", b"ticket").await;
    upload(
        app,
        &w.owner,
        t,
        Some(public.id),
        "on-public.txt",
        b"public",
    )
    .await;
    let secret = upload(app, &w.agent, t, Some(internal.id), "SECRET.txt", b"SECRET").await;
    let secret_id =
        deskgraph::graphql::ids::encode("Attachment", secret.json["id"].as_i64().unwrap() as i32).0;
    let vars = json!({ "id": ticket_id(&w.ticket) });

    let seen = |resp: &Value| -> Vec<String> {
        let mut names: Vec<String> = resp["data"]["ticket"]["attachments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["filename"].as_str().unwrap().to_string())
            .collect();
        for c in resp["data"]["ticket"]["comments"]["nodes"]
            .as_array()
            .unwrap()
        {
            for a in c["attachments"].as_array().unwrap() {
                names.push(format!("comment:{}", a["filename"].as_str().unwrap()));
            }
        }
        names
    };
    let owner = app
        .graphql(Some(&w.owner.token), FIELDS, vars.clone())
        .await;
    assert_eq!(
        seen(&owner),
        vec!["on-ticket.txt", "on-public.txt", "comment:on-public.txt"],
        "{owner}"
    );
    assert!(!owner.to_string().contains("SECRET"), "{owner}");
    for user in [&w.agent, &w.assignee, &w.grouper, &w.staff] {
        let resp = app.graphql(Some(&user.token), FIELDS, vars.clone()).await;
        assert_eq!(
            seen(&resp),
            vec![
                "on-ticket.txt",
                "on-public.txt",
                "SECRET.txt",
                "comment:on-public.txt",
                "comment:SECRET.txt"
            ],
            "{}: {resp}",
            user.username
        );
    }
    let other = app
        .graphql(Some(&w.other.token), FIELDS, vars.clone())
        .await;
    assert!(other["data"]["ticket"].is_null(), "{other}");

    // `Attachment.comment`: the comment a file came with, for whoever sees the file.
    let with_comment = r#"query($id: ID!) { ticket(id: $id) {
      attachments { filename comment { databaseId commentType } } } }"#;
    let on = |resp: &Value| -> Vec<(String, Value)> {
        resp["data"]["ticket"]["attachments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["filename"].as_str().unwrap().to_string(),
                    a["comment"].clone(),
                )
            })
            .collect()
    };
    let agent = app
        .graphql(Some(&w.agent.token), with_comment, vars.clone())
        .await;
    assert_eq!(
        on(&agent),
        vec![
            ("on-ticket.txt".to_string(), Value::Null),
            (
                "on-public.txt".to_string(),
                json!({"databaseId": public.id, "commentType": "PUBLIC"})
            ),
            (
                "SECRET.txt".to_string(),
                json!({"databaseId": internal.id, "commentType": "INTERNAL"})
            ),
        ],
        "{agent}"
    );
    let owner = app
        .graphql(Some(&w.owner.token), with_comment, vars.clone())
        .await;
    assert_eq!(
        on(&owner),
        vec![
            ("on-ticket.txt".to_string(), Value::Null),
            (
                "on-public.txt".to_string(),
                json!({"databaseId": public.id, "commentType": "PUBLIC"})
            ),
        ],
        "{owner}"
    );

    // node: the agent reaches it, the requester and the other requester do not.
    let resp = app
        .graphql(Some(&w.agent.token), NODE, json!({ "id": secret_id }))
        .await;
    assert_eq!(resp["data"]["node"]["filename"], "SECRET.txt", "{resp}");
    for user in [&w.owner, &w.other] {
        let resp = app
            .graphql(Some(&user.token), NODE, json!({ "id": secret_id }))
            .await;
        assert!(resp["data"]["node"].is_null(), "{resp}");
        assert_eq!(
            resp["errors"][0]["extensions"]["code"], "NOT_FOUND",
            "{resp}"
        );
        assert!(!resp.to_string().contains("SECRET"), "{resp}");
    }
    // Nor can the requester attach to the internal comment over GraphQL.
    let vars = json!({ "input": {
        "ticketId": ticket_id(&w.ticket),
        "commentId": deskgraph::graphql::ids::encode("Comment", internal.id).0,
        "file": null } });
    let resp = add_over_multipart(app, &w.owner, vars, "x.txt", b"x", true).await;
    assert_eq!(
        resp.json["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{}",
        resp.text
    );

    // Deleting: not the requester's to delete; the agent's own goes, and is gone from every field.
    let delete =
        r#"mutation($id: ID!) { deleteAttachment(input: { id: $id }) { deletedAttachmentId } }"#;
    let resp = app
        .graphql(Some(&w.owner.token), delete, json!({ "id": secret_id }))
        .await;
    assert_eq!(
        resp["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{resp}"
    );
    let resp = app
        .graphql(Some(&w.agent.token), delete, json!({ "id": secret_id }))
        .await;
    assert_eq!(
        resp["data"]["deleteAttachment"]["deletedAttachmentId"],
        secret_id.as_str(),
        "{resp}"
    );
    let resp = app
        .graphql(
            Some(&w.agent.token),
            FIELDS,
            json!({ "id": ticket_id(&w.ticket) }),
        )
        .await;
    assert!(!resp.to_string().contains("SECRET"), "{resp}");
    let resp = app
        .graphql(Some(&w.agent.token), NODE, json!({ "id": secret_id }))
        .await;
    assert!(resp["data"]["node"].is_null(), "{resp}");
}
db_test!(internal_files_stay_internal);

const PAGE: &str = r#"{ tickets(first: 10) { nodes { attachments { filename uploadedBy { username } comment { databaseId } }
  comments(first: 5) { nodes { attachments { filename } } } } } }"#;

async fn fields_are_batched(app: &TestApp) {
    let w = world(app).await;
    let mut statements = Vec::new();
    for round in 0..2 {
        for i in 0..3 {
            let t = plain_ticket(app, &w.owner).await;
            let c = add(app, &w.owner, t.id, "<p>c</p>", CommentType::Public).await;
            upload(app, &w.owner, t.id, None, &format!("t{round}{i}.txt"), b"t").await;
            upload(
                app,
                &w.owner,
                t.id,
                Some(c.id),
                &format!("c{round}{i}.txt"),
                b"c",
            )
            .await;
        }
        // Filling can outlast the credentials cache on a busy machine; its lookups are not the page's.
        app.graphql(Some(&w.owner.token), "{ me { username } }", json!({}))
            .await;
        let before = app.statements();
        let resp = app.graphql(Some(&w.owner.token), PAGE, json!({})).await;
        statements.push(app.statements() - before);
        let text = resp.to_string();
        assert!(
            text.contains(&format!("c{round}2.txt")) && resp["errors"].is_null(),
            "{resp}"
        );
    }
    assert_eq!(
        statements[0], statements[1],
        "three more tickets cost no more statements"
    );
}
db_test!(fields_are_batched);
