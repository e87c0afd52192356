//! Ticket reports: known answers through GraphQL, REST (JSON and CSV) and the reports page; the team's only;
//! bad requests.
use crate::db_test;
use crate::support::graphql::{data, first_code};
use crate::support::helpers::{assert_error, TestApp, TestUser};
use crate::support::world::login;
use axum::http::StatusCode;
use chrono::{DateTime, TimeZone, Utc};
use deskgraph::service::users;
use entity::{ticket, ticket_sla};
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
use serde_json::{json, Value};

fn at(day: u32, hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, minute, 0)
        .single()
        .unwrap()
}

/// What a fixture ticket's clocks say.
#[derive(Default, Clone, Copy)]
struct Times {
    created: Option<DateTime<Utc>>,
    responded: Option<DateTime<Utc>>,
    resolved: Option<DateTime<Utc>>,
    /// First-response target: (set, breached).
    first_sla: Option<bool>,
    /// Resolution target: (set, breached).
    resolution_sla: Option<bool>,
}

/// Write a ticket's times beside the service (a report reads what the service keeps; the fixtures need
/// times in the past).
async fn set_times(app: &TestApp, id: i64, times: Times) {
    let db = &app.state.db.conn;
    let t = ticket::Entity::find_by_id(id as i32)
        .one(db)
        .await
        .unwrap()
        .unwrap();
    let mut active = t.into_active_model();
    if let Some(created) = times.created {
        active.created_at = Set(created);
    }
    active.first_responded_at = Set(times.responded);
    if times.resolved.is_some() {
        active.resolved_at = Set(times.resolved);
        active.status = Set(deskgraph::domain::TicketStatus::Resolved);
    }
    active.update(db).await.unwrap();
    if times.first_sla.is_none() && times.resolution_sla.is_none() {
        return;
    }
    let due = Some(at(1, 0, 0));
    let breached = |b: Option<bool>| b.filter(|b| *b).map(|_| at(1, 0, 0));
    ticket_sla::ActiveModel {
        ticket_id: Set(id as i32),
        policy_id: Set(None),
        paused_ms: Set(0),
        paused_since: Set(None),
        first_response_due_at: Set(times.first_sla.and(due)),
        resolution_due_at: Set(times.resolution_sla.and(due)),
        due_at: Set(None),
        first_response_at_risk_at: Set(None),
        resolution_at_risk_at: Set(None),
        first_response_breached_at: Set(breached(times.first_sla)),
        resolution_breached_at: Set(breached(times.resolution_sla)),
        updated_at: Set(at(1, 0, 0)),
        check_at_ms: Set(None),
    }
    .insert(db)
    .await
    .unwrap();
}

struct Desk {
    agent: TestUser,
    requester: TestUser,
}

/// Six tickets with known times (see the expectations in `known_figures`).
async fn desk(app: &TestApp) -> Desk {
    let admin = app.admin("ada").await;
    let agent = app.user_with("adam", &["Network"], true, false).await;
    let bob = app.user_with("bob", &["Desk"], true, false).await;
    let requester = app.user("rita").await;
    let db = &app.state.db.conn;
    let network = users::ensure_group(db, "Network").await.unwrap().id;
    let desk = users::ensure_group(db, "Desk").await.unwrap().id;
    let open = |group: Option<i32>, assignee: Option<i32>, priority: &str, title: &str| {
        let admin = &admin;
        let body = json!({"title": title, "priority": priority, "assigned_group": group,
            "assigned_to": assignee, "requester": requester.id});
        async move {
            let r = app.as_user(admin).post("/api/tickets/", body).await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
            r.json["id"].as_i64().unwrap()
        }
    };
    let t1 = open(Some(network), Some(agent.id), "high", "one").await;
    let t2 = open(Some(network), Some(agent.id), "medium", "two").await;
    let t3 = open(Some(desk), Some(bob.id), "low", "three").await;
    let t4 = open(None, None, "medium", "four").await;
    let t5 = open(Some(desk), Some(bob.id), "medium", "five").await;
    let t6 = open(None, None, "medium", "six").await;
    // A duplicate merged away: created, never resolved.
    let r = app
        .as_user(&admin)
        .post(&format!("/api/tickets/{t6}/merge/"), json!({"into": t1}))
        .await;
    assert!(r.status.is_success(), "{}", r.text);
    // Reopened once, through the service's own moves.
    for status in ["resolved", "open"] {
        let r = app
            .as_user(&admin)
            .patch(&format!("/api/tickets/{t3}/"), json!({"status": status}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let base = Times::default();
    let times = [
        (
            t1,
            Times {
                created: Some(at(2, 9, 0)),
                responded: Some(at(2, 9, 30)),
                resolved: Some(at(2, 13, 0)),
                first_sla: Some(false),
                resolution_sla: Some(false),
            },
        ),
        (
            t2,
            Times {
                created: Some(at(3, 10, 0)),
                responded: Some(at(3, 11, 30)),
                resolved: Some(at(5, 10, 0)),
                first_sla: Some(true),
                resolution_sla: Some(true),
            },
        ),
        (
            t3,
            Times {
                created: Some(at(10, 8, 0)),
                responded: Some(at(10, 8, 10)),
                first_sla: Some(false),
                ..base
            },
        ),
        (
            t4,
            Times {
                created: Some(at(11, 12, 0)),
                first_sla: Some(false),
                ..base
            },
        ),
        (
            t5,
            Times {
                created: Some(
                    Utc.with_ymd_and_hms(2026, 10, 20, 0, 0, 0)
                        .single()
                        .unwrap(),
                ),
                resolved: Some(at(12, 12, 0)),
                ..base
            },
        ),
        (
            t6,
            Times {
                created: Some(at(4, 9, 0)),
                ..base
            },
        ),
    ];
    for (id, t) in times {
        set_times(app, id, t).await;
    }
    Desk { agent, requester }
}

const REPORT: &str = "query($by: [TicketReportDimension!]) {
  ticketReport(filter: {from: \"2026-11-01\", to: \"2026-11-30\"}, groupBy: $by) {
    from to
    lines { keys { dimension value } created resolved reopened
      firstResponse { count medianMinutes p90Minutes } resolution { count medianMinutes p90Minutes }
      firstResponseSla { met missed rate } resolutionSla { met missed rate } }
    total { created resolved reopened
      firstResponse { count medianMinutes p90Minutes } resolution { count medianMinutes p90Minutes }
      firstResponseSla { met missed rate } resolutionSla { met missed rate } } } }";

async fn report(app: &TestApp, who: &TestUser, by: Value) -> Value {
    app.graphql(Some(&who.token), REPORT, json!({ "by": by }))
        .await
}

fn line<'a>(lines: &'a Value, value: Option<&str>) -> &'a Value {
    lines
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["keys"][0]["value"].as_str() == value)
        .unwrap_or_else(|| panic!("no line {value:?} in {lines}"))
}

async fn known_figures(app: &TestApp) {
    let d = desk(app).await;
    let body = report(app, &d.agent, json!([])).await;
    let total = &data(&body)["ticketReport"]["total"];
    assert_eq!(total["created"], 5, "{total}");
    assert_eq!(
        total["resolved"], 3,
        "merged duplicates are not resolved: {total}"
    );
    assert_eq!(total["reopened"], 1);
    assert_eq!(
        total["firstResponse"],
        json!({"count": 3, "medianMinutes": 30.0, "p90Minutes": 78.0})
    );
    assert_eq!(
        total["resolution"],
        json!({"count": 3, "medianMinutes": 2880.0, "p90Minutes": 27648.0})
    );
    assert_eq!(total["firstResponseSla"]["met"], 2);
    assert_eq!(total["firstResponseSla"]["missed"], 1);
    assert_eq!(
        total["resolutionSla"],
        json!({"met": 1, "missed": 1, "rate": 0.5})
    );

    let body = report(app, &d.agent, json!(["GROUP"])).await;
    let lines = &data(&body)["ticketReport"]["lines"];
    let network = line(lines, Some("Network"));
    assert_eq!(
        (network["created"].as_i64(), network["resolved"].as_i64()),
        (Some(2), Some(2))
    );
    assert_eq!(network["firstResponse"]["medianMinutes"], 60.0);
    let desk = line(lines, Some("Desk"));
    assert_eq!(
        (desk["created"].as_i64(), desk["resolved"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(desk["reopened"], 1);
    assert_eq!(desk["resolution"]["medianMinutes"], 33840.0);
    let none = line(lines, None);
    assert_eq!(
        (none["created"].as_i64(), none["resolved"].as_i64()),
        (Some(2), Some(0))
    );

    let body = report(app, &d.agent, json!(["WEEK"])).await;
    let lines = &data(&body)["ticketReport"]["lines"];
    let weeks: Vec<(&str, i64, i64)> = lines
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["keys"][0]["value"].as_str().unwrap(),
                l["created"].as_i64().unwrap(),
                l["resolved"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(weeks, [("2026-W45", 3, 2), ("2026-W46", 2, 1)]);

    // REST: the same figures, as JSON and CSV.
    let path = "/api/reports/tickets/?from=2026-11-01&to=2026-11-30&group_by=group";
    let r = app.as_user(&d.agent).get(path).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json["total"]["created"], 5);
    assert_eq!(r.json["total"]["resolution"]["median_minutes"], 2880.0);
    assert_eq!(r.json["group_by"], json!(["group"]));
    let network = r.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["keys"]["group"] == "Network")
        .unwrap();
    assert_eq!(
        network["first_response_sla"],
        json!({"met": 1, "missed": 1, "rate": 0.5})
    );
    let r = app
        .as_user(&d.agent)
        .get(&format!("{path}&format=csv"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let rows: Vec<&str> = r.text.lines().collect();
    assert!(
        rows[0].starts_with("line,group,created,resolved,reopened,"),
        "{}",
        r.text
    );
    assert!(
        rows.contains(&"line,Network,2,2,0,2,60.0,84.0,2,1560.0,2616.0,1,1,1,1,,,,,0,,"),
        "{}",
        r.text
    );
    assert!(
        rows.last()
            .unwrap()
            .starts_with("total,,5,3,1,3,30.0,78.0,"),
        "{}",
        r.text
    );

    // `metrics` names what the report is about: only the lines that have one of them, every figure given.
    let about = "query($m: [TicketReportMetric!]) {
      ticketReport(filter: {from: \"2026-11-01\", to: \"2026-11-30\"}, groupBy: [GROUP], metrics: $m) {
        lines { keys { value } created resolved } total { created resolved } } }";
    let body = app
        .graphql(Some(&d.agent.token), about, json!({"m": ["RESOLVED"]}))
        .await;
    let about_resolved = &data(&body)["ticketReport"];
    let groups: Vec<Value> = about_resolved["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["keys"][0]["value"].clone())
        .collect();
    assert_eq!(groups, [json!("Network"), json!("Desk")], "{body}");
    assert_eq!(
        about_resolved["total"]["created"], 5,
        "the total is every ticket's"
    );
    assert_eq!(
        line(&about_resolved["lines"], Some("Network"))["created"],
        2
    );
    let body = app
        .graphql(
            Some(&d.agent.token),
            about,
            json!({"m": ["CREATED", "RESOLVED"]}),
        )
        .await;
    assert_eq!(
        data(&body)["ticketReport"]["lines"]
            .as_array()
            .unwrap()
            .len(),
        3,
        "{body}"
    );
    let r = app
        .as_user(&d.agent)
        .get(&format!(
            "{path}&metrics=resolved,resolution_sla&format=csv"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        r.text,
        "line,group,resolved,resolution_sla_met,resolution_sla_missed\r\n\
         line,Network,2,1,1\r\n\
         line,Desk,1,0,0\r\n\
         total,,3,1,1\r\n"
    );
    let r = app
        .as_user(&d.agent)
        .get(&format!("{path}&metrics=resolved,speed"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.json["details"]["metrics"].is_array(), "{}", r.text);

    // The page: the month at a glance, charts with titles, the split table.
    let browser = login(app, &d.agent).await;
    let page = browser
        .page(app, "/reports/?from=2026-11-01&to=2026-11-30")
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(
        page.text.contains(r#"<dd id="glance-created">5</dd>"#),
        "{}",
        page.text
    );
    assert!(
        page.text
            .contains(r#"<dd id="glance-resolution-sla">50% (1 of 2)</dd>"#),
        "{}",
        page.text
    );
    assert!(
        page.text.contains("<title id=\"weeks-chart-title\">"),
        "{}",
        page.text
    );
    assert!(page.text.contains("2026-W45: 3 created"), "{}", page.text);
    assert!(
        page.text.contains("<th scope=\"row\">Network</th>"),
        "{}",
        page.text
    );
    assert!(
        page.text.contains(r#"href="/reports/""#),
        "the navigation offers it"
    );
    // Open now: the third and fourth tickets; by their age today.
    let band = |created: DateTime<Utc>| {
        let days = (Utc::now() - created).num_hours() as f64 / 24.0;
        match days {
            d if d < 1.0 => "Under a day",
            d if d < 3.0 => "1–3 days",
            d if d < 7.0 => "3–7 days",
            d if d < 28.0 => "1–4 weeks",
            _ => "Over 4 weeks",
        }
    };
    let mut expected = std::collections::BTreeMap::new();
    for created in [at(10, 8, 0), at(11, 12, 0)] {
        *expected.entry(band(created)).or_insert(0) += 1;
    }
    for (label, n) in expected {
        let shown = format!("<tr><th scope=\"row\">{label}</th><td>{n}</td></tr>");
        assert!(page.text.contains(&shown), "{shown} in {}", page.text);
    }
    // A bad date is said next to the form, keeping what was typed.
    let page = browser.page(app, "/reports/?from=2026-13-01").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.text.contains("The start is not a date"),
        "{}",
        page.text
    );
    assert!(page.text.contains(r#"value="2026-13-01""#), "{}", page.text);

    // Nobody but the team reads a report, through any door.
    let body = report(app, &d.requester, json!([])).await;
    assert_eq!(first_code(&body), "FORBIDDEN", "{body}");
    let r = app.as_user(&d.requester).get(path).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let browser = login(app, &d.requester).await;
    let page = browser.page(app, "/reports/").await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    let queue = browser.page(app, "/tickets/").await;
    assert!(
        !queue.text.contains(r#"href="/reports/""#),
        "{}",
        queue.text
    );
}
db_test!(known_figures);

async fn bad_requests_are_400s(app: &TestApp) {
    let agent = app.agent("adam").await;
    let client = app.as_user(&agent);
    for (query, field) in [
        ("group_by=year", "group_by"),
        ("group_by=week,month", "group_by"),
        ("group_by=group,group", "group_by"),
        ("from=2026-11-30&to=2026-11-01", "to"),
        ("from=yesterday", "from"),
        ("to=2026-02-30", "to"),
        ("from=2020-01-01&to=2026-11-01", "to"),
        ("project=abc", "project"),
        ("format=xml", "format"),
    ] {
        let r = client.get(&format!("/api/reports/tickets/?{query}")).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "validation_error");
        assert!(r.json["details"][field].is_array(), "{query}: {}", r.text);
    }
    let r = client.get("/api/reports/tickets/").await;
    assert_eq!(r.status, StatusCode::OK, "the last 30 days: {}", r.text);
    let inverted = "{ ticketReport(filter: {from: \"2026-11-30\", to: \"2026-11-01\"}) { total { created } } }";
    let body = app.graphql(Some(&agent.token), inverted, json!({})).await;
    assert_eq!(first_code(&body), "BAD_USER_INPUT", "{body}");
    let body = app
        .graphql(
            Some(&agent.token),
            "{ ticketReport(groupBy: [YEAR]) { total { created } } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_array(), "{body}");
}
db_test!(bad_requests_are_400s);

/// Back-date a ticket's last status move by `minutes`, beside the service.
async fn moved_ago(app: &TestApp, id: i64, minutes: i64) {
    let db = &app.state.db.conn;
    let t = ticket::Entity::find_by_id(id as i32)
        .one(db)
        .await
        .unwrap()
        .unwrap();
    let mut active = t.into_active_model();
    active.status_changed_at = Set(Some(Utc::now() - chrono::Duration::minutes(minutes)));
    active.update(db).await.unwrap();
}

async fn time_in_each_status_is_kept_on_every_move(app: &TestApp) {
    let admin = app.admin("ada").await;
    let as_admin = app.as_user(&admin);
    let id = as_admin.ticket_titled("Projector flickers").await["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/tickets/{id}/");
    for (status, waited) in [("in_progress", 120), ("on_hold", 30), ("resolved", 150)] {
        moved_ago(app, id, waited).await;
        let r = as_admin.patch(&path, json!({"status": status})).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let today = Utc::now().date_naive();
    let query = format!(
        "/api/reports/tickets/?from={}&to={}",
        today.pred_opt().unwrap(),
        today.succ_opt().unwrap()
    );
    let r = as_admin.get(&query).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let near = |v: &Value, minutes: f64| {
        let got = v.as_f64().unwrap_or(f64::NAN);
        assert!(
            (got - minutes).abs() < 1.0,
            "{got} against {minutes}: {}",
            r.text
        );
    };
    let total = &r.json["total"];
    assert_eq!(total["resolved"], 1);
    near(&total["time_waiting"]["median_minutes"], 120.0);
    near(&total["time_in_progress"]["median_minutes"], 180.0);
    // Reopened: counted once, and no longer resolved.
    let r = as_admin.patch(&path, json!({"status": "open"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = as_admin.get(&query).await;
    assert_eq!(r.json["total"]["reopened"], 1, "{}", r.text);
    assert_eq!(r.json["total"]["resolved"], 0, "{}", r.text);
}
db_test!(time_in_each_status_is_kept_on_every_move);

db_test!(first_response_in_business_hours);
/// The first response is kept in business time too, under the calendar of the SLA policy that governs the
/// ticket when it is answered: a ticket created on a Friday at 16:00 and answered days later took one hour of a
/// weekday 09:00–17:00 desk (the weekend is closed, and every day after it up to the answer a holiday); a ticket
/// no policy governs has its wall-clock figure only.
async fn first_response_in_business_hours(app: &TestApp) {
    use chrono::{Datelike, Duration, Weekday};
    let admin = app.admin("ada").await;
    let agent = app.agent("adam").await;
    let requester = app.user("rita").await;
    let today = Utc::now().date_naive();
    let mut friday = today - Duration::days(2);
    while friday.weekday() != Weekday::Fri {
        friday -= Duration::days(1);
    }
    // Through tomorrow, so the answer is on a holiday even when the test runs over midnight.
    let holidays: Vec<String> = (3..)
        .map(|d| friday + Duration::days(d))
        .take_while(|d| *d <= today + Duration::days(1))
        .map(|d| d.to_string())
        .collect();
    let hours: Vec<Value> = ["MON", "TUE", "WED", "THU", "FRI"]
        .iter()
        .map(|day| json!({"day": day, "open": "09:00", "close": "17:00"}))
        .collect();
    let made = crate::support::sla::create_policy(
        app,
        &admin.token,
        json!({"name": "Office hours", "priority": "HIGH", "firstResponseMinutes": 240,
            "resolutionMinutes": 2400,
            "calendar": {"timeZone": "UTC", "hours": hours, "holidays": holidays}}),
    )
    .await;
    assert!(
        made["data"]["createSlaPolicy"]["slaPolicy"]["id"].is_string(),
        "{made}"
    );
    let created_at = friday.and_hms_opt(16, 0, 0).unwrap().and_utc();
    for priority in ["high", "low"] {
        let r = app
            .as_user(&requester)
            .post(
                "/api/tickets/",
                json!({"title": priority, "priority": priority}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let id = r.json["id"].as_i64().unwrap();
        let db = &app.state.db.conn;
        let mut t = ticket::Entity::find_by_id(id as i32)
            .one(db)
            .await
            .unwrap()
            .unwrap()
            .into_active_model();
        t.created_at = Set(created_at);
        t.update(db).await.unwrap();
        // The first answer counts; a later one changes nothing.
        for content in ["On it", "Still on it"] {
            let answered = app
                .as_user(&agent)
                .post(
                    &format!("/api/tickets/{id}/comments/"),
                    json!({"content": content, "comment_type": "public"}),
                )
                .await;
            assert_eq!(answered.status, StatusCode::CREATED, "{}", answered.text);
        }
    }

    let query = "query($from: Date!, $to: Date!) {
      ticketReport(filter: {from: $from, to: $to}, groupBy: [PRIORITY], metrics: [FIRST_RESPONSE_BUSINESS]) {
        lines { keys { value } firstResponseBusiness { count medianMinutes } }
        total { firstResponse { count medianMinutes }
          firstResponseBusiness { count medianMinutes p90Minutes } } } }";
    let period = json!({"from": friday.to_string(), "to": today.to_string()});
    let body = app.graphql(Some(&agent.token), query, period).await;
    let report = &data(&body)["ticketReport"];
    assert_eq!(report["total"]["firstResponse"]["count"], 2, "{body}");
    assert!(
        report["total"]["firstResponse"]["medianMinutes"]
            .as_f64()
            .unwrap()
            > 24.0 * 60.0,
        "{body}"
    );
    assert_eq!(
        report["total"]["firstResponseBusiness"],
        json!({"count": 1, "medianMinutes": 60.0, "p90Minutes": 60.0})
    );
    // Only the line that has the figure: the ticket the policy governed.
    assert_eq!(
        report["lines"],
        json!([{"keys": [{"value": "high"}], "firstResponseBusiness": {"count": 1, "medianMinutes": 60.0}}])
    );

    let path = format!("/api/reports/tickets/?from={friday}&to={today}");
    let r = app.as_user(&agent).get(&path).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        r.json["total"]["first_response_business"]["median_minutes"],
        60.0
    );
    let r = app
        .as_user(&agent)
        .get(&format!(
            "{path}&format=csv&metrics=first_response_business"
        ))
        .await;
    assert_eq!(
        r.text,
        "line,first_response_business_count,first_response_business_median_minutes,\
         first_response_business_p90_minutes\r\nline,1,60.0,60.0\r\ntotal,1,60.0,60.0\r\n"
    );
    // The same report's every column keeps the figures it had, the new ones last.
    let r = app.as_user(&agent).get(&format!("{path}&format=csv")).await;
    let header = r.text.lines().next().unwrap_or_default().to_string();
    assert!(
        header.starts_with("line,created,resolved,reopened,first_response_count,")
            && header.ends_with(",first_response_business_p90_minutes"),
        "{header}"
    );
    // Requesters read no report.
    let r = app.as_user(&requester).get(&path).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
}
