//! Assets over REST: CRUD, filters, who sees and changes what, soft delete and validation.
use crate::db_test;
use crate::support::clients::assert_unauthenticated;
use crate::support::helpers::{assert_error, TestApp};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use entity::audit_event;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};

fn names(response: &Value) -> Vec<&str> {
    response
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect()
}

async fn team_member_manages_assets(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let owner = app.user("olga").await;
    let created = app
        .as_user(&agent)
        .post(
            "/api/assets/",
            json!({"name": " ThinkPad X1 ", "type": "hardware", "location": "Room 4",
                   "owner": owner.id, "description": "Olga's laptop", "serial_number": "SN-123"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json["id"].as_i64().unwrap();
    let mut expected = json!({
        "id": id, "name": "ThinkPad X1", "type": "hardware", "status": "in_stock",
        "location": "Room 4", "owner": "olga", "description": "Olga's laptop",
        "serial_number": "SN-123",
        "created_at": created.json["created_at"], "updated_at": created.json["updated_at"],
    });
    assert_eq!(created.json, expected);
    assert!(created.json["created_at"].as_str().unwrap().ends_with('Z'));

    let path = format!("/api/assets/{id}/");
    assert_eq!(app.as_user(&agent).get(&path).await.json, expected);

    let patched = app
        .as_user(&agent)
        .patch(
            &path,
            json!({"status": "in_use", "type": "mobile", "owner": null}),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    expected["status"] = json!("in_use");
    expected["type"] = json!("mobile");
    expected["owner"] = Value::Null;
    expected["updated_at"] = patched.json["updated_at"].clone();
    assert_eq!(patched.json, expected);

    let audits = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.eq("asset"))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(audits.len(), 2);
    assert_eq!(
        audits[1].changes,
        json!({"status": ["in_stock", "in_use"], "type": ["hardware", "mobile"], "owner_id": [owner.id, null]})
    );

    let deleted = app.as_user(&agent).delete(&path).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(deleted.text, "");
    assert_error(
        &app.as_user(&agent).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&agent).patch(&path, json!({"name": "x"})).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_eq!(
        app.as_user(&agent).get("/api/assets/").await.json,
        json!([])
    );
    let archive_audit = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.eq("asset"))
        .filter(audit_event::Column::Action.eq("archive"))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    assert_eq!(archive_audit.len(), 1);
}
db_test!(team_member_manages_assets);

async fn owners_see_only_their_assets_and_change_none(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let olga = app.user("olga").await;
    let peter = app.user("peter").await;
    let mine = app
        .as_user(&agent)
        .post(
            "/api/assets/",
            json!({"name": "Laptop", "type": "hardware", "owner": olga.id}),
        )
        .await;
    let theirs = app
        .as_user(&agent)
        .post(
            "/api/assets/",
            json!({"name": "Phone", "type": "mobile", "owner": peter.id}),
        )
        .await;
    app.as_user(&agent)
        .post("/api/assets/", json!({"name": "Switch", "type": "network"}))
        .await;
    let mine_path = format!("/api/assets/{}/", mine.json["id"]);
    let theirs_path = format!("/api/assets/{}/", theirs.json["id"]);

    assert_eq!(
        names(&app.as_user(&agent).get("/api/assets/").await.json),
        ["Laptop", "Phone", "Switch"]
    );
    assert_eq!(
        names(&app.as_user(&olga).get("/api/assets/").await.json),
        ["Laptop"]
    );
    assert_eq!(
        app.as_user(&olga).get(&mine_path).await.json["owner"],
        "olga"
    );
    assert_error(
        &app.as_user(&olga).get(&theirs_path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );

    let own_patch = app
        .as_user(&olga)
        .patch(&mine_path, json!({"location": "Home"}))
        .await;
    assert_error(&own_patch, StatusCode::FORBIDDEN, "forbidden");
    assert_error(
        &app.as_user(&olga).delete(&mine_path).await,
        StatusCode::FORBIDDEN,
        "forbidden",
    );
    let other_patch = app
        .as_user(&olga)
        .patch(&theirs_path, json!({"location": "Home"}))
        .await;
    assert_error(&other_patch, StatusCode::NOT_FOUND, "not_found");
    assert_error(
        &app.as_user(&olga).delete(&theirs_path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let create = app
        .as_user(&olga)
        .post(
            "/api/assets/",
            json!({"name": "Mouse", "type": "peripheral"}),
        )
        .await;
    assert_error(&create, StatusCode::FORBIDDEN, "forbidden");
    assert_eq!(
        app.as_user(&agent).get(&mine_path).await.json["location"],
        ""
    );

    let anonymous = app.anonymous();
    for response in [
        anonymous.get("/api/assets/").await,
        anonymous.get(&mine_path).await,
        anonymous
            .post("/api/assets/", json!({"name": "X", "type": "other"}))
            .await,
        anonymous.patch(&mine_path, json!({"name": "X"})).await,
        anonymous.delete(&mine_path).await,
    ] {
        assert_unauthenticated(&response);
    }
}
db_test!(owners_see_only_their_assets_and_change_none);

async fn asset_filters(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let olga = app.user("olga").await;
    let token = Some(agent.token.as_str());
    for (name, kind, status, description, serial) in [
        ("Dell Monitor", "peripheral", "in_use", "27 inch", "DM-1"),
        (
            "Office License",
            "license",
            "in_stock",
            "Word and Excel",
            "LIC-9",
        ),
        (
            "Core Switch",
            "network",
            "in_repair",
            "Basement rack",
            "CS-100%",
        ),
        ("Old Laptop", "hardware", "retired", "", "ol-77"),
    ] {
        let r = app
            .post(
                "/api/assets/",
                token,
                json!({"name": name, "type": kind, "status": status,
                  "description": description, "serial_number": serial, "owner": olga.id}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let list = |query: &'static str| async move {
        let r = app.get(&format!("/api/assets/{query}"), token).await;
        assert_eq!(r.status, StatusCode::OK, "{query}: {}", r.text);
        names(&r.json)
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(list("?type=network").await, ["Core Switch"]);
    assert_eq!(list("?type=HARDWARE").await, ["Old Laptop"]);
    assert_eq!(list("?status=in_stock").await, ["Office License"]);
    assert_eq!(
        list("?status=retired&type=network").await,
        Vec::<String>::new()
    );
    assert_eq!(list("?search=monitor").await, ["Dell Monitor"]);
    assert_eq!(list("?search=EXCEL").await, ["Office License"]);
    assert_eq!(list("?search=OL-7").await, ["Old Laptop"]);
    assert_eq!(list("?search=100%25").await, ["Core Switch"]);
    assert_eq!(list("?search=%25").await, ["Core Switch"]);
    assert_eq!(list("?type=&search=").await.len(), 4);
    assert_eq!(list("?search=o&type=license").await, ["Office License"]);

    let bad_type = app.get("/api/assets/?type=spaceship", token).await;
    assert_eq!(
        bad_type.json,
        json!({"error": "type: \"spaceship\" is not one of: hardware, software, license, network, peripheral, mobile, other",
               "code": "validation_error",
               "details": {"type": ["\"spaceship\" is not one of: hardware, software, license, network, peripheral, mobile, other"]}})
    );
    assert_eq!(bad_type.status, StatusCode::BAD_REQUEST);
    let bad_status = app.get("/api/assets/?status=broken", token).await;
    assert_error(&bad_status, StatusCode::BAD_REQUEST, "validation_error");
    assert_eq!(
        bad_status.json["details"],
        json!({"status": ["\"broken\" is not one of: in_use, in_stock, in_repair, retired, lost"]})
    );
}
db_test!(asset_filters);

async fn owner_names_are_batched(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let token = Some(agent.token.as_str());
    let mut owners = Vec::new();
    for i in 0..5 {
        owners.push(app.user(&format!("owner{i}")).await);
    }
    app.post(
        "/api/assets/",
        token,
        json!({"name": "A0", "type": "other", "owner": owners[0].id}),
    )
    .await;
    app.get("/api/assets/", token).await; // first use of the token records last_used_at
    let before = app.statements();
    app.get("/api/assets/", token).await;
    let small_cost = app.statements() - before;
    for i in 1..30 {
        let owner = owners[i % 5].id;
        app.post(
            "/api/assets/",
            token,
            json!({"name": format!("A{i:02}"), "type": "other", "owner": owner}),
        )
        .await;
    }
    let before = app.statements();
    let large = app.get("/api/assets/", token).await;
    assert_eq!(app.statements() - before, small_cost);
    assert_eq!(large.json.as_array().unwrap().len(), 30);
    assert_eq!(large.json[1]["owner"], "owner1");
}
db_test!(owner_names_are_batched);

async fn asset_validation_errors(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let token = Some(agent.token.as_str());
    let long = "x".repeat(201);
    let cases = [
        (json!({"type": "hardware"}), "name", "this field is required".to_string()),
        (json!({"name": " ", "type": "hardware"}), "name", "this field may not be blank".into()),
        (json!({"name": long, "type": "hardware"}), "name", "ensure this field has no more than 200 characters".into()),
        (json!({"name": 7, "type": "hardware"}), "name", "must be a string".into()),
        (json!({"name": "A"}), "type", "this field is required".into()),
        (json!({"name": "A", "type": "car"}), "type", "\"car\" is not one of: hardware, software, license, network, peripheral, mobile, other".into()),
        (json!({"name": "A", "type": "other", "status": "gone"}), "status", "\"gone\" is not one of: in_use, in_stock, in_repair, retired, lost".into()),
        (json!({"name": "A", "type": "other", "status": null}), "status", "may not be null".into()),
        (json!({"name": "A", "type": "other", "location": long}), "location", "ensure this field has no more than 200 characters".into()),
        (json!({"name": "A", "type": "other", "serial_number": long}), "serial_number", "ensure this field has no more than 200 characters".into()),
        (json!({"name": "A", "type": "other", "description": 5}), "description", "must be a string".into()),
        (json!({"name": "A", "type": "other", "owner": 999999}), "owner", "user 999999 does not exist".into()),
        (json!({"name": "A", "type": "other", "owner": "abc"}), "owner", "must be a positive integer id".into()),
    ];
    for (body, field, message) in cases {
        let response = app.post("/api/assets/", token, body.clone()).await;
        assert_eq!(
            response.json,
            json!({"error": format!("{field}: {message}"), "code": "validation_error", "details": {field: [message]}}),
            "body {body}"
        );
        assert_eq!(response.status, StatusCode::BAD_REQUEST);
    }
    assert_eq!(app.get("/api/assets/", token).await.json, json!([]));

    let created = app
        .post("/api/assets/", token, json!({"name": "A", "type": "other"}))
        .await;
    let path = format!("/api/assets/{}/", created.json["id"]);
    for (body, field) in [
        (json!({"name": ""}), "name"),
        (json!({"type": "car"}), "type"),
        (json!({"status": 1}), "status"),
        (json!({"owner": 999999}), "owner"),
        (json!({"name": null}), "name"),
    ] {
        let response = app.patch(&path, token, body.clone()).await;
        assert_error(&response, StatusCode::BAD_REQUEST, "validation_error");
        assert!(
            response.json["details"][field].is_array(),
            "{body}: {}",
            response.text
        );
    }
    assert_eq!(app.get(&path, token).await.json["name"], "A");

    for raw in ["{\"name\": \"A\",", "\"text\"", ""] {
        let request = Request::builder()
            .method(Method::POST)
            .uri("/api/assets/")
            .header(header::AUTHORIZATION, format!("Bearer {}", agent.token))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(raw))
            .unwrap();
        let response = app.send(request).await;
        assert_error(&response, StatusCode::BAD_REQUEST, "validation_error");
        assert_eq!(response.json["details"], json!({}));
    }
}
db_test!(asset_validation_errors);
