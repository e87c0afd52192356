//! The settings and administration pages without JavaScript: a user's tokens and password from
//! `/settings/`, accounts, groups and the audit trail from `/admin/` (administrators only, a 403 page for
//! everyone else), and the forgotten-password pages.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::login::{sign_in, Door, Outcome};
use crate::support::pages::{form, location, page};
use crate::support::world::login;
use axum::http::{header, StatusCode};
use sea_orm::EntityTrait;

/// The text between `start` and the next `end` in `text`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let to = text[from..].find(end)? + from;
    Some(&text[from..to])
}

async fn settings_hold_a_users_tokens_and_password(app: &TestApp) {
    let ann = app.user("ann").await;
    let browser = login(app, &ann).await;
    let settings = browser.page(app, "/settings/").await;
    assert_eq!(settings.status, StatusCode::OK, "{}", settings.text);
    assert!(settings.text.contains("Ann Example"), "{}", settings.text);
    assert!(
        !settings.text.contains("href=\"/admin/\""),
        "no admin link for a requester"
    );

    // A token, shown once, works over REST; revoked, it stops.
    let made = browser
        .form(
            app,
            "/settings/tokens/",
            &[("name", "laptop"), ("expires_days", "30")],
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let secret = between(&made.text, "<code id=\"new-token\">", "</code>")
        .unwrap()
        .to_string();
    assert!(secret.starts_with("dg_"), "{secret}");
    assert_eq!(
        app.get("/api/tickets/", Some(&secret)).await.status,
        StatusCode::OK
    );
    let again = browser.page(app, "/settings/").await;
    assert!(!again.text.contains(&secret), "the secret is shown once");
    let bad = browser
        .form(app, "/settings/tokens/", &[("name", "   ")])
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("id=\"token-error\""), "{}", bad.text);
    let id = between(&again.text, "/settings/tokens/", "/revoke/")
        .unwrap()
        .to_string();
    let revoked = browser
        .form(app, &format!("/settings/tokens/{id}/revoke/"), &[])
        .await;
    assert_eq!(location(&revoked), "/settings/?done=revoked");
    assert_eq!(
        app.get("/api/tickets/", Some(&secret)).await.status,
        StatusCode::UNAUTHORIZED
    );

    // The password: the current one is checked, this session stays, the other one ends.
    let elsewhere = login(app, &ann).await;
    let wrong = browser
        .form(
            app,
            "/settings/password/",
            &[
                ("current_password", "nope"),
                ("new_password", "a-new-password"),
            ],
        )
        .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(
        wrong.text.contains("id=\"current-error\""),
        "{}",
        wrong.text
    );
    let changed = browser
        .form(
            app,
            "/settings/password/",
            &[
                ("current_password", "ann-password"),
                ("new_password", "a-new-password"),
            ],
        )
        .await;
    assert_eq!(location(&changed), "/settings/?done=password");
    assert_eq!(browser.page(app, "/settings/").await.status, StatusCode::OK);
    let gone = elsewhere.page(app, "/settings/").await;
    assert_eq!(
        gone.status,
        StatusCode::SEE_OTHER,
        "the other session ended"
    );
    assert_eq!(
        sign_in(app, Door::Rest, "ann", "a-new-password").await,
        Outcome::SignedIn
    );
    // Forged: refused before anything changes.
    let forged = browser
        .forged(
            app,
            "/settings/password/",
            &[
                ("current_password", "a-new-password"),
                ("new_password", "stolen-password"),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
}
db_test!(settings_hold_a_users_tokens_and_password);

async fn admins_manage_people_from_the_admin_pages(app: &TestApp) {
    let admin = app.admin("root").await;
    let agent = app.agent("agnes").await;
    let requester = app.user("rita").await;
    for who in [&agent, &requester] {
        let browser = login(app, who).await;
        for path in [
            "/admin/",
            "/admin/users/",
            "/admin/groups/",
            &format!("/admin/users/{}/", admin.id),
        ] {
            let refused = browser.page(app, path).await;
            assert_eq!(refused.status, StatusCode::FORBIDDEN, "{path}");
            assert!(refused.headers[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html"));
        }
        let posted = browser
            .form(
                app,
                "/admin/users/",
                &[("username", "sneaky"), ("password", "a-long-password")],
            )
            .await;
        assert_eq!(posted.status, StatusCode::FORBIDDEN);
    }
    let browser = login(app, &admin).await;
    let home = browser.page(app, "/admin/").await;
    assert_eq!(location(&home), "/admin/users/");
    let list = browser.page(app, "/admin/users/").await;
    assert!(
        list.text.contains("href=\"/admin/\""),
        "the admin link for an admin"
    );
    assert!(
        list.text.contains("agnes") && list.text.contains("rita"),
        "{}",
        list.text
    );

    // A group, then an account in it.
    let made = browser
        .form(app, "/admin/groups/", &[("name", "Network")])
        .await;
    assert_eq!(location(&made), "/admin/groups/?done=created");
    let groups = browser.page(app, "/admin/groups/").await;
    let network_id = between(&groups.text, "id=\"rename-", "\"")
        .unwrap()
        .to_string();
    let created = browser
        .form(
            app,
            "/admin/users/",
            &[
                ("username", "dana"),
                ("full_name", "Dana Scully"),
                ("email", "dana@example.com"),
                ("password", "a-long-password"),
                ("group", &network_id),
            ],
        )
        .await;
    let account = location(&created);
    assert!(account.ends_with("?done=created"), "{account}");
    let account = account.trim_end_matches("?done=created").to_string();
    assert!(account.starts_with("/admin/users/"), "{account}");
    let dana_id: i32 = between(&account, "/admin/users/", "/")
        .unwrap()
        .parse()
        .unwrap();
    // A taken name shows the message next to the field and keeps what was typed.
    let clash = browser
        .form(
            app,
            "/admin/users/",
            &[
                ("username", "DANA"),
                ("full_name", "Another Dana"),
                ("password", "a-long-password"),
            ],
        )
        .await;
    assert_eq!(clash.status, StatusCode::CONFLICT);
    assert!(
        clash.text.contains("id=\"username-error\""),
        "{}",
        clash.text
    );
    assert!(
        clash.text.contains("value=\"Another Dana\""),
        "{}",
        clash.text
    );
    let groups = browser.page(app, "/admin/groups/").await;
    assert!(groups.text.contains("Dana Scully"), "{}", groups.text);

    // Edit, deactivate (her token stops), reactivate.
    let token = deskgraph::service::tokens::create(&app.state.db, None, dana_id, "t", None)
        .await
        .unwrap()
        .secret;
    assert_eq!(
        app.get("/api/tickets/", Some(&token)).await.status,
        StatusCode::OK
    );
    let saved = browser
        .form(
            app,
            &account,
            &[
                ("full_name", "Dana K. Scully"),
                ("email", "dana@example.com"),
                ("flags_sent", "1"),
                ("is_staff", "true"),
            ],
        )
        .await;
    assert_eq!(location(&saved), format!("{account}?done=saved"));
    let off = browser
        .form(app, &format!("{account}deactivate/"), &[])
        .await;
    assert_eq!(location(&off), format!("{account}?done=deactivated"));
    assert_eq!(
        app.get("/api/tickets/", Some(&token)).await.status,
        StatusCode::UNAUTHORIZED
    );
    let shown = browser.page(app, &account).await;
    assert!(
        shown.text.contains("Deactivated") && shown.text.contains("Dana K. Scully"),
        "{}",
        shown.text
    );
    let on = browser
        .form(app, &format!("{account}reactivate/"), &[])
        .await;
    assert_eq!(location(&on), format!("{account}?done=reactivated"));
    assert_eq!(
        sign_in(app, Door::Rest, "dana", "a-long-password").await,
        Outcome::SignedIn
    );
    // Deactivating oneself is refused on the page, with the reason.
    let me = browser
        .form(app, &format!("/admin/users/{}/deactivate/", admin.id), &[])
        .await;
    assert_eq!(me.status, StatusCode::BAD_REQUEST);
    assert!(me.text.contains("your own account"), "{}", me.text);
}
db_test!(admins_manage_people_from_the_admin_pages);

async fn a_forgotten_password_is_reset_from_the_pages(app: &TestApp) {
    app.user("ann").await;
    let asked = page(app, "/accounts/password-reset/", None).await;
    assert_eq!(asked.status, StatusCode::OK);
    let cookie = asked.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let csrf = cookie.trim_start_matches("csrftoken=").to_string();
    let forged = form(
        app,
        "/accounts/password-reset/",
        Some(&cookie),
        &[
            ("csrfmiddlewaretoken", "0000"),
            ("email", "ann@example.com"),
        ],
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    for email in ["ann@example.com", "nobody@example.com"] {
        let sent = form(
            app,
            "/accounts/password-reset/",
            Some(&cookie),
            &[("csrfmiddlewaretoken", &csrf), ("email", email)],
        )
        .await;
        assert_eq!(sent.status, StatusCode::OK);
        assert!(
            sent.text.contains("If an account has this address"),
            "{}",
            sent.text
        );
    }
    let link = format!(
        "/accounts/password-reset/{}/",
        crate::support::events::password_reset_token(app).await
    );
    let shown = page(app, &link, Some(&cookie)).await;
    assert!(shown.text.contains("id=\"new_password\""), "{}", shown.text);
    let set = form(
        app,
        &link,
        Some(&cookie),
        &[
            ("csrfmiddlewaretoken", &csrf),
            ("new_password", "reset-password-1"),
        ],
    )
    .await;
    assert_eq!(location(&set), "/accounts/login/?reset=done");
    assert_eq!(
        sign_in(app, Door::Rest, "ann", "reset-password-1").await,
        Outcome::SignedIn
    );
    let reused = form(
        app,
        &link,
        Some(&cookie),
        &[
            ("csrfmiddlewaretoken", &csrf),
            ("new_password", "reset-password-2"),
        ],
    )
    .await;
    assert_eq!(reused.status, StatusCode::BAD_REQUEST);
    assert!(
        reused.text.contains("invalid or has expired"),
        "{}",
        reused.text
    );
}
db_test!(a_forgotten_password_is_reset_from_the_pages);

async fn admins_read_the_audit_trail_from_its_page(app: &TestApp) {
    let admin = app.admin("root").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let ticket = crate::support::tickets::create_ticket(
        app,
        &rita,
        serde_json::json!({"title": "Printer <script>alert(1)</script>", "description": "d"}),
    )
    .await;
    let id = ticket["id"].as_i64().unwrap();
    for who in [&agent, &rita] {
        let refused = login(app, who).await.page(app, "/admin/audit/").await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
    }

    let browser = login(app, &admin).await;
    let trail = browser.page(app, "/admin/audit/").await;
    assert_eq!(trail.status, StatusCode::OK, "{}", trail.text);
    assert!(trail.text.contains("aria-current=\"page\">Audit trail</a>"));
    assert!(
        trail
            .text
            .contains(&format!("<a href=\"/tickets/{id}/\">ticket {id}</a>")),
        "{}",
        trail.text
    );
    assert!(trail.text.contains("Rita"), "who made the change, by name");
    assert!(!trail.text.contains("<script>alert"), "changes are escaped");
    assert!(
        trail
            .text
            .contains("title: — → Printer &#60;script&#62;alert(1)&#60;/script&#62;"),
        "{}",
        trail.text
    );

    let hers = browser
        .page(
            app,
            "/admin/audit/?actor=rita&entity_type=ticket&action=create",
        )
        .await;
    assert!(hers.text.contains("1 entry"), "{}", hers.text);
    assert!(hers.text.contains("value=\"rita\""), "the filter is kept");
    for nothing in [
        "/admin/audit/?actor=nobody-here",
        "/admin/audit/?entity_id=not-a-number",
        "/admin/audit/?action=exploded",
    ] {
        let none = browser.page(app, nothing).await;
        assert_eq!(none.status, StatusCode::OK, "{nothing}");
        assert!(none.text.contains("No entry matches."), "{nothing}");
        assert!(none.text.contains("0 entries"), "{nothing}");
    }
    let odd_page = browser.page(app, "/admin/audit/?page=abc").await;
    assert_eq!(odd_page.status, StatusCode::OK);
    assert!(odd_page.text.contains(&format!("ticket {id}")));
}
db_test!(admins_read_the_audit_trail_from_its_page);

async fn admins_manage_webhooks_and_resend_deliveries_from_the_pages(app: &TestApp) {
    use crate::support::events::{Mode, Receiver};
    use deskgraph::jobs::worker;
    let admin = app.admin("root").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    for who in [&agent, &rita] {
        let browser = login(app, who).await;
        assert_eq!(
            browser.page(app, "/admin/webhooks/").await.status,
            StatusCode::FORBIDDEN
        );
        let posted = browser
            .form(
                app,
                "/admin/webhooks/",
                &[("url", "http://127.0.0.1:9/hook"), ("secret", "x")],
            )
            .await;
        assert_eq!(posted.status, StatusCode::FORBIDDEN);
    }
    let browser = login(app, &admin).await;
    let empty = browser.page(app, "/admin/webhooks/").await;
    assert_eq!(empty.status, StatusCode::OK, "{}", empty.text);
    assert!(empty.text.contains("No endpoint yet."));

    // A URL that is not http(s) is refused with the page and the reason, the form kept.
    let refused = browser
        .form(
            app,
            "/admin/webhooks/",
            &[
                ("url", "ftp://example.com/hook"),
                ("secret", "s3cret"),
                ("event", "ticket.created"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.text.contains("http:// or https://"),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("value=\"ticket.created\" checked"));

    let receiver = Receiver::start(Mode::Ok).await;
    let added = browser
        .form(
            app,
            "/admin/webhooks/",
            &[
                ("url", receiver.url.as_str()),
                ("secret", "never-shown-secret"),
                ("event", "ticket.created"),
            ],
        )
        .await;
    let place = location(&added);
    assert!(place.ends_with("/?done=created"), "{place}");
    let id: i32 = between(&place, "/admin/webhooks/", "/")
        .unwrap()
        .parse()
        .unwrap();
    let shown = browser.page(app, &place).await;
    assert!(shown.text.contains("Endpoint added."), "{}", shown.text);
    assert!(!shown.text.contains("never-shown-secret"));
    assert!(shown.text.contains("Nothing delivered yet."));

    crate::support::tickets::create_ticket(
        app,
        &rita,
        serde_json::json!({"title": "Printer jam", "description": "d"}),
    )
    .await;
    while worker::run_once(&app.state.delivery_deps()).await.unwrap() > 0 {}
    assert_eq!(receiver.hits().len(), 1);
    let log = browser.page(app, &format!("/admin/webhooks/{id}/")).await;
    assert!(log.text.contains("1 attempt,"), "{}", log.text);
    assert!(log.text.contains("<td>ticket.created</td>"));
    let delivery = between(&log.text, "/admin/webhooks/deliveries/", "/redeliver/")
        .unwrap()
        .to_string();
    let resent = browser
        .form(
            app,
            &format!("/admin/webhooks/deliveries/{delivery}/redeliver/"),
            &[],
        )
        .await;
    assert_eq!(
        location(&resent),
        format!("/admin/webhooks/{id}/?done=redelivered")
    );
    while worker::run_once(&app.state.delivery_deps()).await.unwrap() > 0 {}
    let hits = receiver.hits();
    assert_eq!(hits.len(), 2);
    assert_eq!(
        hits[0].headers["x-webhook-id"], hits[1].headers["x-webhook-id"],
        "the same event, sent again"
    );

    // Switched off with a blank secret: the secret stays, nothing more is sent.
    let saved = browser
        .form(
            app,
            &format!("/admin/webhooks/{id}/"),
            &[
                ("url", receiver.url.as_str()),
                ("secret", ""),
                ("event", "ticket.created"),
            ],
        )
        .await;
    assert_eq!(
        location(&saved),
        format!("/admin/webhooks/{id}/?done=saved")
    );
    let stored = entity::webhook::Entity::find_by_id(id)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .unwrap();
    assert!(!stored.active);
    assert_eq!(stored.secret, "never-shown-secret");
    let off = browser.page(app, "/admin/webhooks/").await;
    assert!(
        off.text.contains("<span class=\"badge\">Off</span>"),
        "{}",
        off.text
    );

    let removed = browser
        .form(app, &format!("/admin/webhooks/{id}/delete/"), &[])
        .await;
    assert_eq!(location(&removed), "/admin/webhooks/?done=deleted");
    let gone = browser.page(app, &format!("/admin/webhooks/{id}/")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);

    // Each change is in the audit trail, the secret never.
    let trail = browser.page(app, "/admin/audit/?entity_type=webhook").await;
    assert!(trail.text.contains("3 entries"), "{}", trail.text);
    assert!(
        trail.text.contains("active: true → false"),
        "{}",
        trail.text
    );
    assert!(trail.text.contains("secret: — → set"), "{}", trail.text);
    assert!(!trail.text.contains("never-shown-secret"));
}
db_test!(admins_manage_webhooks_and_resend_deliveries_from_the_pages);

/// An admin keeps the tag list from its page: curates, renames into another tag (a merge), turns free tags
/// off and deletes; an agent gets the 403 page.
async fn admins_keep_the_tag_list_from_its_page(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let id = app.as_user(&rita).ticket_titled("VPN").await["id"]
        .as_i64()
        .unwrap();
    let tagged = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{id}/tags/"),
            serde_json::json!({"tags": ["vpn", "network"]}),
        )
        .await;
    assert_eq!(tagged.status, StatusCode::OK);
    let browser = login(app, &admin).await;
    let shown = browser.page(app, "/admin/tags/").await;
    assert_eq!(shown.status, StatusCode::OK);
    assert!(
        shown.text.contains(">vpn</a>") && shown.text.contains(">network</a>"),
        "{}",
        shown.text
    );
    let merged = browser
        .form(
            app,
            "/admin/tags/change/",
            &[("tag", "vpn"), ("rename_to", "Network")],
        )
        .await;
    assert_eq!(location(&merged), "/admin/tags/?done=saved");
    let tags = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(tags.json["tags"], serde_json::json!(["network"]));
    let curated = browser
        .form(app, "/admin/tags/", &[("name", "Hardware")])
        .await;
    assert_eq!(location(&curated), "/admin/tags/?done=curated");
    let off = browser
        .form(app, "/admin/tags/settings/", &[("free_tags", "false")])
        .await;
    assert_eq!(location(&off), "/admin/tags/?done=settings");
    let refused = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{id}/tags/"),
            serde_json::json!({"tags": ["random"]}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let bad = browser
        .form(
            app,
            "/admin/tags/change/",
            &[("tag", "network"), ("rename_to", "a,b")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("role=\"alert\""), "{}", bad.text);
    let deleted = browser
        .form(
            app,
            "/admin/tags/change/",
            &[("tag", "network"), ("delete", "1")],
        )
        .await;
    assert_eq!(location(&deleted), "/admin/tags/?done=deleted");
    let tags = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(tags.json["tags"], serde_json::json!([]));
    let as_agent = login(app, &agent).await;
    assert_eq!(
        as_agent.page(app, "/admin/tags/").await.status,
        StatusCode::FORBIDDEN
    );
}
db_test!(admins_keep_the_tag_list_from_its_page);

db_test!(admins_keep_the_projects_from_their_page);
/// `/admin/projects/`: an administrator adds, renames, describes and archives projects; what the page saves is what
/// REST reads; a taken name is refused next to the form; an archived project leaves the list and the ticket form
/// while its tickets keep it; an agent gets the 403 page and changes nothing.
async fn admins_keep_the_projects_from_their_page(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let ada = login(app, &admin).await;
    let page = ada.page(app, "/admin/projects/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(page.text.contains(r#"id="no-project""#), "{}", page.text);

    for name in ["Network", "Laptops"] {
        let made = ada
            .form(
                app,
                "/admin/projects/",
                &[("name", name), ("description", "Routers and <b>VPN</b>")],
            )
            .await;
        assert_eq!(location(&made), "/admin/projects/?done=created");
    }
    let taken = ada
        .form(app, "/admin/projects/", &[("name", "Network")])
        .await;
    let listed = app.as_user(&admin).get("/api/projects/").await;
    let names: Vec<&str> = listed
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Laptops", "Network"], "{}", listed.text);
    assert_eq!(taken.status, StatusCode::BAD_REQUEST, "{}", taken.text);
    assert!(taken.text.contains("already exists"), "{}", taken.text);
    let network = listed
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Network")
        .unwrap()["id"]
        .as_i64()
        .unwrap()
        .to_string();
    let filed = app
        .as_user(&admin)
        .post(
            "/api/tickets/",
            serde_json::json!({"title": "VPN down", "project": network.parse::<i64>().unwrap()}),
        )
        .await;
    assert_eq!(filed.status, StatusCode::CREATED, "{}", filed.text);

    let page = ada.page(app, "/admin/projects/").await;
    assert!(
        page.text.contains("Routers and &#60;b&#62;VPN&#60;/b&#62;"),
        "{}",
        page.text
    );
    let empty = ada
        .form(
            app,
            "/admin/projects/change/",
            &[("id", &network), ("name", " ")],
        )
        .await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST, "{}", empty.text);
    assert!(empty.text.contains("role=\"alert\""), "{}", empty.text);
    let renamed = ada
        .form(
            app,
            "/admin/projects/change/",
            &[
                ("id", &network),
                ("name", "Networks"),
                ("description", "Routers"),
            ],
        )
        .await;
    assert_eq!(location(&renamed), "/admin/projects/?done=saved");
    let one = app
        .as_user(&admin)
        .get(&format!("/api/projects/{network}/"))
        .await;
    assert_eq!(one.json["name"], "Networks", "{}", one.text);

    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/projects/").await.status,
        StatusCode::FORBIDDEN
    );
    let refused = agnes
        .form(
            app,
            "/admin/projects/change/",
            &[("id", &network), ("archive", "1")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    let archived = ada
        .form(
            app,
            "/admin/projects/change/",
            &[("id", &network), ("archive", "1")],
        )
        .await;
    assert_eq!(location(&archived), "/admin/projects/?done=archived");
    let page = ada.page(app, "/admin/projects/").await;
    assert!(!page.text.contains("Networks"), "{}", page.text);
    assert!(page.text.contains("Laptops"));
    assert!(!ada
        .page(app, "/tickets/new/")
        .await
        .text
        .contains("Networks"));
    let ticket = app
        .as_user(&admin)
        .get(&format!("/api/tickets/{}/", filed.json["id"]))
        .await;
    assert_eq!(
        ticket.json["project"]["name"], "Networks",
        "{}",
        ticket.text
    );
}

db_test!(admins_keep_the_inventory_from_its_page);
/// `/admin/assets/`: an administrator adds an asset with its owner named by user name, finds it by words and
/// status, changes and archives it; what the page saves is what REST reads; an unknown owner or type is refused
/// next to the form; an agent gets the 403 page and changes nothing.
async fn admins_keep_the_inventory_from_its_page(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    // The owner the forms name.
    let _ann = app.user("ann").await;
    let ada = login(app, &admin).await;
    let page = ada.page(app, "/admin/assets/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(page.text.contains(r#"id="no-asset""#), "{}", page.text);

    let fields = |name: &'static str, owner: &'static str, kind: &'static str| {
        [
            ("name", name),
            ("asset_type", kind),
            ("status", "in_use"),
            ("location", "Floor 3"),
            ("owner", owner),
            ("serial_number", "SN-42"),
            ("description", "Docked"),
        ]
    };
    let nobody = ada
        .form(
            app,
            "/admin/assets/",
            &fields("Laptop 7", "nobody", "hardware"),
        )
        .await;
    assert_eq!(nobody.status, StatusCode::BAD_REQUEST, "{}", nobody.text);
    assert!(nobody.text.contains("no user named"), "{}", nobody.text);
    let odd = ada
        .form(
            app,
            "/admin/assets/",
            &fields("Laptop 7", "ann", "spaceship"),
        )
        .await;
    assert_eq!(odd.status, StatusCode::BAD_REQUEST, "{}", odd.text);
    assert!(app
        .as_user(&admin)
        .get("/api/assets/")
        .await
        .json
        .as_array()
        .unwrap()
        .is_empty());

    for (name, kind) in [("Laptop 7", "hardware"), ("Office licence", "license")] {
        let made = ada
            .form(app, "/admin/assets/", &fields(name, "ann", kind))
            .await;
        assert_eq!(location(&made), "/admin/assets/?done=created");
    }
    let listed = app.as_user(&admin).get("/api/assets/").await;
    let laptop = listed
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "Laptop 7")
        .unwrap_or_else(|| panic!("{}", listed.text))
        .clone();
    assert_eq!(laptop["owner"], "ann", "{laptop}");
    assert_eq!(laptop["location"], "Floor 3");
    assert_eq!(laptop["serial_number"], "SN-42");
    let id = laptop["id"].as_i64().unwrap().to_string();

    let found = ada.page(app, "/admin/assets/?q=laptop&status=in_use").await;
    assert!(
        found.text.contains("Laptop 7") && !found.text.contains("Office licence"),
        "{}",
        found.text
    );
    let none = ada.page(app, "/admin/assets/?q=laptop&type=software").await;
    assert!(none.text.contains(r#"id="no-asset""#), "{}", none.text);

    let mut changed = fields("Laptop 7", "", "hardware").to_vec();
    changed.retain(|(k, _)| *k != "status");
    changed.extend([("id", id.as_str()), ("status", "in_repair")]);
    let saved = ada.form(app, "/admin/assets/change/", &changed).await;
    assert_eq!(location(&saved), "/admin/assets/?done=saved");
    let one = app.as_user(&admin).get(&format!("/api/assets/{id}/")).await;
    assert_eq!(one.json["status"], "in_repair", "{}", one.text);
    assert_eq!(one.json["owner"], serde_json::Value::Null);

    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/assets/").await.status,
        StatusCode::FORBIDDEN
    );
    let refused = agnes
        .form(
            app,
            "/admin/assets/change/",
            &[("id", &id), ("archive", "1")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    let archived = ada
        .form(
            app,
            "/admin/assets/change/",
            &[("id", &id), ("archive", "1")],
        )
        .await;
    assert_eq!(location(&archived), "/admin/assets/?done=archived");
    let page = ada.page(app, "/admin/assets/").await;
    assert!(
        !page.text.contains("Laptop 7") && page.text.contains("Office licence"),
        "{}",
        page.text
    );
    assert_eq!(
        app.as_user(&admin)
            .get(&format!("/api/assets/{id}/"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

db_test!(a_refused_admin_form_shows_what_was_typed);
/// A form the service refuses comes back with the reason and with what was typed in it — the new record's form
/// and a record's change form alike, choices and ticks included — while the other forms show what is stored,
/// and secrets are typed again.
async fn a_refused_admin_form_shows_what_was_typed(app: &TestApp) {
    let admin = app.admin("ada").await;
    let ada = login(app, &admin).await;
    let made = ada
        .form(
            app,
            "/admin/projects/",
            &[("name", "Network"), ("description", "Routers")],
        )
        .await;
    assert_eq!(location(&made), "/admin/projects/?done=created");
    // A new project under a taken name: the description typed is still there.
    let taken = ada
        .form(
            app,
            "/admin/projects/",
            &[("name", "Network"), ("description", "Switches & <wires>")],
        )
        .await;
    assert_eq!(taken.status, StatusCode::BAD_REQUEST, "{}", taken.text);
    let new_form = between(&taken.text, r#"id="new-project-form""#, "</form>").unwrap();
    assert!(
        new_form.contains(r#"value="Network""#)
            && new_form.contains(">Switches &#38; &#60;wires&#62;</textarea>"),
        "{new_form}"
    );
    // The page read afresh shows an empty new form.
    let fresh = ada.page(app, "/admin/projects/").await;
    let new_form = between(&fresh.text, r#"id="new-project-form""#, "</form>").unwrap();
    assert!(!new_form.contains("Switches"), "{new_form}");

    // An asset's change refused (an owner nobody is): its form opens with what was typed, and the new
    // asset's form stays empty.
    let made = ada
        .form(
            app,
            "/admin/assets/",
            &[
                ("name", "Laptop 7"),
                ("asset_type", "hardware"),
                ("status", "in_stock"),
                ("location", "Floor 3"),
            ],
        )
        .await;
    assert_eq!(location(&made), "/admin/assets/?done=created");
    let listed = app.as_user(&admin).get("/api/assets/").await;
    let id = listed.json[0]["id"].as_i64().unwrap().to_string();
    let refused = ada
        .form(
            app,
            "/admin/assets/change/",
            &[
                ("id", id.as_str()),
                ("name", "Laptop 7b"),
                ("asset_type", "software"),
                ("status", "retired"),
                ("location", "Floor 9"),
                ("owner", "nobody"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(refused.text.contains("<details open>"), "{}", refused.text);
    assert!(
        refused.text.contains(r#"value="Floor 9""#)
            && refused.text.contains(r#"value="nobody""#)
            && refused
                .text
                .contains(r#"<option value="software" selected>"#)
            && refused
                .text
                .contains(r#"<option value="retired" selected>"#),
        "{}",
        refused.text
    );
    let new_form = between(&refused.text, r#"id="new-asset-form""#, "</form>").unwrap();
    assert!(
        !new_form.contains("Floor 9") && new_form.contains(r#"<option value="in_stock" selected>"#),
        "{new_form}"
    );
    // Nothing was saved.
    let stored = app.as_user(&admin).get(&format!("/api/assets/{id}/")).await;
    assert_eq!(stored.json["location"], "Floor 3", "{}", stored.text);
    let page = ada.page(app, "/admin/assets/").await;
    assert!(!page.text.contains("<details open>") && page.text.contains(r#"value="Floor 3""#));

    // A chat destination refused: the ticks come back, the webhook address (its key) does not.
    let refused = ada
        .form(
            app,
            "/admin/chat/",
            &[
                ("name", ""),
                ("kind", "teams"),
                ("webhook_url", "https://hooks.example.com/secret-key-123"),
                ("event", "ticket.created"),
                ("team_only", "1"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(!refused.text.contains("secret-key-123"), "{}", refused.text);
    assert!(
        refused.text.contains(r#"<option value="teams" selected>"#)
            && refused.text.contains(r#"value="ticket.created" checked>"#)
            && refused
                .text
                .contains(r#"value="1" checked id="chat-team-only">"#),
        "{}",
        refused.text
    );

    // An account's change refused (an address that is none): the name and address typed come back, the
    // stored ones stay stored.
    let dana = app.user("dana").await;
    let path = format!("/admin/users/{}/", dana.id);
    let refused = ada
        .form(
            app,
            &path,
            &[
                ("full_name", "Dana Typed"),
                ("email", "not an address"),
                ("flags_sent", "1"),
                ("is_staff", "true"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.text.contains(r#"value="Dana Typed""#)
            && refused.text.contains(r#"value="not an address""#)
            && refused
                .text
                .contains(r#"name="is_staff" value="true" checked>"#),
        "{}",
        refused.text
    );
    let stored = ada.page(app, &path).await;
    assert!(
        !stored.text.contains("Dana Typed")
            && !stored
                .text
                .contains(r#"name="is_staff" value="true" checked>"#),
        "{}",
        stored.text
    );
}
