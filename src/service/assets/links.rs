//! Links between tickets and assets: who may make them, and batched, visibility-aware lookups in
//! both directions (for GraphQL `ticket.assets` and `asset.tickets`).
use super::{can_see, visible_to};
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::tickets::{self, rules};
use crate::service::{Rank, Take};
use chrono::Utc;
use entity::{asset, ticket, ticket_asset};
use sea_orm::sea_query::{ColumnRef, IntoColumnRef, Order};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect,
    QueryTrait, RelationDef, Set, TryInsertResult,
};
use serde_json::json;
use std::collections::HashMap;

/// Audit actions of ticket–asset links; their changes are `{"asset_id": [old, new]}`, and ticket
/// histories show them only to those who may see the asset.
pub const ACTIONS: [&str; 2] = [LINK, UNLINK];
const LINK: &str = "link_asset";
const UNLINK: &str = "unlink_asset";

/// The ticket must be visible (404) and fully changeable by the actor (403): team members, the
/// assignee and the assigned group. A requester may not link assets to their own ticket.
async fn changeable_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
) -> AppResult<ticket::Model> {
    let t = tickets::get(db, actor, ticket_id).await?;
    if rules::can_update_all(actor, &t) {
        Ok(t)
    } else {
        Err(AppError::forbidden(
            "you may not change the assets of this ticket",
        ))
    }
}

/// An asset the actor may see; archived ones only when `include_archived` (so stale links can go).
async fn visible_asset(
    db: &impl ConnectionTrait,
    actor: &Actor,
    asset_id: i32,
    include_archived: bool,
) -> AppResult<asset::Model> {
    match asset::Entity::find_by_id(asset_id).one(db).await? {
        Some(a) if (include_archived || a.archived_at.is_none()) && can_see(actor, &a) => Ok(a),
        _ => Err(AppError::not_found("asset")),
    }
}

/// Link an asset to a ticket; `Ok(false)` when they were already linked (nothing recorded).
pub async fn link_asset(db: &Db, actor: &Actor, ticket_id: i32, asset_id: i32) -> AppResult<bool> {
    let txn = db.begin_write().await?;
    changeable_ticket(&txn, actor, ticket_id).await?;
    visible_asset(&txn, actor, asset_id, false).await?;
    let link = ticket_asset::ActiveModel {
        ticket_id: Set(ticket_id),
        asset_id: Set(asset_id),
        created_at: Set(Utc::now()),
    };
    // ON CONFLICT DO NOTHING keeps a concurrent double link from failing the request.
    let inserted = ticket_asset::Entity::insert(link)
        .on_conflict_do_nothing()
        .exec_without_returning(&txn)
        .await?;
    let changed = matches!(inserted, TryInsertResult::Inserted(n) if n > 0);
    if changed {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "ticket", ticket_id, LINK)
                .ticket(ticket_id)
                .changes(json!({ "asset_id": [null, asset_id] })),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(changed)
}

/// Remove a ticket–asset link; `Ok(false)` when there was none (nothing recorded).
pub async fn unlink_asset(
    db: &Db,
    actor: &Actor,
    ticket_id: i32,
    asset_id: i32,
) -> AppResult<bool> {
    let txn = db.begin_write().await?;
    changeable_ticket(&txn, actor, ticket_id).await?;
    visible_asset(&txn, actor, asset_id, true).await?;
    let deleted = ticket_asset::Entity::delete_many()
        .filter(ticket_asset::Column::TicketId.eq(ticket_id))
        .filter(ticket_asset::Column::AssetId.eq(asset_id))
        .exec(&txn)
        .await?;
    let changed = deleted.rows_affected > 0;
    if changed {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "ticket", ticket_id, UNLINK)
                .ticket(ticket_id)
                .changes(json!({ "asset_id": [asset_id, null] })),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(changed)
}

/// The non-archived assets the actor may see, linked to each of `ticket_ids` that the actor may see,
/// by name; two queries for any number of tickets, `take` may cut each ticket's list. Tickets without such
/// assets are absent.
pub async fn assets_of_tickets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<asset::Model>>> {
    if ticket_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let visible_tickets = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::Id)
        .filter(ticket::Column::Id.is_in(ticket_ids.iter().copied()))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::visible_to(actor))
        .into_query();
    let links = ticket_asset::Entity::find()
        .filter(ticket_asset::Column::TicketId.in_subquery(visible_tickets));
    let rank = Rank {
        key: link_key(),
        parent: (ticket_asset::Entity, ticket_asset::Column::TicketId).into_column_ref(),
        order: vec![
            (
                (asset::Entity, asset::Column::Name).into_column_ref(),
                Order::Asc,
            ),
            (
                (asset::Entity, asset::Column::Id).into_column_ref(),
                Order::Asc,
            ),
        ],
    };
    let links = take
        .per_parent(links, rank, |links| {
            links
                .join(JoinType::InnerJoin, link_to_asset())
                .filter(asset::Column::ArchivedAt.is_null())
                .filter(visible_to(actor))
        })
        .all(db)
        .await?;
    if links.is_empty() {
        return Ok(HashMap::new());
    }
    let assets = asset::Entity::find()
        .filter(asset::Column::Id.is_in(links.iter().map(|l| l.asset_id)))
        .filter(asset::Column::ArchivedAt.is_null())
        .filter(visible_to(actor))
        .order_by_asc(asset::Column::Name)
        .order_by_asc(asset::Column::Id)
        .all(db)
        .await?;
    Ok(group_by_link(
        links,
        assets,
        |l| (l.ticket_id, l.asset_id),
        |a| a.id,
    ))
}

/// The non-archived tickets the actor may see, linked to each of `asset_ids` that the actor may see,
/// newest first; two queries for any number of assets, `take` may cut each asset's list. Assets without such
/// tickets are absent.
pub async fn tickets_of_assets(
    db: &impl ConnectionTrait,
    actor: &Actor,
    asset_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<ticket::Model>>> {
    if asset_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let visible_assets = asset::Entity::find()
        .select_only()
        .column(asset::Column::Id)
        .filter(asset::Column::Id.is_in(asset_ids.iter().copied()))
        .filter(asset::Column::ArchivedAt.is_null())
        .filter(visible_to(actor))
        .into_query();
    let links = ticket_asset::Entity::find()
        .filter(ticket_asset::Column::AssetId.in_subquery(visible_assets));
    let rank = Rank {
        key: link_key(),
        parent: (ticket_asset::Entity, ticket_asset::Column::AssetId).into_column_ref(),
        order: vec![
            (
                (ticket::Entity, ticket::Column::CreatedAt).into_column_ref(),
                Order::Desc,
            ),
            (
                (ticket::Entity, ticket::Column::Id).into_column_ref(),
                Order::Desc,
            ),
        ],
    };
    let links = take
        .per_parent(links, rank, |links| {
            links
                .join(JoinType::InnerJoin, link_to_ticket())
                .filter(ticket::Column::ArchivedAt.is_null())
                .filter(rules::visible_to(actor))
        })
        .all(db)
        .await?;
    if links.is_empty() {
        return Ok(HashMap::new());
    }
    let found = ticket::Entity::find()
        .filter(ticket::Column::Id.is_in(links.iter().map(|l| l.ticket_id)))
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(rules::visible_to(actor))
        .order_by_desc(ticket::Column::CreatedAt)
        .order_by_desc(ticket::Column::Id)
        .all(db)
        .await?;
    Ok(group_by_link(
        links,
        found,
        |l| (l.asset_id, l.ticket_id),
        |t| t.id,
    ))
}

/// A link's two ids, which name it.
fn link_key() -> Vec<ColumnRef> {
    vec![
        (ticket_asset::Entity, ticket_asset::Column::TicketId).into_column_ref(),
        (ticket_asset::Entity, ticket_asset::Column::AssetId).into_column_ref(),
    ]
}

fn link_to_asset() -> RelationDef {
    ticket_asset::Entity::belongs_to(asset::Entity)
        .from(ticket_asset::Column::AssetId)
        .to(asset::Column::Id)
        .into()
}

fn link_to_ticket() -> RelationDef {
    ticket_asset::Entity::belongs_to(ticket::Entity)
        .from(ticket_asset::Column::TicketId)
        .to(ticket::Column::Id)
        .into()
}

/// Distribute `items` (already in display order) over the link owners: `key` gives (owner, item id).
fn group_by_link<T: Clone>(
    links: Vec<ticket_asset::Model>,
    items: Vec<T>,
    key: impl Fn(&ticket_asset::Model) -> (i32, i32),
    id_of: impl Fn(&T) -> i32,
) -> HashMap<i32, Vec<T>> {
    let mut owners_of: HashMap<i32, Vec<i32>> = HashMap::new();
    for link in &links {
        let (owner, item) = key(link);
        owners_of.entry(item).or_default().push(owner);
    }
    let mut out: HashMap<i32, Vec<T>> = HashMap::new();
    for item in items {
        for owner in owners_of.get(&id_of(&item)).into_iter().flatten() {
            out.entry(*owner).or_default().push(item.clone());
        }
    }
    out
}
