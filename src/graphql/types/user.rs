//! `User` and `Group`.
use crate::graphql::context::{load_error, viewer};
use crate::graphql::cost::capped;
use crate::graphql::ids;
use crate::graphql::plain::{self, Env, Plain};
use crate::graphql::viewer_loader::GroupsOfUserKey;
use async_graphql::parser::types::Field;
use async_graphql::{Context, Object, Result, Value, ID};
use entity::{group, user};

/// A person who signs in, as the viewer may see them: the record comes from a service read that
/// leaves out what the viewer may not see (`service::users::seen_by`).
pub struct User(pub user::Model);

impl Plain for User {
    const NAME: &'static str = "User";
    const INTERFACES: &'static [&'static str] = &["Node"];

    fn field(&self, field: &Field, env: &Env<'_>) -> Option<Value> {
        let u = &self.0;
        Some(match field.name.node.as_str() {
            "id" => Value::String(ids::encode("User", u.id).0),
            "databaseId" => Value::from(u.id),
            "username" => Value::String(u.username.clone()),
            "fullName" => Value::String(u.full_name.clone()),
            "email" => u
                .email
                .as_ref()
                .map_or(Value::Null, |e| Value::String(e.clone())),
            "isStaff" => Value::Boolean(u.is_staff),
            "groups" => {
                let groups = plain::cached(&env.req.visible, GroupsOfUserKey(u.id))?;
                let list = groups
                    .unwrap_or_default()
                    .into_iter()
                    .map(|g| plain::object(&Group(g), &field.selection_set.node, env));
                Value::List(list.collect::<Option<_>>()?)
            }
            _ => return None,
        })
    }
}

impl Plain for Group {
    const NAME: &'static str = "Group";
    const INTERFACES: &'static [&'static str] = &["Node"];

    fn field(&self, field: &Field, _env: &Env<'_>) -> Option<Value> {
        let g = &self.0;
        Some(match field.name.node.as_str() {
            "id" => Value::String(ids::encode("Group", g.id).0),
            "databaseId" => Value::from(g.id),
            "name" => Value::String(g.name.clone()),
            _ => return None,
        })
    }
}

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
    async fn email(&self) -> Option<&str> {
        self.0.email.as_deref()
    }

    /// Staff flag; false unless the viewer is a team member or the user themself.
    async fn is_staff(&self) -> bool {
        self.0.is_staff
    }

    /// Groups the user belongs to, by name; empty unless the viewer is a team member or the user themself.
    async fn groups(&self, ctx: &Context<'_>) -> Result<Vec<Group>> {
        let (req, _) = viewer(ctx)?;
        let groups = req
            .visible
            .load_one(GroupsOfUserKey(self.0.id))
            .await
            .map_err(load_error)?
            .unwrap_or_default();
        Ok(capped(groups).map(Group).collect())
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
