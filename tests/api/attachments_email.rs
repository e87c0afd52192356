//! Emails about new attachments name the file (never its bytes) to the requester and the assignee, each only
//! if they may see it: never to the uploader, and a file on an internal note never reaches the requester.
use crate::attachments_support::upload;
use crate::comments_support::{add, world};
use crate::db_test;
use crate::events_support::outbox_rows;
use crate::helpers::TestApp;
use axum::http::StatusCode;
use deskgraph::domain::CommentType;
use deskgraph::notify::mailer::Email;

/// `(recipient, subject, text)` of the queued emails that name `filename`, sorted.
async fn mails_naming(app: &TestApp, filename: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = outbox_rows(app)
        .await
        .into_iter()
        .filter(|r| r.kind == "email")
        .filter_map(|r| serde_json::from_str::<Email>(&r.payload).ok())
        .filter(|e| e.text.contains(filename) || e.html.contains(filename))
        .map(|e| (e.to, e.subject, e.text))
        .collect();
    out.sort();
    out
}

async fn emails_name_visible_files(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let resp = upload(app, &w.agent, t, None, "screen.png", b"not really a png").await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let mails = mails_naming(app, "screen.png").await;
    let to: Vec<&str> = mails.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(to, vec!["assignee@example.com", "owner@example.com"]);
    let (_, subject, text) = &mails[1];
    assert!(subject.starts_with("New Attachment: "), "{subject}");
    assert!(
        text.contains("attached a file to") && text.contains(": screen.png"),
        "{text}"
    );
    assert!(!text.contains("not really"), "never the bytes");

    // The uploader is not told of their own file.
    upload(app, &w.owner, t, None, "mine.txt", b"mine").await;
    let to: Vec<String> = mails_naming(app, "mine.txt")
        .await
        .into_iter()
        .map(|m| m.0)
        .collect();
    assert_eq!(to, vec!["assignee@example.com".to_string()]);

    // A file on an internal note: not to the requester, nor to an assignee who cannot read the note.
    let note = add(app, &w.agent, t, "internal", CommentType::Internal).await;
    let resp = upload(app, &w.agent, t, Some(note.id), "secret.log", b"secret").await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let mails = mails_naming(app, "secret.log").await;
    assert!(
        mails.iter().all(|m| m.0 != "owner@example.com"),
        "{mails:?}"
    );
    let assignee_reads = app
        .get(
            &format!("/api/attachments/{}/", resp.json["id"]),
            Some(&w.assignee.token),
        )
        .await
        .status
        == StatusCode::OK;
    let expected: Vec<&str> = if assignee_reads {
        vec!["assignee@example.com"]
    } else {
        vec![]
    };
    assert_eq!(
        mails.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        expected
    );
}
db_test!(emails_name_visible_files);
