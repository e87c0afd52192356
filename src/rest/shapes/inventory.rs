//! Projects and assets as REST shows them.
use super::timestamp;
use crate::rest::openapi::values;
use serde::Serialize;
use utoipa::ToSchema;

/// A project.
#[derive(Serialize, ToSchema)]
pub struct Project {
    /// Project id.
    id: i32,
    /// Unique name.
    name: String,
    /// Description.
    description: String,
    /// Non-archived tickets in it.
    ticket_count: i64,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A project with its count of non-archived tickets.
pub fn project(p: &entity::project::Model, ticket_count: i64) -> Project {
    Project {
        id: p.id,
        name: p.name.clone(),
        description: p.description.clone(),
        ticket_count,
        created_at: timestamp(&p.created_at),
        updated_at: timestamp(&p.updated_at),
    }
}

/// An inventory item.
#[derive(Serialize, ToSchema)]
pub struct Asset {
    /// Asset id.
    id: i32,
    /// Name.
    name: String,
    #[serde(rename = "type")]
    #[schema(schema_with = values::asset_type)]
    asset_type: String,
    #[schema(schema_with = values::asset_status)]
    status: String,
    /// Where it is.
    location: String,
    /// Owner's user name.
    #[schema(required = true)]
    owner: Option<String>,
    /// Free text.
    description: String,
    /// Serial number.
    serial_number: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    created_at: String,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    updated_at: String,
}

/// An asset, with `owner` the owner's user name (null when none).
pub fn asset(a: &entity::asset::Model, owner: Option<&str>) -> Asset {
    Asset {
        id: a.id,
        name: a.name.clone(),
        asset_type: a.asset_type.to_string(),
        status: a.status.to_string(),
        location: a.location.clone(),
        owner: owner.map(str::to_string),
        description: a.description.clone(),
        serial_number: a.serial_number.clone(),
        created_at: timestamp(&a.created_at),
        updated_at: timestamp(&a.updated_at),
    }
}
