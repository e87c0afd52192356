//! Assets (inventory items): who sees them and reading them here; changes in `write`; ticket links in
//! `links`. Team members see and change every asset; other users see only the assets they own and
//! change none.
pub mod links;
pub mod write;

pub use links::{assets_of_tickets, link_asset, tickets_of_assets, unlink_asset};
pub use write::{archive, create, update, AssetPatch, NewAsset};

use crate::auth::Actor;
use crate::domain::{AssetStatus, AssetType};
use crate::error::{AppError, AppResult};
use crate::service::text;
use entity::{asset, user};
use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use std::collections::HashMap;

/// Filters for asset lists; every field narrows the result.
#[derive(Debug, Clone, Default)]
pub struct AssetFilter {
    /// Only this type.
    pub asset_type: Option<AssetType>,
    /// Only this status.
    pub status: Option<AssetStatus>,
    /// Text in the name, description or serial number (case-insensitive).
    pub search: Option<String>,
}

/// Restricts an asset query to what the actor may see (everything, for the team).
pub fn visible_to(actor: &Actor) -> Condition {
    if actor.is_team() {
        Condition::all()
    } else {
        Condition::all().add(asset::Column::OwnerId.eq(actor.id()))
    }
}

/// Whether the actor may see the asset.
pub fn can_see(actor: &Actor, a: &asset::Model) -> bool {
    actor.is_team() || a.owner_id == Some(actor.id())
}

/// Only team members create, change and archive assets.
pub fn can_change(actor: &Actor) -> bool {
    actor.is_team()
}

/// A non-archived asset the actor may see (404 otherwise).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<asset::Model> {
    match asset::Entity::find_by_id(id).one(db).await? {
        Some(a) if a.archived_at.is_none() && can_see(actor, &a) => Ok(a),
        _ => Err(AppError::not_found("asset")),
    }
}

/// The non-archived assets among `ids` that the actor may see, by id, in one statement ([`get`] for many).
pub async fn get_many(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ids: &[i32],
) -> AppResult<std::collections::HashMap<i32, asset::Model>> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    Ok(asset::Entity::find()
        .filter(asset::Column::Id.is_in(ids.iter().copied()))
        .filter(asset::Column::ArchivedAt.is_null())
        .filter(visible_to(actor))
        .all(db)
        .await?
        .into_iter()
        .map(|a| (a.id, a))
        .collect())
}

/// The visible, non-archived assets matching `filter`, by name. Every one of them: the REST list is an unpaged
/// array by contract; the other doors read a [`window`].
pub async fn list(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &AssetFilter,
) -> AppResult<Vec<asset::Model>> {
    Ok(in_order(matching(actor, filter)?).all(db).await?)
}

/// At most `limit` of the assets [`list`] would return, from position `offset` on, and how many match in all:
/// two statements whatever the inventory's size.
pub async fn window(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: &AssetFilter,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<asset::Model>, u64)> {
    let select = matching(actor, filter)?;
    let total = select.clone().count(db).await?;
    if limit == 0 || offset >= total {
        return Ok((Vec::new(), total));
    }
    let rows = in_order(select).offset(offset).limit(limit).all(db).await?;
    Ok((rows, total))
}

/// Up to `at_most` of the visible, non-archived assets named `name` exactly (letter case aside), by id: how a
/// form that names an asset finds it, whatever the inventory's size.
pub async fn named(
    db: &impl ConnectionTrait,
    actor: &Actor,
    name: &str,
    at_most: u64,
) -> AppResult<Vec<asset::Model>> {
    Ok(asset::Entity::find()
        .filter(asset::Column::ArchivedAt.is_null())
        .filter(visible_to(actor))
        .filter(
            Expr::expr(Func::lower(Expr::col(asset::Column::Name))).eq(name.trim().to_lowercase()),
        )
        .order_by_asc(asset::Column::Id)
        .limit(at_most)
        .all(db)
        .await?)
}

/// The one query of [`list`] and [`window`]: what the actor may see of `filter` (unordered, for the count).
fn matching(actor: &Actor, filter: &AssetFilter) -> AppResult<sea_orm::Select<asset::Entity>> {
    text::single_line("search", filter.search.as_deref().unwrap_or(""))?;
    let mut select = asset::Entity::find()
        .filter(asset::Column::ArchivedAt.is_null())
        .filter(visible_to(actor));
    if let Some(t) = filter.asset_type {
        select = select.filter(asset::Column::AssetType.eq(t.as_str()));
    }
    if let Some(s) = filter.status {
        select = select.filter(asset::Column::Status.eq(s.as_str()));
    }
    if let Some(q) = filter
        .search
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
    {
        select = select.filter(search_condition(q));
    }
    Ok(select)
}

/// The lists' order: by name, then by id for equal names.
fn in_order(select: sea_orm::Select<asset::Entity>) -> sea_orm::Select<asset::Entity> {
    select
        .order_by_asc(asset::Column::Name)
        .order_by_asc(asset::Column::Id)
}

fn search_condition(q: &str) -> Condition {
    let escaped = q
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let pattern = format!("%{escaped}%");
    let like = |col: asset::Column| {
        Expr::expr(Func::lower(Expr::col(col))).like(LikeExpr::new(pattern.clone()).escape('\\'))
    };
    Condition::any()
        .add(like(asset::Column::Name))
        .add(like(asset::Column::Description))
        .add(like(asset::Column::SerialNumber))
}

/// User names of the owners of those of `assets` the actor may see, in one query (owner id → username).
pub async fn owner_names(
    db: &impl ConnectionTrait,
    actor: &Actor,
    assets: &[asset::Model],
) -> AppResult<HashMap<i32, String>> {
    let mut ids: Vec<i32> = assets
        .iter()
        .filter(|a| can_see(actor, a))
        .filter_map(|a| a.owner_id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(i32, String)> = user::Entity::find()
        .select_only()
        .column(user::Column::Id)
        .column(user::Column::Username)
        .filter(user::Column::Id.is_in(ids))
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows.into_iter().collect())
}
