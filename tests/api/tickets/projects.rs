//! Projects over REST: CRUD, who may write, soft delete, validation and batched ticket counts.
use crate::db_test;
use crate::support::clients::assert_unauthenticated;
use crate::support::helpers::{assert_error, TestApp};
use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use deskgraph::auth::Actor;
use deskgraph::service::projects::{self, NewProject};
use deskgraph::service::tickets::{self, NewTicket};
use entity::audit_event;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

pub async fn ticket_in(
    app: &TestApp,
    actor: &Actor,
    project_id: Option<i32>,
) -> entity::ticket::Model {
    tickets::create(
        app.state.write_deps(deskgraph::domain::Channel::System),
        actor,
        NewTicket {
            title: "Printer jam".into(),
            project_id,
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

async fn team_member_manages_projects(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let created = app
        .as_user(&agent)
        .post(
            "/api/projects/",
            json!({"name": "  Office move  ", "description": "Second floor"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json["id"].as_i64().unwrap();
    assert_eq!(created.json["name"], "Office move");
    assert_eq!(created.json["description"], "Second floor");
    assert_eq!(created.json["ticket_count"], 0);
    assert!(created.json["created_at"].as_str().unwrap().ends_with('Z'));
    let mut keys: Vec<&String> = created.json.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "created_at",
            "description",
            "id",
            "name",
            "ticket_count",
            "updated_at"
        ]
    );

    let path = format!("/api/projects/{id}/");
    let patched = app
        .as_user(&agent)
        .patch(&path, json!({"name": "Office relocation"}))
        .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text);
    assert_eq!(patched.json["name"], "Office relocation");
    assert_eq!(patched.json["description"], "Second floor");
    let cleared = app
        .as_user(&agent)
        .patch(&path, json!({"description": null}))
        .await;
    assert_eq!(cleared.json["description"], "");

    let fetched = app.as_user(&agent).get(&path).await;
    assert_eq!(fetched.status, StatusCode::OK);
    assert_eq!(fetched.json["name"], "Office relocation");

    let audits = audit_event::Entity::find()
        .filter(audit_event::Column::EntityType.eq("project"))
        .all(&app.state.db.conn)
        .await
        .unwrap();
    let actions: Vec<&str> = audits.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(actions, ["create", "update", "update"]);
    assert_eq!(
        audits[1].changes,
        json!({"name": ["Office move", "Office relocation"]})
    );
}
db_test!(team_member_manages_projects);

async fn only_team_members_write_but_everyone_reads(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let staff = app.user_with("stella", &[], true, false).await;
    let user = app.user("ursula").await;
    let created = app
        .as_user(&staff)
        .post("/api/projects/", json!({"name": "Network"}))
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let path = format!("/api/projects/{}/", created.json["id"]);

    let refused = app
        .as_user(&user)
        .post("/api/projects/", json!({"name": "Mine"}))
        .await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    let refused = app
        .as_user(&user)
        .patch(&path, json!({"name": "Mine"}))
        .await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");
    let refused = app.as_user(&user).delete(&path).await;
    assert_error(&refused, StatusCode::FORBIDDEN, "forbidden");

    let listed = app.as_user(&user).get("/api/projects/").await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.json.as_array().unwrap().len(), 1);
    assert_eq!(app.as_user(&user).get(&path).await.json["name"], "Network");
    assert_eq!(app.as_user(&agent).get(&path).await.status, StatusCode::OK);

    let anonymous = app.anonymous();
    for response in [
        anonymous.get("/api/projects/").await,
        anonymous.get(&path).await,
        anonymous.post("/api/projects/", json!({"name": "X"})).await,
        anonymous.patch(&path, json!({"name": "X"})).await,
        anonymous.delete(&path).await,
    ] {
        assert_unauthenticated(&response);
    }
}
db_test!(only_team_members_write_but_everyone_reads);

async fn archived_projects_vanish_but_tickets_keep_them(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let actor = app.actor(&agent).await;
    let kept = app
        .as_user(&agent)
        .post("/api/projects/", json!({"name": "Alpha"}))
        .await;
    let gone = app
        .as_user(&agent)
        .post("/api/projects/", json!({"name": "Beta"}))
        .await;
    let gone_id = gone.json["id"].as_i64().unwrap() as i32;
    let ticket = ticket_in(app, &actor, Some(gone_id)).await;
    let path = format!("/api/projects/{gone_id}/");

    let deleted = app.as_user(&agent).delete(&path).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(deleted.text, "");
    assert_error(
        &app.as_user(&agent).get(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&agent)
            .patch(&path, json!({"name": "Gamma"}))
            .await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    assert_error(
        &app.as_user(&agent).delete(&path).await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    let listed = app.as_user(&agent).get("/api/projects/").await;
    assert_eq!(listed.json.as_array().unwrap().len(), 1);
    assert_eq!(listed.json[0]["id"], kept.json["id"]);

    let reread = tickets::get(&app.state.db.conn, &actor, ticket.id)
        .await
        .unwrap();
    assert_eq!(reread.project_id, Some(gone_id));

    // The unique index covers archived projects: their names stay taken.
    let reuse = app
        .as_user(&agent)
        .post("/api/projects/", json!({"name": "Beta"}))
        .await;
    assert_eq!(reuse.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reuse.json["details"],
        json!({"name": ["a project with this name already exists"]})
    );

    for missing in [
        "/api/projects/999999/",
        "/api/projects/abc/",
        "/api/projects/-1/",
    ] {
        assert_error(
            &app.as_user(&agent).get(missing).await,
            StatusCode::NOT_FOUND,
            "not_found",
        );
    }
}
db_test!(archived_projects_vanish_but_tickets_keep_them);

async fn project_validation_errors(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let token = Some(agent.token.as_str());
    let first = app
        .post("/api/projects/", token, json!({"name": "Alpha"}))
        .await;
    let other = app
        .post("/api/projects/", token, json!({"name": "Omega"}))
        .await;
    let cases = [
        (json!({}), "name", "this field is required"),
        (
            json!({"name": "   "}),
            "name",
            "this field may not be blank",
        ),
        (
            json!({"name": "x".repeat(201)}),
            "name",
            "ensure this field has no more than 200 characters",
        ),
        (json!({"name": null}), "name", "may not be null"),
        (json!({"name": 42}), "name", "must be a string"),
        (
            json!({"name": "Ok", "description": ["no"]}),
            "description",
            "must be a string",
        ),
        (
            json!({"name": "Alpha"}),
            "name",
            "a project with this name already exists",
        ),
    ];
    for (body, field, message) in cases {
        let response = app.post("/api/projects/", token, body.clone()).await;
        assert_eq!(
            response.json,
            json!({"error": format!("{field}: {message}"), "code": "validation_error", "details": {field: [message]}}),
            "body {body}"
        );
        assert_eq!(response.status, StatusCode::BAD_REQUEST);
    }
    assert_eq!(
        app.post("/api/projects/", token, json!({"name": "x".repeat(200)}))
            .await
            .status,
        StatusCode::CREATED
    );

    let path = format!("/api/projects/{}/", other.json["id"]);
    let clash = app.patch(&path, token, json!({"name": "Alpha"})).await;
    assert_eq!(
        clash.json,
        json!({"error": "name: a project with this name already exists", "code": "validation_error", "details": {"name": ["a project with this name already exists"]}})
    );
    let blank = app.patch(&path, token, json!({"name": ""})).await;
    assert_error(&blank, StatusCode::BAD_REQUEST, "validation_error");
    assert_eq!(app.get(&path, token).await.json["name"], "Omega");
    let _ = first;

    for raw in ["{\"name\": ", "[1, 2]", ""] {
        let request = Request::builder()
            .method(Method::POST)
            .uri("/api/projects/")
            .header(header::AUTHORIZATION, format!("Bearer {}", agent.token))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(raw))
            .unwrap();
        let response = app.send(request).await;
        assert_error(&response, StatusCode::BAD_REQUEST, "validation_error");
        assert_eq!(response.json["details"], json!({}));
        let message = response.json["error"].as_str().unwrap();
        assert!(
            message.starts_with("malformed JSON")
                || message == "request body must be a JSON object",
            "{message}"
        );
    }
}
db_test!(project_validation_errors);

async fn ticket_counts_are_batched(app: &TestApp) {
    let agent = app.agent("agnes").await;
    let actor = app.actor(&agent).await;
    let mut ids = Vec::new();
    for i in 0..3 {
        let p = projects::create(
            &app.state.db,
            &actor,
            NewProject {
                name: format!("P{i:03}"),
                description: None,
            },
        )
        .await
        .unwrap();
        ids.push(p.id);
    }
    ticket_in(app, &actor, Some(ids[0])).await;
    ticket_in(app, &actor, Some(ids[0])).await;
    let archived = ticket_in(app, &actor, Some(ids[0])).await;
    tickets::archive(
        app.state.write_deps(deskgraph::domain::Channel::System),
        &actor,
        archived.id,
    )
    .await
    .unwrap();
    ticket_in(app, &actor, Some(ids[1])).await;
    ticket_in(app, &actor, None).await;

    app.as_user(&agent).get("/api/projects/").await; // first use of the token records last_used_at
    let before = app.statements();
    let small = app.as_user(&agent).get("/api/projects/").await;
    let small_cost = app.statements() - before;
    let counts: Vec<i64> = small
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ticket_count"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [2, 1, 0]);
    let one = app
        .as_user(&agent)
        .get(&format!("/api/projects/{}/", ids[0]))
        .await;
    assert_eq!(one.json["ticket_count"], 2);

    for i in 3..100 {
        let p = projects::create(
            &app.state.db,
            &actor,
            NewProject {
                name: format!("P{i:03}"),
                description: None,
            },
        )
        .await
        .unwrap();
        ticket_in(app, &actor, Some(p.id)).await;
    }
    // Creating the projects can outlast the credentials cache on a busy machine: warm it again.
    app.as_user(&agent).get("/api/projects/").await;
    let before = app.statements();
    let large = app.as_user(&agent).get("/api/projects/").await;
    let large_cost = app.statements() - before;
    assert_eq!(large.json.as_array().unwrap().len(), 100);
    assert_eq!(large.json[99]["ticket_count"], 1);
    assert_eq!(
        small_cost, large_cost,
        "statements must not grow with the number of projects"
    );
}
db_test!(ticket_counts_are_batched);
