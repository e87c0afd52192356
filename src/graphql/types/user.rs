//! `User` and `Group`, each field once ([`fields!`]).
use crate::graphql::engine::one_pass::{fields, GroupsOf};
use crate::graphql::ids;
use async_graphql::ID;
use chrono::{DateTime, Utc};
use entity::{group, user};

/// A person who signs in, as the viewer may see them: the record comes from a service read that
/// leaves out what the viewer may not see (`service::users::seen_by`).
pub struct User(pub user::Model);

fields! {
    /// A person who signs in, as the viewer may see them.
    impl User as "User" for User, interfaces ["Node"];
    /// Global id.
    id: ID = |u| ids::encode("User", u.0.id);
    /// The integer id used by REST.
    databaseId: i32 = |u| u.0.id;
    /// Login name.
    username: String = |u| u.0.username.clone();
    /// Display name.
    fullName: String = |u| u.0.full_name.clone();
    /// Email address; shown only to team members and to the user themself.
    email: Option<String> = |u| u.0.email.clone();
    /// Staff flag; false unless the viewer is a team member or the user themself.
    isStaff: bool = |u| u.0.is_staff;
    /// Groups the user belongs to, by name; empty unless the viewer is a team member or the user themself.
    groups: Vec<Group> = |u| GroupsOf(u.0.id);
    /// Whether the account may sign in; null unless the viewer is an administrator.
    isActive: Option<bool> = |u, actor| actor.is_admin().then_some(u.0.is_active);
    /// The last successful sign-in; null unless the viewer is an administrator (or never signed in).
    lastLoginAt: Option<DateTime<Utc>> = |u, actor| u.0.last_login_at.filter(|_| actor.is_admin());
}

/// A named group of users.
pub struct Group(pub group::Model);

fields! {
    /// A named group of users; a ticket can be assigned to one.
    impl Group as "Group" for Group, interfaces ["Node"];
    /// Global id.
    id: ID = |g| ids::encode("Group", g.0.id);
    /// The integer id used by REST.
    databaseId: i32 = |g| g.0.id;
    /// Name.
    name: String = |g| g.0.name.clone();
}
