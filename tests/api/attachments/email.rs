//! Emails about new attachments name the file (never its bytes) to the requester and the assignee, each only
//! if they may see it: never to the uploader, and a file on an internal note never reaches the requester. A
//! comment posted with a file is one email, the comment's, listing the file.
use crate::db_test;
use crate::support::attachments::{post_form, upload};
use crate::support::events::outbox_rows;
use crate::support::helpers::TestApp;
use crate::support::world::{add, login, world};
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

/// The queued emails, as `(recipient, subject)`, sorted.
async fn all_mails(app: &TestApp) -> Vec<(String, String)> {
    let mut out: Vec<_> = outbox_rows(app)
        .await
        .into_iter()
        .filter(|r| r.kind == "email")
        .filter_map(|r| serde_json::from_str::<Email>(&r.payload).ok())
        .map(|e| (e.to, e.subject))
        .collect();
    out.sort();
    out
}

async fn a_comment_with_files_is_one_email(app: &TestApp) {
    let w = world(app).await;
    let t = w.ticket.id;
    let path = format!("/tickets/{t}/comments/new/");
    let before = all_mails(app).await;

    // The requester's public comment with a log: the assignee gets the comment's email, naming the file.
    let owner = login(app, &w.owner).await;
    let resp = post_form(
        app,
        &owner,
        &path,
        &[
            ("csrfmiddlewaretoken", None, owner.csrf.as_bytes()),
            ("body", None, b"log attached"),
            ("file", Some("public-log.txt"), b"all fine\n"),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let mails = mails_naming(app, "public-log.txt").await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    let (to, subject, text) = &mails[0];
    assert_eq!(to, "assignee@example.com");
    assert!(subject.starts_with("New Comment: "), "{subject}");
    assert!(text.contains("log attached"), "{text}");
    assert!(text.contains("- public-log.txt (9 bytes)"), "{text}");
    assert!(!text.contains("all fine"), "never the bytes");
    let new: Vec<_> = all_mails(app)
        .await
        .into_iter()
        .filter(|m| !before.contains(m))
        .collect();
    assert_eq!(new.len(), 1, "no separate attachment email: {new:?}");

    // The agent's internal note with a dump: one email, to the assignee (who may read internal notes),
    // and nothing to the requester.
    let agent = login(app, &w.agent).await;
    let before = all_mails(app).await;
    let resp = post_form(
        app,
        &agent,
        &path,
        &[
            ("csrfmiddlewaretoken", None, agent.csrf.as_bytes()),
            ("body", None, b"dump"),
            ("comment_type", None, b"internal"),
            ("file", Some("SECRET-dump.bin"), b"\0\x01SECRET"),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let mails = mails_naming(app, "SECRET-dump.bin").await;
    let to: Vec<&str> = mails.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(to, vec!["assignee@example.com"]);
    assert!(mails[0].1.starts_with("New Internal Note: "), "{mails:?}");
    assert!(
        mails[0].2.contains("- SECRET-dump.bin (8 bytes)"),
        "{mails:?}"
    );
    let new: Vec<_> = all_mails(app)
        .await
        .into_iter()
        .filter(|m| !before.contains(m))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");

    // A file added later to an existing comment is announced on its own.
    let comment = add(app, &w.agent, t, "later", CommentType::Public).await;
    let resp = upload(app, &w.agent, t, Some(comment.id), "later.txt", b"later").await;
    assert_eq!(resp.status, StatusCode::CREATED, "{}", resp.text);
    let mails = mails_naming(app, "later.txt").await;
    assert!(
        mails.iter().all(|m| m.1.starts_with("New Attachment: ")),
        "{mails:?}"
    );
    assert!(!mails.is_empty());
}
db_test!(a_comment_with_files_is_one_email);
