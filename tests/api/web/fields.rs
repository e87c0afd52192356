//! Custom fields in the browser, without JavaScript: an admin defines them on `/admin/fields/`, a requester
//! fills the ones she may see on the new-ticket form and her ticket's page, an agent the team's too, and the
//! history says what changed to those who may read it.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::location;
use crate::support::world::login;
use axum::http::StatusCode;
use serde_json::{json, Value};

db_test!(fields_are_defined_filled_and_read_from_the_pages);
async fn fields_are_defined_filled_and_read_from_the_pages(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;

    // An admin defines the fields from the page; an agent gets the 403 page.
    let ada = login(app, &admin).await;
    for fields in [
        vec![
            ("key", "serial"),
            ("label", "Serial number"),
            ("kind", "text"),
        ],
        vec![
            ("key", "device"),
            ("label", "Device"),
            ("kind", "choice"),
            ("choices", "Laptop, Phone"),
        ],
        vec![
            ("key", "extras"),
            ("label", "Accessories"),
            ("kind", "multi_choice"),
            ("choices", "Dock, Mouse"),
        ],
        vec![
            ("key", "cost"),
            ("label", "Cost estimate"),
            ("kind", "number"),
            ("team_only", "1"),
        ],
        vec![
            ("key", "checked_on"),
            ("label", "Checked on"),
            ("kind", "date"),
            ("required_from", "done"),
        ],
    ] {
        let made = ada.form(app, "/admin/fields/", &fields).await;
        assert_eq!(location(&made), "/admin/fields/?done=created");
    }
    let bad = ada
        .form(
            app,
            "/admin/fields/",
            &[("key", "Bad Key"), ("label", "X"), ("kind", "text")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("role=\"alert\""), "{}", bad.text);
    let listed = ada.page(app, "/admin/fields/").await;
    assert!(listed.text.contains("<code>cost</code>"), "{}", listed.text);
    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/fields/").await.status,
        StatusCode::FORBIDDEN
    );

    // Rita's new-ticket form offers the fields she may set, not the team's.
    let browser = login(app, &rita).await;
    let form = browser.page(app, "/tickets/new/").await;
    assert!(form.text.contains("name=\"cf.serial\""), "{}", form.text);
    assert!(form.text.contains("name=\"cf.extras.1\""), "{}", form.text);
    assert!(!form.text.contains("cf.cost"), "{}", form.text);
    let refused = browser
        .form(
            app,
            "/tickets/new/",
            &[
                ("title", "Fan noise"),
                ("priority", "low"),
                ("cf.device", "Tablet"),
                ("cf.serial", "SN-7"),
            ],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.text.contains("id=\"cf-device-error\""),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("value=\"SN-7\""), "{}", refused.text);
    let created = browser
        .form(
            app,
            "/tickets/new/",
            &[
                ("title", "Fan noise"),
                ("priority", "low"),
                ("cf.serial", "SN-7"),
                ("cf.device", "Laptop"),
                ("cf.extras", ""),
                ("cf.extras.1", "on"),
                ("cf.cost", "999"),
            ],
        )
        .await;
    let path = location(&created);
    let id: i64 = path
        .trim_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let detail = |user| async move {
        app.as_user(user)
            .get(&format!("/api/tickets/{id}/"))
            .await
            .json
    };
    let seen: Value = detail(&agent).await;
    assert_eq!(
        seen["custom_fields"],
        json!({"serial": "SN-7", "device": "Laptop", "extras": ["Mouse"], "cost": null, "checked_on": null})
    );

    // Her page shows them and lets her change her own; the team's field is not hers.
    let page = browser.page(app, &path).await;
    assert!(
        page.text.contains("id=\"cf-serial-shown\""),
        "{}",
        page.text
    );
    assert!(!page.text.contains("Cost estimate"), "{}", page.text);
    let saved = browser
        .form(
            app,
            &format!("/tickets/{id}/fields/"),
            &[
                ("cf.serial", "SN-8"),
                ("cf.device", "Laptop"),
                ("cf.cost", "5"),
            ],
        )
        .await;
    assert_eq!(location(&saved), path);
    let seen: Value = detail(&agent).await;
    assert_eq!(seen["custom_fields"]["serial"], "SN-8");
    assert_eq!(seen["custom_fields"]["cost"], Value::Null);

    // The agent sets the team's field; resolving waits for the required date.
    let agent_page = agnes.page(app, &path).await;
    assert!(
        agent_page.text.contains("name=\"cf.cost\""),
        "{}",
        agent_page.text
    );
    let set = agnes
        .form(
            app,
            &format!("/tickets/{id}/fields/"),
            &[("cf.cost", "12.5")],
        )
        .await;
    assert_eq!(location(&set), path);
    // A value that does not fit its field: the page again, the form open, what was typed kept, the message next
    // to the field, and nothing written.
    let refused = agnes
        .form(
            app,
            &format!("/tickets/{id}/fields/"),
            &[("cf.cost", "a dozen"), ("cf.serial", "SN-9")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    let form = refused
        .text
        .split("<details class=\"edit-fields\" open>")
        .nth(1)
        .unwrap_or_else(|| panic!("the fields form is not open: {}", refused.text));
    assert!(
        form.contains("value=\"a dozen\"")
            && form.contains("value=\"SN-9\"")
            && form.contains("id=\"cf-cost-error\""),
        "{form}"
    );
    let seen: Value = detail(&agent).await;
    assert_eq!(seen["custom_fields"]["cost"], 12.5);
    assert_eq!(seen["custom_fields"]["serial"], "SN-8");
    for status in ["open", "in_progress"] {
        let moved = app
            .as_user(&agent)
            .patch(&format!("/api/tickets/{id}/"), json!({"status": status}))
            .await;
        assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    }
    let held = agnes
        .form(
            app,
            &format!("/tickets/{id}/status/"),
            &[("status", "resolved")],
        )
        .await;
    assert_eq!(held.status, StatusCode::BAD_REQUEST, "{}", held.text);
    // The page again: the status buttons name the field it needs by its label, and the fields form is open with
    // the message next to that field.
    let message = held
        .text
        .split("id=\"status-error\">")
        .nth(1)
        .unwrap_or_else(|| panic!("no message at the status buttons: {}", held.text));
    assert!(
        message.starts_with("Fill in Checked on first."),
        "{message}"
    );
    let form = held
        .text
        .split("<details class=\"edit-fields\" open>")
        .nth(1)
        .unwrap_or_else(|| panic!("the fields form is not open: {}", held.text));
    assert!(
        form.contains("id=\"cf-checked_on-error\"")
            && form.contains("required to resolve or close the ticket"),
        "{form}"
    );
    let dated = agnes
        .form(
            app,
            &format!("/tickets/{id}/fields/"),
            &[("cf.checked_on", "2026-11-30")],
        )
        .await;
    assert_eq!(location(&dated), path);
    let resolved = agnes
        .form(
            app,
            &format!("/tickets/{id}/status/"),
            &[("status", "resolved")],
        )
        .await;
    assert_eq!(location(&resolved), path);
    let seen: Value = detail(&agent).await;
    assert_eq!(seen["custom_fields"]["cost"], 12.5);
    assert_eq!(seen["status"], "resolved");

    // The history in words: the team reads the cost, the requester does not.
    let agent_page = agnes.page(app, &path).await;
    assert!(
        agent_page.text.contains("set cost to “12.5”"),
        "{}",
        agent_page.text
    );
    assert!(
        agent_page.text.contains("set serial to “SN-8”"),
        "{}",
        agent_page.text
    );
    let rita_page = browser.page(app, &path).await;
    assert!(
        rita_page.text.contains("set serial to “SN-8”"),
        "{}",
        rita_page.text
    );
    assert!(!rita_page.text.contains("12.5"), "{}", rita_page.text);
}

db_test!(an_admin_sees_which_rules_name_a_field_before_archiving_it);
async fn an_admin_sees_which_rules_name_a_field_before_archiving_it(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let mut ids = Vec::new();
    for body in [
        json!({"key": "stage", "label": "Stage", "kind": "choice", "choices": ["triage", "later"]}),
        json!({"key": "serial", "label": "Serial number", "kind": "text"}),
        json!({"key": "spare", "label": "Spare", "kind": "text"}),
    ] {
        let made = app.as_user(&admin).post("/api/custom-fields/", body).await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
        ids.push(made.json["id"].as_i64().unwrap_or_default());
    }
    let trigger = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({"name": "Triage <first>", "conditions": {"all": [{"field": "ticket.fields.stage", "operator": "is", "value": "triage"}]},
                   "actions": [{"add_tags": ["triage"]}]}),
        )
        .await;
    assert_eq!(trigger.status, StatusCode::CREATED, "{}", trigger.text);
    let trigger_id = trigger.json["id"].as_i64().unwrap();
    let timed = app
        .as_user(&admin)
        .post(
            "/api/automation/time-rules/",
            json!({"name": "Park", "wait": {"since": "created", "hours": 1}, "conditions": {},
                   "actions": [{"set_field": "stage", "value": "later"}]}),
        )
        .await;
    assert_eq!(timed.status, StatusCode::CREATED, "{}", timed.text);
    for (who, name, scope) in [(&admin, "Stamp", "everyone"), (&agent, "Mine", "personal")] {
        let made = app
            .as_user(who)
            .post(
                "/api/automation/macros/",
                json!({"name": name, "scope": scope, "actions": [{"set_field": "serial", "value": "SN-0"}]}),
            )
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    }
    let (stage, serial, spare) = (ids[0], ids[1], ids[2]);

    let ada = login(app, &admin).await;
    let page = ada.page(app, "/admin/fields/").await;
    assert_eq!(page.status, StatusCode::OK);
    let named = |page: &str, id: i64| -> Option<String> {
        let from = page.find(&format!("id=\"named-{id}\""))?;
        let rest = &page[from..];
        Some(rest[..rest.find("</p>").unwrap_or(rest.len())].to_string())
    };
    let of_stage = named(&page.text, stage).unwrap_or_default();
    assert!(
        of_stage.contains(&format!(
            "<a href=\"/admin/triggers/{trigger_id}/\">trigger “Triage &#60;first&#62;”</a>"
        )) && of_stage.contains("time rule “Park”"),
        "{of_stage}"
    );
    // The shared macro is named; an agent's personal macro is theirs, not the page's.
    let of_serial = named(&page.text, serial).unwrap_or_default();
    assert!(
        of_serial.contains("macro “Stamp”") && !of_serial.contains("Mine"),
        "{of_serial}"
    );
    assert_eq!(named(&page.text, spare), None);
    // Archiving a named field asks first; an unnamed one is a plain button.
    assert!(
        page.text
            .contains("aria-label=\"Archive stage\">Archive</button>")
            && page.text.contains("Rules name this field"),
        "{}",
        page.text
    );

    let archived = ada
        .form(
            app,
            "/admin/fields/change/",
            &[("id", &stage.to_string()), ("archive", "1")],
        )
        .await;
    assert_eq!(location(&archived), "/admin/fields/?done=saved");
    let page = ada.page(app, "/admin/fields/").await;
    let of_stage = named(&page.text, stage).unwrap_or_default();
    assert!(
        page.text
            .contains(&format!("class=\"field-error\" id=\"named-{stage}\""))
            && of_stage.contains("read it as unset while it is archived"),
        "{of_stage}"
    );
}
