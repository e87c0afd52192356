//! `/admin/tags/`: the tags in use with their counts, the curated list, renames and merges, and whether free
//! tags are allowed.
use super::Done;
use crate::service::tags::{self, TagUpdate};
use crate::service::users::Admin;
use crate::state::AppState;
use crate::web::pages::{Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::Response;

/// A tag as the page lists it.
struct TagRow {
    name: String,
    curated: bool,
    tickets: i64,
}

#[derive(Template)]
#[template(path = "admin_tags.html")]
struct TagsPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    free_tags: bool,
    tags: Vec<TagRow>,
}

async fn tags_of_desk(state: &AppState, user: &PageUser) -> PageResult<TagsPage> {
    Admin::of(&user.actor)?;
    let db = &state.db.conn;
    let listed = tags::list(db, &user.actor, None, tags::MAX_LISTED).await?;
    Ok(TagsPage {
        layout: Layout::for_user(user),
        section: "tags",
        notes: Default::default(),
        free_tags: tags::free_tags(db).await?,
        tags: listed
            .into_iter()
            .map(|t| TagRow {
                name: t.name,
                curated: t.curated,
                tickets: t.tickets,
            })
            .collect(),
    })
}

/// `GET /admin/tags/`.
#[utoipa::path(get, path = "/admin/tags/", tag = "pages", operation_id = "pageAdminTags",
    summary = "Tags with their use, the curated list and the free-tags setting (administrators only).",
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn tags_page(
    State(state): State<AppState>,
    user: PageUser,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    super::show::<TagsPage>(&state, &user, done).await
}

impl super::DeskPage for TagsPage {
    const PATH: &'static str = "/admin/tags/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("curated", "admin-tags-curated-done"),
        ("deleted", "admin-tags-deleted"),
        ("settings", "admin-tags-settings-saved"),
    ];
    const SAVED: &'static str = "admin-saved";

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        tags_of_desk(state, user).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// `POST /admin/tags/` (form: `name`): put a name on the curated list.
#[utoipa::path(post, path = "/admin/tags/", tag = "pages", operation_id = "pageAdminCurateTag",
    summary = "Put a name on the curated list (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the tags"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn curate_tag(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let result = tags::curate(&state.db, &user.actor, form.get("name")).await;
    super::outcome::<TagsPage, _>(&state, &user, "curated", &form, result).await
}

/// `POST /admin/tags/change/` (form: `tag`, and `rename_to`, or `curated=true|false`, or `delete`).
#[utoipa::path(post, path = "/admin/tags/change/", tag = "pages", operation_id = "pageAdminChangeTag",
    summary = "Rename a tag (naming another merges them), curate it or delete it (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the tags"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_tag(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let tag = form.get("tag");
    if form.opt("delete").is_some() {
        let result = tags::delete(&state.db, &state.tags, &user.actor, tag).await;
        return super::outcome::<TagsPage, _>(&state, &user, "deleted", &form, result).await;
    }
    let change = TagUpdate {
        name: form
            .opt("rename_to")
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string),
        curated: form.opt("curated").map(|c| c == "true"),
    };
    let result = tags::update(&state.db, &state.tags, &user.actor, tag, change).await;
    super::outcome::<TagsPage, _>(&state, &user, "saved", &form, result).await
}

/// `POST /admin/tags/settings/` (form: `free_tags=true|false`).
#[utoipa::path(post, path = "/admin/tags/settings/", tag = "pages", operation_id = "pageAdminTagSettings",
    summary = "Allow or refuse tags off the curated list (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the tags")),
    security(("session" = [], "csrf" = [])))]
pub async fn tag_settings(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let free = form.get("free_tags") == "true";
    let result = tags::set_free_tags(&state.db, &user.actor, free).await;
    super::outcome::<TagsPage, _>(&state, &user, "settings", &form, result).await
}
