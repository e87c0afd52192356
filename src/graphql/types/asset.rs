//! `Asset`: an inventory item, its owner and the tickets it is linked to (as far as the viewer may see).
use super::{Ticket, User};
use crate::domain::{AssetStatus, AssetType};
use crate::graphql::context::{load_error, viewer};
use crate::graphql::ids;
use crate::graphql::loaders::viewer::TicketsOfAssetKey;
use async_graphql::{Context, Object, Result, ID};
use chrono::{DateTime, Utc};
use entity::asset;

/// An inventory item.
#[derive(Clone)]
pub struct Asset(pub asset::Model);

/// An inventory item (hardware, software, a licence, network equipment…), with its owner and the tickets linked to
/// it.
#[Object]
impl Asset {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Asset", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// Kind of item.
    #[graphql(name = "type")]
    async fn asset_type(&self) -> AssetType {
        self.0.asset_type
    }

    /// Where it is in its life.
    async fn status(&self) -> AssetStatus {
        self.0.status
    }

    /// Where it is (null when not recorded).
    async fn location(&self) -> Option<&str> {
        Some(self.0.location.as_str()).filter(|l| !l.is_empty())
    }

    /// Who owns it.
    async fn owner(&self, ctx: &Context<'_>) -> Result<Option<User>> {
        let Some(id) = self.0.owner_id else {
            return Ok(None);
        };
        let (req, _) = viewer(ctx)?;
        Ok(req.user(id).await?.map(User))
    }

    /// Free text.
    async fn description(&self) -> Option<&str> {
        Some(self.0.description.as_str()).filter(|d| !d.is_empty())
    }

    /// Serial number.
    async fn serial_number(&self) -> Option<&str> {
        Some(self.0.serial_number.as_str()).filter(|s| !s.is_empty())
    }

    /// When it was created.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it last changed.
    async fn updated_at(&self) -> DateTime<Utc> {
        self.0.updated_at
    }

    /// Linked, non-archived tickets the viewer may see, newest first.
    async fn tickets(&self, ctx: &Context<'_>) -> Result<Vec<Ticket>> {
        let (req, _) = viewer(ctx)?;
        let found = req
            .visible
            .load_one(TicketsOfAssetKey(self.0.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(found.into_iter().map(Ticket).collect())
    }
}
