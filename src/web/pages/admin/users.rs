//! `/admin/users/`: list, search and create accounts; one account's page to change it, deactivate or
//! reactivate it, set its password and see its tokens.
use super::Done;
use super::{messages, Choice, GroupChoice};
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::service::users::{self, accounts, passwords, Admin};
use crate::service::{tokens, Take};
use crate::state::AppState;
use crate::web::pages::{html, Form, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The `group` checkboxes of a form: group ids (anything else is a 400 naming `groups`).
fn group_ids(form: &Form) -> Result<Vec<i32>, AppError> {
    form.all("group")
        .iter()
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| AppError::field("groups", "unknown group"))
        })
        .collect()
}

/// Accounts per page.
const PAGE: u64 = 50;

/// An account in the list.
pub struct Row {
    id: i32,
    username: String,
    full_name: String,
    email: String,
    role: String,
    active: bool,
    last_login: String,
}

/// What the new-account form had in it.
#[derive(Default)]
pub struct Draft {
    username: String,
    full_name: String,
    email: String,
    is_staff: bool,
}

#[derive(Template)]
#[template(path = "admin_users.html")]
struct UsersPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    total: u64,
    q: String,
    states: Vec<Choice>,
    roles: Vec<Choice>,
    people: Vec<Row>,
    previous: Option<String>,
    next: Option<String>,
    groups: Vec<GroupChoice>,
    draft: Draft,
    errors: BTreeMap<String, String>,
    form_error: String,
}

impl UsersPage {
    fn error(&self, field: &str) -> &str {
        self.errors.get(field).map(String::as_str).unwrap_or("")
    }
}

/// Filters of the list.
#[derive(Deserialize, Default)]
pub struct ListQuery {
    q: Option<String>,
    active: Option<String>,
    role: Option<String>,
    page: Option<u64>,
    done: Option<String>,
}

fn choices(options: &[(&str, String)], current: &str) -> Vec<Choice> {
    options
        .iter()
        .map(|(value, label)| Choice {
            value: value.to_string(),
            label: label.clone(),
            selected: *value == current,
        })
        .collect()
}

async fn group_choices(state: &AppState, checked: &[i32]) -> PageResult<Vec<GroupChoice>> {
    Ok(users::list_groups(&state.db.conn, Take::All)
        .await?
        .into_iter()
        .map(|g| GroupChoice {
            checked: checked.contains(&g.id),
            id: g.id,
            name: g.name,
        })
        .collect())
}

async fn list_page(state: &AppState, user: &PageUser, query: &ListQuery) -> PageResult<UsersPage> {
    let admin = Admin::of(&user.actor)?;
    let active = query.active.as_deref().unwrap_or("");
    let role = query.role.as_deref().unwrap_or("");
    let filter = accounts::AccountFilter {
        active: match active {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        role: (!role.is_empty())
            .then(|| accounts::Role::parse("role", role))
            .transpose()?,
        group_id: None,
        q: query.q.clone(),
    };
    let page = query.page.unwrap_or(1).max(1);
    let (found, total) =
        accounts::list(&state.db.conn, &admin, &filter, (page - 1) * PAGE, PAGE).await?;
    let ids: Vec<i32> = found.iter().map(|u| u.id).collect();
    let memberships = users::groups_of(&state.db.conn, &user.actor, &ids, Take::All).await?;
    let people = found
        .into_iter()
        .map(|u| {
            let names: Vec<&str> = memberships
                .get(&u.id)
                .map(|gs| gs.iter().map(|g| g.name.as_str()).collect())
                .unwrap_or_default();
            let admin = u.is_superuser || names.contains(&crate::auth::ADMINISTRATORS_GROUP);
            let team = admin || u.is_staff || names.contains(&crate::auth::AGENTS_GROUP);
            Row {
                role: user.lang.t(if admin {
                    "admin-role-admin"
                } else if team {
                    "admin-role-agent"
                } else {
                    "admin-role-requester"
                }),
                id: u.id,
                email: u.email.unwrap_or_default(),
                active: u.is_active,
                last_login: user.when(u.last_login_at),
                username: u.username,
                full_name: u.full_name,
            }
        })
        .collect();
    let link = |p: u64| {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        out.append_pair("q", query.q.as_deref().unwrap_or(""))
            .append_pair("active", active)
            .append_pair("role", role)
            .append_pair("page", &p.to_string());
        format!("/admin/users/?{}", out.finish())
    };
    let lang = user.lang;
    Ok(UsersPage {
        layout: Layout::for_user(user),
        section: "users",
        flash: None,
        total,
        q: query.q.clone().unwrap_or_default(),
        states: choices(
            &[
                ("", lang.t("admin-any")),
                ("true", lang.t("admin-users-active")),
                ("false", lang.t("admin-users-deactivated")),
            ],
            active,
        ),
        roles: choices(
            &[
                ("", lang.t("admin-any")),
                ("requester", lang.t("admin-role-requester")),
                ("agent", lang.t("admin-role-agent")),
                ("admin", lang.t("admin-role-admin")),
            ],
            role,
        ),
        people,
        previous: (page > 1).then(|| link(page - 1)),
        next: (page * PAGE < total).then(|| link(page + 1)),
        groups: group_choices(state, &[]).await?,
        draft: Draft::default(),
        errors: BTreeMap::new(),
        form_error: String::new(),
    })
}

/// `GET /admin/users/`.
#[utoipa::path(get, path = "/admin/users/", tag = "pages", operation_id = "pageAdminUsers",
    summary = "Accounts: search, filter, create (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn users_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(query): Query<ListQuery>,
) -> PageResult<Response> {
    let mut page = list_page(&state, &user, &query).await?;
    if query.done.as_deref() == Some("created") {
        page.flash = Some(user.lang.t("admin-users-created"));
    }
    Ok(html(StatusCode::OK, &page))
}

/// `POST /admin/users/` (form: `username`, `full_name`, `email`, `password`, `group`…, `is_staff`).
#[utoipa::path(post, path = "/admin/users/", tag = "pages", operation_id = "pageAdminCreateUser",
    summary = "Create an account; the form again with the messages on a mistake.",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Created: to the account's page"), (status = 400, description = "The form with messages", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_user(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let group_ids = group_ids(&form)?;
    let draft = Draft {
        username: form.get("username").to_string(),
        full_name: form.get("full_name").to_string(),
        email: form.get("email").to_string(),
        is_staff: form.get("is_staff") == "true",
    };
    let input = accounts::NewAccount {
        username: draft.username.clone(),
        password: Some(form.get("password").to_string()),
        full_name: draft.full_name.clone(),
        email: Some(draft.email.clone()),
        is_staff: draft.is_staff,
        is_superuser: false,
        group_ids: group_ids.clone(),
    };
    match accounts::create(state.people_deps(), &admin, input).await {
        Ok(created) => {
            Ok(Redirect::to(&format!("/admin/users/{}/?done=created", created.id)).into_response())
        }
        Err(err) => {
            let Some((message, fields)) = messages(&err) else {
                return Err(err.into());
            };
            let status = err.status();
            let mut page = list_page(&state, &user, &ListQuery::default()).await?;
            page.errors = crate::web::pages::field_messages(fields);
            if page.errors.is_empty() || page.errors.contains_key("groups") {
                page.form_error = message;
            }
            page.groups = group_choices(&state, &group_ids).await?;
            page.draft = draft;
            Ok(html(status, &page))
        }
    }
}

#[derive(Template)]
#[template(path = "admin_user.html")]
struct UserPage {
    layout: Layout,
    section: &'static str,
    flash: Option<String>,
    form_error: String,
    id: i32,
    username: String,
    full_name: String,
    email: String,
    email_error: String,
    is_staff: bool,
    is_superuser: bool,
    active: bool,
    last_login: String,
    open_assignments: u64,
    groups: Vec<GroupChoice>,
    password_error: String,
    tokens: Vec<(String, String, String, String)>,
}

impl UserPage {
    /// "3 open ticket(s) assigned to dana:", before the link that reassigns them.
    fn open_notice(&self) -> String {
        self.layout.lang.t2(
            "admin-user-open",
            "n",
            self.open_assignments,
            "name",
            &self.username,
        )
    }
}

async fn account_page(state: &AppState, user: &PageUser, id: i32) -> PageResult<UserPage> {
    let admin = Admin::of(&user.actor)?;
    let db = &state.db.conn;
    let account = accounts::get(db, &admin, id).await?;
    let member_of: Vec<i32> = users::groups_of(db, &user.actor, &[id], Take::All)
        .await?
        .remove(&id)
        .unwrap_or_default()
        .iter()
        .map(|g| g.id)
        .collect();
    let now = chrono::Utc::now();
    let tokens = tokens::list_of_account(db, &admin, id, Take::All)
        .await?
        .into_iter()
        .map(|t| {
            let state = user.lang.label(if t.revoked_at.is_some() {
                "revoked"
            } else if t.expires_at.is_some_and(|e| e <= now) {
                "expired"
            } else {
                "active"
            });
            (
                t.name,
                user.when(Some(t.created_at)),
                user.when(t.last_used_at),
                state,
            )
        })
        .collect();
    Ok(UserPage {
        layout: Layout::for_user(user),
        section: "users",
        flash: None,
        form_error: String::new(),
        id,
        open_assignments: accounts::open_assignments(db, id).await?,
        username: account.username,
        full_name: account.full_name,
        email: account.email.unwrap_or_default(),
        email_error: String::new(),
        is_staff: account.is_staff,
        is_superuser: account.is_superuser,
        active: account.is_active,
        last_login: user.when(account.last_login_at),
        groups: group_choices(state, &member_of).await?,
        password_error: String::new(),
        tokens,
    })
}

/// `GET /admin/users/<id>/`.
#[utoipa::path(get, path = "/admin/users/{id}/", tag = "pages", operation_id = "pageAdminUser",
    summary = "One account: change it, deactivate or reactivate it, set its password, see its tokens (administrators only).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn user_page(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    let id = path_id(&id, "user")?;
    let mut page = account_page(&state, &user, id).await?;
    let lang = user.lang;
    page.flash = match done.done.as_deref() {
        Some("created") => Some(lang.t("admin-users-created")),
        Some("saved") => Some(lang.t("admin-saved")),
        Some("deactivated") => Some(lang.t("admin-user-deactivated")),
        Some("reactivated") => Some(lang.t("admin-user-reactivated")),
        Some("password") => Some(lang.t("admin-user-password-set")),
        _ => None,
    };
    Ok(html(StatusCode::OK, &page))
}

/// The account's page again with `err`'s messages (a mistake), or the error page; with what the refused change
/// form had typed (`typed`) in place of the stored values.
async fn again(
    state: &AppState,
    user: &PageUser,
    id: i32,
    err: AppError,
    typed: Option<accounts::AccountPatch>,
) -> PageResult<Response> {
    let Some((message, fields)) = messages(&err) else {
        return Err(err.into());
    };
    let mut page = account_page(state, user, id).await?;
    if let Some(typed) = typed {
        if let Some(full_name) = typed.full_name {
            page.full_name = full_name;
        }
        if let Some(email) = typed.email {
            page.email = email.unwrap_or_default();
        }
        page.is_staff = typed.is_staff.unwrap_or(page.is_staff);
        page.is_superuser = typed.is_superuser.unwrap_or(page.is_superuser);
        if let Some(groups) = typed.group_ids {
            page.groups = group_choices(state, &groups).await?;
        }
    }
    let first = |key: &str| {
        fields
            .get(key)
            .and_then(|m| m.first().cloned())
            .unwrap_or_default()
    };
    page.email_error = first("email");
    page.password_error = first("password");
    if page.email_error.is_empty() && page.password_error.is_empty() {
        page.form_error = message;
    }
    Ok(html(err.status(), &page))
}

/// `POST /admin/users/<id>/` (form: `full_name`, `email`, `group`…, `is_staff`, `is_superuser`).
#[utoipa::path(post, path = "/admin/users/{id}/", tag = "pages", operation_id = "pageAdminUpdateUser",
    summary = "Change an account; the page again with the messages on a mistake.",
    params(("id" = i32, Path, description = "User id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Saved"), (status = 400, description = "The page with messages", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn update_user(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "user")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let flags = form.opt("flags_sent").is_some();
    let patch = accounts::AccountPatch {
        full_name: form.opt("full_name").map(str::to_string),
        email: form.opt("email").map(|e| Some(e.to_string())),
        is_staff: flags.then(|| form.get("is_staff") == "true"),
        is_superuser: flags.then(|| form.get("is_superuser") == "true"),
        group_ids: form
            .opt("groups_sent")
            .map(|_| group_ids(&form))
            .transpose()?,
    };
    match accounts::update(state.people_deps(), &admin, id, patch.clone()).await {
        Ok(_) => Ok(Redirect::to(&format!("/admin/users/{id}/?done=saved")).into_response()),
        Err(err) => again(&state, &user, id, err, Some(patch)).await,
    }
}

/// `POST /admin/users/<id>/deactivate/`.
#[utoipa::path(post, path = "/admin/users/{id}/deactivate/", tag = "pages", operation_id = "pageAdminDeactivate",
    summary = "Deactivate an account (administrators only).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 303, description = "Back to the account")),
    security(("session" = [], "csrf" = [])))]
pub async fn deactivate(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "user")?;
    let admin = Admin::of(&user.actor)?;
    user.form(&body)?;
    match accounts::deactivate(state.people_deps(), &admin, id).await {
        Ok(_) => Ok(Redirect::to(&format!("/admin/users/{id}/?done=deactivated")).into_response()),
        Err(err) => again(&state, &user, id, err, None).await,
    }
}

/// `POST /admin/users/<id>/reactivate/`.
#[utoipa::path(post, path = "/admin/users/{id}/reactivate/", tag = "pages", operation_id = "pageAdminReactivate",
    summary = "Reactivate an account (administrators only).",
    params(("id" = i32, Path, description = "User id")),
    responses((status = 303, description = "Back to the account")),
    security(("session" = [], "csrf" = [])))]
pub async fn reactivate(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "user")?;
    let admin = Admin::of(&user.actor)?;
    user.form(&body)?;
    accounts::reactivate(state.people_deps(), &admin, id).await?;
    Ok(Redirect::to(&format!("/admin/users/{id}/?done=reactivated")).into_response())
}

/// `POST /admin/users/<id>/password/` (form: `password`).
#[utoipa::path(post, path = "/admin/users/{id}/password/", tag = "pages", operation_id = "pageAdminSetPassword",
    summary = "Set an account's password (administrators only).",
    params(("id" = i32, Path, description = "User id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the account"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn set_password(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "user")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let password = form.get("password").to_string();
    match passwords::set(state.people_deps(), &admin, id, password).await {
        Ok(_) => Ok(Redirect::to(&format!("/admin/users/{id}/?done=password")).into_response()),
        Err(err) => again(&state, &user, id, err, None).await,
    }
}
