//! Operations of `/api/projects/…` and `/api/assets/…` (documentation only; handlers in `rest`).
#![allow(dead_code)]
use super::schemas_more::*;

/// Non-archived projects, by name.
#[utoipa::path(get, path = "/api/projects/", tag = "projects", operation_id = "listProjects",
    responses((status = 200, description = "The projects", body = Vec<Project>)),
    security(("bearer" = [])))]
pub fn list_projects() {}

/// Create a project (team members only).
#[utoipa::path(post, path = "/api/projects/", tag = "projects", operation_id = "createProject",
    request_body = ProjectInput,
    responses((status = 201, description = "Created", body = Project)),
    security(("bearer" = [])))]
pub fn create_project() {}

/// One project.
#[utoipa::path(get, path = "/api/projects/{id}/", tag = "projects", operation_id = "getProject",
    params(("id" = i32, Path, description = "Project id")),
    responses((status = 200, description = "The project", body = Project)),
    security(("bearer" = [])))]
pub fn get_project() {}

/// Change a project (team members only).
#[utoipa::path(patch, path = "/api/projects/{id}/", tag = "projects", operation_id = "updateProject",
    params(("id" = i32, Path, description = "Project id")),
    request_body = ProjectInput,
    responses((status = 200, description = "Updated", body = Project)),
    security(("bearer" = [])))]
pub fn update_project() {}

/// Archive a project (team members only); its tickets keep it.
#[utoipa::path(delete, path = "/api/projects/{id}/", tag = "projects", operation_id = "archiveProject",
    params(("id" = i32, Path, description = "Project id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
pub fn archive_project() {}

/// Assets the caller may see (team: all; others: their own), by name.
#[utoipa::path(get, path = "/api/assets/", tag = "assets", operation_id = "listAssets",
    params(
        ("type" = Option<String>, Query, description = "Only this type."),
        ("status" = Option<String>, Query, description = "Only this status."),
        ("search" = Option<String>, Query, description = "Text in the name, description or serial number."),
    ),
    responses((status = 200, description = "The assets", body = Vec<Asset>)),
    security(("bearer" = [])))]
pub fn list_assets() {}

/// Record an asset (team members only).
#[utoipa::path(post, path = "/api/assets/", tag = "assets", operation_id = "createAsset",
    request_body = AssetInput,
    responses((status = 201, description = "Created", body = Asset)),
    security(("bearer" = [])))]
pub fn create_asset() {}

/// One asset the caller may see.
#[utoipa::path(get, path = "/api/assets/{id}/", tag = "assets", operation_id = "getAsset",
    params(("id" = i32, Path, description = "Asset id")),
    responses((status = 200, description = "The asset", body = Asset)),
    security(("bearer" = [])))]
pub fn get_asset() {}

/// Change an asset (team members only).
#[utoipa::path(patch, path = "/api/assets/{id}/", tag = "assets", operation_id = "updateAsset",
    params(("id" = i32, Path, description = "Asset id")),
    request_body = AssetInput,
    responses((status = 200, description = "Updated", body = Asset)),
    security(("bearer" = [])))]
pub fn update_asset() {}

/// Archive an asset (team members only).
#[utoipa::path(delete, path = "/api/assets/{id}/", tag = "assets", operation_id = "archiveAsset",
    params(("id" = i32, Path, description = "Asset id")),
    responses((status = 204, description = "Archived")),
    security(("bearer" = [])))]
pub fn archive_asset() {}
