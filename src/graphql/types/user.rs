//! `User` and `Group`.
use crate::graphql::context::{load_error, viewer};
use crate::graphql::ids;
use crate::graphql::loaders::GroupsOfUserKey;
use async_graphql::{Context, Object, Result, ID};
use entity::{group, user};

/// A person who signs in.
pub struct User(pub user::Model);

#[Object]
impl User {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("User", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Login name.
    async fn username(&self) -> &str {
        &self.0.username
    }

    /// Display name.
    async fn full_name(&self) -> &str {
        &self.0.full_name
    }

    /// Email address; shown only to team members and to the user themself.
    async fn email(&self, ctx: &Context<'_>) -> Result<Option<&str>> {
        let (_, actor) = viewer(ctx)?;
        let may_see = actor.is_team() || actor.id() == self.0.id;
        Ok(self.0.email.as_deref().filter(|_| may_see))
    }

    /// Staff flag.
    async fn is_staff(&self) -> bool {
        self.0.is_staff
    }

    /// Groups the user belongs to, by name.
    async fn groups(&self, ctx: &Context<'_>) -> Result<Vec<Group>> {
        let (req, _) = viewer(ctx)?;
        let groups = req
            .loader
            .load_one(GroupsOfUserKey(self.0.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(groups.into_iter().map(Group).collect())
    }
}

/// A named group of users.
pub struct Group(pub group::Model);

#[Object]
impl Group {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("Group", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name.
    async fn name(&self) -> &str {
        &self.0.name
    }
}
