//! Followers of a ticket, additive to the contract: `/api/tickets/{id}/followers/`. Thin handlers over
//! `service::followers`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::{id_value, Fields};
use crate::rest::json::JsonObject;
use crate::service::followers::{self, Whom};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use entity::user;
use serde::Serialize;
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route(
            "/api/tickets/{id}/followers/",
            get(list_followers).post(add_follower),
        )
        .route(
            "/api/tickets/{id}/followers/{user_id}/",
            delete(remove_follower),
        )
}

/// A follower.
#[derive(Serialize, ToSchema)]
pub struct Follower {
    /// User id.
    id: i32,
    /// User name.
    username: String,
    /// Full name.
    full_name: String,
}

impl Follower {
    fn of(u: &user::Model) -> Self {
        Follower {
            id: u.id,
            username: u.username.clone(),
            full_name: u.full_name.clone(),
        }
    }
}

/// Whom to add: nothing (oneself), `{"user": id}`, or `{"email": "..."}` (an existing account).
#[derive(Serialize, ToSchema)]
pub struct NewFollower {
    /// A user id.
    user: Option<i32>,
    /// An existing account's email address.
    email: Option<String>,
}

/// `GET /api/tickets/{id}/followers/`.
#[utoipa::path(get, path = "/api/tickets/{id}/followers/", tag = "followers", operation_id = "listFollowers",
    summary = "A ticket's followers, by user name.",
    params(("id" = i32, Path, description = "Ticket id")),
    responses((status = 200, description = "The followers", body = Vec<Follower>), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_followers(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<axum::Json<Vec<Follower>>> {
    let id = path_id(&id, "ticket")?;
    let found = followers::of_ticket(&state.db.conn, &actor, id).await?;
    Ok(axum::Json(found.iter().map(Follower::of).collect()))
}

/// `POST /api/tickets/{id}/followers/` → 201, or 200 when they followed it already.
#[utoipa::path(post, path = "/api/tickets/{id}/followers/", tag = "followers", operation_id = "addFollower",
    summary = "Follow a ticket (an empty body), or add someone by `user` id or `email` (those who work on it, and its requester).",
    params(("id" = i32, Path, description = "Ticket id")),
    request_body = NewFollower,
    responses((status = 201, description = "Following", body = Follower), (status = 200, description = "Following already", body = Follower), (status = 400, description = "No such active user or address", body = crate::error::bodies::Error), (status = 403, description = "May not add others", body = crate::error::bodies::Error), (status = 404, description = "No such ticket", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn add_follower(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, axum::Json<Follower>)> {
    let id = path_id(&id, "ticket")?;
    let whom = match (body.get("user"), Fields(&body).string("email")?) {
        (Some(_), Some(_)) => {
            return Err(AppError::bad_request("give a user or an email, not both"))
        }
        (Some(v), None) => Whom::User(id_value("user", v)?),
        (None, Some(email)) => Whom::Email(email),
        (None, None) => Whom::Me,
    };
    let (u, added) = followers::follow(&state.db, &actor, id, whom).await?;
    let status = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(Follower::of(&u))))
}

/// `DELETE /api/tickets/{id}/followers/{user_id}/` (`me` for oneself) → 204.
#[utoipa::path(delete, path = "/api/tickets/{id}/followers/{user_id}/", tag = "followers", operation_id = "removeFollower",
    summary = "Stop following a ticket (`me`), or remove someone (those who work on it, and its requester).",
    params(("id" = i32, Path, description = "Ticket id"), ("user_id" = String, Path, description = "User id, or `me`")),
    responses((status = 204, description = "Removed"), (status = 403, description = "May not remove others", body = crate::error::bodies::Error), (status = 404, description = "No such ticket or follower", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn remove_follower(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path((id, user_id)): Path<(String, String)>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "ticket")?;
    let user_id = match user_id.as_str() {
        "me" => None,
        other => Some(path_id(other, "follower")?),
    };
    if followers::unfollow(&state.db, &actor, id, user_id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(AppError::not_found("follower"))
    }
}
