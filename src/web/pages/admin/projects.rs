//! `/admin/projects/`: the projects tickets are filed under, each renamed, described or archived in place with
//! how many tickets it holds, and a form for a new one (administrators only), over the service calls REST and
//! GraphQL use. Archiving is soft: the project leaves lists and pickers, its tickets keep it.
use super::Done;
use crate::service::projects::{self, NewProject, ProjectPatch};
use crate::service::users::Admin;
use crate::state::AppState;
use crate::web::pages::{Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;

/// A project as the page lists it.
struct Row {
    id: i32,
    name: String,
    description: String,
    /// Its tickets not archived.
    tickets: i64,
}

#[derive(Template)]
#[template(path = "admin_projects.html")]
struct ProjectsPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    projects: Vec<Row>,
}

async fn projects_of_desk(state: &AppState, user: &PageUser) -> PageResult<ProjectsPage> {
    Admin::of(&user.actor)?;
    let db = &state.db.conn;
    let list = projects::list(db).await?;
    let ids: Vec<i32> = list.iter().map(|p| p.id).collect();
    let counts = projects::ticket_counts(db, &ids).await?;
    Ok(ProjectsPage {
        layout: Layout::for_user(user),
        section: "projects",
        notes: Default::default(),
        projects: list
            .into_iter()
            .map(|p| Row {
                tickets: counts.get(&p.id).copied().unwrap_or(0),
                id: p.id,
                name: p.name,
                description: p.description,
            })
            .collect(),
    })
}

/// `GET /admin/projects/`.
#[utoipa::path(get, path = "/admin/projects/", tag = "pages", operation_id = "pageAdminProjects",
    summary = "The projects with their ticket counts, and a form for a new one (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn projects_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<ProjectsPage>(&state, &user, done).await
}

impl super::DeskPage for ProjectsPage {
    const PATH: &'static str = "/admin/projects/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "admin-projects-added"),
        ("archived", "admin-projects-archived"),
    ];

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        projects_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// `POST /admin/projects/` (form: `name`, `description`): a new project.
#[utoipa::path(post, path = "/admin/projects/", tag = "pages", operation_id = "pageAdminCreateProject",
    summary = "Add a project (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the projects"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_project(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let input = NewProject {
        name: form.get("name").to_string(),
        description: Some(form.get("description").to_string()),
    };
    let made = projects::create(&state.db, &user.actor, input).await;
    super::outcome::<ProjectsPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/projects/change/` (form: `id`, and `name` and `description`; or `archive`).
#[utoipa::path(post, path = "/admin/projects/change/", tag = "pages", operation_id = "pageAdminChangeProject",
    summary = "Rename, describe or archive a project (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the projects"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_project(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_id(&form, "project")?;
    if form.opt("archive").is_some() {
        let gone = projects::archive(&state.db, &user.actor, id).await;
        return super::outcome::<ProjectsPage, _>(&state, &user, "archived", &form, gone).await;
    }
    let patch = ProjectPatch {
        name: form.opt("name").map(str::to_string),
        description: form.opt("description").map(str::to_string),
    };
    let changed = projects::update(&state.db, &user.actor, id, patch).await;
    super::outcome::<ProjectsPage, _>(&state, &user, "saved", &form, changed).await
}
