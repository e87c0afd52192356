//! Batched loads whose answer depends on who asks: the assets of tickets and the tickets of assets,
//! each filtered by the viewer's visibility in the service layer. One loader per request, built with
//! the request's actor, so nothing visible to one caller is ever cached for another.
use super::loaders::LoadError;
use crate::auth::Actor;
use crate::service::assets;
use entity::{asset, ticket};
use sea_orm::DatabaseConnection;
use std::collections::HashMap;
use std::sync::Arc;

/// The assets linked to a ticket that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AssetsOfTicketKey(pub i32);
/// The tickets linked to an asset that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketsOfAssetKey(pub i32);

/// Loads on behalf of one viewer; without one (anonymous) every answer is empty.
pub struct ViewerLoader {
    db: DatabaseConnection,
    actor: Option<Arc<Actor>>,
}

impl ViewerLoader {
    /// A loader for `actor` over this connection.
    pub fn new(db: DatabaseConnection, actor: Option<Arc<Actor>>) -> Self {
        ViewerLoader { db, actor }
    }
}

/// Every key gets an entry, empty when nothing is linked or visible.
fn complete<K: Copy + Eq + std::hash::Hash, V>(
    keys: &[K],
    key: impl Fn(i32) -> K,
    found: HashMap<i32, Vec<V>>,
) -> HashMap<K, Vec<V>> {
    let mut out: HashMap<K, Vec<V>> = keys.iter().map(|k| (*k, Vec::new())).collect();
    for (id, items) in found {
        out.insert(key(id), items);
    }
    out
}

impl async_graphql::dataloader::Loader<AssetsOfTicketKey> for ViewerLoader {
    type Value = Vec<asset::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[AssetsOfTicketKey],
    ) -> Result<HashMap<AssetsOfTicketKey, Vec<asset::Model>>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = assets::assets_of_tickets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, AssetsOfTicketKey, found))
    }
}

impl async_graphql::dataloader::Loader<TicketsOfAssetKey> for ViewerLoader {
    type Value = Vec<ticket::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TicketsOfAssetKey],
    ) -> Result<HashMap<TicketsOfAssetKey, Vec<ticket::Model>>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = assets::tickets_of_assets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, TicketsOfAssetKey, found))
    }
}
