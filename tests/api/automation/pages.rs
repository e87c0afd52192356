//! The trigger pages without JavaScript: an administrator builds a rule from rows (no JSON), names groups and
//! people by name, reorders and removes triggers; everyone else gets the 403 page.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::location;
use crate::support::world::login;
use axum::http::StatusCode;
use serde_json::json;

/// The fields of one posted editor: settings, then condition rows, then action rows (blank rows included,
/// as a browser sends them).
fn editor<'a>(
    name: &'a str,
    conditions: &[(&'a str, &'a str, &'a str, &'a str)],
    actions: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![("name", name), ("project", ""), ("active", "true")];
    for (list, field, op, value) in conditions.iter().chain(&[("all", "", "is", "")]) {
        fields.extend([
            ("cond_list", *list),
            ("cond_field", *field),
            ("cond_op", *op),
            ("cond_value", *value),
        ]);
    }
    for (kind, value) in actions.iter().chain(&[("", "")]) {
        fields.extend([("act_kind", *kind), ("act_value", *value)]);
    }
    fields
}

db_test!(admins_build_triggers_from_rows_on_the_pages);
async fn admins_build_triggers_from_rows_on_the_pages(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let ann = app.user("ann").await;
    for who in [&bob, &ann] {
        let browser = login(app, who).await;
        assert_eq!(
            browser.page(app, "/admin/triggers/").await.status,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            browser.page(app, "/admin/triggers/new/").await.status,
            StatusCode::FORBIDDEN
        );
        let posted = browser
            .form(
                app,
                "/admin/triggers/",
                &editor("x", &[], &[("priority", "low")]),
            )
            .await;
        assert_eq!(posted.status, StatusCode::FORBIDDEN);
    }
    let admin = login(app, &root).await;
    let made = admin
        .form(app, "/admin/groups/", &[("name", "Network")])
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text);
    let empty = admin.page(app, "/admin/triggers/").await;
    assert_eq!(empty.status, StatusCode::OK, "{}", empty.text);
    assert!(empty.text.contains("No trigger yet."));
    let blank = admin.page(app, "/admin/triggers/new/").await;
    assert_eq!(blank.status, StatusCode::OK);
    assert!(blank.text.contains("name=\"cond_field\""), "{}", blank.text);

    // A name that names nothing is refused with the editor and the reason, what was typed kept.
    let refused = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Route VPN",
                &[("all", "ticket.title", "contains", "vpn")],
                &[("assigned_group", "Networking")],
            ),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(refused.text.contains("no group named"), "{}", refused.text);
    assert!(
        refused.text.contains("value=\"Route VPN\""),
        "{}",
        refused.text
    );

    let saved = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Route VPN",
                &[
                    ("all", "event", "is", "created"),
                    ("all", "ticket.title", "contains", "vpn"),
                    ("any", "ticket.priority", "one_of", "medium, high"),
                    ("any", "actor.role", "is", "requester"),
                ],
                &[
                    ("assigned_group", "network"),
                    ("assigned_to", "bob"),
                    ("note", "For {{assignee.full_name}}: {{ticket.number}}"),
                    (
                        "notify_user",
                        "bob\nVPN ticket {{ticket.number}}\nHave a look.\nThanks.",
                    ),
                    ("assign_round_robin", ""),
                ],
            ),
        )
        .await;
    let page_path = location(&saved);
    assert!(page_path.starts_with("/admin/triggers/"), "{page_path}");
    // Stored in the rule language, as REST shows it.
    let listed = app
        .as_user(&root)
        .get("/api/automation/triggers/")
        .await
        .json;
    let stored = &listed[0];
    assert_eq!(stored["name"], "Route VPN");
    assert_eq!(
        stored["conditions"]["any"],
        json!([
            {"field": "ticket.priority", "operator": "one_of", "value": ["medium", "high"]},
            {"field": "actor.role", "operator": "is", "value": "requester"}
        ])
    );
    assert_eq!(
        stored["actions"][1],
        json!({"set": "assigned_to", "value": bob.id})
    );
    assert_eq!(stored["actions"][2]["internal"], true);
    // The editor shows names again, not ids.
    let shown = admin.page(app, &page_path).await;
    assert_eq!(shown.status, StatusCode::OK);
    assert!(
        shown.text.contains("value=\"medium, high\""),
        "{}",
        shown.text
    );
    assert!(shown.text.contains(">Network</textarea>"), "{}", shown.text);
    assert!(shown.text.contains(">bob</textarea>"), "{}", shown.text);
    assert_eq!(
        stored["actions"][3],
        json!({"notify": {"user": bob.id}, "subject": "VPN ticket {{ticket.number}}", "body": "Have a look.\nThanks."})
    );
    assert_eq!(
        stored["actions"][4],
        json!({"assign": "round_robin", "group": null})
    );
    assert!(
        shown
            .text
            .contains(">bob\nVPN ticket {{ticket.number}}\nHave a look.\nThanks.</textarea>"),
        "{}",
        shown.text
    );

    // It runs.
    let t = app.as_user(&ann).ticket_titled("VPN down").await;
    let seen = app
        .as_user(&bob)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { assignee { username } assignedGroup { name } } }",
            json!({"n": t["id"]}),
        )
        .await;
    assert_eq!(seen["ticket"]["assignee"]["username"], "bob", "{seen}");
    assert_eq!(seen["ticket"]["assignedGroup"]["name"], "Network");

    // A second one, moved above the first, then switched off through the editor and removed.
    let second = location(
        &admin
            .form(
                app,
                "/admin/triggers/",
                &editor(
                    "Escalate",
                    &[("all", "ticket.title", "starts_with", "urgent")],
                    &[("priority", "critical")],
                ),
            )
            .await,
    );
    let second = second.split('?').next().unwrap().to_string();
    let second_id = second
        .trim_start_matches("/admin/triggers/")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let moved = admin
        .form(
            app,
            &format!("/admin/triggers/{second_id}/move/"),
            &[("direction", "up")],
        )
        .await;
    assert_eq!(location(&moved), "/admin/triggers/?done=moved");
    let names: Vec<String> = app
        .as_user(&root)
        .get("/api/automation/triggers/")
        .await
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["Escalate", "Route VPN"]);
    let mut off = editor(
        "Escalate",
        &[("all", "ticket.title", "starts_with", "urgent")],
        &[("priority", "critical")],
    );
    off.retain(|(k, _)| *k != "active");
    let saved = admin.form(app, &second, &off).await;
    assert_eq!(location(&saved), format!("{second}?done=saved"));
    let list = admin.page(app, "/admin/triggers/").await;
    assert!(
        list.text.contains("<span class=\"badge\">Off</span>"),
        "{}",
        list.text
    );
    let gone = admin.form(app, &format!("{second}delete/"), &[]).await;
    assert_eq!(location(&gone), "/admin/triggers/?done=deleted");
    assert_eq!(admin.page(app, &second).await.status, StatusCode::NOT_FOUND);
}

db_test!(admins_build_time_rules_on_the_pages_and_count_what_they_would_do);
async fn admins_build_time_rules_on_the_pages_and_count_what_they_would_do(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let browser = login(app, &bob).await;
    assert_eq!(
        browser.page(app, "/admin/time-rules/").await.status,
        StatusCode::FORBIDDEN
    );
    let admin = login(app, &root).await;
    let empty = admin.page(app, "/admin/time-rules/").await;
    assert_eq!(empty.status, StatusCode::OK, "{}", empty.text);
    assert!(empty.text.contains("No time rule yet."));
    let blank = admin.page(app, "/admin/time-rules/new/").await;
    assert_eq!(blank.status, StatusCode::OK);
    // Only the ticket's own fields: no event, actor or change rows.
    assert!(blank.text.contains("name=\"hours\""), "{}", blank.text);
    assert!(!blank.text.contains("value=\"event\""), "{}", blank.text);
    assert!(
        !blank.text.contains("value=\"changed_to\""),
        "{}",
        blank.text
    );

    let rows = |hours: &'static str| {
        let mut fields = editor(
            "Nudge",
            &[("all", "ticket.status", "is", "on_hold")],
            &[("comment", "Still waiting?")],
        );
        fields.extend([
            ("hours", hours),
            ("since", "status_changed"),
            ("business_hours", "true"),
        ]);
        fields
    };
    let refused = admin.form(app, "/admin/time-rules/", &rows("soon")).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(refused.text.contains("wait.hours"), "{}", refused.text);
    assert!(refused.text.contains("value=\"soon\""), "{}", refused.text);

    let made = admin.form(app, "/admin/time-rules/", &rows("72")).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text);
    let page = location(&made);
    let shown = admin.page(app, &page).await;
    assert!(shown.text.contains("Time rule added."), "{}", shown.text);
    let listed = admin.page(app, "/admin/time-rules/").await;
    assert!(
        listed
            .text
            .contains("72 business hours after its status last changed"),
        "{}",
        listed.text
    );
    // A wait before an SLA target is picked among the moments; it counts clock hours back from the target.
    let mut before = rows("2");
    before.retain(|(k, _)| *k != "since" && *k != "name");
    before.extend([("since", "first_response_due"), ("name", "Answer soon")]);
    let refused = admin.form(app, "/admin/time-rules/", &before).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.text.contains("wait.business_hours"),
        "{}",
        refused.text
    );
    before.retain(|(k, _)| *k != "business_hours");
    let made = admin.form(app, "/admin/time-rules/", &before).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text);
    let listed = admin.page(app, "/admin/time-rules/").await;
    assert!(
        listed
            .text
            .contains("2 hours before the first response is due"),
        "{}",
        listed.text
    );
    let edited = admin
        .page(app, location(&made).split('?').next().unwrap())
        .await;
    assert!(
        edited
            .text
            .contains("<option value=\"first_response_due\" selected>"),
        "{}",
        edited.text
    );
    let stored = app.as_user(&root).get("/api/automation/time-rules/").await;
    let answer_soon = stored
        .json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Answer soon");
    assert_eq!(
        answer_soon.unwrap()["wait"],
        json!({"before": "first_response_due", "hours": 2, "business_hours": false})
    );
    let removed = admin
        .form(
            app,
            &format!("/admin/time-rules/{}/delete/", answer_soon.unwrap()["id"]),
            &[],
        )
        .await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER);
    let stored = app.as_user(&root).get("/api/automation/time-rules/").await;
    assert_eq!(
        stored.json[0]["wait"],
        json!({"since": "status_changed", "hours": 72, "business_hours": true})
    );
    assert_eq!(
        stored.json[0]["conditions"]["all"][0],
        json!({"field": "ticket.status", "operator": "is", "value": "on_hold"})
    );

    let path = page.split('?').next().unwrap().to_string();
    let counted = admin.form(app, &format!("{path}dry-run/"), &[]).await;
    assert_eq!(counted.status, StatusCode::OK, "{}", counted.text);
    assert!(
        counted.text.contains("It would act on 0 tickets now."),
        "{}",
        counted.text
    );
    let removed = admin.form(app, &format!("{path}delete/"), &[]).await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER);
    assert!(admin
        .page(app, "/admin/time-rules/")
        .await
        .text
        .contains("No time rule yet."));
}
