//! The pages in the reader's language: the one chosen on `/settings/`, else the first one the browser asks for
//! (`Accept-Language`) that there is a catalogue for, else English. The APIs and the web JSON stay English.
use crate::db_test;
use crate::support::helpers::{cache_for_one_second_on_sqlite, TestApp, TestResponse};
use crate::support::pages::location;
use crate::support::world::login;
use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request, StatusCode};
use sea_orm::EntityTrait;

/// GET `path` with these cookies, asking for `languages`.
async fn page_in(
    app: &TestApp,
    path: &str,
    cookies: Option<&str>,
    languages: Option<&str>,
) -> TestResponse {
    let mut builder = Request::builder().method(Method::GET).uri(path);
    if let Some(cookies) = cookies {
        builder = builder.header(header::COOKIE, cookies);
    }
    if let Some(languages) = languages {
        let value = HeaderValue::from_bytes(languages.as_bytes()).unwrap();
        builder = builder.header(header::ACCEPT_LANGUAGE, value);
    }
    app.send(builder.body(Body::empty()).unwrap()).await
}

fn is_german(resp: &TestResponse) -> bool {
    assert_eq!(resp.status, StatusCode::OK, "{}", resp.text);
    let german = resp.text.contains("<html lang=\"de\">") && resp.text.contains(">Neues Ticket<");
    let english = resp.text.contains("<html lang=\"en\">") && resp.text.contains(">New ticket<");
    assert!(german != english, "neither or both: {}", resp.text);
    german
}

db_test!(pages_follow_the_chosen_language_else_the_browsers);
async fn pages_follow_the_chosen_language_else_the_browsers(app: &TestApp) {
    let owner = app.user("owner").await;
    app.as_user(&owner)
        .create_ticket(serde_json::json!({"title": "Drucker"}))
        .await;
    let browser = login(app, &owner).await;
    let cookies = browser.cookies();
    let german = Some("de-DE,de;q=0.9,en;q=0.8");

    // Nothing asked: English. The browser's first language we have, by weight.
    assert!(!is_german(
        &page_in(app, "/tickets/", Some(&cookies), None).await
    ));
    assert!(is_german(
        &page_in(app, "/tickets/", Some(&cookies), german).await
    ));
    let weighted = Some("fr-CA, en;q=0.3, de;q=0.7");
    assert!(is_german(
        &page_in(app, "/tickets/", Some(&cookies), weighted).await
    ));
    let none_we_have = Some("fr, es;q=0.5");
    assert!(!is_german(
        &page_in(app, "/tickets/", Some(&cookies), none_we_have).await
    ));
    let refused = Some("de;q=0, en");
    assert!(!is_german(
        &page_in(app, "/tickets/", Some(&cookies), refused).await
    ));
    // Not text (bytes beyond ASCII): as if not asked.
    let garbage = Some(";;q=x,, de-\u{e9}");
    assert!(!is_german(
        &page_in(app, "/tickets/", Some(&cookies), garbage).await
    ));

    // Signed out, the sign-in page follows the browser.
    let signed_out = page_in(app, "/accounts/login/", None, german).await;
    assert!(
        signed_out.text.contains("<h1>Anmelden</h1>"),
        "{}",
        signed_out.text
    );
    assert!(signed_out.text.contains("name=\"username\""));

    // A language chosen in settings wins over the browser's.
    let resp = browser
        .form(app, "/settings/language/", &[("language", "de")])
        .await;
    assert_eq!(location(&resp), "/settings/?done=language");
    let english = Some("en-US,en;q=0.9");
    assert!(is_german(
        &page_in(app, "/tickets/", Some(&cookies), english).await
    ));
    let settings = page_in(app, "/settings/?done=language", Some(&cookies), english).await;
    assert!(
        settings.text.contains("Sprache gespeichert."),
        "{}",
        settings.text
    );
    assert!(settings
        .text
        .contains("<option value=\"de\" lang=\"de\" selected>Deutsch</option>"));

    // A language there is no catalogue for is refused next to the field, and the choice stands.
    let resp = browser
        .form(app, "/settings/language/", &[("language", "xx")])
        .await;
    assert_eq!(resp.status, StatusCode::BAD_REQUEST, "{}", resp.text);
    assert!(resp.text.contains("id=\"language-error\""), "{}", resp.text);
    assert!(resp.text.contains("Wählen Sie eine Sprache aus der Liste"));
    assert!(is_german(
        &page_in(app, "/tickets/", Some(&cookies), english).await
    ));

    // An error page is in the user's language too, around the service's (English) message.
    let missing = page_in(app, "/tickets/999999/", Some(&cookies), english).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND, "{}", missing.text);
    assert!(
        missing.text.contains("<html lang=\"de\">"),
        "{}",
        missing.text
    );
    assert!(
        missing.text.contains("<h1>Nicht gefunden</h1>"),
        "{}",
        missing.text
    );
    assert!(missing.text.contains(">Zurück zur Ticketliste<"));

    // What the service says stays English: an API client's error body is the same in any language.
    let plain = page_in(app, "/api/tickets/999999/", Some(&cookies), None).await;
    let asked = page_in(app, "/api/tickets/999999/", Some(&cookies), german).await;
    assert_eq!(plain.status, asked.status);
    assert_eq!(plain.text, asked.text);

    // Back to the browser's.
    let resp = browser
        .form(app, "/settings/language/", &[("language", "")])
        .await;
    assert_eq!(location(&resp), "/settings/?done=language");
    assert!(!is_german(
        &page_in(app, "/tickets/", Some(&cookies), english).await
    ));
    assert!(is_german(
        &page_in(app, "/tickets/", Some(&cookies), german).await
    ));
    let missing = page_in(app, "/tickets/999999/", Some(&cookies), english).await;
    assert!(
        missing.text.contains("<h1>Not Found</h1>"),
        "{}",
        missing.text
    );
    let missing = page_in(app, "/tickets/999999/", Some(&cookies), german).await;
    assert!(
        missing.text.contains("<h1>Nicht gefunden</h1>"),
        "{}",
        missing.text
    );
}

db_test!(
    a_language_chosen_on_one_instance_is_read_on_another,
    cache_for_one_second_on_sqlite
);
/// Each instance keeps a signed-in user's account for a while; a language chosen on one instance is read by the
/// others at their next page (PostgreSQL instances tell each other at once; on SQLite the short lifetime set
/// above bounds it).
async fn a_language_chosen_on_one_instance_is_read_on_another(app: &TestApp) {
    let owner = app.user("owner").await;
    let (_, second) = app.second_instance().await;
    let browser = login(app, &owner).await;
    let cookies = browser.cookies();
    let on_second = || {
        let request = Request::builder()
            .uri("/tickets/")
            .header(header::COOKIE, &cookies)
            .body(Body::empty())
            .unwrap();
        app.send_to(&second, request)
    };
    assert!(!is_german(&on_second().await));
    assert!(!is_german(&browser.page(app, "/tickets/").await));
    let resp = browser
        .form(app, "/settings/language/", &[("language", "de")])
        .await;
    assert_eq!(location(&resp), "/settings/?done=language");
    // Where it was chosen, at once.
    assert!(is_german(&browser.page(app, "/tickets/").await));
    let mut german = false;
    for _ in 0..50 {
        german = is_german(&on_second().await);
        if german {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(german, "the second instance kept the old language");
}

db_test!(another_users_language_stays_theirs);
async fn another_users_language_stays_theirs(app: &TestApp) {
    let owner = app.user("owner").await;
    let agent = app.agent("agent").await;
    let mine = login(app, &owner).await;
    let resp = mine
        .form(app, "/settings/language/", &[("language", "de")])
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    assert!(is_german(&mine.page(app, "/tickets/").await));
    let theirs = login(app, &agent).await;
    assert!(!is_german(&theirs.page(app, "/tickets/").await));
    // Without the CSRF token nothing changes.
    let resp = theirs
        .forged(app, "/settings/language/", &[("language", "de")])
        .await;
    assert_eq!(resp.status, StatusCode::FORBIDDEN, "{}", resp.text);
    assert!(!is_german(&theirs.page(app, "/tickets/").await));
}

db_test!(a_reset_link_comes_in_the_accounts_language);
/// The language chosen on the settings page is the account's emails' too: the reset link asked for by REST (no
/// browser to ask) comes in it; another account's stays English.
async fn a_reset_link_comes_in_the_accounts_language(app: &TestApp) {
    let owner = app.user("owner").await;
    app.user("other").await;
    let resp = login(app, &owner)
        .await
        .form(app, "/settings/language/", &[("language", "de")])
        .await;
    assert_eq!(resp.status, StatusCode::SEE_OTHER, "{}", resp.text);
    for email in ["owner@example.com", "other@example.com"] {
        let resp = app
            .post(
                "/api/auth/password-reset/",
                None,
                serde_json::json!({ "email": email }),
            )
            .await;
        assert_eq!(resp.status, StatusCode::ACCEPTED, "{}", resp.text);
    }
    // The link is written by a task of its own; wait for both.
    let mut mails: Vec<serde_json::Value> = Vec::new();
    for _ in 0..100 {
        mails = entity::outbox::Entity::find()
            .all(&app.state.db.conn)
            .await
            .unwrap()
            .into_iter()
            .filter(|r| r.event == "account.password_reset")
            .map(|r| serde_json::from_str(&r.payload).unwrap())
            .collect();
        if mails.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let to = |who: &str| {
        mails
            .iter()
            .find(|m| m["to"] == who)
            .unwrap_or_else(|| panic!("no mail to {who}: {mails:?}"))
            .clone()
    };
    let german = to("owner@example.com");
    assert_eq!(
        german["subject"],
        "Passwort des Helpdesk-Kontos zurücksetzen"
    );
    let text = german["text"].as_str().unwrap();
    assert!(text.starts_with("Hallo "), "{text}");
    assert!(text.contains("innerhalb von 60 Minuten"), "{text}");
    assert!(text.contains("/accounts/password-reset/dgr_"), "{text}");
    let english = to("other@example.com");
    assert_eq!(english["subject"], "Reset your help-desk password");
    assert!(english["text"].as_str().unwrap().starts_with("Hello "));
}
