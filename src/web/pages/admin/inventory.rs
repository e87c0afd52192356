//! `/admin/assets/`: the inventory (administrators only): assets found by words, type and status, each changed
//! or archived in place, and a form for a new one, over the service calls REST and GraphQL use. Owners are
//! named by user name. The list shows at most [`SHOWN`] assets: a bigger inventory is narrowed by its filters.
use super::{Done, Opt};
use crate::domain::{AssetStatus, AssetType};
use crate::error::{AppError, AppResult};
use crate::service::assets::{self, AssetFilter, AssetPatch, NewAsset};
use crate::service::users::{accounts, Admin};
use crate::state::AppState;
use crate::web::pages::{Form, Layout, PageResult, PageUser};
use askama::Template;
use axum::body::Bytes;
use axum::extract::{Query, RawQuery, State};
use axum::response::Response;

/// Most assets the page lists at once.
const SHOWN: u64 = 100;

/// An asset as the page lists it, with its form's choices.
struct Row {
    id: i32,
    name: String,
    types: Vec<Opt>,
    type_label: String,
    statuses: Vec<Opt>,
    status_label: String,
    location: String,
    owner: String,
    serial_number: String,
    description: String,
}

#[derive(Template)]
#[template(path = "admin_assets.html")]
struct AssetsPage {
    layout: Layout,
    section: &'static str,
    notes: super::Notes,
    /// The filters as given.
    q: String,
    types: Vec<Opt>,
    statuses: Vec<Opt>,
    assets: Vec<Row>,
    /// More matched than the page shows.
    more: bool,
    /// How many match the filters.
    total: u64,
}

/// The page's filters from its query string (`q`, `type`, `status`); a value that is not one is ignored.
fn filter_of(raw: Option<&str>) -> AssetFilter {
    let mut filter = AssetFilter::default();
    for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match k.as_ref() {
            "q" => filter.search = Some(v.trim().to_string()).filter(|q| !q.is_empty()),
            "type" => filter.asset_type = AssetType::parse(&v).ok(),
            "status" => filter.status = AssetStatus::parse(&v).ok(),
            _ => {}
        }
    }
    filter
}

async fn assets_of_desk(
    state: &AppState,
    user: &PageUser,
    filter: &AssetFilter,
) -> PageResult<AssetsPage> {
    Admin::of(&user.actor)?;
    let lang = user.lang;
    let db = &state.db.conn;
    let (found, total) = assets::window(db, &user.actor, filter, 0, SHOWN).await?;
    let more = total > SHOWN;
    let shown = &found[..];
    let owners = assets::owner_names(db, &user.actor, shown).await?;
    Ok(AssetsPage {
        layout: Layout::for_user(user),
        section: "assets",
        notes: Default::default(),
        q: filter.search.clone().unwrap_or_default(),
        types: super::enum_options(lang, AssetType::ALL, AssetType::as_str, filter.asset_type),
        statuses: super::enum_options(lang, AssetStatus::ALL, AssetStatus::as_str, filter.status),
        assets: shown
            .iter()
            .map(|a| Row {
                id: a.id,
                name: a.name.clone(),
                types: super::enum_options(
                    lang,
                    AssetType::ALL,
                    AssetType::as_str,
                    Some(a.asset_type),
                ),
                type_label: lang.label(a.asset_type.as_str()),
                statuses: super::enum_options(
                    lang,
                    AssetStatus::ALL,
                    AssetStatus::as_str,
                    Some(a.status),
                ),
                status_label: lang.label(a.status.as_str()),
                location: a.location.clone(),
                owner: a
                    .owner_id
                    .and_then(|id| owners.get(&id).cloned())
                    .unwrap_or_default(),
                serial_number: a.serial_number.clone(),
                description: a.description.clone(),
            })
            .collect(),
        more,
        total,
    })
}

/// `GET /admin/assets/?q=&type=&status=`.
#[utoipa::path(get, path = "/admin/assets/", tag = "pages", operation_id = "pageAdminAssets",
    summary = "The inventory, found by words, type and status, and a form for a new asset (administrators only).",
    params(
        ("q" = Option<String>, Query, description = "Words in the name, description or serial number"),
        ("type" = Option<String>, Query, description = "An asset type"),
        ("status" = Option<String>, Query, description = "An asset status"),
    ),
    responses((status = 200, description = "HTML page", content_type = "text/html", body = String), (status = 403, description = "Not an administrator: error page", content_type = "text/html", body = String)),
    security(("session" = [])))]
pub async fn assets_page(
    State(state): State<AppState>,
    user: PageUser,
    RawQuery(raw): RawQuery,
    Query(done): Query<Done>,
) -> PageResult<Response> {
    let page = assets_of_desk(&state, &user, &filter_of(raw.as_deref())).await?;
    Ok(super::shown(page, &user, done))
}

impl super::DeskPage for AssetsPage {
    const PATH: &'static str = "/admin/assets/";
    const DONE: &'static [(&'static str, &'static str)] = &[
        ("created", "admin-assets-added"),
        ("archived", "admin-assets-archived"),
    ];

    async fn read(state: &AppState, user: &PageUser) -> PageResult<Self> {
        assets_of_desk(state, user, &AssetFilter::default()).await
    }

    fn notes(&mut self) -> &mut super::Notes {
        &mut self.notes
    }
}

/// The owner a form names by user name: none when blank, 400 on `owner` when nobody has that name.
async fn owner(state: &AppState, user: &PageUser, form: &Form) -> AppResult<Option<i32>> {
    let name = form.get("owner").trim();
    if name.is_empty() {
        return Ok(None);
    }
    let admin = Admin::of(&user.actor)?;
    match accounts::by_username(&state.db.conn, &admin, name).await? {
        Some(u) => Ok(Some(u.id)),
        None => Err(AppError::field(
            "owner",
            format!("there is no user named \"{name}\""),
        )),
    }
}

/// `POST /admin/assets/` (form: `name`, `asset_type`, `status`, `location`, `owner` (a user name),
/// `serial_number`, `description`): a new asset.
#[utoipa::path(post, path = "/admin/assets/", tag = "pages", operation_id = "pageAdminCreateAsset",
    summary = "Add an asset (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the inventory"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn create_asset(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let made = async {
        let input = NewAsset {
            name: form.get("name").to_string(),
            asset_type: AssetType::parse(form.get("asset_type"))?,
            status: Some(AssetStatus::parse(form.get("status"))?),
            location: Some(form.get("location").to_string()),
            owner_id: owner(&state, &user, &form).await?,
            description: Some(form.get("description").to_string()),
            serial_number: Some(form.get("serial_number").to_string()),
        };
        assets::create(&state.db, &user.actor, input).await
    }
    .await;
    super::outcome::<AssetsPage, _>(&state, &user, "created", &form, made).await
}

/// `POST /admin/assets/change/` (form: `id` and every field of a new asset, replacing the stored ones; or
/// `archive`).
#[utoipa::path(post, path = "/admin/assets/change/", tag = "pages", operation_id = "pageAdminChangeAsset",
    summary = "Change or archive an asset (administrators only).",
    request_body(content_type = "application/x-www-form-urlencoded", content = String),
    responses((status = 303, description = "Back to the inventory"), (status = 400, description = "The page with the message", content_type = "text/html", body = String)),
    security(("session" = [], "csrf" = [])))]
pub async fn change_asset(
    State(state): State<AppState>,
    user: PageUser,
    body: Bytes,
) -> PageResult<Response> {
    Admin::of(&user.actor)?;
    let form = user.form(&body)?;
    let id = super::form_id(&form, "asset")?;
    if form.opt("archive").is_some() {
        let gone = assets::archive(&state.db, &user.actor, id).await;
        return super::outcome::<AssetsPage, _>(&state, &user, "archived", &form, gone).await;
    }
    let changed = async {
        let patch = AssetPatch {
            name: Some(form.get("name").to_string()),
            asset_type: Some(AssetType::parse(form.get("asset_type"))?),
            status: Some(AssetStatus::parse(form.get("status"))?),
            location: Some(form.get("location").to_string()),
            owner_id: Some(owner(&state, &user, &form).await?),
            description: Some(form.get("description").to_string()),
            serial_number: Some(form.get("serial_number").to_string()),
        };
        assets::update(&state.db, &user.actor, id, patch).await
    }
    .await;
    super::outcome::<AssetsPage, _>(&state, &user, "saved", &form, changed).await
}
