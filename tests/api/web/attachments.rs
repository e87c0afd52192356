//! Attachments in the web interface without JavaScript: multipart form posts (CSRF checked) on the
//! new-ticket and comment forms, images inline and files as links on the ticket page, internal files
//! only for those who may read internal notes.
use crate::db_test;
use crate::support::attachments::{png, post_form};
use crate::support::helpers::TestApp;
use crate::support::world::{login, world};
use axum::http::{header, StatusCode};
use entity::attachment;
use sea_orm::EntityTrait;

async fn forms_carry_files(app: &TestApp) {
    let w = world(app).await;
    let owner = login(app, &w.owner).await;
    let image = png(2000);
    // The new-ticket form with a screenshot.
    let resp = post_form(
        app,
        &owner,
        "/tickets/new/",
        &[
            ("csrfmiddlewaretoken", None, owner.csrf.as_bytes()),
            ("title", None, b"Screen flickers"),
            ("priority", None, b"high"),
            ("file", Some("flicker.png"), &image),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let location = resp.headers[header::LOCATION].to_str().unwrap().to_string();
    let page = owner.get(app, &location).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.text.contains("<img src=\"/api/attachments/"),
        "{}",
        page.text
    );
    assert!(page.text.contains("flicker.png"));

    // Without the CSRF token nothing is created.
    let before = attachment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .len();
    let resp = post_form(
        app,
        &owner,
        "/tickets/new/",
        &[
            ("title", None, b"Forged"),
            ("priority", None, b"low"),
            ("file", Some("x.txt"), b"x"),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    assert_eq!(
        attachment::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .len(),
        before
    );

    // An empty file input sends a part without a name: the ticket is made without a file.
    let resp = post_form(
        app,
        &owner,
        "/tickets/new/",
        &[
            ("csrfmiddlewaretoken", None, owner.csrf.as_bytes()),
            ("title", None, b"No file"),
            ("priority", None, b"low"),
            ("file", Some(""), b""),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);

    // Comments: the requester's public log, the agent's internal dump.
    let t = w.ticket.id;
    let path = format!("/tickets/{t}/comments/new/");
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
    let agent = login(app, &w.agent).await;
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

    let page = owner.get(app, &format!("/tickets/{t}/")).await;
    assert!(page.text.contains("public-log.txt"), "{}", page.text);
    assert!(!page.text.contains("SECRET"), "{}", page.text);
    let page = agent.get(app, &format!("/tickets/{t}/")).await;
    assert!(page.text.contains("public-log.txt"));
    assert!(page.text.contains("SECRET-dump.bin"), "{}", page.text);
    let internal_list = page
        .text
        .split("class=\"attachments internal\"")
        .nth(1)
        .unwrap_or_default();
    assert!(internal_list
        .split("</ul>")
        .next()
        .unwrap()
        .contains("SECRET-dump.bin"));
    // Not an image: a link, no <img>.
    assert!(!page.text.contains("alt=\"SECRET-dump.bin\""));

    // An empty file with a name is refused on the form, and the comment is not added.
    let resp = post_form(
        app,
        &owner,
        &path,
        &[
            ("csrfmiddlewaretoken", None, owner.csrf.as_bytes()),
            ("body", None, b"NOT-ADDED"),
            ("file", Some("empty.txt"), b""),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(resp.text.contains("the file is empty"), "{}", resp.text);
    let page = owner.get(app, &format!("/tickets/{t}/")).await;
    assert!(!page.text.contains("<p>NOT-ADDED</p>"));
}
db_test!(forms_carry_files);

/// A forged multipart post is refused on its first part: the server answers while the client is still
/// sending, so a file behind it is never read (a body that never ends would otherwise hang the request).
async fn forged_uploads_are_refused_before_the_file_is_read(app: &TestApp) {
    use crate::support::attachments::BOUNDARY;
    use axum::body::Body;
    use axum::http::{Method, Request};
    use futures_util::stream::{self, StreamExt};
    let w = world(app).await;
    let owner = login(app, &w.owner).await;
    for (first, value) in [("csrfmiddlewaretoken", "0000"), ("title", "Forged")] {
        let head = format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{first}\"\r\n\r\n{value}\r\n\
             --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        );
        let endless =
            stream::once(async move { Ok::<_, std::io::Error>(bytes::Bytes::from(head)) })
                .chain(stream::pending());
        let request = Request::builder()
            .method(Method::POST)
            .uri("/tickets/new/")
            .header(header::COOKIE, owner.cookies())
            .header(
                header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .body(Body::from_stream(endless))
            .unwrap();
        let resp = tokio::time::timeout(std::time::Duration::from_secs(10), app.send(request))
            .await
            .expect("the forged post was read to its end instead of refused");
        assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    }
    assert!(attachment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .is_empty());
}
db_test!(forged_uploads_are_refused_before_the_file_is_read);

/// The forms take several files at once (the file input's `multiple`, or files dropped or pasted): each is
/// attached, in order; more than ten are refused with nothing added.
async fn a_post_carries_several_files_up_to_ten(app: &TestApp) {
    let w = world(app).await;
    let owner = login(app, &w.owner).await;
    let image = png(500);
    let csrf = owner.csrf.clone();
    let resp = post_form(
        app,
        &owner,
        "/tickets/new/",
        &[
            ("csrfmiddlewaretoken", None, csrf.as_bytes()),
            ("title", None, b"Two screens dark"),
            ("priority", None, b"low"),
            ("file", Some("left.png"), &image),
            ("file", Some("right.png"), &image),
        ],
    )
    .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let location = resp.headers[header::LOCATION].to_str().unwrap().to_string();
    let page = owner.get(app, &location).await;
    assert!(page.text.contains("alt=\"left.png\""), "{}", page.text);
    assert!(page.text.contains("alt=\"right.png\""), "{}", page.text);

    let path = format!("/tickets/{}/comments/new/", w.ticket.id);
    let names: Vec<String> = (1..=3).map(|i| format!("log-{i}.txt")).collect();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![
        ("csrfmiddlewaretoken", None, csrf.as_bytes()),
        ("body", None, b"three logs"),
    ];
    for name in &names {
        parts.push(("file", Some(name), b"line\n"));
    }
    let resp = post_form(app, &owner, &path, &parts).await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let page = owner.get(app, &format!("/tickets/{}/", w.ticket.id)).await;
    let comment = page
        .text
        .split("<p>three logs</p>")
        .nth(1)
        .and_then(|rest| rest.split("</ul>").next())
        .unwrap_or_default()
        .to_string();
    for name in &names {
        assert!(comment.contains(name.as_str()), "{name}: {comment}");
    }

    let before = attachment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .len();
    let many: Vec<String> = (1..=11).map(|i| format!("f{i}.txt")).collect();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![
        ("csrfmiddlewaretoken", None, csrf.as_bytes()),
        ("body", None, b"NOT-ADDED"),
    ];
    for name in &many {
        parts.push(("file", Some(name), b"x"));
    }
    let resp = post_form(app, &owner, &path, &parts).await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(
        resp.text.contains("at most 10 files at once"),
        "{}",
        resp.text
    );
    let after = attachment::Entity::find()
        .all(&app.state.db.conn)
        .await
        .unwrap()
        .len();
    assert_eq!(after, before);
    let page = owner.get(app, &format!("/tickets/{}/", w.ticket.id)).await;
    assert!(!page.text.contains("<p>NOT-ADDED</p>"));
}
db_test!(a_post_carries_several_files_up_to_ten);
