//! `/admin/sla/`: administrators add, change and remove SLA policies with their business-hours calendar in the
//! browser; what they save is what GraphQL reads and what new tickets are clocked by.
use crate::db_test;
use crate::support::helpers::TestApp;
use crate::support::pages::location;
use crate::support::sla::POLICY_FIELDS;
use crate::support::world::login;
use axum::http::StatusCode;
use entity::ticket_sla;
use sea_orm::EntityTrait;
use serde_json::{json, Value};

/// The office week a form posts: Monday to Friday, 09:00 to 17:00.
const WEEKDAYS: [&str; 5] = ["mon", "tue", "wed", "thu", "fri"];

fn office_week(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = WEEKDAYS
        .iter()
        .flat_map(|d| {
            [
                (format!("open_{d}"), "09:00".to_string()),
                (format!("close_{d}"), "17:00".to_string()),
            ]
        })
        .collect();
    fields.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    fields
}

fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

async fn policies(app: &TestApp, token: &str) -> Value {
    let query = format!("{{ slaPolicies {{ {POLICY_FIELDS} }} }}");
    let body = app.graphql(Some(token), &query, json!({})).await;
    body["data"]["slaPolicies"].clone()
}

db_test!(an_admin_keeps_the_sla_policies_and_their_calendar_on_the_page);
async fn an_admin_keeps_the_sla_policies_and_their_calendar_on_the_page(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let requester = app.user("rita").await;
    let ada = login(app, &admin).await;

    let page = ada.page(app, "/admin/sla/").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(page.text.contains("No SLA policy yet"), "{}", page.text);
    // A new policy's form starts on office hours.
    assert!(page.text.contains(r#"name="open_mon" type="text""#));
    assert!(page.text.contains(r#"value="09:00""#));

    // Half a day's hours, or a date that is not one, is refused next to the form, and nothing is saved.
    for (field, value, says) in [
        ("close_sat", "", "sat: give both"),
        ("holidays", "25.12.2026", "is not a date"),
    ] {
        let mut fields = office_week(&[
            ("name", "Office"),
            ("priority", "high"),
            ("first_response_minutes", "60"),
            ("resolution_minutes", "480"),
            ("open_sat", "10:00"),
        ]);
        fields.retain(|(k, _)| k != field);
        fields.push((field.to_string(), value.to_string()));
        if field == "holidays" {
            fields.retain(|(k, _)| k != "open_sat");
        }
        let refused = ada.form(app, "/admin/sla/", &pairs(&fields)).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(refused.text.contains("role=\"alert\""), "{}", refused.text);
        assert!(refused.text.contains(says), "{says}: {}", refused.text);
    }
    assert_eq!(policies(app, &admin.token).await, json!([]));

    let fields = office_week(&[
        ("name", "Office"),
        ("priority", "high"),
        ("first_response_minutes", "60"),
        ("resolution_minutes", "480"),
        ("time_zone", "Europe/Berlin"),
        ("holidays", "2026-12-24\r\n2026-12-25"),
        ("pause", "on_hold"),
    ]);
    let made = ada.form(app, "/admin/sla/", &pairs(&fields)).await;
    assert_eq!(location(&made), "/admin/sla/?done=created");
    let saved = policies(app, &admin.token).await;
    let policy = &saved[0];
    assert_eq!(policy["name"], "Office", "{saved}");
    assert_eq!(policy["priority"], "HIGH");
    assert_eq!(policy["firstResponseMinutes"], 60);
    assert_eq!(policy["calendar"]["timeZone"], "Europe/Berlin");
    assert_eq!(
        policy["calendar"]["hours"].as_array().map(Vec::len),
        Some(5)
    );
    assert_eq!(
        policy["calendar"]["holidays"],
        json!(["2026-12-24", "2026-12-25"])
    );
    assert_eq!(policy["pauseStatuses"], json!(["ON_HOLD"]));
    let id = policy["databaseId"].as_i64().unwrap().to_string();

    // A new ticket of that priority is clocked by it.
    let ticket = app
        .as_user(&requester)
        .post(
            "/api/tickets/",
            json!({"title": "VPN down", "priority": "high"}),
        )
        .await;
    assert_eq!(ticket.status, StatusCode::CREATED, "{}", ticket.text);
    let clock = ticket_sla::Entity::find_by_id(ticket.json["id"].as_i64().unwrap() as i32)
        .one(&app.state.db.conn)
        .await
        .unwrap()
        .expect("a clock");
    assert_eq!(clock.policy_id.map(i64::from), id.parse().ok());
    assert!(clock.first_response_due_at.is_some());

    // The page shows what was saved, and a change replaces it.
    let page = ada.page(app, "/admin/sla/").await;
    assert!(
        page.text.contains("2026-12-24\n2026-12-25"),
        "{}",
        page.text
    );
    assert!(page.text.contains(r#"value="Europe/Berlin""#));
    let mut fields = office_week(&[
        ("id", id.as_str()),
        ("name", "Office, all week"),
        ("priority", "high"),
        ("first_response_minutes", "30"),
        ("resolution_minutes", "480"),
        ("time_zone", "UTC"),
        ("open_sat", "10:00"),
        ("close_sat", "14:00"),
        ("pause", "on_hold"),
        ("pause", "blocked"),
    ]);
    fields.retain(|(k, _)| !k.ends_with("_sun"));
    let changed = ada.form(app, "/admin/sla/change/", &pairs(&fields)).await;
    assert_eq!(location(&changed), "/admin/sla/?done=saved");
    let policy = &policies(app, &admin.token).await[0];
    assert_eq!(policy["name"], "Office, all week");
    assert_eq!(policy["firstResponseMinutes"], 30);
    assert_eq!(policy["calendar"]["holidays"], json!([]));
    assert!(policy["calendar"]["hours"]
        .as_array()
        .unwrap()
        .contains(&json!({"day": "SAT", "open": "10:00", "close": "14:00"})));
    assert_eq!(policy["pauseStatuses"], json!(["ON_HOLD", "BLOCKED"]));

    // Only administrators: an agent gets the 403 page and changes nothing.
    let agnes = login(app, &agent).await;
    assert_eq!(
        agnes.page(app, "/admin/sla/").await.status,
        StatusCode::FORBIDDEN
    );
    let refused = agnes
        .form(app, "/admin/sla/change/", &[("id", &id), ("delete", "1")])
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        policies(app, &admin.token).await.as_array().map(Vec::len),
        Some(1)
    );

    let removed = ada
        .form(app, "/admin/sla/change/", &[("id", &id), ("delete", "1")])
        .await;
    assert_eq!(location(&removed), "/admin/sla/?done=deleted");
    assert_eq!(policies(app, &admin.token).await, json!([]));
}
