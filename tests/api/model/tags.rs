//! Tags through every door: who may see and set them, normalised names, list filters and their totals,
//! the tag list with counts, an admin's renames, merges and curated list, the audit trail and the webhook.
use crate::db_test;
use crate::support::events::{hooked, outbox_rows, Mode, Receiver};
use crate::support::helpers::{assert_error, TestApp};
use axum::http::StatusCode;
use deskgraph::service::tags::{self, Edit};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

fn tags_of(body: &Value) -> Vec<&str> {
    body["tags"]
        .as_array()
        .unwrap_or_else(|| panic!("no tags in {body}"))
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

db_test!(the_team_tags_a_ticket_and_the_requester_sees_none_of_it);
async fn the_team_tags_a_ticket_and_the_requester_sees_none_of_it(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let stranger = app.user("sam").await;
    let t = app.as_user(&rita).ticket_titled("VPN drops").await;
    let id = t["id"].as_i64().unwrap();
    let path = format!("/api/tickets/{id}/tags/");

    let added = app
        .as_user(&agent)
        .post(
            &path,
            json!({"tags": [" VPN ", "Urgent", "vpn", "Home  Office"]}),
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.text);
    assert_eq!(tags_of(&added.json), ["home office", "urgent", "vpn"]);
    assert_eq!(
        tags_of(&app.as_user(&agent).get(&path).await.json),
        ["home office", "urgent", "vpn"]
    );

    // The requester may see the ticket but not its tags, through REST and GraphQL.
    assert_error(
        &app.as_user(&rita).get(&path).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &app.as_user(&rita)
            .post(&path, json!({"tags": ["mine"]}))
            .await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let found = app
        .as_user(&agent)
        .graphql_data(
            "query($id: Int!) { ticket(databaseId: $id) { id } }",
            json!({"id": id}),
        )
        .await;
    let gid = found["ticket"]["id"].as_str().unwrap().to_string();
    let query = "query($id: ID!) { node(id: $id) { ... on Ticket { tags history(first: 50) { nodes { action } } } } }";
    let as_agent = app
        .as_user(&agent)
        .graphql_data(query, json!({"id": gid}))
        .await;
    assert_eq!(
        as_agent["node"]["tags"],
        json!(["home office", "urgent", "vpn"])
    );
    let actions: Vec<&str> = as_agent["node"]["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["action"].as_str().unwrap())
        .collect();
    assert!(actions.contains(&"tag"), "{actions:?}");
    let as_rita = app
        .as_user(&rita)
        .graphql_data(query, json!({"id": gid}))
        .await;
    assert_eq!(as_rita["node"]["tags"], json!([]));
    assert!(
        !as_rita["node"]["history"].to_string().contains("\"tag\""),
        "{as_rita}"
    );
    let refused = app
        .as_user(&rita)
        .graphql(
            "mutation($id: ID!) { addTags(input: {ticketId: $id, tags: [\"x\"]}) { tags } }",
            json!({"id": gid}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );

    // Someone who cannot see the ticket learns nothing: 404.
    assert_error(
        &app.as_user(&stranger).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&stranger)
            .post(&path, json!({"tags": ["x"]}))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    // One off by name, exactly a set, and GraphQL's add and remove.
    let one_off = app
        .as_user(&agent)
        .delete(&format!("/api/tickets/{id}/tags/Urgent/"))
        .await;
    assert_eq!(tags_of(&one_off.json), ["home office", "vpn"]);
    let put = app
        .request(
            axum::http::Method::PUT,
            &path,
            Some(&agent.token),
            Some(json!({"tags": ["printer", "vpn"]})),
        )
        .await;
    assert_eq!(tags_of(&put.json), ["printer", "vpn"]);
    let data = app
        .as_user(&agent)
        .graphql_data(
            "mutation($id: ID!) { a: addTags(input: {ticketId: $id, tags: [\"Toner\"]}) { tags }
                                  r: removeTags(input: {ticketId: $id, tags: [\"printer\"]}) { tags ticket { tags } } }",
            json!({"id": gid}),
        )
        .await;
    assert_eq!(data["a"]["tags"], json!(["printer", "toner", "vpn"]));
    assert_eq!(data["r"]["ticket"]["tags"], json!(["toner", "vpn"]));

    // Bad names are a 400 naming the field; nothing changes.
    for body in [
        json!({"tags": ["x".repeat(51)]}),
        json!({"tags": ["a,b"]}),
        json!({"tags": ["  "]}),
        json!({"tags": "vpn"}),
        json!({"tags": [1]}),
        json!({}),
        json!({"tags": (0..51).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
    ] {
        let r = app.as_user(&agent).post(&path, body.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "validation_error");
        assert!(r.json["details"]["tags"].is_array(), "{body}: {}", r.text);
    }
    assert_eq!(
        tags_of(&app.as_user(&agent).get(&path).await.json),
        ["toner", "vpn"]
    );
    assert_error(
        &app.as_user(&agent).get("/api/tickets/999999/tags/").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
}

db_test!(lists_filter_by_tag_for_the_team_with_exact_totals);
async fn lists_filter_by_tag_for_the_team_with_exact_totals(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let mut ids = Vec::new();
    for (title, tags) in [
        ("One", vec!["vpn", "urgent"]),
        ("Two", vec!["vpn"]),
        ("Three", vec![]),
    ] {
        let t = app.as_user(&rita).ticket_titled(title).await;
        let id = t["id"].as_i64().unwrap();
        ids.push(id);
        if !tags.is_empty() {
            let r = app
                .as_user(&agent)
                .post(&format!("/api/tickets/{id}/tags/"), json!({"tags": tags}))
                .await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        }
    }
    let titles = |body: &Value| -> Vec<String> {
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].as_str().unwrap().to_string())
            .collect()
    };
    let vpn = app.as_user(&agent).get("/api/tickets/?tag=VPN").await;
    assert_eq!(vpn.status, StatusCode::OK, "{}", vpn.text);
    assert_eq!(
        (vpn.json["count"].as_i64(), titles(&vpn.json)),
        (Some(2), vec!["Two".into(), "One".into()])
    );
    let both = app
        .as_user(&agent)
        .get("/api/tickets/?tag=vpn,urgent")
        .await;
    assert_eq!(titles(&both.json), ["One"]);
    let any = app
        .as_user(&agent)
        .get("/api/tickets/?tag_any=urgent,printer&limit=1")
        .await;
    assert_eq!(
        (any.json["count"].as_i64(), titles(&any.json)),
        (Some(1), vec!["One".into()])
    );
    let paged = app
        .as_user(&agent)
        .get("/api/tickets/?tag=vpn&limit=1")
        .await;
    assert!(
        paged.json["next"].as_str().unwrap().contains("tag=vpn"),
        "{}",
        paged.text
    );
    assert_error(
        &app.as_user(&agent)
            .get(&format!("/api/tickets/?tag={}", "x".repeat(51)))
            .await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );

    // The remembered total follows a tag change at once.
    let r = app
        .as_user(&agent)
        .delete(&format!("/api/tickets/{}/tags/vpn/", ids[1]))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let vpn = app.as_user(&agent).get("/api/tickets/?tag=vpn").await;
    assert_eq!(
        (vpn.json["count"].as_i64(), titles(&vpn.json)),
        (Some(1), vec!["One".into()])
    );

    // GraphQL: all and any, with the tags of each node.
    let data = app
        .as_user(&agent)
        .graphql_data(
            r#"{ all: tickets(filter: {tags: {all: ["vpn", "URGENT"]}}) { totalCount nodes { title tags } }
                 any: tickets(filter: {tags: {any: ["urgent", "none"]}}) { totalCount } }"#,
            json!({}),
        )
        .await;
    assert_eq!(data["all"]["totalCount"], 1);
    assert_eq!(data["all"]["nodes"][0]["tags"], json!(["urgent", "vpn"]));
    assert_eq!(data["any"]["totalCount"], 1);

    // A requester's tag filter is refused, not answered empty.
    assert_error(
        &app.as_user(&rita).get("/api/tickets/?tag=vpn").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let refused = app
        .as_user(&rita)
        .graphql(
            r#"{ tickets(filter: {tags: {any: ["vpn"]}}) { totalCount } }"#,
            json!({}),
        )
        .await;
    assert_eq!(
        refused["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{refused}"
    );
    let own = app
        .as_user(&rita)
        .graphql_data("{ tickets { nodes { tags } } }", json!({}))
        .await;
    assert!(
        own["tickets"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["tags"] == json!([])),
        "{own}"
    );
}

db_test!(admins_curate_rename_merge_and_delete_tags);
async fn admins_curate_rename_merge_and_delete_tags(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let one = app.as_user(&rita).ticket_titled("One").await["id"]
        .as_i64()
        .unwrap();
    let two = app.as_user(&rita).ticket_titled("Two").await["id"]
        .as_i64()
        .unwrap();
    for (id, tags) in [(one, json!(["vpn", "urgent"])), (two, json!(["urgent"]))] {
        let r = app
            .as_user(&agent)
            .post(&format!("/api/tickets/{id}/tags/"), json!({ "tags": tags }))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    }
    let listed = app.as_user(&agent).get("/api/tags/").await;
    assert_eq!(
        listed.json,
        json!([{"name": "urgent", "curated": false, "tickets": 2}, {"name": "vpn", "curated": false, "tickets": 1}])
    );
    assert_eq!(
        app.as_user(&agent).get("/api/tags/?q=VP").await.json,
        json!([{"name": "vpn", "curated": false, "tickets": 1}])
    );
    assert_error(
        &app.as_user(&rita).get("/api/tags/").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &app.as_user(&agent)
            .patch("/api/tags/vpn/", json!({"name": "network"}))
            .await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );

    // Rename, then merge into a name in use: the ticket carrying both keeps one.
    let renamed = app
        .as_user(&admin)
        .patch("/api/tags/VPN/", json!({"name": "Network"}))
        .await;
    assert_eq!(
        renamed.json,
        json!({"name": "network", "curated": false, "tickets": 1}),
        "{}",
        renamed.text
    );
    let merged = app
        .as_user(&admin)
        .patch(
            "/api/tags/urgent/",
            json!({"name": "network", "curated": true}),
        )
        .await;
    assert_eq!(
        merged.json,
        json!({"name": "network", "curated": true, "tickets": 2}),
        "{}",
        merged.text
    );
    assert_eq!(
        tags_of(
            &app.as_user(&agent)
                .get(&format!("/api/tickets/{one}/tags/"))
                .await
                .json
        ),
        ["network"]
    );
    assert_error(
        &app.as_user(&admin).get("/api/tags/urgent/").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    // Free tags off: only curated names go on tickets.
    let off = app
        .as_user(&admin)
        .patch("/api/settings/tags/", json!({"free_tags": false}))
        .await;
    assert_eq!(off.json, json!({"free_tags": false}), "{}", off.text);
    assert_eq!(
        app.as_user(&agent).get("/api/settings/tags/").await.json,
        json!({"free_tags": false})
    );
    let refused = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{two}/tags/"),
            json!({"tags": ["random"]}),
        )
        .await;
    assert_error(&refused, StatusCode::BAD_REQUEST, "validation_error");
    assert!(refused.text.contains("random"), "{}", refused.text);
    let curated = app
        .as_user(&admin)
        .post("/api/tags/", json!({"name": "Hardware"}))
        .await;
    assert_eq!(curated.status, StatusCode::CREATED, "{}", curated.text);
    assert_eq!(
        curated.json,
        json!({"name": "hardware", "curated": true, "tickets": 0})
    );
    let ok = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{two}/tags/"),
            json!({"tags": ["hardware"]}),
        )
        .await;
    assert_eq!(tags_of(&ok.json), ["hardware", "network"]);
    assert_error(
        &app.as_user(&agent)
            .patch("/api/settings/tags/", json!({"free_tags": true}))
            .await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    assert_error(
        &app.as_user(&admin)
            .patch("/api/settings/tags/", json!({"free_tags": "yes"}))
            .await,
        StatusCode::BAD_REQUEST,
        "validation_error",
    );

    // Delete: off every ticket.
    let gone = app.as_user(&admin).delete("/api/tags/network/").await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(
        tags_of(
            &app.as_user(&agent)
                .get(&format!("/api/tickets/{two}/tags/"))
                .await
                .json
        ),
        ["hardware"]
    );
    assert_error(
        &app.as_user(&admin).delete("/api/tags/network/").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    // The same through GraphQL.
    let data = app
        .as_user(&admin)
        .graphql_data(
            r#"mutation { c: curateTag(input: {name: "Laptop"}) { name curated ticketCount }
                          u: updateTag(input: {name: "hardware", newName: "kit"}) { name ticketCount }
                          s: updateTagSettings(input: {freeTags: true}) { freeTags } }"#,
            json!({}),
        )
        .await;
    assert_eq!(
        data["c"],
        json!({"name": "laptop", "curated": true, "ticketCount": 0})
    );
    assert_eq!(data["u"], json!({"name": "kit", "ticketCount": 1}));
    assert_eq!(data["s"], json!({"freeTags": true}));
    let listed = app
        .as_user(&agent)
        .graphql_data(
            "{ tags { name ticketCount } tagSettings { freeTags } }",
            json!({}),
        )
        .await;
    assert_eq!(
        listed,
        json!({"tags": [{"name": "kit", "ticketCount": 1}, {"name": "laptop", "ticketCount": 0}], "tagSettings": {"freeTags": true}})
    );
}

db_test!(a_name_used_again_after_a_delete_or_rename_makes_the_tag_again);
/// A tag name in use is remembered, so tagging with it reads no ids; a delete or rename forgets it, so the
/// next use of the old name makes the tag again rather than linking to what is gone.
async fn a_name_used_again_after_a_delete_or_rename_makes_the_tag_again(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let mut tickets = Vec::new();
    for i in 0..6 {
        let t = app.as_user(&rita).ticket_titled(&format!("T{i}")).await;
        tickets.push(t["id"].as_i64().unwrap());
    }
    let tag = |id: i64| {
        let agent = agent.clone();
        async move {
            let r = app
                .as_user(&agent)
                .post(
                    &format!("/api/tickets/{id}/tags/"),
                    json!({"tags": ["vpn"]}),
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            let stored = app
                .as_user(&agent)
                .get(&format!("/api/tickets/{id}/tags/"))
                .await;
            tags_of(&stored.json)
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
        }
    };
    let count = |name: &'static str| {
        let admin = admin.clone();
        async move {
            let r = app.as_user(&admin).get(&format!("/api/tags/{name}/")).await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            r.json["tickets"].as_i64().unwrap()
        }
    };
    // Made, then found by its id, then linked by its name.
    for id in &tickets[..3] {
        assert_eq!(tag(*id).await, ["vpn"]);
    }
    assert_eq!(count("vpn").await, 3);

    let gone = app.as_user(&admin).delete("/api/tags/vpn/").await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT, "{}", gone.text);
    assert_eq!(tag(tickets[3]).await, ["vpn"], "made again after a delete");
    assert_eq!(tag(tickets[4]).await, ["vpn"]);
    assert_eq!(count("vpn").await, 2);

    let renamed = app
        .as_user(&admin)
        .patch("/api/tags/vpn/", json!({"name": "network"}))
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.text);
    assert_eq!(tag(tickets[5]).await, ["vpn"], "made again after a rename");
    assert_eq!(count("vpn").await, 1);
    assert_eq!(count("network").await, 2);
}

db_test!(a_tag_change_is_announced_once);
async fn a_tag_change_is_announced_once(app: &TestApp) {
    let receiver = Receiver::start(Mode::Ok).await;
    let state = hooked(app, &receiver);
    let agent = crate::support::clients::actor(app, &app.agent("agnes").await).await;
    let rita = app.user("rita").await;
    let id = app.as_user(&rita).ticket_titled("Tagged").await["id"]
        .as_i64()
        .unwrap() as i32;
    let before = outbox_rows(app).await.len();
    let deps = state.write_deps(deskgraph::domain::Channel::Rest);
    let after = tags::change(
        deps,
        &agent,
        id,
        Edit::Add(vec!["VPN".into(), "Urgent".into()]),
    )
    .await
    .unwrap();
    assert_eq!(after, ["urgent", "vpn"]);
    // The same again changes nothing and announces nothing.
    tags::change(deps, &agent, id, Edit::Add(vec!["vpn".into()]))
        .await
        .unwrap();
    tags::change(deps, &agent, id, Edit::Remove(vec!["urgent".into()]))
        .await
        .unwrap();
    let rows = outbox_rows(app).await;
    let tagged: Vec<Value> = rows[before..]
        .iter()
        .filter(|r| r.event == "ticket.tagged")
        .map(|r| serde_json::from_str(&r.payload).unwrap())
        .collect();
    assert_eq!(tagged.len(), 2, "{tagged:?}");
    assert_eq!(
        (
            &tagged[0]["added"],
            &tagged[0]["removed"],
            &tagged[0]["tags"]
        ),
        (
            &json!(["urgent", "vpn"]),
            &json!([]),
            &json!(["urgent", "vpn"])
        )
    );
    assert_eq!(
        (
            &tagged[1]["added"],
            &tagged[1]["removed"],
            &tagged[1]["tags"]
        ),
        (&json!([]), &json!(["urgent"]), &json!(["vpn"]))
    );
    assert_eq!(tagged[1]["ticket_id"], id);
    let audits = entity::audit_event::Entity::find()
        .filter(entity::audit_event::Column::Action.eq("tag"))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(audits.len(), 2);
    assert!(audits.iter().all(|a| a.is_internal));
    assert_eq!(
        audits[1].changes,
        json!({"tags": [["urgent", "vpn"], ["vpn"]]})
    );
}

db_test!(rules_and_macros_put_tags_on_and_take_them_off);
async fn rules_and_macros_put_tags_on_and_take_them_off(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    // A malformed tag action is a 400 naming its JSON path.
    let bad = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({"name": "Bad", "conditions": {}, "actions": [{"add_tags": ["ok", "a,b"]}]}),
        )
        .await;
    assert_error(&bad, StatusCode::BAD_REQUEST, "validation_error");
    assert!(
        bad.json["details"]["actions[0].add_tags"].is_array(),
        "{}",
        bad.text
    );
    let empty = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({"name": "Bad", "conditions": {}, "actions": [{"add_tags": []}]}),
        )
        .await;
    assert_error(&empty, StatusCode::BAD_REQUEST, "validation_error");

    // Free tags off does not hold a rule back: the admin wrote it.
    let off = app
        .as_user(&admin)
        .patch("/api/settings/tags/", json!({"free_tags": false}))
        .await;
    assert_eq!(off.status, StatusCode::OK);
    let made = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({
                "name": "VPN words",
                "conditions": {"all": [
                    {"field": "event", "operator": "is", "value": "created"},
                    {"field": "ticket.title", "operator": "contains", "value": "vpn"}
                ]},
                "actions": [{"add_tags": ["VPN", "Network"]}, {"set": "priority", "value": "high"}]
            }),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    assert_eq!(
        made.json["actions"][0],
        json!({"add_tags": ["vpn", "network"]})
    );
    let rule_id = made.json["id"].as_i64().unwrap();
    let id = app.as_user(&rita).ticket_titled("VPN drops at home").await["id"]
        .as_i64()
        .unwrap();
    let tagged = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(tags_of(&tagged.json), ["network", "vpn"]);
    let history = app
        .as_user(&agent)
        .graphql_data(
            "query($n: Int!) { ticket(databaseId: $n) { history(first: 20) { nodes { action changes } } } }",
            json!({"n": id}),
        )
        .await;
    let tag_entry = history["ticket"]["history"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["action"] == "tag")
        .cloned()
        .unwrap();
    assert_eq!(tag_entry["changes"]["via"]["rule"], rule_id);
    assert_eq!(
        tag_entry["changes"]["tags"],
        json!([[], ["network", "vpn"]])
    );
    let other = app.as_user(&rita).ticket_titled("Printer").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        app.as_user(&agent)
            .get(&format!("/api/tickets/{other}/tags/"))
            .await
            .json,
        json!({"tags": []})
    );

    // A macro takes a tag off with the agent's rights.
    let m = app
        .as_user(&agent)
        .post(
            "/api/automation/macros/",
            json!({"name": "Not network", "actions": [{"remove_tags": ["network"]}, {"add_tags": ["vpn"]}]}),
        )
        .await;
    assert_eq!(m.status, StatusCode::CREATED, "{}", m.text);
    let applied = app
        .as_user(&agent)
        .post(
            &format!("/api/automation/macros/{}/apply/", m.json["id"]),
            json!({"tickets": [id]}),
        )
        .await;
    assert_eq!(applied.status, StatusCode::OK, "{}", applied.text);
    assert_eq!(applied.json["failures"], json!([]), "{}", applied.text);
    let after = app
        .as_user(&agent)
        .get(&format!("/api/tickets/{id}/tags/"))
        .await;
    assert_eq!(tags_of(&after.json), ["vpn"]);
}

db_test!(rules_ask_about_a_tickets_tags);
async fn rules_ask_about_a_tickets_tags(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let bad = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({"name": "Bad", "conditions": {"all": [{"field": "ticket.tags", "operator": "starts_with", "value": "v"}]},
                   "actions": [{"set": "priority", "value": "high"}]}),
        )
        .await;
    assert_error(&bad, StatusCode::BAD_REQUEST, "validation_error");
    let made = app
        .as_user(&admin)
        .post(
            "/api/automation/triggers/",
            json!({
                "name": "VIP replies are urgent",
                "conditions": {"all": [
                    {"field": "event", "operator": "is", "value": "comment_added"},
                    {"field": "ticket.tags", "operator": "contains", "value": " VIP "}
                ]},
                "actions": [{"set": "priority", "value": "critical"}, {"add_tags": ["escalated"]}]
            }),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    assert_eq!(made.json["conditions"]["all"][1]["value"], "vip");
    let vip = app.as_user(&rita).ticket_titled("Boss laptop").await["id"]
        .as_i64()
        .unwrap();
    let plain = app.as_user(&rita).ticket_titled("My laptop").await["id"]
        .as_i64()
        .unwrap();
    let r = app
        .as_user(&agent)
        .post(
            &format!("/api/tickets/{vip}/tags/"),
            json!({"tags": ["vip"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    for id in [vip, plain] {
        let c = app
            .as_user(&rita)
            .post(
                &format!("/api/tickets/{id}/comments/"),
                json!({"content": "Any news?"}),
            )
            .await;
        assert_eq!(c.status, StatusCode::CREATED, "{}", c.text);
    }
    let agent_ref = &agent;
    let priority = |id: i64| async move {
        app.as_user(agent_ref)
            .get(&format!("/api/tickets/{id}/"))
            .await
            .json["priority"]
            .clone()
    };
    assert_eq!(priority(vip).await, "critical");
    assert_eq!(priority(plain).await, "medium");
    assert_eq!(
        tags_of(
            &app.as_user(&agent)
                .get(&format!("/api/tickets/{vip}/tags/"))
                .await
                .json
        ),
        ["escalated", "vip"]
    );
    // Time rules may ask about tags too.
    let rule = app
        .as_user(&admin)
        .post(
            "/api/automation/time-rules/",
            json!({"name": "Old VIP", "wait": {"since": "updated", "hours": 24},
                   "conditions": {"all": [{"field": "ticket.tags", "operator": "one_of", "value": ["vip", "board"]}]},
                   "actions": [{"add_tags": ["stale"]}]}),
        )
        .await;
    assert_eq!(rule.status, StatusCode::CREATED, "{}", rule.text);
}

db_test!(a_ticket_read_brings_the_tags_the_tag_read_gives);
/// A page or ticket read that brings its tickets' tags along (as the web queue and ticket page do) gives
/// each viewer exactly what the tags' own read gives them: the team and a ticket's workers its tags, its
/// requester none.
async fn a_ticket_read_brings_the_tags_the_tag_read_gives(app: &TestApp) {
    use crate::support::world::{actor, plain_ticket, world};
    use deskgraph::service::tickets::{Joined, TicketFilter, TicketOrder, TicketQuery};
    use deskgraph::service::PageRequest;
    let w = world(app).await;
    let other = plain_ticket(app, &w.owner).await;
    plain_ticket(app, &w.other).await;
    for (id, names) in [
        (w.ticket.id, json!(["Printer", "fire", "A  b"])),
        (other.id, json!(["desk"])),
    ] {
        let tagged = app
            .as_user(&w.agent)
            .post(&format!("/api/tickets/{id}/tags/"), json!({"tags": names}))
            .await;
        assert_eq!(tagged.status, StatusCode::OK, "{}", tagged.text);
    }
    let joined = Joined {
        tags: true,
        ..Joined::NOTHING
    };
    let reads = &app.state.ticket_reads;
    let mut seen = Vec::new();
    for user in [
        &w.owner,
        &w.other,
        &w.assignee,
        &w.grouper,
        &w.agent,
        &w.staff,
        &w.admin,
    ] {
        let viewer = actor(app, user).await;
        let page = PageRequest {
            offset: 0,
            limit: 50,
            with_total: false,
        };
        let query = TicketQuery::new(
            &viewer,
            TicketFilter::default(),
            TicketOrder::default(),
            page,
            joined,
        );
        let found = reads.page(&app.state.db, &viewer, query).await.unwrap();
        let ids: Vec<i32> = found.tickets.iter().map(|t| t.id).collect();
        let want = tags::of_tickets(&app.state.db.conn, &viewer, &ids)
            .await
            .unwrap();
        let mut read = found.tags.clone();
        read.retain(|_, names| !names.is_empty());
        assert_eq!(
            read.into_iter()
                .collect::<std::collections::HashMap<_, _>>(),
            want,
            "{}",
            user.username
        );
        for id in ids {
            let (_, one) = reads.one(&app.state.db, &viewer, id, joined).await.unwrap();
            assert_eq!(one.tags.get(&id), found.tags.get(&id), "{}", user.username);
        }
        seen.push((user.username.clone(), found.tags.get(&w.ticket.id).cloned()));
    }
    let of = |name: &str| seen.iter().find(|(u, _)| u == name).unwrap().1.clone();
    let all = Some(vec!["a b".to_string(), "fire".into(), "printer".into()]);
    assert_eq!(of("owner"), None, "the requester sees no tags");
    assert_eq!(of("assignee"), all, "the assignee sees them");
    assert_eq!(of("grouper"), all, "the assigned group sees them");
    assert_eq!(of("agent"), all);
}

db_test!(a_later_rule_sees_the_tags_an_earlier_one_left);
async fn a_later_rule_sees_the_tags_an_earlier_one_left(app: &TestApp) {
    let admin = app.admin("ada").await;
    let agent = app.agent("agnes").await;
    let rita = app.user("rita").await;
    let created = json!({"field": "event", "operator": "is", "value": "created"});
    let has = |tag: &str| json!({"field": "ticket.tags", "operator": "contains", "value": tag});
    for (name, when, actions) in [
        (
            "VPN is network",
            json!({"field": "ticket.title", "operator": "contains", "value": "vpn"}),
            json!([{"add_tags": ["network"]}]),
        ),
        (
            "Network is urgent",
            has("network"),
            json!([{"set": "priority", "value": "high"}, {"add_tags": ["seen-network"]}, {"remove_tags": ["nothing-here"]}]),
        ),
        (
            "Others can wait",
            json!({"field": "ticket.tags", "operator": "is_not", "value": "network"}),
            json!([{"set": "priority", "value": "low"}]),
        ),
        (
            "Chained",
            has("seen-network"),
            json!([{"add_tags": ["chained"]}]),
        ),
    ] {
        let made = app
            .as_user(&admin)
            .post(
                "/api/automation/triggers/",
                json!({"name": name, "conditions": {"all": [created.clone(), when]}, "actions": actions}),
            )
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    }
    for (title, priority, tags) in [
        (
            "VPN drops",
            "high",
            vec!["chained", "network", "seen-network"],
        ),
        ("Printer jams", "low", vec![]),
    ] {
        let id = app.as_user(&rita).ticket_titled(title).await["id"]
            .as_i64()
            .unwrap();
        let t = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/"))
            .await;
        assert_eq!(t.json["priority"], priority, "{}", t.text);
        let shown = app
            .as_user(&agent)
            .get(&format!("/api/tickets/{id}/tags/"))
            .await;
        assert_eq!(tags_of(&shown.json), tags, "{}", shown.text);
    }
}
