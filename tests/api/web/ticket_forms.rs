//! The ticket page's forms answer a refused value with the page again: that form open, what was typed in its
//! boxes, the message next to the box it is about, and nothing written.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::pages::location;
use crate::support::world::Browser;
use axum::http::StatusCode;
use serde_json::{json, Value};

/// The part of `page` from the element with `id` to the end of its form.
fn form_of<'a>(page: &'a str, id: &str) -> &'a str {
    let from = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no {id} on the page: {page}"));
    let rest = &page[from..];
    &rest[..rest.find("</form>").unwrap_or(rest.len())]
}

async fn detail(app: &TestApp, who: &TestUser, id: i64) -> Value {
    let r = app.as_user(who).get(&format!("/api/tickets/{id}/")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    r.json
}

/// Post `fields` to the ticket's form at `path` and expect the page again with `status`.
async fn refused(
    app: &TestApp,
    browser: &Browser,
    id: i64,
    path: &str,
    fields: &[(&str, &str)],
    status: StatusCode,
) -> String {
    let r = browser
        .form(app, &format!("/tickets/{id}/{path}/"), fields)
        .await;
    assert_eq!(r.status, status, "{path}: {}", r.text);
    assert!(
        r.text.contains("id=\"ticket-side\"") && !r.text.contains("error-text"),
        "{path}: not the ticket page: {}",
        r.text
    );
    r.text
}

db_test!(a_refused_form_of_the_ticket_page_shows_what_was_typed);
async fn a_refused_form_of_the_ticket_page_shows_what_was_typed(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let created = app
        .as_user(&rita)
        .post(
            "/api/tickets/",
            json!({"title": "Printer jams", "description": "Every page.", "priority": "low"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json["id"].as_i64().unwrap();
    let said = app
        .as_user(&rita)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "<p>Still jams.</p>", "comment_type": "public"}),
        )
        .await;
    assert_eq!(said.status, StatusCode::CREATED, "{}", said.text);
    let comment = said.json["id"].as_i64().unwrap();
    let before = detail(app, &agent, id).await;
    let browser = crate::support::world::login(app, &agent).await;
    let bad = StatusCode::BAD_REQUEST;

    // Title and description: a blank title; the description typed stays in its box.
    let page = refused(
        app,
        &browser,
        id,
        "edit",
        &[("title", "   "), ("description", "First line\nSecond line")],
        bad,
    )
    .await;
    assert!(
        page.contains("<details class=\"edit-ticket\" open>"),
        "{page}"
    );
    let form = form_of(&page, "edit-form");
    assert!(
        form.contains("First line\nSecond line</textarea>")
            && form.contains("id=\"edit-title-error\"")
            && form.contains("aria-invalid=\"true\" aria-describedby=\"edit-title-error\""),
        "{form}"
    );

    // The side panel: an assignee name nobody has, beside a new priority; neither is saved, both are shown.
    let page = refused(
        app,
        &browser,
        id,
        "edit",
        &[("priority", "high"), ("assigned_username", "nobody")],
        bad,
    )
    .await;
    let panel = form_of(&page, "quick-edit");
    assert!(
        panel.contains("value=\"nobody\"")
            && panel.contains("<option value=\"high\" selected>")
            && !panel.contains("<option value=\"low\" selected>"),
        "{panel}"
    );
    let message = panel
        .split("id=\"edit-assignee-name-error\">")
        .nth(1)
        .unwrap_or_else(|| panic!("no message next to the name: {panel}"));
    assert!(message.starts_with("no active user named"), "{message}");
    // A due date the browser did not check: its message next to it, the text as typed.
    let page = refused(
        app,
        &browser,
        id,
        "edit",
        &[("due_date", "31/12/2026")],
        bad,
    )
    .await;
    let panel = form_of(&page, "quick-edit");
    assert!(
        panel.contains("value=\"31/12/2026\"") && panel.contains("id=\"edit-due-error\""),
        "{panel}"
    );

    // Tags, links, followers and merge: one box each, the message under it.
    let long = "x".repeat(60);
    let tags = format!("vpn, {long}");
    let page = refused(app, &browser, id, "tags", &[("add", &tags)], bad).await;
    let form = form_of(&page, "tag-form");
    assert!(
        form.contains(&format!("value=\"vpn, {long}\""))
            && form.contains("id=\"tag-error\"")
            && form.contains("is longer than 50 characters"),
        "{form}"
    );
    let page = refused(
        app,
        &browser,
        id,
        "links",
        &[("type", "blocks"), ("ticket", "TKT-99999")],
        bad,
    )
    .await;
    let form = form_of(&page, "link-form");
    assert!(
        form.contains("value=\"TKT-99999\"")
            && form.contains("<option value=\"blocks\" selected>")
            && form.contains("id=\"link-error\">no ticket"),
        "{form}"
    );
    let page = refused(app, &browser, id, "followers", &[("add", "nobody")], bad).await;
    let form = form_of(&page, "follower-form");
    assert!(
        form.contains("value=\"nobody\"") && form.contains("id=\"follower-error\""),
        "{form}"
    );
    let page = refused(app, &browser, id, "merge", &[("into", "TKT-99999")], bad).await;
    assert!(
        page.contains("<details class=\"delete-confirm\" id=\"merge\" open>"),
        "{page}"
    );
    let form = form_of(&page, "merge-form");
    assert!(
        form.contains("value=\"TKT-99999\"") && form.contains("id=\"merge-error\""),
        "{form}"
    );

    // Split: a title too long, the comment still ticked.
    let ticked = format!("split_{comment}");
    let title = "t".repeat(201);
    let page = refused(
        app,
        &browser,
        id,
        "split",
        &[(ticked.as_str(), "on"), ("title", &title)],
        bad,
    )
    .await;
    assert!(
        page.contains("<details class=\"split\" id=\"split\" open>"),
        "{page}"
    );
    assert!(
        page.contains(&format!("name=\"{ticked}\" form=\"split-form\" checked>")),
        "{page}"
    );
    let form = form_of(&page, "split-form");
    assert!(
        form.contains(&format!("value=\"{title}\"")) && form.contains("id=\"split-error\""),
        "{form}"
    );

    // Resolving with a note too long for a comment: the ticket is not moved, the note stays typed.
    let long = "word ".repeat(14_000);
    let page = refused(
        app,
        &browser,
        id,
        "status",
        &[("status", "resolved"), ("note", long.trim())],
        bad,
    )
    .await;
    assert!(
        page.contains("<details class=\"resolution-note\" open>")
            && page.contains("id=\"status-error\"")
            && page.contains(&format!("{}</textarea>", long.trim())),
        "{page}"
    );

    // Nothing of it was written.
    let after = detail(app, &agent, id).await;
    for key in [
        "title",
        "description",
        "priority",
        "assigned_to",
        "due_date",
        "status",
    ] {
        assert_eq!(after[key], before[key], "{key}");
    }
    let tags = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(tags.status, StatusCode::OK, "{}", tags.text);
    assert!(!tags.text.contains("vpn"), "{}", tags.text);
    let links = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/links/"))
        .await;
    assert_eq!(links.status, StatusCode::OK, "{}", links.text);
    assert!(!links.text.contains("blocks"), "{}", links.text);

    // The requester's own form answers the same way, and a good value still goes back with its confirmation.
    let own = crate::support::world::login(app, &rita).await;
    let page = refused(
        app,
        &own,
        id,
        "edit",
        &[("title", ""), ("description", "Typed")],
        bad,
    )
    .await;
    assert!(
        form_of(&page, "edit-form").contains("Typed</textarea>"),
        "{page}"
    );
    let saved = own
        .form(
            app,
            &format!("/tickets/{id}/edit/"),
            &[("title", "Printer jams on tray 2")],
        )
        .await;
    assert_eq!(location(&saved), format!("/tickets/{id}/"));
    assert_eq!(
        detail(app, &agent, id).await["title"],
        "Printer jams on tray 2"
    );
}
