//! Dates on the pages in the reader's time zone: the one chosen on `/settings/`, else the browser's (the `tz`
//! cookie the pages' script keeps), else UTC. The web JSON keeps the contract's UTC.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::{location, page};
use crate::support::world::login;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// A moment as the pages write it in `zone`.
fn shown(at: DateTime<Utc>, zone: Tz) -> String {
    at.with_timezone(&zone)
        .format("%b %d, %Y %H:%M")
        .to_string()
}

db_test!(dates_follow_the_chosen_zone_else_the_browsers);
async fn dates_follow_the_chosen_zone_else_the_browsers(app: &TestApp) {
    let owner = app.user("owner").await;
    let t = app
        .as_user(&owner)
        .create_ticket(serde_json::json!({"title": "Clock skew"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let created: DateTime<Utc> = t["created_at"].as_str().unwrap().parse().unwrap();
    let path = format!("/tickets/{id}/");
    let browser = login(app, &owner).await;
    let kolkata: Tz = "Asia/Kolkata".parse().unwrap();
    let new_york: Tz = "America/New_York".parse().unwrap();

    // No choice, no cookie: UTC.
    let resp = browser.page(app, &path).await;
    assert!(
        resp.text.contains(&shown(created, chrono_tz::UTC)),
        "{}",
        resp.text
    );

    // The browser's zone, from its cookie.
    let with_cookie = format!("{}; tz=America%2FNew_York", browser.cookies());
    let resp = page(app, &path, Some(&with_cookie)).await;
    assert!(
        resp.text.contains(&shown(created, new_york)),
        "{}",
        resp.text
    );
    // A cookie naming no zone is ignored.
    let nonsense = format!("{}; tz=Mars%2FOlympus", browser.cookies());
    let resp = page(app, &path, Some(&nonsense)).await;
    assert!(resp.text.contains(&shown(created, chrono_tz::UTC)));

    // A zone chosen in settings wins over the browser's.
    let resp = browser
        .form(
            app,
            "/settings/time-zone/",
            &[("time_zone", "Asia/Kolkata")],
        )
        .await;
    assert_eq!(location(&resp), "/settings/?done=zone");
    let resp = page(app, &path, Some(&with_cookie)).await;
    assert!(
        resp.text.contains(&shown(created, kolkata)),
        "{}",
        resp.text
    );
    let settings = browser.page(app, "/settings/?done=zone").await;
    assert!(settings
        .text
        .contains("<option value=\"Asia/Kolkata\" selected>Asia/Kolkata</option>"));
    assert!(settings.text.contains("Dates now show in Asia/Kolkata."));
    // The queue too.
    let queue = browser.page(app, "/tickets/").await;
    assert!(
        queue.text.contains(&shown(created, kolkata)),
        "{}",
        queue.text
    );

    // The web JSON is the contract's, in UTC whatever the setting.
    let json = browser.get(app, &format!("/tickets/{id}/comments/")).await;
    assert_eq!(json.status, StatusCode::OK, "{}", json.text);

    // A name that is no zone is refused next to the field, and the choice stands.
    let resp = browser
        .form(
            app,
            "/settings/time-zone/",
            &[("time_zone", "Mars/Olympus")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(
        resp.text.contains("choose a time zone from the list"),
        "{}",
        resp.text
    );
    let resp = browser.page(app, &path).await;
    assert!(resp.text.contains(&shown(created, kolkata)));

    // Back to the browser's.
    let resp = browser
        .form(app, "/settings/time-zone/", &[("time_zone", "")])
        .await;
    assert_eq!(location(&resp), "/settings/?done=zone");
    let resp = page(app, &path, Some(&with_cookie)).await;
    assert!(
        resp.text.contains(&shown(created, new_york)),
        "{}",
        resp.text
    );
}

db_test!(another_users_zone_stays_theirs);
async fn another_users_zone_stays_theirs(app: &TestApp) {
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let t = app
        .as_user(&owner)
        .create_ticket(serde_json::json!({"title": "Shared ticket"}))
        .await;
    let id = t["id"].as_i64().unwrap();
    let created: DateTime<Utc> = t["created_at"].as_str().unwrap().parse().unwrap();
    let mine = login(app, &owner).await;
    let resp = mine
        .form(
            app,
            "/settings/time-zone/",
            &[("time_zone", "Pacific/Auckland")],
        )
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    let theirs = login(app, &agent).await;
    let resp = theirs.page(app, &format!("/tickets/{id}/")).await;
    assert!(
        resp.text.contains(&shown(created, chrono_tz::UTC)),
        "{}",
        resp.text
    );
    // Without the CSRF token nothing changes.
    let resp = theirs
        .forged(app, "/settings/time-zone/", &[("time_zone", "Asia/Tokyo")])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    let resp = theirs.page(app, &format!("/tickets/{id}/")).await;
    assert!(resp.text.contains(&shown(created, chrono_tz::UTC)));
}

db_test!(a_moment_field_is_typed_and_read_in_the_readers_zone);
/// A date-and-time custom field is filled and shown on the pages in the reader's zone, the label naming it,
/// and kept in UTC: REST reads the same moment. The hour a summer time skips is read as the clocks then say.
async fn a_moment_field_is_typed_and_read_in_the_readers_zone(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let made = app
        .as_user(&admin)
        .post(
            "/api/custom-fields/",
            serde_json::json!({"key": "visit", "label": "Visit", "kind": "datetime"}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let filed = app
        .as_user(&agent)
        .post(
            "/api/tickets/",
            serde_json::json!({"title": "Printer visit"}),
        )
        .await;
    let id = filed.json["id"].as_i64().unwrap();
    let browser = login(app, &agent).await;
    let resp = browser
        .form(
            app,
            "/settings/time-zone/",
            &[("time_zone", "Europe/Berlin")],
        )
        .await;
    assert_eq!(location(&resp), "/settings/?done=zone");
    let path = format!("/tickets/{id}/");
    let set = |value: &'static str| {
        let browser = &browser;
        let path = format!("{path}fields/");
        async move {
            let resp = browser.form(app, &path, &[("cf.visit", value)]).await;
            assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
        }
    };
    let stored = || async {
        let t = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/"))
            .await;
        t.json["custom_fields"]["visit"].clone()
    };
    // 09:30 in Berlin's summer is 07:30 UTC.
    set("2026-07-01T09:30").await;
    assert_eq!(stored().await, "2026-07-01T07:30:00.000000Z");
    let shown = browser.page(app, &path).await;
    assert!(
        shown
            .text
            .contains(r#"type="datetime-local" value="2026-07-01T09:30""#)
            && shown.text.contains("Visit (Europe/Berlin)")
            && shown.text.contains("2026-07-01 09:30 (Europe/Berlin)"),
        "{}",
        shown.text
    );
    // Saved again as shown, it is the same moment.
    set("2026-07-01T09:30").await;
    assert_eq!(stored().await, "2026-07-01T07:30:00.000000Z");
    // 02:30 on 29 March 2026 does not exist in Berlin: the clocks say 03:30 (CEST), 01:30 UTC.
    set("2026-03-29T02:30").await;
    assert_eq!(stored().await, "2026-03-29T01:30:00.000000Z");
    // Without a zone of one's own (and no browser cookie), UTC, as the label says.
    let resp = browser
        .form(app, "/settings/time-zone/", &[("time_zone", "")])
        .await;
    assert_eq!(location(&resp), "/settings/?done=zone");
    let shown = browser.page(app, &path).await;
    assert!(
        shown.text.contains(r#"value="2026-03-29T01:30""#) && shown.text.contains("Visit (UTC)"),
        "{}",
        shown.text
    );
    set("2026-12-24T18:00").await;
    assert_eq!(stored().await, "2026-12-24T18:00:00.000000Z");
}
