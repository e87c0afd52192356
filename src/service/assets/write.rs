//! Asset changes: create, update and archive, team members only, each with its audit record in one
//! transaction.
use super::{can_change, get};
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::{AssetStatus, AssetType};
use crate::error::{AppError, AppResult};
use crate::service::audit::{self, Changes};
use crate::service::text;
use crate::service::users;
use chrono::Utc;
use entity::asset;
use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};
use serde_json::json;

/// Fields of a new asset.
#[derive(Debug, Clone)]
pub struct NewAsset {
    /// Required, 1–200 characters after trimming.
    pub name: String,
    /// Kind of item.
    pub asset_type: AssetType,
    /// Defaults to in_stock.
    pub status: Option<AssetStatus>,
    /// Where it is (at most 200 characters).
    pub location: Option<String>,
    /// Owning user id (must be an active user).
    pub owner_id: Option<i32>,
    /// Free text.
    pub description: Option<String>,
    /// At most 200 characters.
    pub serial_number: Option<String>,
}

/// A partial change; `owner_id: Some(None)` clears the owner.
#[derive(Debug, Clone, Default)]
pub struct AssetPatch {
    /// New name.
    pub name: Option<String>,
    /// New type.
    pub asset_type: Option<AssetType>,
    /// New status.
    pub status: Option<AssetStatus>,
    /// New location.
    pub location: Option<String>,
    /// New owner or none.
    pub owner_id: Option<Option<i32>>,
    /// New description.
    pub description: Option<String>,
    /// New serial number.
    pub serial_number: Option<String>,
}

async fn check_owner(db: &impl ConnectionTrait, id: i32) -> AppResult<()> {
    if users::active_user_exists(db, id).await? {
        Ok(())
    } else {
        Err(AppError::field(
            "owner",
            format!("user {id} does not exist"),
        ))
    }
}

/// 404 for an asset the actor cannot see, 403 for one they can see but may not change.
async fn check_may_change(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<()> {
    if can_change(actor) {
        return Ok(());
    }
    get(db, actor, id).await?;
    Err(AppError::forbidden("only team members may change assets"))
}

/// Create an asset (team members only).
pub async fn create(db: &Db, actor: &Actor, input: NewAsset) -> AppResult<asset::Model> {
    if !can_change(actor) {
        return Err(AppError::forbidden("only team members may create assets"));
    }
    let name = text::required_line("name", &input.name)?;
    let location = text::short_line("location", input.location.as_deref().unwrap_or(""))?;
    let serial_number = text::short_line(
        "serial_number",
        input.serial_number.as_deref().unwrap_or(""),
    )?;
    let description = text::description(input.description.as_deref().unwrap_or(""))?;
    if let Some(id) = input.owner_id {
        check_owner(&db.conn, id).await?;
    }
    let status = input.status.unwrap_or(AssetStatus::InStock);
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = asset::ActiveModel {
        name: Set(name),
        asset_type: Set(input.asset_type),
        status: Set(status),
        location: Set(location),
        owner_id: Set(input.owner_id),
        description: Set(description),
        serial_number: Set(serial_number),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    let changes = json!({
        "name": [null, created.name],
        "type": [null, created.asset_type],
        "status": [null, created.status],
        "location": [null, created.location],
        "owner_id": [null, created.owner_id],
        "serial_number": [null, created.serial_number],
    });
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "asset", created.id, "create").changes(changes),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Apply a partial change (team members only; others get 403 on their own assets, 404 on the rest).
pub async fn update(db: &Db, actor: &Actor, id: i32, patch: AssetPatch) -> AppResult<asset::Model> {
    check_may_change(&db.conn, actor, id).await?;
    let name = patch
        .name
        .as_deref()
        .map(|name| text::required_line("name", name))
        .transpose()?;
    let location = patch
        .location
        .as_deref()
        .map(|v| text::short_line("location", v))
        .transpose()?;
    let serial_number = patch
        .serial_number
        .as_deref()
        .map(|v| text::short_line("serial_number", v))
        .transpose()?;
    let description = patch
        .description
        .as_deref()
        .map(text::description)
        .transpose()?;
    if let Some(Some(owner)) = patch.owner_id {
        check_owner(&db.conn, owner).await?;
    }
    let txn = db.begin_write().await?;
    let current = get(&txn, actor, id).await?;
    let mut next = current.clone();
    if let Some(v) = name {
        next.name = v;
    }
    if let Some(v) = patch.asset_type {
        next.asset_type = v;
    }
    if let Some(v) = patch.status {
        next.status = v;
    }
    if let Some(v) = location {
        next.location = v;
    }
    if let Some(v) = patch.owner_id {
        next.owner_id = v;
    }
    if let Some(v) = description {
        next.description = v;
    }
    if let Some(v) = serial_number {
        next.serial_number = v;
    }
    let mut changes = Changes::new();
    changes.diff("name", &current.name, &next.name);
    changes.diff("type", &current.asset_type, &next.asset_type);
    changes.diff("status", &current.status, &next.status);
    changes.diff("location", &current.location, &next.location);
    changes.diff("owner_id", &current.owner_id, &next.owner_id);
    changes.diff("description", &current.description, &next.description);
    changes.diff("serial_number", &current.serial_number, &next.serial_number);
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(current);
    }
    let mut active: asset::ActiveModel = current.into();
    active.name = Set(next.name);
    active.asset_type = Set(next.asset_type);
    active.status = Set(next.status);
    active.location = Set(next.location);
    active.owner_id = Set(next.owner_id);
    active.description = Set(next.description);
    active.serial_number = Set(next.serial_number);
    active.updated_at = Set(Utc::now());
    let saved = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "asset", id, "update").changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}

/// Archive an asset (team members only): it leaves lists and answers 404; its ticket links stay.
pub async fn archive(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    check_may_change(&db.conn, actor, id).await?;
    let txn = db.begin_write().await?;
    let current = get(&txn, actor, id).await?;
    let now = Utc::now();
    let mut active: asset::ActiveModel = current.into();
    active.archived_at = Set(Some(now));
    active.updated_at = Set(now);
    active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "asset", id, "archive")
            .changes(json!({ "archived_at": [null, now] })),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}
