//! `/api/users/` and `/api/groups/` (administrators only, additive to the contract), and the password
//! endpoints under `/api/auth/`: thin handlers over `service::users`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::client_ip::ClientAddress;
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::fields::{id_value, Fields};
use crate::rest::json::{Json, JsonObject};
use crate::rest::path::PathId;
use crate::rest::shapes::{opt_timestamp, timestamp};
use crate::service::users::Admin;
use crate::service::users::{self, accounts, groups, passwords};
use crate::service::Take;
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use entity::{group, user};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/users/", get(list_users).post(create_user))
        .route("/api/users/{id}/", get(get_user).patch(update_user))
        .route("/api/users/{id}/deactivate/", post(deactivate_user))
        .route("/api/users/{id}/reactivate/", post(reactivate_user))
        .route("/api/users/{id}/password/", post(set_password))
        .route("/api/groups/", get(list_groups).post(create_group))
        .route(
            "/api/groups/{id}/",
            get(get_group).patch(rename_group).delete(delete_group),
        )
        .route("/api/groups/{id}/members/", post(add_member))
        .route(
            "/api/groups/{id}/members/{user_id}/",
            axum::routing::delete(remove_member),
        )
        .route("/api/auth/password/", post(change_password))
        .route("/api/auth/password-reset/", post(request_reset))
        .route("/api/auth/password-reset/confirm/", post(confirm_reset))
}

/// A group as REST shows it.
#[derive(Serialize, ToSchema)]
pub struct Group {
    /// Group id.
    id: i32,
    /// Name.
    name: String,
}

impl Group {
    fn of(g: &group::Model) -> Self {
        Group {
            id: g.id,
            name: g.name.clone(),
        }
    }
}

/// An account as administrators see it.
#[derive(Serialize, ToSchema)]
pub struct User {
    /// User id.
    id: i32,
    /// Login name.
    username: String,
    /// Display name.
    full_name: String,
    /// Email, or null.
    #[schema(required = true)]
    email: Option<String>,
    /// Staff flag.
    is_staff: bool,
    /// Superuser flag.
    is_superuser: bool,
    /// Whether the account may sign in.
    is_active: bool,
    /// Its groups, by name.
    groups: Vec<Group>,
    /// Last successful sign-in (ISO 8601 UTC), or null.
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    last_login_at: serde_json::Value,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
}

/// A page of accounts.
#[derive(Serialize, ToSchema)]
pub struct UserPage {
    /// Accounts matching, over all pages.
    count: u64,
    /// The next page's path, or null.
    #[schema(required = true)]
    next: Option<String>,
    /// The previous page's path, or null.
    #[schema(required = true)]
    previous: Option<String>,
    /// This page.
    results: Vec<User>,
}

/// A deactivated account and what it leaves to reassign.
#[derive(Serialize, ToSchema)]
pub struct Deactivated {
    /// The account.
    #[serde(flatten)]
    user: User,
    /// Open tickets still assigned to it (`GET /api/tickets/?assigned=<id>` lists them).
    open_assignments: u64,
}

/// Accounts with their groups, as the actor (an administrator) sees them.
async fn shaped(
    state: &AppState,
    actor: &crate::auth::Actor,
    found: Vec<user::Model>,
) -> AppResult<Vec<User>> {
    let ids: Vec<i32> = found.iter().map(|u| u.id).collect();
    let mut memberships = users::groups_of(&state.db.conn, actor, &ids, Take::All).await?;
    Ok(found
        .into_iter()
        .map(|u| User {
            groups: memberships
                .remove(&u.id)
                .unwrap_or_default()
                .iter()
                .map(Group::of)
                .collect(),
            last_login_at: opt_timestamp(&u.last_login_at),
            created_at: timestamp(&u.created_at),
            id: u.id,
            username: u.username,
            full_name: u.full_name,
            email: u.email,
            is_staff: u.is_staff,
            is_superuser: u.is_superuser,
            is_active: u.is_active,
        })
        .collect())
}

async fn one(state: &AppState, actor: &crate::auth::Actor, u: user::Model) -> AppResult<User> {
    shaped(state, actor, vec![u])
        .await?
        .pop()
        .ok_or_else(|| AppError::not_found("user"))
}

/// The query of `GET /api/users/`.
struct UserQuery {
    filter: accounts::AccountFilter,
    page: u64,
    limit: u64,
    rest: Vec<(String, String)>,
}

fn parse_user_query(raw: Option<&str>) -> AppResult<UserQuery> {
    let mut query = UserQuery {
        filter: accounts::AccountFilter::default(),
        page: 1,
        limit: 20,
        rest: Vec::new(),
    };
    let positive = |key: &str, value: &str, max: u64| -> AppResult<u64> {
        value
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| AppError::field(key, format!("must be an integer between 1 and {max}")))
    };
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match key.as_ref() {
            "page" => query.page = positive("page", &value, 1_000_000)?,
            "limit" => query.limit = positive("limit", &value, 100)?,
            "active" => {
                query.filter.active = Some(match value.trim().to_ascii_lowercase().as_str() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(AppError::field("active", "must be true or false")),
                });
                query.rest.push(("active".into(), value.to_string()));
            }
            "role" => {
                query.filter.role = Some(accounts::Role::parse("role", &value)?);
                query.rest.push(("role".into(), value.to_string()));
            }
            "group" => {
                query.filter.group_id = Some(id_value("group", &serde_json::json!(value))?);
                query.rest.push(("group".into(), value.to_string()));
            }
            "q" => {
                query.filter.q = Some(value.to_string());
                query.rest.push(("q".into(), value.to_string()));
            }
            _ => {}
        }
    }
    Ok(query)
}

fn page_link(query: &UserQuery, page: u64) -> String {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    out.append_pair("page", &page.to_string());
    out.append_pair("limit", &query.limit.to_string());
    for (k, v) in &query.rest {
        out.append_pair(k, v);
    }
    format!("/api/users/?{}", out.finish())
}

/// `GET /api/users/`: accounts by user name, deactivated ones included (administrators only).
#[utoipa::path(get, path = "/api/users/", tag = "people", operation_id = "listUsers",
    summary = "Accounts, filtered by `active`, `role` (requester, agent, admin), `group` and `q` (administrators).",
    params(
        ("active" = Option<bool>, Query, description = "Only active (true) or deactivated (false) accounts"),
        ("role" = Option<String>, Query, description = "`requester`, `agent` or `admin`"),
        ("group" = Option<i32>, Query, description = "Only members of this group"),
        ("q" = Option<String>, Query, description = "User name, full name or email containing this"),
        ("page" = Option<u64>, Query, description = "Page number, default 1"),
        ("limit" = Option<u64>, Query, description = "1–100, default 20"),
    ),
    responses((status = 200, description = "A page of accounts", body = UserPage), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_users(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<axum::Json<UserPage>> {
    let query = parse_user_query(raw.as_deref())?;
    let offset = (query.page - 1).saturating_mul(query.limit);
    let (found, count) = accounts::list(
        &state.db.conn,
        &Admin::of(&actor)?,
        &query.filter,
        offset,
        query.limit,
    )
    .await?;
    let results = shaped(&state, &actor, found).await?;
    let next =
        (query.page.saturating_mul(query.limit) < count).then(|| page_link(&query, query.page + 1));
    let previous = (query.page > 1).then(|| page_link(&query, query.page - 1));
    Ok(axum::Json(UserPage {
        count,
        next,
        previous,
        results,
    }))
}

/// A new account.
#[derive(Deserialize, ToSchema)]
pub struct NewUser {
    /// Login name, 1–150 characters, unique whatever its letter case (required).
    username: Option<String>,
    /// Initial password (required; at least the configured minimum, not the user name).
    password: Option<String>,
    /// Display name.
    full_name: Option<String>,
    /// Email, unique whatever its letter case.
    email: Option<String>,
    /// Staff flag.
    #[serde(default)]
    is_staff: bool,
    /// Superuser flag (only a superuser may set it).
    #[serde(default)]
    is_superuser: bool,
    /// Group ids.
    #[serde(default)]
    groups: Vec<i32>,
}

fn required(field: &str, value: Option<String>) -> AppResult<String> {
    value.ok_or_else(|| AppError::field(field, "this field is required"))
}

/// `POST /api/users/` → 201 (administrators only).
#[utoipa::path(post, path = "/api/users/", tag = "people", operation_id = "createUser",
    summary = "Create an account (administrators). A user name or email taken in any letter case is a 409 naming it.",
    request_body = NewUser,
    responses((status = 201, description = "Created", body = User), (status = 409, description = "The user name or email is taken, in any letter case", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create_user(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Json(body): Json<NewUser>,
) -> AppResult<(StatusCode, axum::Json<User>)> {
    let input = accounts::NewAccount {
        username: required("username", body.username)?,
        password: Some(required("password", body.password)?),
        full_name: body.full_name.unwrap_or_default(),
        email: body.email,
        is_staff: body.is_staff,
        is_superuser: body.is_superuser,
        group_ids: body.groups,
    };
    let created = accounts::create(state.people_deps(), &Admin::of(&actor)?, input).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(one(&state, &actor, created).await?),
    ))
}

/// `GET /api/users/{id}/` (administrators only).
#[utoipa::path(get, path = "/api/users/{id}/", tag = "people", operation_id = "getUser",
    summary = "One account (administrators).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 200, description = "The account", body = User), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_user(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<User>> {
    let found = accounts::get(&state.db.conn, &Admin::of(&actor)?, id).await?;
    Ok(axum::Json(one(&state, &actor, found).await?))
}

/// Changes to an account; absent fields stay, `email: null` clears it.
#[derive(Serialize, ToSchema)]
pub struct UserPatch {
    /// Display name.
    full_name: Option<String>,
    /// Email, or null to clear it.
    email: Option<String>,
    /// Staff flag.
    is_staff: Option<bool>,
    /// Superuser flag (only a superuser may change it).
    is_superuser: Option<bool>,
    /// Group ids, replacing the current ones.
    groups: Option<Vec<i32>>,
}

fn ids_field(fields: &Fields<'_>, key: &str) -> AppResult<Option<Vec<i32>>> {
    match fields.0.get(key) {
        None => Ok(None),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|v| id_value(key, v))
            .collect::<AppResult<Vec<i32>>>()
            .map(Some),
        Some(_) => Err(AppError::field(key, "must be a list of ids")),
    }
}

/// `PATCH /api/users/{id}/` (administrators only).
#[utoipa::path(patch, path = "/api/users/{id}/", tag = "people", operation_id = "updateUser",
    summary = "Change an account's name, email, flags or groups (administrators).",
    params(("id" = i32, Path, description = "User id")),
    request_body = UserPatch,
    responses((status = 200, description = "Updated", body = User), (status = 409, description = "The email is taken, in any letter case", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update_user(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<axum::Json<User>> {
    let fields = Fields(&body);
    let patch = accounts::AccountPatch {
        full_name: fields.string_not_null("full_name")?,
        email: if fields.has("email") {
            Some(fields.string("email")?)
        } else {
            None
        },
        is_staff: fields.boolean("is_staff")?,
        is_superuser: fields.boolean("is_superuser")?,
        group_ids: ids_field(&fields, "groups")?,
    };
    let updated = accounts::update(state.people_deps(), &Admin::of(&actor)?, id, patch).await?;
    Ok(axum::Json(one(&state, &actor, updated).await?))
}

/// `POST /api/users/{id}/deactivate/` (administrators only; not oneself, not the last admin).
#[utoipa::path(post, path = "/api/users/{id}/deactivate/", tag = "people", operation_id = "deactivateUser",
    summary = "Deactivate an account: its sessions, tokens and subscriptions stop at once, everywhere (administrators).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 200, description = "Deactivated", body = Deactivated), (status = 400, description = "An administrator's own account", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn deactivate_user(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<Deactivated>> {
    let done = accounts::deactivate(state.people_deps(), &Admin::of(&actor)?, id).await?;
    let open_assignments = accounts::open_assignments(&state.db.conn, id).await?;
    Ok(axum::Json(Deactivated {
        user: one(&state, &actor, done).await?,
        open_assignments,
    }))
}

/// `POST /api/users/{id}/reactivate/` (administrators only).
#[utoipa::path(post, path = "/api/users/{id}/reactivate/", tag = "people", operation_id = "reactivateUser",
    summary = "Reactivate an account; its earlier sessions and tokens stay ended (administrators).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 200, description = "Reactivated", body = User)),
    security(("bearer" = [])))]
pub async fn reactivate_user(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<User>> {
    let done = accounts::reactivate(state.people_deps(), &Admin::of(&actor)?, id).await?;
    Ok(axum::Json(one(&state, &actor, done).await?))
}

/// A new password.
#[derive(Deserialize, ToSchema)]
pub struct NewPassword {
    /// The password (at least the configured minimum, not the user name).
    password: Option<String>,
}

/// `POST /api/users/{id}/password/` → 204 (administrators only).
#[utoipa::path(post, path = "/api/users/{id}/password/", tag = "people", operation_id = "setUserPassword",
    summary = "Set an account's password; its sessions and earlier access tokens end (administrators).",
    params(("id" = i32, Path, description = "User id")),
    request_body = NewPassword,
    responses((status = 204, description = "Set")),
    security(("bearer" = [])))]
pub async fn set_password(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    Json(body): Json<NewPassword>,
) -> AppResult<StatusCode> {
    let password = required("password", body.password)?;
    passwords::set(state.people_deps(), &Admin::of(&actor)?, id, password).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/groups/`: every group by name (administrators only).
#[utoipa::path(get, path = "/api/groups/", tag = "people", operation_id = "listGroups",
    summary = "Groups by name (administrators).",
    responses((status = 200, description = "The groups", body = Vec<Group>), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list_groups(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
) -> AppResult<axum::Json<Vec<Group>>> {
    Admin::of(&actor)?;
    let found = users::list_groups(&state.db.conn, Take::All).await?;
    Ok(axum::Json(found.iter().map(Group::of).collect()))
}

/// A group's name.
#[derive(Deserialize, ToSchema)]
pub struct GroupName {
    /// Name, 1–150 characters, unique whatever its letter case (required).
    name: Option<String>,
}

/// `POST /api/groups/` → 201 (administrators only).
#[utoipa::path(post, path = "/api/groups/", tag = "people", operation_id = "createGroup",
    summary = "Create a group (administrators); a name taken in any letter case is a 409.",
    request_body = GroupName,
    responses((status = 201, description = "Created", body = Group), (status = 409, description = "The name is taken, in any letter case", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create_group(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Json(body): Json<GroupName>,
) -> AppResult<(StatusCode, axum::Json<Group>)> {
    let name = required("name", body.name)?;
    let created = groups::create(state.people_deps(), &Admin::of(&actor)?, &name).await?;
    Ok((StatusCode::CREATED, axum::Json(Group::of(&created))))
}

/// `GET /api/groups/{id}/` (administrators only).
#[utoipa::path(get, path = "/api/groups/{id}/", tag = "people", operation_id = "getGroup",
    summary = "One group (administrators).",
    params(("id" = i32, Path, description = "Group id")),
    responses((status = 200, description = "The group", body = Group), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn get_group(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<axum::Json<Group>> {
    let found = groups::get(&state.db.conn, &Admin::of(&actor)?, id).await?;
    Ok(axum::Json(Group::of(&found)))
}

/// `PATCH /api/groups/{id}/` `{name}` (administrators only; the team groups keep their names).
#[utoipa::path(patch, path = "/api/groups/{id}/", tag = "people", operation_id = "renameGroup",
    summary = "Rename a group (administrators; not Agents or Administrators).",
    params(("id" = i32, Path, description = "Group id")),
    request_body = GroupName,
    responses((status = 200, description = "Renamed", body = Group), (status = 409, description = "The name is taken, in any letter case", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn rename_group(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    Json(body): Json<GroupName>,
) -> AppResult<axum::Json<Group>> {
    let name = required("name", body.name)?;
    let renamed = groups::rename(state.people_deps(), &Admin::of(&actor)?, id, &name).await?;
    Ok(axum::Json(Group::of(&renamed)))
}

/// `DELETE /api/groups/{id}/` → 204 (administrators only; 409 with the count while open tickets are
/// assigned to it).
#[utoipa::path(delete, path = "/api/groups/{id}/", tag = "people", operation_id = "deleteGroup",
    summary = "Delete a group (administrators); refused with the count while open tickets are assigned to it.",
    params(("id" = i32, Path, description = "Group id")),
    responses((status = 204, description = "Deleted"), (status = 400, description = "The team groups (Agents, Administrators) cannot be deleted", body = crate::error::bodies::Error), (status = 409, description = "Open tickets are assigned to the group (the count in the message)", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn delete_group(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    groups::delete(state.people_deps(), &Admin::of(&actor)?, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A member to add.
#[derive(Deserialize, ToSchema)]
pub struct Member {
    /// User id (required).
    user: Option<serde_json::Value>,
}

/// `POST /api/groups/{id}/members/` `{user}` → 204 (administrators only).
#[utoipa::path(post, path = "/api/groups/{id}/members/", tag = "people", operation_id = "addGroupMember",
    summary = "Add an account to a group (administrators).",
    params(("id" = i32, Path, description = "Group id")),
    request_body = Member,
    responses((status = 204, description = "Added")),
    security(("bearer" = [])))]
pub async fn add_member(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    Json(body): Json<Member>,
) -> AppResult<StatusCode> {
    let user = body
        .user
        .ok_or_else(|| AppError::field("user", "this field is required"))?;
    let user_id = id_value("user", &user)?;
    groups::add_member(state.people_deps(), &Admin::of(&actor)?, id, user_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/groups/{id}/members/{user_id}/` → 204 (administrators only).
#[utoipa::path(delete, path = "/api/groups/{id}/members/{user_id}/", tag = "people", operation_id = "removeGroupMember",
    summary = "Remove an account from a group (administrators).",
    params(("id" = i32, Path, description = "Group id"), ("user_id" = i32, Path, description = "User id")),
    responses((status = 204, description = "Removed"), (status = 400, description = "No such user", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn remove_member(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path((id, user_id)): Path<(String, String)>,
) -> AppResult<StatusCode> {
    let parse = |raw: &str| {
        raw.parse::<i32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| AppError::NotFound("not found".into()))
    };
    groups::remove_member(
        state.people_deps(),
        &Admin::of(&actor)?,
        parse(&id)?,
        parse(&user_id)?,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The caller's new password.
#[derive(Deserialize, ToSchema)]
pub struct PasswordChange {
    /// The password now (required).
    current_password: Option<String>,
    /// The new one (required).
    new_password: Option<String>,
}

/// `POST /api/auth/password/` → 204: change one's own password.
#[utoipa::path(post, path = "/api/auth/password/", tag = "auth", operation_id = "changeMyPassword",
    summary = "Change one's own password with the current one; other sessions and earlier access tokens end.",
    request_body = PasswordChange,
    responses((status = 204, description = "Changed")),
    security(("bearer" = [])))]
pub async fn change_password(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Json(body): Json<PasswordChange>,
) -> AppResult<StatusCode> {
    let current = required("current_password", body.current_password)?;
    let new = required("new_password", body.new_password)?;
    passwords::change_mine(state.people_deps(), &actor, &current, new, None).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Where to send a reset link.
#[derive(Deserialize, ToSchema)]
pub struct ResetRequest {
    /// The account's email (required).
    email: Option<String>,
}

/// The same answer whatever the address.
#[derive(Serialize, ToSchema)]
pub struct ResetAccepted {
    /// What happens next.
    detail: &'static str,
}

/// `POST /api/auth/password-reset/` → 202, whether or not an account has the address.
#[utoipa::path(post, path = "/api/auth/password-reset/", tag = "auth", operation_id = "requestPasswordReset",
    summary = "Email a one-time reset link to the active account with this address, if any (same answer either way; limited like sign-ins).",
    request_body = ResetRequest,
    responses((status = 202, description = "Accepted", body = ResetAccepted)))]
pub async fn request_reset(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    Json(body): Json<ResetRequest>,
) -> AppResult<(StatusCode, axum::Json<ResetAccepted>)> {
    let email = required("email", body.email)?;
    passwords::request_reset(
        state.people_deps(),
        &state.counters,
        state.config.login_throttle.window_seconds,
        &email,
        client,
    )
    .await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(ResetAccepted {
            detail: "if an active account has this address, a reset link is on its way",
        }),
    ))
}

/// A reset link's secret and the new password.
#[derive(Deserialize, ToSchema)]
pub struct ResetConfirm {
    /// The secret from the link (required).
    token: Option<String>,
    /// The new password (required).
    new_password: Option<String>,
}

/// `POST /api/auth/password-reset/confirm/` → 204.
#[utoipa::path(post, path = "/api/auth/password-reset/confirm/", tag = "auth", operation_id = "resetPassword",
    summary = "Set a new password with a reset link's secret (once, before it expires).",
    request_body = ResetConfirm,
    responses((status = 204, description = "Set")))]
pub async fn confirm_reset(
    State(state): State<AppState>,
    Json(body): Json<ResetConfirm>,
) -> AppResult<StatusCode> {
    let token = required("token", body.token)?;
    let new = required("new_password", body.new_password)?;
    passwords::reset(state.people_deps(), &token, new).await?;
    Ok(StatusCode::NO_CONTENT)
}
