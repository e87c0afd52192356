//! `/admin/groups/`: every group with its members; create, rename and delete groups, add and remove members.
use super::Done;
use crate::error::AppError;
use crate::rest::comments::path_id;
use crate::service::users::{self, accounts, groups, Admin};
use crate::service::Take;
use crate::state::AppState;
use crate::web::pages::{display_name, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::response::Response;

/// A group as the page shows it.
pub struct GroupCard {
    id: i32,
    name: String,
    team: bool,
    /// (user id, display name).
    members: Vec<(i32, String)>,
}

#[derive(Template)]
#[template(path = "admin_groups.html")]
struct GroupsPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    groups: Vec<GroupCard>,
}

impl GroupsPage {
    /// "Remove Dana Scully from Facilities", the remove button's name.
    fn remove_label(&self, member: &str, group: &str) -> String {
        self.layout.lang.t2(
            "admin-groups-remove-member",
            "member",
            member,
            "group",
            group,
        )
    }
}

async fn groups_of_desk(state: &AppState, user: &PageUser) -> PageResult<GroupsPage> {
    let admin = Admin::of(&user.actor)?;
    let db = &state.db.conn;
    let mut cards = Vec::new();
    for g in users::list_groups(db, Take::All).await? {
        let filter = accounts::AccountFilter {
            group_id: Some(g.id),
            ..Default::default()
        };
        let (members, _) = accounts::list(db, &admin, &filter, 0, 500).await?;
        cards.push(GroupCard {
            team: g.name == crate::auth::AGENTS_GROUP
                || g.name == crate::auth::ADMINISTRATORS_GROUP,
            id: g.id,
            name: g.name,
            members: members.iter().map(|u| (u.id, display_name(u))).collect(),
        });
    }
    Ok(GroupsPage {
        layout: Layout::for_user(user),
        section: "groups",
        notes: Default::default(),
        groups: cards,
    })
}

/// `GET /admin/groups/`.
#[utoipa::path(get, path = "/admin/groups/", tag = "pages", operation_id = "pageAdminGroups",
    summary = "Groups and their members (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn groups_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<GroupsPage>(&state, &user, done).await
}

impl super::DeskPage for GroupsPage {
    const PATH: &'static str = "/admin/groups/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "admin-groups-created"),
        ("deleted", "admin-groups-deleted"),
    ];
    const SAVED: &'static str = "admin-saved";

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        groups_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// `POST /admin/groups/` (form: `name`).
#[utoipa::path(post, path = "/admin/groups/", tag = "pages", operation_id = "pageAdminCreateGroup",
    summary = "Create a group (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the groups"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_group(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let result = groups::create(state.people_deps(), &admin, form.get("name")).await;
    super::outcome::<GroupsPage, _>(&state, &user, "created", &form, result).await
}

/// `POST /admin/groups/<id>/rename/` (form: `name`).
#[utoipa::path(post, path = "/admin/groups/{id}/rename/", tag = "pages", operation_id = "pageAdminRenameGroup",
    summary = "Rename a group (administrators only).",
    params(("id" = i32, Path, description = "Group id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the groups"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn rename_group(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "group")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let result = groups::rename(state.people_deps(), &admin, id, form.get("name")).await;
    super::outcome::<GroupsPage, _>(&state, &user, "saved", &form, result).await
}

/// `POST /admin/groups/<id>/delete/`.
#[utoipa::path(post, path = "/admin/groups/{id}/delete/", tag = "pages", operation_id = "pageAdminDeleteGroup",
    summary = "Delete a group (administrators only; refused while open tickets are assigned to it).",
    params(("id" = i32, Path, description = "Group id")),
    responses((status = 303, description = "Back to the groups"), (status = 409, description = "The page with the reason", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn delete_group(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "group")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let result = groups::delete(state.people_deps(), &admin, id).await;
    super::outcome::<GroupsPage, _>(&state, &user, "deleted", &form, result).await
}

/// `POST /admin/groups/<id>/members/` (form: `username`).
#[utoipa::path(post, path = "/admin/groups/{id}/members/", tag = "pages", operation_id = "pageAdminAddMember",
    summary = "Add an account to a group by user name (administrators only).",
    params(("id" = i32, Path, description = "Group id")),
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the groups"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn add_member(
    State(state): State<AppState>,
    user: PageUser,
    Path(id): Path<String>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "group")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let username = form.get("username").trim();
    let result = match users::find_by_username(&state.db.conn, username).await? {
        Some(found) => groups::add_member(state.people_deps(), &admin, id, found.id)
            .await
            .map(|_| ()),
        None => Err(AppError::field(
            "user",
            user.lang
                .t1("admin-groups-no-user", "name", format!("{username:?}")),
        )),
    };
    super::outcome::<GroupsPage, _>(&state, &user, "saved", &form, result).await
}

/// `POST /admin/groups/<id>/members/<user_id>/remove/`.
#[utoipa::path(post, path = "/admin/groups/{id}/members/{user_id}/remove/", tag = "pages", operation_id = "pageAdminRemoveMember",
    summary = "Remove an account from a group (administrators only).",
    params(("id" = i32, Path, description = "Group id"), ("user_id" = i32, Path, description = "User id")),
    responses((status = 303, description = "Back to the groups"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn remove_member(
    State(state): State<AppState>,
    user: PageUser,
    Path((id, user_id)): Path<(String, String)>,
    body: Bytes,
) -> PageResult<Response> {
    let id = path_id(&id, "group")?;
    let user_id = path_id(&user_id, "user")?;
    let admin = Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let result = groups::remove_member(state.people_deps(), &admin, id, user_id).await;
    super::outcome::<GroupsPage, _>(&state, &user, "saved", &form, result).await
}
