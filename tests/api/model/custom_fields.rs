//! Custom fields through every door: an admin's definitions, typed values on the ticket (REST
//! `custom_fields`, GraphQL `fields` and `setTicketFields`), what a requester may see, set and filter on, the
//! required fields of a status category, project fields, archiving, the limit per ticket, the audit trail,
//! the webhook and the statement count of pages with fifty fields.
use crate::db_test;
use crate::support::events::{hooked, outbox_rows, Mode, Receiver};
use crate::support::helpers::{assert_error, TestApp, TestUser};
use axum::http::StatusCode;
use deskgraph::config::Config;
use deskgraph::service::tickets::{self, TicketPatch};
use serde_json::{json, Value};

async fn define(app: &TestApp, admin: &TestUser, body: Value) -> Value {
    let made = app.as_user(admin).post("/api/custom-fields/", body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    made.json
}

/// The hardware team's fields: a serial number, a warranty date, a device choice, accessories, and the
/// team's own cost estimate.
async fn hardware_fields(app: &TestApp, admin: &TestUser) {
    define(
        app,
        admin,
        json!({"key": "serial", "label": "Serial number", "kind": "text"}),
    )
    .await;
    define(
        app,
        admin,
        json!({"key": "warranty", "label": "Warranty until", "kind": "date"}),
    )
    .await;
    define(
        app,
        admin,
        json!({"key": "device", "label": "Device", "kind": "choice", "choices": ["Laptop", "Desktop", "Phone"]}),
    )
    .await;
    define(
        app,
        admin,
        json!({"key": "extras", "label": "Accessories", "kind": "multi_choice", "choices": ["Dock", "Mouse", "Charger"]}),
    )
    .await;
    define(
        app,
        admin,
        json!({"key": "cost", "label": "Cost estimate", "kind": "number", "team_only": true}),
    )
    .await;
}

fn field_error<'a>(response: &'a crate::support::helpers::TestResponse, key: &str) -> &'a Value {
    assert_error(response, StatusCode::BAD_REQUEST, "validation_error");
    let found = &response.json["details"][key];
    assert!(found.is_array(), "no error on {key}: {}", response.text);
    found
}

db_test!(an_admin_defines_fields_and_every_door_reads_and_writes_them_typed);
async fn an_admin_defines_fields_and_every_door_reads_and_writes_them_typed(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let sam = app.user("sam").await;

    // Only admins define fields; everyone signed in reads the ones they may see.
    assert_error(
        &app.as_user(&agent)
            .post(
                "/api/custom-fields/",
                json!({"key": "x", "label": "X", "kind": "text"}),
            )
            .await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    hardware_fields(app, &admin).await;
    let bad = app
        .as_user(&admin)
        .post(
            "/api/custom-fields/",
            json!({"key": "Serial No", "label": "X", "kind": "text"}),
        )
        .await;
    field_error(&bad, "key");
    let taken = app
        .as_user(&admin)
        .post(
            "/api/custom-fields/",
            json!({"key": "serial", "label": "X", "kind": "text"}),
        )
        .await;
    field_error(&taken, "key");
    let no_choices = app
        .as_user(&admin)
        .post(
            "/api/custom-fields/",
            json!({"key": "size", "label": "Size", "kind": "choice"}),
        )
        .await;
    field_error(&no_choices, "choices");
    let keys = |body: &Value| -> Vec<String> {
        body.as_array()
            .unwrap()
            .iter()
            .map(|f| f["key"].as_str().unwrap().to_string())
            .collect()
    };
    let listed = app.as_user(&agent).get("/api/custom-fields/").await;
    assert_eq!(
        keys(&listed.json),
        ["serial", "warranty", "device", "extras", "cost"]
    );
    let as_rita = app.as_user(&rita).get("/api/custom-fields/").await;
    assert_eq!(
        keys(&as_rita.json),
        ["serial", "warranty", "device", "extras"]
    );
    let cost_id = listed.json[4]["id"].as_i64().unwrap();
    assert_error(
        &app.as_user(&rita)
            .get(&format!("/api/custom-fields/{cost_id}/"))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    // Rita opens a ticket with her laptop's serial; the team-only field is not hers to set.
    let refused = app
        .as_user(&rita)
        .post(
            "/api/tickets/",
            json!({"title": "Laptop fan", "custom_fields": {"serial": "SN-1", "cost": 5}}),
        )
        .await;
    assert_eq!(
        field_error(&refused, "custom_fields.cost")[0],
        "no such field on this ticket"
    );
    let created = app
        .as_user(&rita)
        .create_ticket(json!({
            "title": "Laptop fan",
            "custom_fields": {"serial": "  SN-1 ", "device": "laptop", "extras": ["Mouse", "Dock"]}
        }))
        .await;
    let id = created["id"].as_i64().unwrap();
    let path = format!("/api/tickets/{id}/");

    // Wrong types and unknown choices name their keys, all at once, and change nothing.
    let wrong = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"custom_fields": {"warranty": "next year", "device": "Tablet", "cost": "12", "nope": 1}}),
        )
        .await;
    for key in ["warranty", "device", "cost", "nope"] {
        field_error(&wrong, &format!("custom_fields.{key}"));
    }
    let fixed = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"custom_fields": {"warranty": "2027-03-31", "cost": 129.5}, "priority": "high"}),
        )
        .await;
    assert_eq!(fixed.status, StatusCode::OK, "{}", fixed.text);

    let as_agent = app.as_user(&agent).get(&path).await.json;
    assert_eq!(
        as_agent["custom_fields"],
        json!({"serial": "SN-1", "warranty": "2027-03-31", "device": "Laptop",
               "extras": ["Dock", "Mouse"], "cost": 129.5})
    );
    assert_eq!(as_agent["priority"], "high");
    let as_rita = app.as_user(&rita).get(&path).await.json;
    assert_eq!(
        as_rita["custom_fields"],
        json!({"serial": "SN-1", "warranty": "2027-03-31", "device": "Laptop", "extras": ["Dock", "Mouse"]})
    );
    assert!(!as_rita.to_string().contains("129.5"), "{as_rita}");
    assert_error(
        &app.as_user(&sam).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    // Rita may change her own ticket's fields, and clear one.
    let cleared = app
        .as_user(&rita)
        .patch(
            &path,
            json!({"custom_fields": {"extras": [], "serial": "SN-2"}}),
        )
        .await;
    assert_eq!(cleared.status, StatusCode::OK, "{}", cleared.text);
    let as_rita = app.as_user(&rita).get(&path).await.json;
    assert_eq!(as_rita["custom_fields"]["extras"], Value::Null);
    assert_eq!(as_rita["custom_fields"]["serial"], "SN-2");

    // GraphQL: typed values, the same visibility, and setTicketFields.
    let query =
        "query($id: Int!) { ticket(databaseId: $id) { id fields { field { key kind teamOnly }
        value { __typename ... on TextFieldValue { text } ... on NumberFieldValue { number }
                ... on DateFieldValue { date } ... on ChoicesFieldValue { choices } } } } }";
    let seen = app
        .as_user(&agent)
        .graphql_data(query, json!({"id": id}))
        .await;
    let fields = seen["ticket"]["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 5, "{seen}");
    assert_eq!(fields[1]["field"]["kind"], "DATE");
    assert_eq!(
        fields[1]["value"],
        json!({"__typename": "DateFieldValue", "date": "2027-03-31"})
    );
    assert_eq!(fields[3]["value"], Value::Null);
    assert_eq!(fields[4]["value"]["number"], 129.5);
    let gid = seen["ticket"]["id"].as_str().unwrap().to_string();
    let by_rita = app
        .as_user(&rita)
        .graphql_data(query, json!({"id": id}))
        .await;
    assert_eq!(
        by_rita["ticket"]["fields"].as_array().unwrap().len(),
        4,
        "{by_rita}"
    );
    let set = app
        .as_user(&agent)
        .graphql_data(
            "mutation($id: ID!) { setTicketFields(input: {id: $id, fields: [
                {key: \"extras\", value: [\"Charger\"]}, {key: \"cost\", value: null}]}) {
                ticket { fields { field { key } value { ... on ChoicesFieldValue { choices } } } } } }",
            json!({"id": gid}),
        )
        .await;
    assert_eq!(
        set["setTicketFields"]["ticket"]["fields"][3]["value"]["choices"],
        json!(["Charger"])
    );
    let refused = app
        .as_user(&rita)
        .graphql(
            "mutation($id: ID!) { setTicketFields(input: {id: $id, fields: [{key: \"cost\", value: 1}]}) { ticket { id } } }",
            json!({"id": gid}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{refused}"
    );
    assert!(
        refused["errors"][0]["extensions"]["fields"]["fields.cost"].is_array(),
        "{refused}"
    );

    // The history: the team sees every change, the requester only the fields she may see.
    let history = "query($id: Int!) { ticket(databaseId: $id) { history(first: 50) { nodes { action changes } } } }";
    let changes = |data: &Value| -> String {
        data["ticket"]["history"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["action"] == "fields")
            .map(|n| n["changes"].to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let team_history = changes(
        &app.as_user(&agent)
            .graphql_data(history, json!({"id": id}))
            .await,
    );
    assert!(
        team_history.contains("custom_fields.cost"),
        "{team_history}"
    );
    assert!(
        team_history.contains("custom_fields.warranty"),
        "{team_history}"
    );
    let rita_history = changes(
        &app.as_user(&rita)
            .graphql_data(history, json!({"id": id}))
            .await,
    );
    assert!(
        rita_history.contains("custom_fields.warranty"),
        "{rita_history}"
    );
    assert!(!rita_history.contains("cost"), "{rita_history}");

    // A user field names only people the writer may see: to Rita, Sam is as unknown as no one.
    define(
        app,
        &admin,
        json!({"key": "contact", "label": "Contact", "kind": "user"}),
    )
    .await;
    define(
        app,
        &admin,
        json!({"key": "laptop", "label": "Laptop", "kind": "asset"}),
    )
    .await;
    let hidden = app
        .as_user(&rita)
        .patch(&path, json!({"custom_fields": {"contact": sam.id}}))
        .await;
    let unknown = app
        .as_user(&rita)
        .patch(&path, json!({"custom_fields": {"contact": 999_999}}))
        .await;
    assert_eq!(
        field_error(&hidden, "custom_fields.contact"),
        &json!([format!("user {} does not exist", sam.id)])
    );
    field_error(&unknown, "custom_fields.contact");
    let asset = app
        .as_user(&agent)
        .post(
            "/api/assets/",
            json!({"name": "ThinkPad 42", "type": "hardware"}),
        )
        .await;
    assert_eq!(asset.status, StatusCode::CREATED, "{}", asset.text);
    let mine = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"custom_fields": {"contact": rita.id, "laptop": asset.json["id"]}}),
        )
        .await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.text);
    let read = "query($id: Int!) { ticket(databaseId: $id) { fields { value {
        ... on UserFieldValue { user { username } } ... on AssetFieldValue { asset { name } } } } } }";
    let as_agent = app
        .as_user(&agent)
        .graphql_data(read, json!({"id": id}))
        .await
        .to_string();
    assert!(
        as_agent.contains("ThinkPad 42") && as_agent.contains("\"rita\""),
        "{as_agent}"
    );
    // Rita may not see the team's asset: its value reads as null to her.
    let as_rita = app
        .as_user(&rita)
        .graphql_data(read, json!({"id": id}))
        .await
        .to_string();
    assert!(!as_rita.contains("ThinkPad"), "{as_rita}");
    assert!(as_rita.contains("\"asset\":null"), "{as_rita}");
}

db_test!(lists_filter_on_fields_and_a_requester_cannot_filter_on_the_teams);
async fn lists_filter_on_fields_and_a_requester_cannot_filter_on_the_teams(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    hardware_fields(app, &admin).await;
    let open = |title: &str, fields: Value| {
        let rita = &rita;
        let title = title.to_string();
        async move {
            app.as_user(rita)
                .create_ticket(json!({"title": title, "custom_fields": fields}))
                .await["id"]
                .as_i64()
                .unwrap()
        }
    };
    let a = open(
        "A",
        json!({"serial": "SN-1", "device": "Laptop", "extras": ["Dock", "Mouse"]}),
    )
    .await;
    let b = open(
        "B",
        json!({"serial": "SN-2", "device": "Phone", "extras": ["Mouse"]}),
    )
    .await;
    let c = open("C", json!({"device": "Laptop", "warranty": "2026-01-15"})).await;
    for (id, cost) in [(a, 10), (b, 250), (c, 99)] {
        let set = app
            .as_user(&agent)
            .patch(
                &format!("/api/tickets/{id}/"),
                json!({"custom_fields": {"cost": cost}}),
            )
            .await;
        assert_eq!(set.status, StatusCode::OK, "{}", set.text);
    }
    let ids = |path: &str, user: &TestUser| {
        let path = path.to_string();
        let user = user.clone();
        async move {
            let got = app.as_user(&user).get(&path).await;
            assert_eq!(got.status, StatusCode::OK, "{path}: {}", got.text);
            let mut found: Vec<i64> = got.json["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_i64().unwrap())
                .collect();
            found.sort();
            assert_eq!(got.json["count"], found.len(), "{}", got.text);
            found
        }
    };
    assert_eq!(ids("/api/tickets/?field.serial=SN-2", &rita).await, [b]);
    assert_eq!(
        ids("/api/tickets/?field.device=laptop", &rita).await,
        [a, c]
    );
    assert_eq!(ids("/api/tickets/?field.extras=Mouse", &rita).await, [a, b]);
    assert_eq!(
        ids("/api/tickets/?field.extras=Mouse,Dock", &rita).await,
        [a]
    );
    assert_eq!(
        ids("/api/tickets/?field.serial.set=false", &rita).await,
        [c]
    );
    assert_eq!(
        ids("/api/tickets/?field.warranty.lte=2026-06-30", &rita).await,
        [c]
    );
    assert_eq!(
        ids("/api/tickets/?field.cost.gte=50&field.cost.lte=100", &agent).await,
        [c]
    );
    assert_eq!(
        ids(
            "/api/tickets/?field.device=Laptop&field.cost.gte=50",
            &agent
        )
        .await,
        [c]
    );
    // Ordered by a field, those without a value last either way.
    let order = |path: &str, user: &TestUser| {
        let path = path.to_string();
        let user = user.clone();
        async move {
            let got = app.as_user(&user).get(&path).await;
            assert_eq!(got.status, StatusCode::OK, "{path}: {}", got.text);
            got.json["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_i64().unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        order("/api/tickets/?ordering=field.cost", &agent).await,
        [a, c, b]
    );
    assert_eq!(
        order("/api/tickets/?ordering=-field.cost", &agent).await,
        [b, c, a]
    );
    assert_eq!(
        order("/api/tickets/?ordering=field.serial", &rita).await,
        [a, b, c]
    );
    assert_eq!(
        order("/api/tickets/?ordering=-field.serial", &rita).await,
        [b, a, c]
    );
    for bad in [
        "/api/tickets/?ordering=field.cost",
        "/api/tickets/?ordering=field.extras",
    ] {
        assert_error(
            &app.as_user(&rita).get(bad).await,
            StatusCode::BAD_REQUEST,
            "validation_error",
        );
    }
    // A column it does not know leaves the default order, newest first, as Django REST framework does.
    assert_eq!(
        order("/api/tickets/?ordering=colour", &agent).await,
        [c, b, a]
    );
    let sorted = app
        .as_user(&agent)
        .graphql_data(
            "{ tickets(first: 10, orderBy: {field: CUSTOM_FIELD, fieldKey: \"cost\", direction: DESC}) { nodes { databaseId } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        sorted["tickets"]["nodes"],
        json!([{"databaseId": b}, {"databaseId": c}, {"databaseId": a}])
    );
    // The next link keeps the conditions.
    let paged = app
        .as_user(&rita)
        .get("/api/tickets/?field.device=Laptop&limit=1")
        .await;
    let next = paged.json["next"].as_str().unwrap();
    assert!(next.contains("field.device=Laptop"), "{next}");

    // A requester filtering on the team's field, an unknown key or a bad value is refused, not answered empty.
    for bad in [
        "/api/tickets/?field.cost.gte=1",
        "/api/tickets/?field.nope=1",
        "/api/tickets/?field.warranty.gte=soon",
        "/api/tickets/?field.device.gte=Laptop",
        "/api/tickets/?field.serial.between=1",
    ] {
        let got = app.as_user(&rita).get(bad).await;
        assert_error(&got, StatusCode::BAD_REQUEST, "validation_error");
    }

    // GraphQL: the same conditions, the same refusal.
    let list = "query($f: TicketFilter) { tickets(filter: $f, first: 10) { totalCount nodes { databaseId } } }";
    let data = app
        .as_user(&agent)
        .graphql_data(
            list,
            json!({"f": {"fields": [{"key": "cost", "atLeast": 50}, {"key": "device", "is": "Laptop"}]}}),
        )
        .await;
    assert_eq!(
        data["tickets"]["nodes"],
        json!([{"databaseId": c}]),
        "{data}"
    );
    let refused = app
        .as_user(&rita)
        .graphql(
            list,
            json!({"f": {"fields": [{"key": "cost", "isSet": true}]}}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{refused}"
    );
    let two_tests = app
        .as_user(&agent)
        .graphql(
            list,
            json!({"f": {"fields": [{"key": "cost", "is": 1, "atLeast": 2}]}}),
        )
        .await;
    assert_eq!(
        two_tests["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{two_tests}"
    );
}

db_test!(required_fields_hold_a_ticket_back_until_they_are_given);
async fn required_fields_hold_a_ticket_back_until_they_are_given(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    define(
        app,
        &admin,
        json!({"key": "root_cause", "label": "Root cause", "kind": "long_text", "required_from": "done"}),
    )
    .await;
    define(
        app,
        &admin,
        json!({"key": "site", "label": "Site", "kind": "choice", "choices": ["Paris", "Oslo"], "required_from": "todo"}),
    )
    .await;
    // Required from the start: a ticket cannot be opened without it.
    let missing = app
        .as_user(&rita)
        .post("/api/tickets/", json!({"title": "No site"}))
        .await;
    assert_eq!(
        field_error(&missing, "custom_fields.site")[0],
        "this field is required"
    );
    // Mail cannot carry a site: a ticket opened by mail is not held to it.
    let mailed = deskgraph::service::mail_in::receive(
        app.state.write_deps(deskgraph::domain::Channel::Email),
        app.state.people_deps(),
        app.state.storage.as_ref(),
        b"From: rita@example.com\r\nTo: help@example.com\r\nSubject: Toner\r\nMessage-ID: <toner@example.com>\r\n\r\nEmpty.\r\n",
        None,
    )
    .await
    .unwrap();
    assert!(
        matches!(mailed, Ok(deskgraph::service::mail_in::Received::Ticket(_))),
        "{mailed:?}"
    );
    let id = app
        .as_user(&rita)
        .create_ticket(json!({"title": "Printer", "custom_fields": {"site": "Oslo"}}))
        .await["id"]
        .as_i64()
        .unwrap();
    let path = format!("/api/tickets/{id}/");
    // A ticket split off this one cannot be given a site, and is not held to it.
    let comment = app
        .as_user(&rita)
        .post(
            &format!("/api/tickets/{id}/comments/"),
            json!({"content": "Also the scanner"}),
        )
        .await;
    assert_eq!(comment.status, StatusCode::CREATED, "{}", comment.text);
    let split = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{id}/split/"),
            json!({"comments": [comment.json["id"]], "title": "Scanner"}),
        )
        .await;
    assert_eq!(split.status, StatusCode::CREATED, "{}", split.text);
    // Work goes on without a root cause; resolving needs one.
    for status in ["open", "in_progress"] {
        let moved = app
            .as_user(&agent)
            .patch(&path, json!({"status": status}))
            .await;
        assert_eq!(moved.status, StatusCode::OK, "{}", moved.text);
    }
    let refused = app
        .as_user(&agent)
        .patch(&path, json!({"status": "resolved"}))
        .await;
    assert_eq!(
        field_error(&refused, "custom_fields.root_cause")[0],
        "this field is required to resolve or close the ticket"
    );
    assert_eq!(
        app.as_user(&agent).get(&path).await.json["status"],
        "in_progress"
    );
    let resolved = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"status": "resolved", "custom_fields": {"root_cause": "Worn roller.\nReplaced."}}),
        )
        .await;
    assert_eq!(resolved.status, StatusCode::OK, "{}", resolved.text);
    // Once resolved, the value may change but not go.
    let cleared = app
        .as_user(&agent)
        .patch(&path, json!({"custom_fields": {"root_cause": null}}))
        .await;
    field_error(&cleared, "custom_fields.root_cause");
    let detail = app.as_user(&agent).get(&path).await.json;
    assert_eq!(
        detail["custom_fields"]["root_cause"],
        "Worn roller.\nReplaced."
    );
    assert_eq!(detail["status"], "resolved");
}

fn two_fields_at_most(config: &mut Config) {
    config.max_custom_fields = 2;
}

db_test!(project_fields_archive_and_the_limit, two_fields_at_most);
async fn project_fields_archive_and_the_limit(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let hr = app.project("HR").await;
    let it = app.project("IT").await;
    let start = define(
        app,
        &admin,
        json!({"key": "start_date", "label": "Start date", "kind": "date", "project": hr.id}),
    )
    .await;
    define(
        app,
        &admin,
        json!({"key": "laptop", "label": "Laptop", "kind": "boolean"}),
    )
    .await;
    // A third field would put three on HR's tickets; IT's may still have its own.
    let full = app
        .as_user(&admin)
        .post(
            "/api/custom-fields/",
            json!({"key": "badge", "label": "Badge", "kind": "text", "project": hr.id}),
        )
        .await;
    assert_error(&full, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        full.json["error"].as_str().unwrap().contains("at most 2"),
        "{}",
        full.text
    );
    define(
        app,
        &admin,
        json!({"key": "rack", "label": "Rack", "kind": "text", "project": it.id}),
    )
    .await;

    let hr_ticket = app
        .as_user(&agent)
        .create_ticket(json!({"title": "New hire", "project": hr.id,
                               "custom_fields": {"start_date": "2027-01-04", "laptop": true}}))
        .await["id"]
        .as_i64()
        .unwrap();
    let other = app
        .as_user(&agent)
        .post(
            "/api/tickets/",
            json!({"title": "Rack", "project": it.id, "custom_fields": {"start_date": "2027-01-04"}}),
        )
        .await;
    field_error(&other, "custom_fields.start_date");
    let listed = app
        .as_user(&agent)
        .get(&format!("/api/custom-fields/?project={}", it.id))
        .await;
    let keys: Vec<&str> = listed
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["laptop", "rack"]);

    // Archived: gone from the ticket and from filters, its value kept for a restore.
    let path = format!("/api/tickets/{hr_ticket}/");
    let field_path = format!("/api/custom-fields/{}/", start["id"]);
    assert_eq!(
        app.as_user(&admin).delete(&field_path).await.status,
        StatusCode::NO_CONTENT
    );
    let detail = app.as_user(&agent).get(&path).await.json;
    assert_eq!(detail["custom_fields"], json!({"laptop": true}));
    assert_error(
        &app.as_user(&agent)
            .get("/api/tickets/?field.start_date=2027-01-04")
            .await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );
    let restored = app
        .as_user(&admin)
        .patch(
            &field_path,
            json!({"archived": false, "label": "First day"}),
        )
        .await;
    assert_eq!(restored.status, StatusCode::OK, "{}", restored.text);
    assert_eq!(restored.json["label"], "First day");
    let detail = app.as_user(&agent).get(&path).await.json;
    assert_eq!(detail["custom_fields"]["start_date"], "2027-01-04");
    // Key, kind and project are fixed once made.
    let fixed = app
        .as_user(&admin)
        .patch(&field_path, json!({"kind": "text"}))
        .await;
    field_error(&fixed, "kind");
}

db_test!(a_choice_in_use_stays_and_changes_go_out_as_ticket_updated);
async fn a_choice_in_use_stays_and_changes_go_out_as_ticket_updated(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    hardware_fields(app, &admin).await;
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let actor = crate::support::clients::actor(app, &agent).await;
    let id = app
        .as_user(&agent)
        .create_ticket(json!({"title": "Phone", "custom_fields": {"device": "Phone"}}))
        .await["id"]
        .as_i64()
        .unwrap() as i32;
    let before = outbox_rows(app).await.len();
    tickets::update(
        state.write_deps(deskgraph::domain::Channel::Rest),
        &actor,
        id,
        TicketPatch {
            custom_fields: Some(vec![
                ("serial".into(), json!("SN-9")),
                ("cost".into(), json!(12)),
            ]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let rows = outbox_rows(app).await;
    let updated: Vec<Value> = rows[before..]
        .iter()
        .filter(|r| r.event == "ticket.updated")
        .map(|r| serde_json::from_str(&r.payload).unwrap())
        .collect();
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert_eq!(
        updated[0]["changes"],
        json!(["custom_fields.serial", "custom_fields.cost"])
    );

    // The field list cannot drop a choice a ticket holds.
    let fields = app.as_user(&admin).get("/api/custom-fields/").await.json;
    let device = fields
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "device")
        .unwrap()["id"]
        .clone();
    let dropped = app
        .as_user(&admin)
        .patch(
            &format!("/api/custom-fields/{device}/"),
            json!({"choices": ["Laptop", "Desktop"]}),
        )
        .await;
    let why = field_error(&dropped, "choices")[0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("held by 1"), "{why}");
    let added = app
        .as_user(&admin)
        .patch(
            &format!("/api/custom-fields/{device}/"),
            json!({"choices": ["Laptop", "Desktop", "Phone", "Tablet"]}),
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.text);
}

db_test!(pages_with_fifty_fields_cost_what_pages_with_one_cost);
async fn pages_with_fifty_fields_cost_what_pages_with_one_cost(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    define(
        app,
        &admin,
        json!({"key": "f0", "label": "F0", "kind": "multi_choice", "choices": ["a", "b"]}),
    )
    .await;
    let mut ids = Vec::new();
    for n in 0..5 {
        ids.push(
            app.as_user(&agent)
                .create_ticket(json!({"title": format!("T{n}"), "custom_fields": {"f0": ["a"]}}))
                .await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let query =
        "{ tickets(first: 20) { nodes { id fields { field { key } value { __typename } } } } }";
    let measure = || async {
        // Warm the remembered definitions, as a running service has them.
        app.as_user(&agent)
            .get(&format!("/api/tickets/{}/", ids[0]))
            .await;
        let before = app.statements();
        let detail = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{}/", ids[0]))
            .await;
        let detail_cost = app.statements() - before;
        let before = app.statements();
        let list = app.as_user(&agent).graphql_data(query, json!({})).await;
        let list_cost = app.statements() - before;
        (detail_cost, list_cost, detail.json, list)
    };
    let (detail_one, list_one, _, _) = measure().await;
    let kinds = [
        "text",
        "number",
        "date",
        "datetime",
        "boolean",
        "long_text",
        "user",
        "asset",
    ];
    for n in 1..50 {
        let kind = kinds[n % kinds.len()];
        define(
            app,
            &admin,
            json!({"key": format!("f{n}"), "label": format!("F{n}"), "kind": kind}),
        )
        .await;
    }
    for id in &ids {
        let set = app
            .as_user(&agent)
            .patch(
                &format!("/api/tickets/{id}/"),
                json!({"custom_fields": {"f8": "x", "f1": 2, "f2": "2026-01-01"}}),
            )
            .await;
        assert_eq!(set.status, StatusCode::OK, "{}", set.text);
    }
    let (detail_fifty, list_fifty, detail, list) = measure().await;
    assert_eq!(
        detail["custom_fields"].as_object().unwrap().len(),
        50,
        "{detail}"
    );
    assert_eq!(
        list["tickets"]["nodes"][0]["fields"]
            .as_array()
            .unwrap()
            .len(),
        50
    );
    assert_eq!(detail_fifty, detail_one);
    assert_eq!(list_fifty, list_one);
}

db_test!(filtered_pages_in_creation_order_read_as_the_whole_list_does);
/// A list filtered by a field's value, a multiple choice's pick or a tag, in creation order (the default),
/// walks the rows that make the filter hold in their tickets' creation order. Page by page, both ways, for
/// the team and for a requester, it reads the tickets the unfiltered list reads, in the same order — also
/// when creation times do not follow ticket ids (history brought in from elsewhere) and two tickets share one.
async fn filtered_pages_in_creation_order_read_as_the_whole_list_does(app: &TestApp) {
    use entity::{ticket, ticket_field_choice, ticket_field_value, ticket_tag};
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    hardware_fields(app, &admin).await;
    let mut made = Vec::new();
    for i in 0..14_i64 {
        let who = if i % 3 == 0 { &agent } else { &rita };
        let device = if i % 2 == 0 { "Laptop" } else { "Phone" };
        let extras = if i % 4 < 2 {
            json!(["Mouse"])
        } else {
            json!(["Dock"])
        };
        let t = app
            .as_user(who)
            .create_ticket(json!({
                "title": format!("T{i}"),
                "custom_fields": {"device": device, "extras": extras},
            }))
            .await;
        let id = t["id"].as_i64().unwrap();
        if i % 3 != 1 {
            let tagged = app
                .as_user(&agent)
                .post(
                    &format!("/api/tickets/{id}/tags/"),
                    json!({"tags": ["printer"]}),
                )
                .await;
            assert_eq!(tagged.status, StatusCode::OK, "{}", tagged.text);
        }
        made.push(id);
    }
    // Every row a filter walks carries its ticket's creation time as written.
    for table in ["ticket_field_values", "ticket_field_choices", "ticket_tags"] {
        let sql = format!(
            "SELECT count(*) FROM {table} r JOIN tickets t ON t.id = r.ticket_id \
             WHERE r.ticket_created_at = t.created_at"
        );
        let conn = &app.state.db.conn;
        let row = conn
            .query_one_raw(sea_orm::Statement::from_string(
                conn.get_database_backend(),
                sql,
            ))
            .await
            .unwrap()
            .unwrap();
        let carried: i64 = row.try_get_by_index(0).unwrap();
        let expected = match table {
            "ticket_tags" => 9,
            _ => 14,
        };
        assert_eq!(carried, expected, "{table}");
    }
    // Creation times out of id order, two of them equal, as an import would leave them: on the tickets
    // and on the rows that carry them.
    let base = chrono::DateTime::parse_from_rfc3339("2026-03-01T08:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let conn = &app.state.db.conn;
    for (i, id) in made.iter().enumerate() {
        let id = i32::try_from(*id).unwrap();
        let at = base + chrono::Duration::minutes(((i * 5) % 7) as i64 * 10);
        ticket::Entity::update_many()
            .col_expr(ticket::Column::CreatedAt, Expr::value(at))
            .filter(ticket::Column::Id.eq(id))
            .exec(conn)
            .await
            .unwrap();
        ticket_field_value::Entity::update_many()
            .col_expr(ticket_field_value::Column::TicketCreatedAt, Expr::value(at))
            .filter(ticket_field_value::Column::TicketId.eq(id))
            .exec(conn)
            .await
            .unwrap();
        ticket_field_choice::Entity::update_many()
            .col_expr(
                ticket_field_choice::Column::TicketCreatedAt,
                Expr::value(at),
            )
            .filter(ticket_field_choice::Column::TicketId.eq(id))
            .exec(conn)
            .await
            .unwrap();
        ticket_tag::Entity::update_many()
            .col_expr(ticket_tag::Column::TicketCreatedAt, Expr::value(at))
            .filter(ticket_tag::Column::TicketId.eq(id))
            .exec(conn)
            .await
            .unwrap();
    }
    let read = |path: String, user: TestUser| async move {
        let got = app.as_user(&user).get(&path).await;
        assert_eq!(got.status, StatusCode::OK, "{path}: {}", got.text);
        got.json
    };
    use crate::support::tickets::result_ids as ids;
    let holds = |id: i64, filter: &str| {
        let i = made.iter().position(|m| *m == id).unwrap();
        match filter {
            "field.device=Laptop" => i % 2 == 0,
            "field.extras=Mouse" => i % 4 < 2,
            "tag=printer" => i % 3 != 1,
            _ => i % 2 == 0 && i % 3 != 1,
        }
    };
    for user in [&agent, &rita] {
        for ordering in ["-created_at", "created_at"] {
            let whole = read(
                format!("/api/tickets/?ordering={ordering}&limit=100"),
                user.clone(),
            )
            .await;
            for filter in [
                "field.device=Laptop",
                "field.extras=Mouse",
                "tag=printer",
                "field.device=Laptop&tag=printer",
            ] {
                if filter.contains("tag") && user.username == "rita" {
                    continue;
                }
                let expected: Vec<i64> = ids(&whole)
                    .into_iter()
                    .filter(|id| holds(*id, filter))
                    .collect();
                let mut paged = Vec::new();
                let mut offset = 0;
                while offset < expected.len() {
                    let page = read(
                        format!(
                            "/api/tickets/?{filter}&ordering={ordering}&limit=3&page={}",
                            offset / 3 + 1
                        ),
                        user.clone(),
                    )
                    .await;
                    assert_eq!(page["count"], expected.len(), "{filter}");
                    paged.extend(ids(&page));
                    offset += 3;
                }
                assert_eq!(paged, expected, "{} {filter} {ordering}", user.username);
            }
        }
    }
}
