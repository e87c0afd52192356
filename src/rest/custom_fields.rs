//! Custom fields, additive to the contract: the definitions at `/api/custom-fields/` (anyone signed in reads
//! the ones they may see; administrators define, change and archive them). Values travel on the ticket
//! itself: `custom_fields` on the detail, create and update, and `field.<key>` filters on the list. Thin
//! handlers over `service::custom_fields`.
use crate::auth::middleware::CurrentActor;
use crate::error::{AppError, AppResult};
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::rest::comments::path_id;
use crate::rest::fields::Fields;
use crate::rest::json::JsonObject;
use crate::service::custom_fields::{self, Field, FieldListFilter, FieldPatch, NewField, Shown};
use crate::state::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Json;
use entity::values::{FieldKind, StatusCategory};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// The routes of this module.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/api/custom-fields/", get(list).post(create))
        .route(
            "/api/custom-fields/{id}/",
            get(detail).patch(update).delete(archive),
        )
}

/// A custom field's definition.
#[derive(Serialize, ToSchema)]
pub struct CustomField {
    /// Id.
    id: i32,
    /// The name used in `custom_fields` and `field.<key>` filters.
    key: String,
    /// What people read.
    label: String,
    /// `text`, `long_text`, `number`, `date`, `datetime`, `boolean`, `choice`, `multi_choice`, `user` or
    /// `asset`.
    kind: String,
    /// The project whose tickets carry it; null: every ticket.
    #[schema(required = true)]
    project: Option<i32>,
    /// The allowed values of a choice field.
    choices: Vec<String>,
    /// From which status category on a value is required (`todo`: always, `in_progress`, `done`: to
    /// resolve); null: never.
    #[schema(required = true)]
    required_from: Option<String>,
    /// Seen and set by the team only.
    team_only: bool,
    /// Order among the fields.
    position: i32,
    /// Archived: hidden, its values kept.
    archived: bool,
}

impl CustomField {
    /// The body of `f`.
    pub fn of(f: &Field) -> Self {
        CustomField {
            id: f.id,
            key: f.key.clone(),
            label: f.label.clone(),
            kind: f.kind.to_string(),
            project: f.project_id,
            choices: f.choices.clone(),
            required_from: f.required_from.map(|c| c.to_string()),
            team_only: f.team_only,
            position: f.position,
            archived: f.archived_at.is_some(),
        }
    }
}

/// A ticket's `custom_fields`: each field it carries that the caller may see, by key, null when unset.
pub fn values(shown: &Shown) -> Map<String, Value> {
    shown
        .iter()
        .map(|(field, value)| {
            let v = value.as_ref().map_or(Value::Null, |v| v.to_json());
            (field.key.clone(), v)
        })
        .collect()
}

fn required_from(f: &Fields<'_>) -> AppResult<Option<Option<StatusCategory>>> {
    if !f.has("required_from") {
        return Ok(None);
    }
    match f.string("required_from")? {
        None => Ok(Some(None)),
        Some(s) => {
            Ok(Some(Some(StatusCategory::parse(&s).map_err(|e| {
                AppError::field("required_from", e.message)
            })?)))
        }
    }
}

fn choices(body: &Map<String, Value>) -> AppResult<Option<Vec<String>>> {
    match body.get("choices") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| AppError::field("choices", "must be a list of strings"))
            })
            .collect::<AppResult<Vec<_>>>()
            .map(Some),
        Some(_) => Err(AppError::field("choices", "must be a list of strings")),
    }
}

fn position(body: &Map<String, Value>) -> AppResult<Option<i32>> {
    match body.get("position") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| AppError::field("position", "must be a whole number")),
    }
}

/// `GET /api/custom-fields/?project=&archived=`.
#[utoipa::path(get, path = "/api/custom-fields/", tag = "custom fields", operation_id = "listCustomFields",
    summary = "The custom fields the caller may see, in order (team-only ones for the team).",
    params(
        ("project" = Option<i32>, Query, description = "Only the fields a ticket of this project carries (every ticket's and the project's own)."),
        ("archived" = Option<bool>, Query, description = "`true`: archived ones too (administrators)."),
    ),
    responses((status = 200, description = "The fields", body = Vec<CustomField>), (status = 400, description = "A bad parameter", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn list(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    RawQuery(raw): RawQuery,
) -> AppResult<Json<Vec<CustomField>>> {
    let mut filter = FieldListFilter::default();
    for (key, value) in url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
        match key.as_ref() {
            "project" if !value.trim().is_empty() => {
                filter.project_id = Some(
                    path_id(value.trim(), "project")
                        .map_err(|_| AppError::field("project", "must be a positive integer id"))?,
                )
            }
            "archived" => filter.include_archived = value.trim() == "true",
            _ => {}
        }
    }
    let found = custom_fields::list(&state.db.conn, &actor, filter).await?;
    Ok(Json(found.iter().map(CustomField::of).collect()))
}

/// `GET /api/custom-fields/{id}/`.
#[utoipa::path(get, path = "/api/custom-fields/{id}/", tag = "custom fields", operation_id = "getCustomField",
    summary = "One custom field the caller may see.",
    params(("id" = i32, Path, description = "Field id")),
    responses((status = 200, description = "The field", body = CustomField), (status = 404, description = "No such field the caller may see", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn detail(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<Json<CustomField>> {
    let id = path_id(&id, "custom field")?;
    let field = custom_fields::get(&state.db.conn, &actor, id).await?;
    Ok(Json(CustomField::of(&field)))
}

/// The body of a field create (`key`, `label` and `kind` required).
#[derive(Serialize, ToSchema)]
pub struct CustomFieldCreate {
    /// 1-50 lowercase letters, digits and `_`, starting with a letter; unique; fixed once made.
    key: String,
    /// 1-200 characters.
    label: String,
    /// The type of its values; fixed once made.
    kind: String,
    /// Only this project's tickets carry it; fixed once made.
    project: Option<i32>,
    /// 1-200 choices for `choice` and `multi_choice` fields (each 1-100 characters, no commas).
    choices: Option<Vec<String>>,
    /// `todo` (always), `in_progress` or `done` (to resolve); null or absent: never.
    required_from: Option<String>,
    /// Default false.
    team_only: Option<bool>,
    /// Default: after the last.
    position: Option<i32>,
}

/// `POST /api/custom-fields/` (administrators).
#[utoipa::path(post, path = "/api/custom-fields/", tag = "custom fields", operation_id = "createCustomField",
    summary = "Define a custom field (administrators).",
    request_body = CustomFieldCreate,
    responses((status = 201, description = "Defined", body = CustomField), (status = 400, description = "A bad or taken key, a bad label, kind or choices, an unknown project, or a ticket would carry too many fields", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn create(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    JsonObject(body): JsonObject,
) -> AppResult<(StatusCode, Json<CustomField>)> {
    let f = Fields(&body);
    let required = |key: &str| {
        f.string_not_null(key)?
            .ok_or_else(|| AppError::field(key, "this field is required"))
    };
    let kind =
        FieldKind::parse(&required("kind")?).map_err(|e| AppError::field("kind", e.message))?;
    let input = NewField {
        key: required("key")?,
        label: required("label")?,
        kind,
        project_id: f.nullable_id("project")?.flatten(),
        choices: choices(&body)?.unwrap_or_default(),
        required_from: required_from(&f)?.flatten(),
        team_only: f.boolean("team_only")?.unwrap_or(false),
        position: position(&body)?,
    };
    let field = custom_fields::create(
        &state.db,
        &state.custom_fields,
        &actor,
        input,
        state.config.max_custom_fields,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(CustomField::of(&field))))
}

/// The body of a field change; absent keys stay.
#[derive(Serialize, ToSchema)]
pub struct CustomFieldPatch {
    /// 1-200 characters.
    label: Option<String>,
    /// The whole new list (a choice tickets hold may not be dropped).
    choices: Option<Vec<String>>,
    /// `todo`, `in_progress`, `done`, or null: never.
    required_from: Option<String>,
    /// Team only or everyone.
    team_only: Option<bool>,
    /// Order among the fields.
    position: Option<i32>,
    /// `true` archives (hidden, values kept), `false` restores.
    archived: Option<bool>,
}

/// `PATCH /api/custom-fields/{id}/` (administrators).
#[utoipa::path(patch, path = "/api/custom-fields/{id}/", tag = "custom fields", operation_id = "updateCustomField",
    summary = "Change, archive or restore a custom field (administrators; key, kind and project stay).",
    params(("id" = i32, Path, description = "Field id")),
    request_body = CustomFieldPatch,
    responses((status = 200, description = "The field now", body = CustomField), (status = 400, description = "A bad value, or a choice tickets hold dropped", body = crate::error::bodies::Error), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such field", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn update(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
    JsonObject(body): JsonObject,
) -> AppResult<Json<CustomField>> {
    let id = path_id(&id, "custom field")?;
    let f = Fields(&body);
    for fixed in ["key", "kind", "project"] {
        if f.has(fixed) {
            return Err(AppError::field(fixed, "is fixed once the field is made"));
        }
    }
    let patch = FieldPatch {
        label: f.string_not_null("label")?,
        choices: choices(&body)?,
        required_from: required_from(&f)?,
        team_only: f.boolean("team_only")?,
        position: position(&body)?,
        archived: f.boolean("archived")?,
    };
    let field = custom_fields::update(
        &state.db,
        &state.custom_fields,
        &actor,
        id,
        patch,
        state.config.max_custom_fields,
    )
    .await?;
    Ok(Json(CustomField::of(&field)))
}

/// `DELETE /api/custom-fields/{id}/`: archive (administrators).
#[utoipa::path(delete, path = "/api/custom-fields/{id}/", tag = "custom fields", operation_id = "archiveCustomField",
    summary = "Archive a custom field: hidden everywhere, its values kept (administrators; restore with PATCH).",
    params(("id" = i32, Path, description = "Field id")),
    responses((status = 204, description = "Archived"), (status = 403, description = "Not an administrator", body = crate::error::bodies::Error), (status = 404, description = "No such field", body = crate::error::bodies::Error)),
    security(("bearer" = [])))]
pub async fn archive(
    State(state): State<AppState>,
    CurrentActor(actor): CurrentActor,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    let id = path_id(&id, "custom field")?;
    let patch = FieldPatch {
        archived: Some(true),
        ..Default::default()
    };
    custom_fields::update(
        &state.db,
        &state.custom_fields,
        &actor,
        id,
        patch,
        state.config.max_custom_fields,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
