//! Schemas of credentials and sessions, projects, assets, and operational endpoints.
#![allow(dead_code)]
use super::schemas::{AssetStatusValue, AssetTypeValue, UserRef};
use serde::Serialize;
use utoipa::{PartialSchema, ToSchema};

/// Credentials (JSON, or a form for the session login).
#[derive(Serialize, ToSchema)]
pub struct Credentials {
    /// Login name.
    pub username: String,
    /// Password.
    pub password: String,
}

/// The signed-in user in a session login response.
#[derive(Serialize, ToSchema)]
pub struct SessionUser {
    /// User id.
    pub id: i32,
    /// Login name.
    pub username: String,
    /// Display name.
    pub full_name: String,
    /// Email address.
    #[schema(required = true)]
    pub email: Option<String>,
    /// Staff flag.
    pub is_staff: bool,
}

/// Session login response; the cookies `sessionid` (HttpOnly) and `csrftoken` are set.
#[derive(Serialize, ToSchema)]
pub struct SessionStarted {
    /// Always true.
    pub success: bool,
    /// Who signed in.
    pub user: SessionUser,
}

/// A short-lived JWT access token.
#[derive(Serialize, ToSchema)]
pub struct AccessToken {
    /// Send as `Authorization: Bearer <token>`.
    pub token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// Who it was issued to.
    pub user: UserRef,
}

/// A project.
#[derive(Serialize, ToSchema)]
pub struct Project {
    /// Project id.
    pub id: i32,
    /// Unique name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Non-archived tickets in it.
    pub ticket_count: i64,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// Fields of a project; `name` is required on create.
#[derive(Serialize, ToSchema)]
pub struct ProjectInput {
    /// Unique, 1–200 characters.
    pub name: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

/// An inventory item.
#[derive(Serialize, ToSchema)]
pub struct Asset {
    /// Asset id.
    pub id: i32,
    /// Name.
    pub name: String,
    /// Kind.
    #[serde(rename = "type")]
    #[schema(schema_with = AssetTypeValue::schema)]
    pub asset_type: String,
    /// Status.
    #[schema(schema_with = AssetStatusValue::schema)]
    pub status: String,
    /// Where it is.
    pub location: String,
    /// Owner's user name.
    #[schema(required = true)]
    pub owner: Option<String>,
    /// Free text.
    pub description: String,
    /// Serial number.
    pub serial_number: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// Fields of an asset; `name` and `type` are required on create, `owner: null` clears the owner.
#[derive(Serialize, ToSchema)]
pub struct AssetInput {
    /// 1–200 characters.
    pub name: Option<String>,
    /// Kind.
    #[serde(rename = "type")]
    #[schema(schema_with = AssetTypeValue::schema)]
    pub asset_type: Option<String>,
    /// Default `in_stock`.
    #[schema(schema_with = AssetStatusValue::schema)]
    pub status: Option<String>,
    /// At most 200 characters.
    pub location: Option<String>,
    /// Owner user id (an active user).
    pub owner: Option<i32>,
    /// Free text.
    pub description: Option<String>,
    /// At most 200 characters.
    pub serial_number: Option<String>,
}

/// `GET /api/version/`.
#[derive(Serialize, ToSchema)]
pub struct Version {
    /// Release.
    pub version: String,
    /// Interface release.
    pub api: String,
}

/// `GET /healthz`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// Readiness checks.
#[derive(Serialize, ToSchema)]
pub struct ReadyChecks {
    /// The database answers.
    pub database: bool,
    /// Every migration is applied.
    pub migrations: bool,
}

/// `GET /readyz` (200 when ready, 503 otherwise).
#[derive(Serialize, ToSchema)]
pub struct Ready {
    /// `ready` or `unavailable`.
    pub status: String,
    /// Individual checks.
    pub checks: ReadyChecks,
}

/// A GraphQL request.
#[derive(Serialize, ToSchema)]
pub struct GraphqlRequest {
    /// The document.
    pub query: String,
    /// Variables.
    pub variables: Option<serde_json::Value>,
    /// Operation to run.
    #[serde(rename = "operationName")]
    pub operation_name: Option<String>,
}
