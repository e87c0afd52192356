//! Custom fields in rules: a condition on `ticket.fields.<key>` fires by the ticket's value (typed by the
//! field's kind), a `set_field` action writes the value as a person's edit does (audit record marked `via` the
//! rule, seen by the triggers after it), in triggers, time rules and macros; a rule naming an unknown field or
//! a value of the wrong type is a 400 naming its path; the editor builds both from rows.
use crate::db_test;
use crate::support::helpers::{TestApp, TestUser};
use crate::support::pages::location;
use crate::support::sla::run_at;
use crate::support::world::login;
use axum::http::StatusCode;
use chrono::{Duration, Utc};
use serde_json::{json, Value};

const TRIGGERS: &str = "/api/automation/triggers/";

async fn define(app: &TestApp, admin: &TestUser, body: Value) {
    let made = app.as_user(admin).post("/api/custom-fields/", body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
}

/// A serial number, a cost estimate only the team reads, a device, accessories, a stage and a contact.
async fn fields(app: &TestApp, admin: &TestUser) {
    for body in [
        json!({"key": "serial", "label": "Serial number", "kind": "text"}),
        json!({"key": "cost", "label": "Cost estimate", "kind": "number", "team_only": true}),
        json!({"key": "device", "label": "Device", "kind": "choice", "choices": ["Laptop", "Desktop", "Phone"]}),
        json!({"key": "extras", "label": "Accessories", "kind": "multi_choice", "choices": ["Dock", "Mouse"]}),
        json!({"key": "stage", "label": "Stage", "kind": "choice", "choices": ["triage", "done"]}),
        json!({"key": "contact", "label": "Contact", "kind": "user"}),
    ] {
        define(app, admin, body).await;
    }
}

async fn trigger(app: &TestApp, admin: &TestUser, body: Value) -> Value {
    let made = app.as_user(admin).post(TRIGGERS, body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    made.json
}

fn id_of(body: &Value) -> i64 {
    body["id"].as_i64().unwrap_or_default()
}

/// The ticket as `viewer` reads it over REST.
async fn read(app: &TestApp, viewer: &TestUser, id: i64) -> Value {
    let got = app
        .as_user(viewer)
        .get(&format!("/api/tickets/{id}/"))
        .await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.text);
    got.json
}

/// The ticket's tags as the team reads them.
async fn tags(app: &TestApp, viewer: &TestUser, id: i64) -> Vec<String> {
    let got = app
        .as_user(viewer)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.text);
    got.json["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect()
}

/// The `changes` of the history entries `viewer` reads that set custom field `key`.
async fn field_history(app: &TestApp, viewer: &TestUser, id: i64, key: &str) -> Vec<Value> {
    let data = app
        .as_user(viewer)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { history(first: 50) { nodes { changes } } } }",
            json!({ "n": id }),
        )
        .await;
    data["ticket"]["history"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["changes"].get(format!("custom_fields.{key}")).is_some())
        .map(|n| n["changes"].clone())
        .collect()
}

db_test!(conditions_on_custom_fields_fire_by_the_tickets_values);
async fn conditions_on_custom_fields_fire_by_the_tickets_values(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    fields(app, &root).await;
    let serial = trigger(
        app,
        &root,
        json!({
            "name": "XK hardware",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "created"},
                {"field": "ticket.fields.serial", "operator": "starts_with", "value": "xk"}
            ]},
            "actions": [{"add_tags": ["hardware"]}, {"set": "priority", "value": "high"}]
        }),
    )
    .await;
    assert_eq!(
        serial["conditions"]["all"][1],
        json!({"field": "ticket.fields.serial", "operator": "starts_with", "value": "xk"})
    );
    trigger(
        app,
        &root,
        json!({
            "name": "Costly",
            "conditions": {"all": [{"field": "ticket.fields.cost", "operator": "greater_than", "value": 100}]},
            "actions": [{"add_tags": ["costly"]}]
        }),
    )
    .await;
    let mobile = trigger(
        app,
        &root,
        json!({
            "name": "Mobile",
            "conditions": {"any": [
                {"field": "ticket.fields.device", "operator": "one_of", "value": ["laptop", "Phone"]},
                {"field": "ticket.fields.extras", "operator": "contains", "value": "dock"}
            ]},
            "actions": [{"add_tags": ["mobile"]}]
        }),
    )
    .await;
    // Choices are stored as the field spells them.
    assert_eq!(
        mobile["conditions"]["any"],
        json!([
            {"field": "ticket.fields.device", "operator": "one_of", "value": ["Laptop", "Phone"]},
            {"field": "ticket.fields.extras", "operator": "contains", "value": "Dock"}
        ])
    );
    trigger(
        app,
        &root,
        json!({
            "name": "No serial",
            "conditions": {"all": [{"field": "ticket.fields.serial", "operator": "is", "value": null}]},
            "actions": [{"add_tags": ["no-serial"]}]
        }),
    )
    .await;

    let matching = app
        .as_user(&bob)
        .create_ticket(json!({"title": "Laptop fan", "custom_fields": {"serial": "XK-100", "cost": 250, "device": "Laptop"}}))
        .await;
    assert_eq!(matching["priority"], "high", "{matching}");
    let seen = read(app, &bob, id_of(&matching)).await;
    assert_eq!(
        tags(app, &bob, id_of(&matching)).await,
        ["costly", "hardware", "mobile"],
        "{seen}"
    );

    let other = app
        .as_user(&bob)
        .create_ticket(json!({"title": "Desk phone", "custom_fields": {"serial": "AB-2", "cost": 50, "extras": ["Mouse"]}}))
        .await;
    assert_eq!(other["priority"], "medium", "{other}");
    assert!(tags(app, &bob, id_of(&other)).await.is_empty());

    // A ticket without values: `is null` holds, nothing else does.
    let bare = app.as_user(&bob).ticket_titled("No values").await;
    assert_eq!(tags(app, &bob, id_of(&bare)).await, ["no-serial"]);
    let docked = app
        .as_user(&bob)
        .create_ticket(json!({"title": "Dock", "custom_fields": {"serial": "ZZ", "extras": ["Dock", "Mouse"]}}))
        .await;
    assert_eq!(tags(app, &bob, id_of(&docked)).await, ["mobile"]);
}

db_test!(a_rule_sets_a_field_as_a_person_would_and_later_rules_see_it);
async fn a_rule_sets_a_field_as_a_person_would_and_later_rules_see_it(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let ann = app.user("ann").await;
    fields(app, &root).await;
    let triage = trigger(
        app,
        &root,
        json!({
            "name": "Triage",
            "conditions": {"all": [{"field": "event", "operator": "is", "value": "created"}]},
            "actions": [
                {"set_field": "stage", "value": "TRIAGE"},
                {"set_field": "cost", "value": 42},
                {"comment": "{{ticket.number}} is in triage, {{requester.full_name}}."}
            ]
        }),
    )
    .await;
    assert_eq!(
        triage["actions"][0],
        json!({"set_field": "stage", "value": "triage"})
    );
    trigger(
        app,
        &root,
        json!({
            "name": "Triaged",
            "conditions": {"all": [
                {"field": "ticket.fields.stage", "operator": "is", "value": "triage"},
                {"field": "ticket.fields.cost", "operator": "less_than", "value": 100}
            ]},
            "actions": [{"add_tags": ["triaged"]}]
        }),
    )
    .await;
    trigger(
        app,
        &root,
        json!({
            "name": "Low means done",
            "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "updated"},
                {"field": "ticket.priority", "operator": "is", "value": "low"}
            ]},
            "actions": [{"set_field": "stage", "value": null}]
        }),
    )
    .await;

    let made = app.as_user(&ann).ticket_titled("Screen flickers").await;
    let id = id_of(&made);
    // Read back as a client would: REST and GraphQL.
    let as_bob = read(app, &bob, id).await;
    assert_eq!(as_bob["custom_fields"]["stage"], "triage", "{as_bob}");
    assert_eq!(as_bob["custom_fields"]["cost"], 42.0, "{as_bob}");
    assert_eq!(tags(app, &bob, id).await, ["triaged"], "{as_bob}");
    let graphql = app
        .as_user(&bob)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { fields { field { key } } } }",
            json!({ "n": id }),
        )
        .await;
    let keys: Vec<&str> = graphql["ticket"]["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["field"]["key"].as_str())
        .collect();
    assert!(
        keys.contains(&"stage") && keys.contains(&"cost"),
        "{graphql}"
    );

    // Recorded as the rule's, in the history the team reads.
    let history = field_history(app, &bob, id, "stage").await;
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0]["custom_fields.stage"], json!([null, "triage"]));
    assert_eq!(
        history[0]["via"],
        json!({"rule": triage["id"], "name": "Triage", "kind": "trigger"})
    );
    assert_eq!(field_history(app, &bob, id, "cost").await.len(), 1);

    // The team-only field stays the team's: the requester reads neither its value nor its history, and the
    // rule's public reply can name no field.
    let as_ann = read(app, &ann, id).await;
    assert_eq!(as_ann["custom_fields"]["stage"], "triage", "{as_ann}");
    assert!(as_ann["custom_fields"].get("cost").is_none(), "{as_ann}");
    assert!(field_history(app, &ann, id, "cost").await.is_empty());
    let stage = field_history(app, &ann, id, "stage").await;
    assert_eq!(stage.len(), 1, "{stage:?}");
    assert_eq!(
        stage[0]["via"],
        json!({"rule": triage["id"], "kind": "trigger"})
    );
    let leaky = app
        .as_user(&root)
        .post(
            TRIGGERS,
            json!({"name": "Leak", "conditions": {}, "actions": [{"comment": "Cost: {{ticket.fields.cost}}"}]}),
        )
        .await;
    assert_eq!(leaky.status, StatusCode::BAD_REQUEST, "{}", leaky.text);
    assert!(leaky.json["details"].get("actions[0].comment").is_some());

    // null clears the value.
    let low = app
        .as_user(&bob)
        .patch(&format!("/api/tickets/{id}/"), json!({"priority": "low"}))
        .await;
    assert_eq!(low.status, StatusCode::OK, "{}", low.text);
    let cleared = read(app, &bob, id).await;
    assert!(cleared["custom_fields"]["stage"].is_null(), "{cleared}");
}

db_test!(a_change_to_a_custom_field_sets_off_the_triggers_that_ask_for_it);
async fn a_change_to_a_custom_field_sets_off_the_triggers_that_ask_for_it(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    fields(app, &root).await;
    for (name, condition, action) in [
        (
            "Serial changed",
            json!({"field": "ticket.fields.serial", "operator": "changed"}),
            json!({"add_tags": ["serial-changed"]}),
        ),
        (
            "Was a laptop",
            json!({"field": "ticket.fields.device", "operator": "changed_from", "value": "laptop"}),
            json!({"add_tags": ["was-laptop"]}),
        ),
        (
            "Done is low",
            json!({"field": "ticket.fields.stage", "operator": "changed_to", "value": "done"}),
            json!({"set": "priority", "value": "low"}),
        ),
    ] {
        trigger(
            app,
            &root,
            json!({"name": name, "conditions": {"all": [
                {"field": "event", "operator": "is", "value": "updated"}, condition
            ]}, "actions": [action]}),
        )
        .await;
    }
    let made = app
        .as_user(&bob)
        .create_ticket(
            json!({"title": "Dock", "custom_fields": {"serial": "SN-1", "device": "Laptop"}}),
        )
        .await;
    let id = id_of(&made);
    let path = format!("/api/tickets/{id}/");
    assert!(tags(app, &bob, id).await.is_empty());

    // A write that changes only a custom field is a change the triggers see.
    let changed = app
        .as_user(&bob)
        .patch(&path, json!({"custom_fields": {"serial": "SN-2"}}))
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(tags(app, &bob, id).await, ["serial-changed"]);
    let changed = app
        .as_user(&bob)
        .patch(
            &path,
            json!({"custom_fields": {"device": "Phone", "stage": "done"}}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.text);
    assert_eq!(changed.json["priority"], "low", "{}", changed.text);
    assert_eq!(tags(app, &bob, id).await, ["serial-changed", "was-laptop"]);
    // It is "done", but did not change to "done".
    let changed = app
        .as_user(&bob)
        .patch(&path, json!({"priority": "high"}))
        .await;
    assert_eq!(changed.json["priority"], "high", "{}", changed.text);
}

db_test!(a_value_for_a_field_the_ticket_does_not_carry_is_skipped);
async fn a_value_for_a_field_the_ticket_does_not_carry_is_skipped(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let hr = app.project("HR").await;
    define(
        app,
        &root,
        json!({"key": "badge", "label": "Badge", "kind": "text", "project": hr.id}),
    )
    .await;
    define(
        app,
        &root,
        json!({"key": "serial", "label": "Serial", "kind": "text"}),
    )
    .await;
    trigger(
        app,
        &root,
        json!({"name": "Badge", "conditions": {"all": [{"field": "event", "operator": "is", "value": "created"}]},
               "actions": [{"set_field": "badge", "value": "B-1"}, {"set_field": "serial", "value": "S-1"}]}),
    )
    .await;
    // Not the project's: the badge is left out, the rest of the rule and the write go on.
    let elsewhere = app.as_user(&bob).ticket_titled("Laptop").await;
    let seen = read(app, &bob, id_of(&elsewhere)).await;
    assert_eq!(seen["custom_fields"]["serial"], "S-1", "{seen}");
    assert!(seen["custom_fields"].get("badge").is_none(), "{seen}");
    let hired = app
        .as_user(&bob)
        .create_ticket(json!({"title": "New hire", "project": hr.id}))
        .await;
    let seen = read(app, &bob, id_of(&hired)).await;
    assert_eq!(seen["custom_fields"]["badge"], "B-1", "{seen}");
}

db_test!(rules_naming_unknown_fields_or_wrong_values_are_refused_with_the_path);
async fn rules_naming_unknown_fields_or_wrong_values_are_refused_with_the_path(app: &TestApp) {
    let root = app.admin("root").await;
    let ann = app.user("ann").await;
    fields(app, &root).await;
    let none = json!([{"add_tags": ["x"]}]);
    let cond = |c: Value| json!({"all": [c]});
    let cases = [
        (
            cond(json!({"field": "ticket.fields.colour", "operator": "is", "value": "red"})),
            none.clone(),
            "conditions.all[0].field",
        ),
        (
            cond(
                json!({"field": "ticket.fields.cost", "operator": "greater_than", "value": "abc"}),
            ),
            none.clone(),
            "conditions.all[0].value",
        ),
        (
            cond(
                json!({"field": "ticket.fields.device", "operator": "one_of", "value": ["Laptop", "Tablet"]}),
            ),
            none.clone(),
            "conditions.all[0].value[1]",
        ),
        (
            cond(json!({"field": "ticket.fields.cost", "operator": "starts_with", "value": "1"})),
            none.clone(),
            "conditions.all[0].operator",
        ),
        (
            cond(json!({"field": "ticket.fields.serial", "operator": "changed_to", "value": [1]})),
            none.clone(),
            "conditions.all[0].value",
        ),
        (
            json!({}),
            json!([{"set_field": "colour", "value": "red"}]),
            "actions[0].set_field",
        ),
        (
            json!({}),
            json!([{"add_tags": ["a"]}, {"set_field": "cost", "value": "a lot"}]),
            "actions[1].value",
        ),
        (
            json!({}),
            json!([{"set_field": "contact", "value": 999_999}]),
            "actions[0].value",
        ),
    ];
    for (conditions, actions, path) in cases {
        let body = json!({"name": "Bad", "conditions": conditions, "actions": actions});
        let refused = app.as_user(&root).post(TRIGGERS, body.clone()).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(
            refused.json["details"].get(path).is_some(),
            "{path}: {}",
            refused.text
        );
        // A requester may not save rules at all.
        let forbidden = app.as_user(&ann).post(TRIGGERS, body).await;
        assert_eq!(
            forbidden.status,
            StatusCode::FORBIDDEN,
            "{}",
            forbidden.text
        );
    }
    // The same through GraphQL, on a change, and for time rules and macros.
    let bad = app
        .as_user(&root)
        .graphql(
            "mutation($i: CreateTriggerInput!) { createTrigger(input: $i) { trigger { id } } }",
            json!({"i": {"name": "x", "conditions": {"all": [{"field": "ticket.fields.stage", "operator": "is", "value": "later"}]}, "actions": [{"add_tags": ["x"]}]}}),
        )
        .await;
    assert_eq!(
        bad["errors"][0]["extensions"]["code"], "BAD_USER_INPUT",
        "{bad}"
    );
    assert!(bad.to_string().contains("conditions.all[0].value"), "{bad}");
    let fine = trigger(
        app,
        &root,
        json!({"name": "Fine", "conditions": {}, "actions": [{"set_field": "serial", "value": "  SN-1 "}]}),
    )
    .await;
    assert_eq!(
        fine["actions"],
        json!([{"set_field": "serial", "value": "SN-1"}])
    );
    let changed = app
        .as_user(&root)
        .patch(
            &format!("{TRIGGERS}{}/", id_of(&fine)),
            json!({"actions": [{"set_field": "extras", "value": ["Dock", "Cable"]}]}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::BAD_REQUEST, "{}", changed.text);
    assert!(changed.json["details"].get("actions[0].value").is_some());
    let timed = app
        .as_user(&root)
        .post(
            "/api/automation/time-rules/",
            json!({"name": "T", "wait": {"since": "created", "hours": 1},
                   "conditions": {"all": [{"field": "ticket.fields.cost", "operator": "less_than", "value": true}]},
                   "actions": [{"add_tags": ["x"]}]}),
        )
        .await;
    assert_eq!(timed.status, StatusCode::BAD_REQUEST, "{}", timed.text);
    assert!(timed.json["details"]
        .get("conditions.all[0].value")
        .is_some());
    let macro_made = app
        .as_user(&root)
        .graphql(
            "mutation($i: CreateMacroInput!) { createMacro(input: $i) { macro { id } } }",
            json!({"i": {"name": "M", "scope": "PERSONAL", "actions": [{"set_field": "nope", "value": 1}]}}),
        )
        .await;
    assert!(
        macro_made.to_string().contains("actions[0].set_field"),
        "{macro_made}"
    );
}

db_test!(time_rules_and_macros_read_and_set_custom_fields);
async fn time_rules_and_macros_read_and_set_custom_fields(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    let ann = app.user("ann").await;
    fields(app, &root).await;
    let made = app
        .as_user(&root)
        .post(
            "/api/automation/time-rules/",
            json!({"name": "Laptops wait", "wait": {"since": "created", "hours": 1},
                   "conditions": {"all": [{"field": "ticket.fields.device", "operator": "is", "value": "laptop"}]},
                   "actions": [{"set_field": "stage", "value": "done"}]}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let laptop = app
        .as_user(&ann)
        .create_ticket(json!({"title": "Laptop", "custom_fields": {"device": "Laptop"}}))
        .await;
    let phone = app
        .as_user(&ann)
        .create_ticket(json!({"title": "Phone", "custom_fields": {"device": "Phone"}}))
        .await;
    run_at(&app.state, Utc::now() + Duration::hours(2)).await;
    let seen = read(app, &bob, id_of(&laptop)).await;
    assert_eq!(seen["custom_fields"]["stage"], "done", "{seen}");
    let history = field_history(app, &bob, id_of(&laptop), "stage").await;
    assert_eq!(history.len(), 1, "{history:?}");
    assert_eq!(history[0]["via"]["kind"], "time_rule");
    assert!(read(app, &bob, id_of(&phone)).await["custom_fields"]["stage"].is_null());

    // A macro sets a field as the agent applying it would by hand.
    let m = app
        .as_user(&bob)
        .graphql_data(
            "mutation($i: CreateMacroInput!) { createMacro(input: $i) { macro { id } } }",
            json!({"i": {"name": "Serial", "scope": "PERSONAL", "actions": [{"set_field": "serial", "value": "SN-9"}]}}),
        )
        .await;
    let phone_gid = crate::support::graphql::gid("Ticket", id_of(&phone) as i32);
    let preview = app
        .as_user(&bob)
        .graphql_data(
            "query($m: ID!, $t: ID!) { previewMacro(macroId: $m, ticketId: $t) { changes } }",
            json!({"m": m["createMacro"]["macro"]["id"], "t": phone_gid}),
        )
        .await;
    assert_eq!(
        preview["previewMacro"]["changes"],
        json!({"custom_fields.serial": [null, "SN-9"]}),
        "{preview}"
    );
    let applied = app
        .as_user(&bob)
        .graphql_data(
            "mutation($i: ApplyMacroInput!) { applyMacro(input: $i) { failures { ticketId code message } } }",
            json!({"i": {
                "macroId": m["createMacro"]["macro"]["id"],
                "ticketIds": [phone_gid]
            }}),
        )
        .await;
    assert_eq!(applied["applyMacro"]["failures"], json!([]), "{applied}");
    let seen = read(app, &bob, id_of(&phone)).await;
    assert_eq!(seen["custom_fields"]["serial"], "SN-9", "{seen}");
}

/// The fields of one posted editor (blank rows as a browser sends them).
fn editor<'a>(
    name: &'a str,
    conditions: &[(&'a str, &'a str, &'a str)],
    actions: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut form = vec![("name", name), ("project", ""), ("active", "true")];
    for (field, op, value) in conditions.iter().chain(&[("", "is", "")]) {
        form.extend([
            ("cond_list", "all"),
            ("cond_field", *field),
            ("cond_op", *op),
            ("cond_value", *value),
        ]);
    }
    for (kind, value) in actions.iter().chain(&[("", "")]) {
        form.extend([("act_kind", *kind), ("act_value", *value)]);
    }
    form
}

db_test!(the_editor_offers_custom_fields_as_subjects_and_actions);
async fn the_editor_offers_custom_fields_as_subjects_and_actions(app: &TestApp) {
    let root = app.admin("root").await;
    let bob = app.agent("bob").await;
    fields(app, &root).await;
    let admin = login(app, &root).await;
    let blank = admin.page(app, "/admin/triggers/new/").await;
    assert_eq!(blank.status, StatusCode::OK, "{}", blank.text);
    assert!(
        blank.text.contains(
            "<option value=\"ticket.fields.serial\">Field “Serial number” (serial)</option>"
        ),
        "{}",
        blank.text
    );
    assert!(
        blank.text.contains("value=\"set_field:stage\""),
        "{}",
        blank.text
    );

    let saved = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Stage XK",
                &[
                    ("ticket.fields.serial", "starts_with", "XK"),
                    ("ticket.fields.cost", "greater_than", "10"),
                    ("ticket.fields.device", "one_of", "laptop, Phone"),
                    ("ticket.fields.contact", "is_not", "bob"),
                ],
                &[
                    ("set_field:stage", "triage"),
                    ("set_field:extras", "Dock, Mouse"),
                    ("set_field:contact", "bob"),
                ],
            ),
        )
        .await;
    let page_path = location(&saved);
    assert!(
        page_path.starts_with("/admin/triggers/"),
        "{page_path}: {}",
        saved.text
    );
    let listed = app.as_user(&root).get(TRIGGERS).await.json;
    assert_eq!(
        listed[0]["conditions"]["all"],
        json!([
            {"field": "ticket.fields.serial", "operator": "starts_with", "value": "XK"},
            {"field": "ticket.fields.cost", "operator": "greater_than", "value": 10.0},
            {"field": "ticket.fields.device", "operator": "one_of", "value": ["Laptop", "Phone"]},
            {"field": "ticket.fields.contact", "operator": "is_not", "value": bob.id}
        ])
    );
    assert_eq!(
        listed[0]["actions"],
        json!([
            {"set_field": "stage", "value": "triage"},
            {"set_field": "extras", "value": ["Dock", "Mouse"]},
            {"set_field": "contact", "value": bob.id}
        ])
    );
    // The saved rule shows again as saved.
    let shown = admin.page(app, &page_path).await;
    assert_eq!(shown.status, StatusCode::OK);
    for wanted in [
        "<option value=\"ticket.fields.serial\" selected>",
        "<option value=\"ticket.fields.device\" selected>",
        "value=\"Laptop, Phone\"",
        "<option value=\"set_field:stage\" selected>",
        "<option value=\"set_field:extras\" selected>",
        ">Dock, Mouse</textarea>",
        ">bob</textarea>",
        "value=\"bob\"",
    ] {
        assert!(shown.text.contains(wanted), "{wanted}: {}", shown.text);
    }
    // A value of the wrong type comes back with the editor and the reason.
    let refused = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Bad",
                &[("ticket.fields.cost", "is", "lots")],
                &[("priority", "low")],
            ),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    assert!(
        refused.text.contains("must be a number"),
        "{}",
        refused.text
    );

    // And it runs.
    let made = app
        .as_user(&bob)
        .create_ticket(json!({"title": "Fan", "custom_fields": {"serial": "xk-1", "cost": 11, "device": "Phone"}}))
        .await;
    let seen = read(app, &bob, id_of(&made)).await;
    assert_eq!(seen["custom_fields"]["stage"], "triage", "{seen}");
    assert_eq!(
        seen["custom_fields"]["extras"],
        json!(["Dock", "Mouse"]),
        "{seen}"
    );
    // No contact yet, so "is not bob" held; the rule named bob.
    assert_eq!(seen["custom_fields"]["contact"], bob.id, "{seen}");
}

db_test!(the_editor_names_assets_by_their_names);
/// An asset field's value is typed in the editor by the asset's name (or its number), stored as its id and
/// shown again by name; a name nobody's asset has, or two assets share, is refused with the reason.
async fn the_editor_names_assets_by_their_names(app: &TestApp) {
    let root = app.admin("root").await;
    define(
        app,
        &root,
        json!({"key": "device", "label": "Device", "kind": "asset"}),
    )
    .await;
    let mut ids = Vec::new();
    for name in ["Laptop 7", "Printer 2", "Printer 2"] {
        let made = app
            .as_user(&root)
            .post("/api/assets/", json!({"name": name, "type": "hardware"}))
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
        ids.push(made.json["id"].as_i64().unwrap());
    }
    let admin = login(app, &root).await;
    let saved = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Laptop seven",
                &[("ticket.fields.device", "is", "laptop 7")],
                &[("set_field:device", &ids[2].to_string())],
            ),
        )
        .await;
    let page_path = location(&saved);
    assert!(page_path.starts_with("/admin/triggers/"), "{}", saved.text);
    let listed = app.as_user(&root).get(TRIGGERS).await.json;
    assert_eq!(
        listed[0]["conditions"]["all"],
        json!([{"field": "ticket.fields.device", "operator": "is", "value": ids[0]}])
    );
    assert_eq!(
        listed[0]["actions"],
        json!([{"set_field": "device", "value": ids[2]}])
    );
    let shown = admin.page(app, &page_path).await;
    assert!(
        shown.text.contains("value=\"Laptop 7\"") && shown.text.contains(">Printer 2</textarea>"),
        "{}",
        shown.text
    );
    for (typed, reason) in [
        ("Laptop 9", "there is no asset named"),
        ("printer 2", "several assets are named"),
    ] {
        let refused = admin
            .form(
                app,
                "/admin/triggers/",
                &editor(
                    "Bad",
                    &[("ticket.fields.device", "is", typed)],
                    &[("priority", "low")],
                ),
            )
            .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
        assert!(refused.text.contains(reason), "{reason}: {}", refused.text);
        // The rows come back as typed, the refused name in its box.
        assert!(
            refused.text.contains(&format!("value=\"{typed}\""))
                && refused
                    .text
                    .contains(r#"<option value="priority" selected>"#)
                && refused.text.contains(">low</textarea>"),
            "{typed}: {}",
            refused.text
        );
    }
    // A name is found by itself, not among the first page of assets whose names hold it: 101 assets
    // "A Laptop 7 …" sort before "Laptop 7".
    for n in 0..101 {
        let made = app
            .as_user(&root)
            .post(
                "/api/assets/",
                json!({"name": format!("A Laptop 7 spare {n:03}"), "type": "hardware"}),
            )
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    }
    let found = admin
        .form(
            app,
            "/admin/triggers/",
            &editor(
                "Laptop seven again",
                &[("ticket.fields.device", "is", "LAPTOP 7")],
                &[("priority", "low")],
            ),
        )
        .await;
    assert!(
        location(&found).starts_with("/admin/triggers/"),
        "{}",
        found.text
    );
    let listed = app.as_user(&root).get(TRIGGERS).await.json;
    let again = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Laptop seven again")
        .unwrap();
    assert_eq!(again["conditions"]["all"][0]["value"], ids[0], "{again}");
}
