//! Batched loads whose answer depends on who asks: people and their groups, the assets of tickets
//! and the tickets of assets (comments and their versions in `comments`), each filtered by the
//! viewer's visibility in the service layer. One loader per request (per event on a subscription),
//! built with its actor, so nothing visible to one caller is ever cached for another.
use crate::auth::Actor;
use crate::graphql::limits::cost::LIST_MAX;
use crate::graphql::loaders::LoadError;
use crate::service::{
    assets, custom_fields, followers, links, tags, tickets, time_spent, users, Take,
};
use entity::{asset, group, ticket, user};
use sea_orm::DatabaseConnection;
use std::collections::HashMap;
use std::sync::Arc;

/// A user by id, as the viewer may see them (absent when they may not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UserKey(pub i32);
/// The groups of a user, as the viewer may see them (empty for someone else, unless on the team).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupsOfUserKey(pub i32);

/// The assets linked to a ticket that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AssetsOfTicketKey(pub i32);
/// The tickets linked to an asset that the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketsOfAssetKey(pub i32);

/// The tags of a ticket, for the team and its workers (empty for anyone else).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TagsOfTicketKey(pub i32);

/// The links of a ticket to tickets the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LinksOfTicketKey(pub i32);

/// The minutes spent on a ticket, for the team and its workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeOfTicketKey(pub i32);

/// The followers of a ticket the viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FollowersOfTicketKey(pub i32);

/// A ticket by id, when the viewer may see it (absent otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VisibleTicketKey(pub i32);

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

    /// The connection and the viewer (for loaders in sibling modules); `None` without a viewer.
    pub fn viewer(&self) -> Option<(&DatabaseConnection, &Actor)> {
        Some((&self.db, self.actor.as_deref()?))
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
        let found = assets::assets_of_tickets(&self.db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, AssetsOfTicketKey, found))
    }
}

impl async_graphql::dataloader::Loader<TagsOfTicketKey> for ViewerLoader {
    type Value = Vec<String>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TagsOfTicketKey],
    ) -> Result<HashMap<TagsOfTicketKey, Vec<String>>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = tags::of_tickets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, TagsOfTicketKey, found))
    }
}

impl async_graphql::dataloader::Loader<LinksOfTicketKey> for ViewerLoader {
    type Value = Vec<links::LinkView>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[LinksOfTicketKey],
    ) -> Result<HashMap<LinksOfTicketKey, Vec<links::LinkView>>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = links::of_tickets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, LinksOfTicketKey, found))
    }
}

impl async_graphql::dataloader::Loader<TimeOfTicketKey> for ViewerLoader {
    type Value = i64;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TimeOfTicketKey],
    ) -> Result<HashMap<TimeOfTicketKey, i64>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = time_spent::totals_of_tickets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(found
            .into_iter()
            .map(|(id, minutes)| (TimeOfTicketKey(id), minutes))
            .collect())
    }
}

impl async_graphql::dataloader::Loader<FollowersOfTicketKey> for ViewerLoader {
    type Value = Vec<user::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[FollowersOfTicketKey],
    ) -> Result<HashMap<FollowersOfTicketKey, Vec<user::Model>>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = followers::of_tickets(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, FollowersOfTicketKey, found))
    }
}

impl async_graphql::dataloader::Loader<VisibleTicketKey> for ViewerLoader {
    type Value = ticket::Model;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[VisibleTicketKey],
    ) -> Result<HashMap<VisibleTicketKey, ticket::Model>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = tickets::get_many(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(found
            .into_iter()
            .map(|(id, t)| (VisibleTicketKey(id), t))
            .collect())
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
        let found = assets::tickets_of_assets(&self.db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, TicketsOfAssetKey, found))
    }
}

impl async_graphql::dataloader::Loader<UserKey> for ViewerLoader {
    type Value = user::Model;
    type Error = LoadError;

    async fn load(&self, keys: &[UserKey]) -> Result<HashMap<UserKey, user::Model>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let found = users::people(db, actor, keys.iter().map(|k| k.0))
            .await
            .map_err(Arc::new)?;
        Ok(found.into_iter().map(|(id, u)| (UserKey(id), u)).collect())
    }
}

impl async_graphql::dataloader::Loader<GroupsOfUserKey> for ViewerLoader {
    type Value = Vec<group::Model>;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[GroupsOfUserKey],
    ) -> Result<HashMap<GroupsOfUserKey, Vec<group::Model>>, LoadError> {
        let Some((db, actor)) = self.viewer() else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = users::groups_of(db, actor, &ids, Take::First(LIST_MAX))
            .await
            .map_err(Arc::new)?;
        Ok(complete(keys, GroupsOfUserKey, found))
    }
}

/// The custom fields of a ticket the viewer sees, as they see them (its scope: project, and whether they
/// read team-only fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldsOfTicketKey(pub custom_fields::TicketScope);

impl async_graphql::dataloader::Loader<FieldsOfTicketKey> for ViewerLoader {
    type Value = custom_fields::Shown;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[FieldsOfTicketKey],
    ) -> Result<HashMap<FieldsOfTicketKey, custom_fields::Shown>, LoadError> {
        if self.actor.is_none() {
            return Ok(HashMap::new());
        }
        let scopes: Vec<custom_fields::TicketScope> = keys.iter().map(|k| k.0).collect();
        let defined = custom_fields::Defined::load(&self.db)
            .await
            .map_err(Arc::new)?;
        let mut found = custom_fields::of_scopes(&self.db, &defined, &scopes)
            .await
            .map_err(Arc::new)?;
        Ok(keys
            .iter()
            .map(|k| (*k, found.remove(&k.0.id).unwrap_or_default()))
            .collect())
    }
}

/// An asset by id, when the viewer may see it and it is not archived (absent otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VisibleAssetKey(pub i32);

impl async_graphql::dataloader::Loader<VisibleAssetKey> for ViewerLoader {
    type Value = asset::Model;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[VisibleAssetKey],
    ) -> Result<HashMap<VisibleAssetKey, asset::Model>, LoadError> {
        let Some(actor) = &self.actor else {
            return Ok(HashMap::new());
        };
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let found = assets::get_many(&self.db, actor, &ids)
            .await
            .map_err(Arc::new)?;
        Ok(found
            .into_iter()
            .map(|(id, a)| (VisibleAssetKey(id), a))
            .collect())
    }
}
