//! Users and groups: groups by name (CLI and demo), sign-in lookup and the team's user directory; what a
//! viewer may see of other people lives in `seen`, who notifications reach in `recipients`. Accounts,
//! groups and passwords as admins and users manage them live in `accounts`, `groups` and `passwords`;
//! accounts the OpenID Connect provider vouches for in `sso`.
pub mod accounts;
pub mod groups;
pub mod passwords;
mod recipients;
pub mod sso;
mod visibility;

use crate::auth::Actor;
use crate::error::{AppError, AppResult};
use crate::service::text;
use crate::service::Take;
use entity::{group, user, user_group};
pub use recipients::{named, recipients, Recipient};
use sea_orm::sea_query::{Expr, ExprTrait, Func, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, Set,
};
pub use visibility::{get_visible, groups_of, people, seen_by};

/// Who manages accounts and groups: an administrator through a door ([`Admin::of`]), or the operator at
/// the command line ([`Admin::command_line`]). Holding one is the permission; audit records name the
/// administrator (none for the command line).
#[derive(Debug, Clone, Copy)]
pub struct Admin {
    /// The administrator's user id (`None`: the command line).
    pub id: Option<i32>,
    /// Whether they may grant or remove superuser rights.
    pub superuser: bool,
}

impl Admin {
    /// `actor`, when they are an administrator (403 otherwise).
    pub fn of(actor: &Actor) -> AppResult<Admin> {
        if actor.is_admin() {
            Ok(Admin {
                id: Some(actor.id()),
                superuser: actor.user.is_superuser,
            })
        } else {
            Err(AppError::forbidden(
                "only administrators may manage accounts and groups",
            ))
        }
    }

    /// The operator running `deskgraph user …` or `deskgraph group …` on the server.
    pub fn command_line() -> Admin {
        Admin {
            id: None,
            superuser: true,
        }
    }
}

/// What managing people needs beside a connection.
#[derive(Clone, Copy)]
pub struct PeopleDeps<'a> {
    /// The database (write transactions).
    pub db: &'a crate::db::Db,
    /// Credentials cached on this and (through it) every instance: cleared when an account changes.
    pub auth_cache: &'a crate::auth::cache::AuthCache,
    /// Shortest password accepted (`DESKGRAPH_PASSWORD_MIN_LENGTH`).
    pub min_password_length: usize,
    /// How long a reset link works (`DESKGRAPH_PASSWORD_RESET_MINUTES`).
    pub reset_ttl_minutes: u64,
    /// Where the web interface is reached from outside (`DESKGRAPH_PUBLIC_URL`), for links in emails.
    pub public_url: Option<&'a str>,
}

/// The ids of the groups named `names`, each made where missing (the command line's and the demo's
/// `--group` names, before [`accounts::create`]).
pub async fn ensure_groups(db: &impl ConnectionTrait, names: &[String]) -> AppResult<Vec<i32>> {
    let mut ids = Vec::with_capacity(names.len());
    for name in names {
        ids.push(ensure_group(db, name).await?.id);
    }
    Ok(ids)
}

/// Find a group by name, creating it if missing.
pub async fn ensure_group(db: &impl ConnectionTrait, name: &str) -> AppResult<group::Model> {
    text::single_line("group", name)?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 150 {
        return Err(AppError::field("group", "must be 1-150 characters"));
    }
    if let Some(existing) = group::Entity::find()
        .filter(group::Column::Name.eq(name))
        .one(db)
        .await?
    {
        return Ok(existing);
    }
    Ok(group::ActiveModel {
        name: Set(name.to_string()),
        ..Default::default()
    }
    .insert(db)
    .await?)
}

/// Find an active or inactive user by username, whole: for signing in and the admin CLI only (doors
/// read people through [`people`]).
pub async fn find_by_username(
    db: &impl ConnectionTrait,
    username: &str,
) -> AppResult<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::Username.eq(username))
        .one(db)
        .await?)
}

/// The user directory, for team members only: users whose username or name contains `query`.
pub async fn search(
    db: &impl ConnectionTrait,
    actor: &Actor,
    query: Option<&str>,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<user::Model>, u64)> {
    if !actor.is_team() {
        return Err(AppError::forbidden("only team members may list users"));
    }
    text::single_line("query", query.unwrap_or(""))?;
    let mut select = user::Entity::find().filter(user::Column::IsActive.eq(true));
    if let Some(q) = query.map(str::trim).filter(|q| !q.is_empty()) {
        let pattern = format!("%{}%", q.to_lowercase());
        let lower = |col: user::Column| Expr::expr(Func::lower(Expr::col(col)));
        select = select.filter(
            Condition::any()
                .add(lower(user::Column::Username).like(pattern.clone()))
                .add(lower(user::Column::FullName).like(pattern)),
        );
    }
    let total = select.clone().count(db).await?;
    let users = select
        .order_by_asc(user::Column::Username)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?;
    Ok((
        users.into_iter().map(|u| seen_by(actor, u)).collect(),
        total,
    ))
}

/// The active team members, by user name (at most `limit`): who assignee pickers offer first; anyone else
/// active is assigned by name ([`find_assignable`]). Team members only.
pub async fn team_members(
    db: &impl ConnectionTrait,
    actor: &Actor,
    limit: u64,
) -> AppResult<Vec<user::Model>> {
    if !actor.is_team() {
        return Err(AppError::forbidden("only team members may list users"));
    }
    let found = user::Entity::find()
        .filter(user::Column::IsActive.eq(true))
        .filter(groups::role_condition(accounts::Role::Requester).not())
        .order_by_asc(user::Column::Username)
        .limit(limit)
        .all(db)
        .await?;
    Ok(found.into_iter().map(|u| seen_by(actor, u)).collect())
}

/// The active account named `username` (any letter case), for assigning by name; team members only.
pub async fn find_assignable(
    db: &impl ConnectionTrait,
    actor: &Actor,
    username: &str,
) -> AppResult<Option<user::Model>> {
    if !actor.is_team() {
        return Err(AppError::forbidden("only team members may assign tickets"));
    }
    let lower = Expr::expr(Func::lower(Expr::col(user::Column::Username)));
    Ok(user::Entity::find()
        .filter(lower.eq(username.trim().to_lowercase()))
        .filter(user::Column::IsActive.eq(true))
        .one(db)
        .await?
        .map(|u| seen_by(actor, u)))
}

/// Every group, by name.
pub async fn list_groups(db: &impl ConnectionTrait, take: Take) -> AppResult<Vec<group::Model>> {
    let select = group::Entity::find().order_by_asc(group::Column::Name);
    Ok(take.limit(select).all(db).await?)
}

/// Group `id`, if it exists (group names are no secret: every ticket shows its group).
pub async fn group_by_id(db: &impl ConnectionTrait, id: i32) -> AppResult<Option<group::Model>> {
    Ok(group::Entity::find_by_id(id).one(db).await?)
}

/// The active team members of group `group_id`, by id: whom a rule may hand the group's tickets to.
pub async fn assignable_members(db: &impl ConnectionTrait, group_id: i32) -> AppResult<Vec<i32>> {
    let members = Query::select()
        .column(user_group::Column::UserId)
        .from(user_group::Entity)
        .and_where(Expr::col(user_group::Column::GroupId).eq(group_id))
        .to_owned();
    Ok(user::Entity::find()
        .select_only()
        .column(user::Column::Id)
        .filter(user::Column::IsActive.eq(true))
        .filter(user::Column::Id.in_subquery(members))
        .filter(groups::role_condition(accounts::Role::Requester).not())
        .order_by_asc(user::Column::Id)
        .into_tuple()
        .all(db)
        .await?)
}

/// Whether a user with this id exists and is active.
pub async fn active_user_exists(db: &impl ConnectionTrait, id: i32) -> AppResult<bool> {
    Ok(user::Entity::find_by_id(id)
        .filter(user::Column::IsActive.eq(true))
        .count(db)
        .await?
        > 0)
}

/// The users with these ids, in one query, by id (unknown ids are absent); only `active_only` ones
/// when asked. Unfiltered, so private to this module: doors read people through [`people`].
async fn find_by_id(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
    active_only: bool,
) -> AppResult<std::collections::HashMap<i32, user::Model>> {
    let mut ids: Vec<i32> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let mut select = user::Entity::find().filter(user::Column::Id.is_in(ids));
    if active_only {
        select = select.filter(user::Column::IsActive.eq(true));
    }
    Ok(select
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u))
        .collect())
}
