//! `/api/assets/`: list (with filters), read, create, change and archive inventory items.
use crate::auth::middleware::CurrentActor;
use crate::auth::Actor;
use crate::domain::{AssetStatus, AssetType};
use crate::error::{AppError, AppResult};
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::rest::path::PathId;
use crate::rest::shapes;
use crate::service::assets::{self, AssetFilter, AssetPatch, NewAsset};
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use entity::asset;
use sea_orm::ConnectionTrait;
use std::collections::HashMap;

/// A non-empty query parameter (an empty one counts as absent, as legacy clients send `?type=`).
fn param<'a>(params: &'a HashMap<String, String>, key: &str) -> Option<&'a str> {
    params.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
}

async fn render(
    db: &impl ConnectionTrait,
    actor: &Actor,
    found: &[asset::Model],
) -> AppResult<Vec<shapes::Asset>> {
    let owners = assets::owner_names(db, actor, found).await?;
    Ok(found
        .iter()
        .map(|a| {
            let owner = a
                .owner_id
                .and_then(|id| owners.get(&id))
                .map(String::as_str);
            shapes::asset(a, owner)
        })
        .collect())
}

async fn render_one(
    db: &impl ConnectionTrait,
    actor: &Actor,
    a: asset::Model,
) -> AppResult<shapes::Asset> {
    let mut rendered = render(db, actor, std::slice::from_ref(&a)).await?;
    rendered
        .pop()
        .ok_or_else(|| AppError::internal(anyhow::anyhow!("asset {} did not render", a.id)))
}

/// `GET /api/assets/?type=&status=&search=`: the visible assets, by name.
#[utoipa::path(get, path = "/api/assets/", tag = "assets", operation_id = "listAssets",
    summary = "Assets the caller may see (team: all; others: their own), by name.",
    params(
        ("type" = Option<String>, Query, description = "Only this type."),
        ("status" = Option<String>, Query, description = "Only this status."),
        ("search" = Option<String>, Query, description = "Text in the name, description or serial number."),
    ),
    responses((status = 200, description = "The assets", body = Vec<shapes::Asset>)),
    security(("bearer" = [])))]
pub async fn list(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> AppResult<Json<Vec<shapes::Asset>>> {
    let Query(params) = query.map_err(|e| AppError::bad_request(e.body_text()))?;
    let filter = AssetFilter {
        asset_type: param(&params, "type").map(AssetType::parse).transpose()?,
        status: param(&params, "status")
            .map(AssetStatus::parse)
            .transpose()?,
        search: param(&params, "search").map(str::to_string),
    };
    let found = assets::list(&state.db.conn, &actor, &filter).await?;
    Ok(Json(render(&state.db.conn, &actor, &found).await?))
}

/// `GET /api/assets/{id}/` (404 for assets the caller may not see).
#[utoipa::path(get, path = "/api/assets/{id}/", tag = "assets", operation_id = "getAsset",
    summary = "One asset the caller may see.",
    params(("id" = i32, Path, description = "Asset id")),
    responses((status = 200, description = "The asset", body = shapes::Asset)),
    security(("bearer" = [])))]
pub async fn get(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<Json<shapes::Asset>> {
    let found = assets::get(&state.db.conn, &actor, id).await?;
    Ok(Json(render_one(&state.db.conn, &actor, found).await?))
}

/// Text fields where null means empty.
fn text(fields: &Fields<'_>, key: &str) -> AppResult<Option<String>> {
    if fields.has(key) {
        Ok(Some(fields.string(key)?.unwrap_or_default()))
    } else {
        Ok(None)
    }
}

/// `POST /api/assets/` `{name, type, status?, location?, owner?, description?, serial_number?}` → 201.
#[utoipa::path(post, path = "/api/assets/", tag = "assets", operation_id = "createAsset",
    summary = "Record an asset (team members only).",
    request_body = crate::rest::openapi::request_bodies::AssetInput,
    responses((status = 201, description = "Created", body = shapes::Asset)),
    security(("bearer" = [])))]
pub async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<shapes::Asset>)> {
    let fields = Fields(&body);
    let required = |key: &str| -> AppResult<String> {
        fields
            .string_not_null(key)?
            .ok_or_else(|| AppError::field(key, "this field is required"))
    };
    let input = NewAsset {
        name: required("name")?,
        asset_type: AssetType::parse(&required("type")?)?,
        status: fields
            .string_not_null("status")?
            .as_deref()
            .map(AssetStatus::parse)
            .transpose()?,
        location: text(&fields, "location")?,
        owner_id: fields.nullable_id("owner")?.flatten(),
        description: text(&fields, "description")?,
        serial_number: text(&fields, "serial_number")?,
    };
    let created = assets::create(&state.db, &actor, input).await?;
    Ok((
        StatusCode::CREATED,
        Json(render_one(&state.db.conn, &actor, created).await?),
    ))
}

/// `PATCH /api/assets/{id}/` with any create field (`owner: null` clears the owner).
#[utoipa::path(patch, path = "/api/assets/{id}/", tag = "assets", operation_id = "updateAsset",
    summary = "Change an asset (team members only).",
    params(("id" = i32, Path, description = "Asset id")),
    request_body = crate::rest::openapi::request_bodies::AssetInput,
    responses((status = 200, description = "Updated", body = shapes::Asset)),
    security(("bearer" = [])))]
pub async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
    JsonObject(body): JsonObject,
) -> AppResult<Json<shapes::Asset>> {
    let fields = Fields(&body);
    let patch = AssetPatch {
        name: fields.string_not_null("name")?,
        asset_type: fields
            .string_not_null("type")?
            .as_deref()
            .map(AssetType::parse)
            .transpose()?,
        status: fields
            .string_not_null("status")?
            .as_deref()
            .map(AssetStatus::parse)
            .transpose()?,
        location: text(&fields, "location")?,
        owner_id: fields.nullable_id("owner")?,
        description: text(&fields, "description")?,
        serial_number: text(&fields, "serial_number")?,
    };
    let saved = assets::update(&state.db, &actor, id, patch).await?;
    Ok(Json(render_one(&state.db.conn, &actor, saved).await?))
}

/// `DELETE /api/assets/{id}/` → 204; the asset is archived.
#[utoipa::path(delete, path = "/api/assets/{id}/", tag = "assets", operation_id = "archiveAsset",
    summary = "Archive an asset (team members only).",
    params(("id" = i32, Path, description = "Asset id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
pub async fn archive(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    PathId(id): PathId,
) -> AppResult<StatusCode> {
    assets::archive(&state.db, &actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
