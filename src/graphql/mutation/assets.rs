//! Asset mutations and ticket–asset links (the service decides who may).
use crate::domain::{AssetStatus, AssetType};
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::{Asset, Ticket};
use crate::service::{assets, tickets};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};

/// Asset mutations.
#[derive(Default)]
pub struct AssetMutation;

/// A new asset.
#[derive(InputObject)]
pub struct CreateAssetInput {
    /// 1-200 characters.
    name: String,
    /// Kind of item.
    #[graphql(name = "type")]
    asset_type: AssetType,
    /// Default IN_STOCK.
    status: Option<AssetStatus>,
    /// Where it is.
    location: Option<String>,
    /// Owning user.
    owner_id: Option<ID>,
    /// Free text.
    description: Option<String>,
    /// Serial number.
    serial_number: Option<String>,
}

/// A change to an asset; omitted fields stay, `ownerId: null` clears the owner.
#[derive(InputObject)]
pub struct UpdateAssetInput {
    /// The asset.
    id: ID,
    /// New name.
    name: Option<String>,
    /// New type.
    #[graphql(name = "type")]
    asset_type: Option<AssetType>,
    /// New status.
    status: Option<AssetStatus>,
    /// New location.
    location: Option<String>,
    /// New owner, or null for none.
    owner_id: MaybeUndefined<ID>,
    /// New description.
    description: Option<String>,
    /// New serial number.
    serial_number: Option<String>,
}

/// Names one asset.
#[derive(InputObject)]
pub struct DeleteAssetInput {
    /// The asset.
    id: ID,
}

/// A ticket and an asset to link.
#[derive(InputObject)]
pub struct LinkAssetInput {
    /// The ticket.
    ticket_id: ID,
    /// The asset.
    asset_id: ID,
}

/// A ticket and an asset to unlink.
#[derive(InputObject)]
pub struct UnlinkAssetInput {
    /// The ticket.
    ticket_id: ID,
    /// The asset.
    asset_id: ID,
}

/// The created asset.
#[derive(SimpleObject)]
pub struct CreateAssetPayload {
    /// The asset.
    asset: Asset,
}

/// The changed asset.
#[derive(SimpleObject)]
pub struct UpdateAssetPayload {
    /// The asset after the change.
    asset: Asset,
}

/// The archived asset's id.
#[derive(SimpleObject)]
pub struct DeleteAssetPayload {
    /// Global id of the archived asset.
    deleted_asset_id: ID,
}

/// Both ends of the new link.
#[derive(SimpleObject)]
pub struct LinkAssetPayload {
    /// The ticket, with its assets.
    ticket: Ticket,
    /// The asset, with its tickets.
    asset: Asset,
}

/// Both ends of the removed link.
#[derive(SimpleObject)]
pub struct UnlinkAssetPayload {
    /// The ticket, with its remaining assets.
    ticket: Ticket,
    /// The asset; null when it has been archived meanwhile.
    asset: Option<Asset>,
}

fn asset_id(id: &ID, field: &str) -> Result<i32> {
    Ok(ids::decode(id, "Asset", field)?)
}

fn ticket_id(id: &ID) -> Result<i32> {
    Ok(ids::decode(id, "Ticket", "ticketId")?)
}

#[Object]
impl AssetMutation {
    /// Record an inventory item (team members only).
    async fn create_asset(
        &self,
        ctx: &Context<'_>,
        input: CreateAssetInput,
    ) -> Result<CreateAssetPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = assets::NewAsset {
            name: input.name,
            asset_type: input.asset_type,
            status: input.status,
            location: input.location,
            owner_id: ids::decode_opt(input.owner_id.as_ref(), "User", "ownerId")?,
            description: input.description,
            serial_number: input.serial_number,
        };
        let asset = assets::create(&req.state.db, &actor, new).await?;
        Ok(CreateAssetPayload {
            asset: Asset(asset),
        })
    }

    /// Change an inventory item (team members only).
    async fn update_asset(
        &self,
        ctx: &Context<'_>,
        input: UpdateAssetInput,
    ) -> Result<UpdateAssetPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = asset_id(&input.id, "id")?;
        let owner_id = match input.owner_id {
            MaybeUndefined::Undefined => None,
            MaybeUndefined::Null => Some(None),
            MaybeUndefined::Value(owner) => Some(Some(ids::decode(&owner, "User", "ownerId")?)),
        };
        let patch = assets::AssetPatch {
            name: input.name,
            asset_type: input.asset_type,
            status: input.status,
            location: input.location,
            owner_id,
            description: input.description,
            serial_number: input.serial_number,
        };
        let asset = assets::update(&req.state.db, &actor, id, patch).await?;
        Ok(UpdateAssetPayload {
            asset: Asset(asset),
        })
    }

    /// Archive an inventory item (team members only).
    async fn delete_asset(
        &self,
        ctx: &Context<'_>,
        input: DeleteAssetInput,
    ) -> Result<DeleteAssetPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = asset_id(&input.id, "id")?;
        assets::archive(&req.state.db, &actor, id).await?;
        Ok(DeleteAssetPayload {
            deleted_asset_id: ids::encode("Asset", id),
        })
    }

    /// Link an asset to a ticket (idempotent).
    async fn link_asset(
        &self,
        ctx: &Context<'_>,
        input: LinkAssetInput,
    ) -> Result<LinkAssetPayload> {
        let (req, actor) = viewer(ctx)?;
        let (t, a) = (
            ticket_id(&input.ticket_id)?,
            asset_id(&input.asset_id, "assetId")?,
        );
        assets::link_asset(&req.state.db, &actor, t, a).await?;
        let db = &req.state.db.conn;
        Ok(LinkAssetPayload {
            ticket: Ticket(tickets::get(db, &actor, t).await?),
            asset: Asset(assets::get(db, &actor, a).await?),
        })
    }

    /// Remove the link between an asset and a ticket (idempotent).
    async fn unlink_asset(
        &self,
        ctx: &Context<'_>,
        input: UnlinkAssetInput,
    ) -> Result<UnlinkAssetPayload> {
        let (req, actor) = viewer(ctx)?;
        let (t, a) = (
            ticket_id(&input.ticket_id)?,
            asset_id(&input.asset_id, "assetId")?,
        );
        assets::unlink_asset(&req.state.db, &actor, t, a).await?;
        let db = &req.state.db.conn;
        Ok(UnlinkAssetPayload {
            ticket: Ticket(tickets::get(db, &actor, t).await?),
            asset: match assets::get(db, &actor, a).await {
                Ok(found) => Some(Asset(found)),
                Err(AppError::NotFound(_)) => None,
                Err(err) => return Err(err.into()),
            },
        })
    }
}
