//! `asset` and the `assets` connection with its filter.
use crate::domain::{AssetStatus, AssetType};
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::engine::prefetch;
use crate::graphql::ids;
use crate::graphql::list_connection::{list_connection, page_by};
use crate::graphql::types::Asset;
use crate::service::assets;
use async_graphql::{Context, InputObject, Object, Result, ID};

list_connection!(AssetConnection, AssetEdge, Asset, entity::asset::Model);

/// Asset queries.
#[derive(Default)]
pub struct AssetQuery;

/// Narrows an asset list; every field given must match.
#[derive(InputObject, Default)]
pub struct AssetFilter {
    /// Only this type.
    #[graphql(name = "type")]
    asset_type: Option<AssetType>,
    /// Only this status.
    status: Option<AssetStatus>,
    /// Text in the name, description or serial number (case-insensitive).
    search: Option<String>,
}

#[Object]
impl AssetQuery {
    /// One asset the viewer may see, by global id or database id; give exactly one.
    async fn asset(
        &self,
        ctx: &Context<'_>,
        id: Option<ID>,
        database_id: Option<i32>,
    ) -> Result<Option<Asset>> {
        let (req, actor) = viewer(ctx)?;
        let db_id = match (id, database_id) {
            (Some(id), None) => {
                ids::decode(&id, "Asset", "id").map_err(|_| AppError::not_found("asset"))?
            }
            (None, Some(db_id)) => db_id,
            _ => return Err(AppError::bad_request("give exactly one of id and databaseId").into()),
        };
        Ok(Some(Asset(
            assets::get(&req.state.db.conn, &actor, db_id).await?,
        )))
    }

    /// Non-archived assets the viewer may see (team: all; others: their own), by name.
    async fn assets(
        &self,
        ctx: &Context<'_>,
        filter: Option<AssetFilter>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<AssetConnection> {
        let (req, actor) = viewer(ctx)?;
        let filter = filter.unwrap_or_default();
        let filter = assets::AssetFilter {
            asset_type: filter.asset_type,
            status: filter.status,
            search: filter.search,
        };
        let db = &req.state.db.conn;
        let page = page_by(first, after, |offset, limit| {
            assets::window(db, &actor, &filter, offset, limit)
        })
        .await?;
        prefetch::asset_page(ctx, req, &page.rows).await?;
        Ok(AssetConnection::from_page(page))
    }
}
