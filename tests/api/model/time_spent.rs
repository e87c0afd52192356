//! Time spent: logged by those who work on a ticket, never shown to requesters, reported to the team by
//! agent, group, project and month, as JSON and CSV, and through GraphQL and the comment form.
use crate::db_test;
use crate::support::helpers::{assert_error, TestApp};
use crate::support::pages::location;
use axum::http::StatusCode;
use serde_json::json;

db_test!(agents_log_time_and_requesters_never_see_it);
async fn agents_log_time_and_requesters_never_see_it(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let bob = app.agent("bob").await;
    let admin = app.admin("ada").await;
    let rita = app.user("rita").await;
    let t = app.as_user(&rita).ticket_titled("Printer jams").await;
    let id = t["id"].as_i64().unwrap();
    let path = format!("/api/tickets/{id}/time/");

    let logged = app
        .as_user(&agent)
        .post(
            &path,
            json!({"minutes": 15, "spent_on": "2026-11-20", "activity": "Support"}),
        )
        .await;
    assert_eq!(logged.status, StatusCode::CREATED, "{}", logged.text);
    assert_eq!(logged.json["minutes"], 15);
    assert_eq!(logged.json["username"], "agnes");
    assert_eq!(logged.json["spent_on"], "2026-11-20");
    assert_eq!(logged.json["billable"], true);
    assert_eq!(logged.json["activity"], "support");
    let second = app
        .as_user(&bob)
        .post(
            &path,
            json!({"minutes": 45, "billable": false, "spent_on": "2026-10-02"}),
        )
        .await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.text);
    let shown = app.as_user(&agent).get(&path).await;
    assert_eq!(shown.json["total_minutes"], 60);
    assert_eq!(shown.json["entries"].as_array().unwrap().len(), 2);

    // Bad input is a 400 naming the field; nothing is logged.
    for (body, field) in [
        (json!({}), "minutes"),
        (json!({"minutes": 0}), "minutes"),
        (json!({"minutes": 1441}), "minutes"),
        (json!({"minutes": "15"}), "minutes"),
        (json!({"minutes": 5, "spent_on": "yesterday"}), "spent_on"),
        (json!({"minutes": 5, "spent_on": "2999-01-01"}), "spent_on"),
        (
            json!({"minutes": 5, "activity": "x".repeat(51)}),
            "activity",
        ),
        (json!({"minutes": 5, "comment": 999999}), "comment"),
    ] {
        let r = app.as_user(&agent).post(&path, body.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "validation_error");
        assert!(r.json["details"][field].is_array(), "{body}: {}", r.text);
    }
    assert_eq!(
        app.as_user(&agent).get(&path).await.json["total_minutes"],
        60
    );

    // The requester sees no time through any door.
    assert_error(
        &app.as_user(&rita).get(&path).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &app.as_user(&rita).post(&path, json!({"minutes": 5})).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &app.as_user(&rita).get("/api/time-entries/").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let q = "query($n: Int!) { ticket(databaseId: $n) { timeSpent history(first: 50) { nodes { action } } } }";
    let as_rita = app.as_user(&rita).graphql_data(q, json!({"n": id})).await;
    assert_eq!(as_rita["ticket"]["timeSpent"], json!(null));
    assert!(!as_rita.to_string().contains("log_time"), "{as_rita}");
    let as_agent = app.as_user(&agent).graphql_data(q, json!({"n": id})).await;
    assert_eq!(as_agent["ticket"]["timeSpent"], 60);
    assert!(as_agent.to_string().contains("log_time"), "{as_agent}");
    let refused = app
        .as_user(&rita)
        .graphql("{ timeEntries { totalMinutes } }", json!({}))
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );

    // Only its author or an admin removes an entry.
    let entry = second.json["id"].as_i64().unwrap();
    assert_error(
        &app.as_user(&agent).delete(&format!("{path}{entry}/")).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let first = logged.json["id"].as_i64().unwrap();
    assert_eq!(
        app.as_user(&admin)
            .delete(&format!("{path}{first}/"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.as_user(&agent).get(&path).await.json["total_minutes"],
        45
    );
}

db_test!(reports_add_time_up_by_agent_project_and_month);
async fn reports_add_time_up_by_agent_project_and_month(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let bob = app.agent("bob").await;
    let rita = app.user("rita").await;
    let office = app.project("Office").await;
    let one = app
        .as_user(&rita)
        .create_ticket(json!({"title": "One", "project": office.id}))
        .await["id"]
        .as_i64()
        .unwrap();
    let two = app.as_user(&rita).ticket_titled("Two").await["id"]
        .as_i64()
        .unwrap();
    for (who, ticket, minutes, day, billable) in [
        (&agent, one, 30, "2026-10-05", true),
        (&agent, two, 15, "2026-11-01", false),
        (&bob, one, 60, "2026-11-03", true),
    ] {
        let r = app
            .as_user(who)
            .post(
                &format!("/api/tickets/{ticket}/time/"),
                json!({"minutes": minutes, "spent_on": day, "billable": billable, "activity": "=cmd"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let all = app
        .as_user(&agent)
        .get("/api/time-entries/?group_by=agent")
        .await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.text);
    assert_eq!(
        (
            all.json["total_minutes"].as_i64(),
            all.json["billable_minutes"].as_i64()
        ),
        (Some(105), Some(90))
    );
    assert_eq!(
        all.json["groups"],
        json!([
            {"key": bob.id.to_string(), "minutes": 60, "billable_minutes": 60},
            {"key": agent.id.to_string(), "minutes": 45, "billable_minutes": 30}
        ])
    );
    let by_month = app
        .as_user(&agent)
        .get("/api/time-entries/?group_by=month&from=2026-11-01")
        .await;
    assert_eq!(
        by_month.json["groups"],
        json!([{"key": "2026-11", "minutes": 75, "billable_minutes": 60}])
    );
    let by_project = app
        .as_user(&agent)
        .get(&format!(
            "/api/time-entries/?project={}&group_by=project",
            office.id
        ))
        .await;
    assert_eq!(by_project.json["total_minutes"], 90);
    assert_eq!(by_project.json["groups"][0]["key"], office.id.to_string());
    let mine = app
        .as_user(&agent)
        .get(&format!(
            "/api/time-entries/?user={}&billable=false",
            agent.id
        ))
        .await;
    assert_eq!(mine.json["total_minutes"], 15);
    assert_error(
        &app.as_user(&agent)
            .get("/api/time-entries/?group_by=planet")
            .await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );
    assert_error(
        &app.as_user(&agent)
            .get("/api/time-entries/?from=11/01/2026")
            .await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );

    // CSV, with a formula-looking cell defused.
    let csv = app
        .as_user(&agent)
        .get("/api/time-entries/?format=csv")
        .await;
    assert_eq!(csv.status, StatusCode::OK);
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(
        lines[0],
        "id,ticket,spent_on,username,minutes,billable,activity"
    );
    assert_eq!(lines.len(), 4, "{}", csv.text);
    assert!(lines[1].contains(",bob,60,true,'=cmd"), "{}", csv.text);

    // GraphQL: the same report.
    let data = app
        .as_user(&agent)
        .graphql_data(
            "{ timeEntries(groupBy: MONTH) { totalMinutes billableMinutes groups { key minutes } entries { username minutes spentOn } } }",
            json!({}),
        )
        .await;
    assert_eq!(data["timeEntries"]["totalMinutes"], 105);
    assert_eq!(
        data["timeEntries"]["groups"],
        json!([{"key": "2026-11", "minutes": 75}, {"key": "2026-10", "minutes": 30}])
    );
    assert_eq!(data["timeEntries"]["entries"][0]["spentOn"], "2026-11-03");
}

db_test!(time_goes_in_with_a_comment_from_the_page);
async fn time_goes_in_with_a_comment_from_the_page(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let id = app.as_user(&rita).ticket_titled("VPN").await["id"]
        .as_i64()
        .unwrap();
    let browser = crate::support::world::login(app, &agent).await;
    let posted = browser
        .form(
            app,
            &format!("/tickets/{id}/comments/new/"),
            &[
                ("body", "Reset the token"),
                ("comment_type", "internal"),
                ("minutes", "15"),
            ],
        )
        .await;
    assert!(
        location(&posted).starts_with(&format!("/tickets/{id}/#comment-")),
        "{}",
        posted.text
    );
    let page = browser.page(app, &format!("/tickets/{id}/")).await;
    assert!(page.text.contains("0h 15m"), "{}", page.text);
    let shown = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/time/"))
        .await;
    assert_eq!(shown.json["total_minutes"], 15);
    assert!(
        shown.json["entries"][0]["comment"].is_i64(),
        "{}",
        shown.text
    );
    let bad = browser
        .form(
            app,
            &format!("/tickets/{id}/comments/new/"),
            &[("body", "More"), ("minutes", "lots")],
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    let comments = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/comments/"))
        .await;
    assert_eq!(
        comments.json["count"]
            .as_i64()
            .or(comments.json.as_array().map(|a| a.len() as i64)),
        Some(1),
        "{}",
        comments.text
    );

    let requester = crate::support::world::login(app, &rita).await;
    let own = requester.page(app, &format!("/tickets/{id}/")).await;
    assert!(
        !own.text.contains("Time spent") && !own.text.contains("comment-minutes"),
        "{}",
        own.text
    );
    let refused = requester
        .form(
            app,
            &format!("/tickets/{id}/comments/new/"),
            &[("body", "Mine"), ("minutes", "5")],
        )
        .await;
    assert_eq!(refused.status, 403, "{}", refused.text);
}
