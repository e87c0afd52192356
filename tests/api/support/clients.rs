//! Typed clients and shared fixtures: a test reads as `app.as_user(&alice).get(path)` or
//! `app.anonymous().post(…)`, and the set-up every area repeats (the actor behind a user, a project, a ticket
//! opened over REST) is written once here.
#![allow(dead_code)]
use crate::support::helpers::{TestApp, TestResponse, TestUser};
use axum::http::{Method, StatusCode};
use chrono::Utc;
use deskgraph::auth::{load_actor, Actor};
use deskgraph::service::tickets::{self, NewTicket};
use entity::{comment, project, ticket, user};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::{json, Value};

/// Requests made as one user (with their API token) or as no one.
#[derive(Clone, Copy)]
pub struct Client<'a> {
    app: &'a TestApp,
    token: Option<&'a str>,
}

impl TestApp {
    /// A client sending `user`'s API token.
    pub fn as_user<'a>(&'a self, user: &'a TestUser) -> Client<'a> {
        Client {
            app: self,
            token: Some(&user.token),
        }
    }

    /// A client sending no credentials.
    pub fn anonymous(&self) -> Client<'_> {
        Client {
            app: self,
            token: None,
        }
    }

    /// The actor the service sees for `user`.
    pub async fn actor(&self, user: &TestUser) -> Actor {
        load_actor(&self.state.db.conn, user.id)
            .await
            .unwrap()
            .unwrap()
    }

    /// The desk's own agent (`desk`, created on first use), who opens the tickets that come assigned: only
    /// the team assigns.
    pub async fn desk(&self) -> Actor {
        let db = &self.state.db.conn;
        let found = user::Entity::find()
            .filter(user::Column::Username.eq("desk"))
            .one(db)
            .await
            .unwrap();
        let id = match found {
            Some(desk) => desk.id,
            None => self.agent("desk").await.id,
        };
        load_actor(db, id).await.unwrap().unwrap()
    }

    /// Open `input` for `requester` as the team does: the desk's agent opens it with `requester` as its
    /// requester, so it may come assigned.
    pub async fn open_for(&self, requester: &Actor, input: NewTicket) -> ticket::Model {
        let input = NewTicket {
            requester_id: Some(requester.id()),
            ..input
        };
        tickets::create(
            self.state.write_deps(deskgraph::domain::Channel::System),
            &self.desk().await,
            input,
        )
        .await
        .unwrap()
    }

    /// A comment row of `kind` ("public" or "internal") written straight to the database, as a bulk load
    /// would (the ticket's comment counts are left for a recount).
    pub async fn comment_row(&self, ticket_id: i32, author: i32, kind: &str, deleted: bool) {
        comment::ActiveModel {
            ticket_id: Set(ticket_id),
            author_id: Set(Some(author)),
            body: Set("<p>a comment</p>".into()),
            comment_type: Set(deskgraph::domain::CommentType::parse(kind).unwrap()),
            created_at: Set(Utc::now()),
            updated_at: Set(Utc::now()),
            edit_count: Set(0),
            is_deleted: Set(deleted),
            ..Default::default()
        }
        .insert(&self.state.db.conn)
        .await
        .unwrap();
    }

    /// A project row named `name`, written straight to the database.
    pub async fn project(&self, name: &str) -> project::Model {
        project::ActiveModel {
            name: Set(name.to_string()),
            description: Set(format!("{name} work")),
            created_at: Set(Utc::now()),
            updated_at: Set(Utc::now()),
            ..Default::default()
        }
        .insert(&self.state.db.conn)
        .await
        .unwrap()
    }
}

impl Client<'_> {
    /// GET `path`.
    pub async fn get(self, path: &str) -> TestResponse {
        self.app.request(Method::GET, path, self.token, None).await
    }

    /// POST JSON to `path`.
    pub async fn post(self, path: &str, body: Value) -> TestResponse {
        self.app
            .request(Method::POST, path, self.token, Some(body))
            .await
    }

    /// PATCH JSON to `path`.
    pub async fn patch(self, path: &str, body: Value) -> TestResponse {
        self.app
            .request(Method::PATCH, path, self.token, Some(body))
            .await
    }

    /// DELETE `path`.
    pub async fn delete(self, path: &str) -> TestResponse {
        self.app
            .request(Method::DELETE, path, self.token, None)
            .await
    }

    /// A GraphQL operation; the whole response body.
    pub async fn graphql(self, query: &str, variables: Value) -> Value {
        self.app.graphql(self.token, query, variables).await
    }

    /// A GraphQL operation that must succeed; its `data`.
    pub async fn graphql_data(self, query: &str, variables: Value) -> Value {
        let body = self.graphql(query, variables).await;
        assert!(body.get("errors").is_none(), "{body}");
        body["data"].clone()
    }

    /// Open a ticket over REST (201 asserted); the create body.
    pub async fn create_ticket(self, body: Value) -> Value {
        let response = self.post("/api/tickets/", body).await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.text);
        response.json
    }

    /// Open a ticket titled `title` over REST; the create body.
    pub async fn ticket_titled(self, title: &str) -> Value {
        self.create_ticket(json!({ "title": title })).await
    }
}

/// The actor the service sees for `user` (for tests that call services directly).
pub async fn actor(app: &TestApp, user: &TestUser) -> Actor {
    app.actor(user).await
}

/// The REST answer to a request without credentials.
pub fn assert_unauthenticated(response: &TestResponse) {
    assert_eq!(
        response.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        response.text
    );
    assert_eq!(
        response.json,
        json!({"error": "authentication credentials were not provided", "code": "unauthenticated", "details": {}})
    );
}
