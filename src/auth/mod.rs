//! Who is calling: the actor, resolved once per request from a bearer token (API token or JWT)
//! or a web session cookie.
pub mod cache;
pub mod jwt;
pub mod middleware;
pub mod oidc;
pub mod password;
pub mod session;
pub mod tokens;

use crate::db::Db;
use crate::error::{AppError, AppResult};
use chrono::Utc;
use entity::{api_token, group, user, user_group};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};
use std::sync::{Arc, Mutex};

/// Name of the group whose members are agents (team members).
pub const AGENTS_GROUP: &str = "Agents";
/// Name of the group whose members are administrators.
pub const ADMINISTRATORS_GROUP: &str = "Administrators";

/// An authenticated, active user with their groups.
#[derive(Clone, Debug)]
pub struct Actor {
    /// The user record.
    pub user: user::Model,
    /// Groups the user belongs to.
    pub groups: Vec<group::Model>,
}

impl Actor {
    /// The user's id.
    pub fn id(&self) -> i32 {
        self.user.id
    }

    fn in_named_group(&self, name: &str) -> bool {
        self.groups.iter().any(|g| g.name == name)
    }

    /// Team member: staff, superuser, or in Agents or Administrators.
    pub fn is_team(&self) -> bool {
        self.user.is_active
            && (self.user.is_staff
                || self.user.is_superuser
                || self.in_named_group(AGENTS_GROUP)
                || self.in_named_group(ADMINISTRATORS_GROUP))
    }

    /// Admin: superuser or in Administrators.
    pub fn is_admin(&self) -> bool {
        self.user.is_active && (self.user.is_superuser || self.in_named_group(ADMINISTRATORS_GROUP))
    }

    /// Staff or admin: may edit and delete anyone's comments.
    pub fn is_staff_or_admin(&self) -> bool {
        self.user.is_staff || self.is_admin()
    }

    /// Ids of the user's groups.
    pub fn group_ids(&self) -> Vec<i32> {
        self.groups.iter().map(|g| g.id).collect()
    }

    /// Whether the user belongs to the group `group_id` (false for `None`).
    pub fn member_of(&self, group_id: Option<i32>) -> bool {
        group_id.is_some_and(|gid| self.groups.iter().any(|g| g.id == gid))
    }
}

/// Load an active user and their groups; `None` when missing or inactive.
pub async fn load_actor(db: &impl ConnectionTrait, user_id: i32) -> AppResult<Option<Actor>> {
    let Some(user) = user::Entity::find_by_id(user_id).one(db).await? else {
        return Ok(None);
    };
    if !user.is_active {
        return Ok(None);
    }
    // One statement for the memberships and their groups: this runs on every authenticated request.
    let memberships = Query::select()
        .column(user_group::Column::GroupId)
        .from(user_group::Entity)
        .and_where(Expr::col(user_group::Column::UserId).eq(user_id))
        .to_owned();
    let groups = group::Entity::find()
        .filter(group::Column::Id.in_subquery(memberships))
        .all(db)
        .await?;
    Ok(Some(Actor { user, groups }))
}

/// An active user and their groups from the instance's cache, else as [`load_actor`] reads them (then kept,
/// unless credentials changed since `generation`, taken before the credential itself was read).
pub async fn cached_actor(
    db: &impl ConnectionTrait,
    auth_cache: &cache::AuthCache,
    generation: u64,
    user_id: i32,
) -> AppResult<Option<Arc<Actor>>> {
    if let Some(actor) = auth_cache.actor(user_id) {
        return Ok(Some(actor));
    }
    let Some(actor) = load_actor(db, user_id).await?.map(Arc::new) else {
        return Ok(None);
    };
    auth_cache.put_actor(generation, actor.clone());
    Ok(Some(actor))
}

/// Resolve a bearer token (API token, or a JWT checked with `jwt`) to its actor; any failure is 401.
///
/// Answers come from the instance's [`cache::AuthCache`] when they can: a busy client's token and groups
/// are then read from SQL once per cache lifetime, not once per request.
pub async fn authenticate_bearer(
    db: &Db,
    auth_cache: &cache::AuthCache,
    jwt: &jwt::JwtKeys,
    token: &str,
) -> AppResult<Arc<Actor>> {
    let unauthenticated = |m: &str| AppError::Unauthenticated(m.to_string());
    let generation = auth_cache.generation();
    // When a JWT was issued: one issued before the account's credentials last changed is refused.
    let mut issued_at = None;
    let user_id = if token.starts_with(tokens::API_TOKEN_PREFIX) {
        let hash = tokens::hash_secret(token);
        let record = match auth_cache.token(&hash) {
            Some(cached) => cached,
            None => {
                let record = api_token::Entity::find()
                    .filter(api_token::Column::TokenHash.eq(hash.as_str()))
                    .one(&db.conn)
                    .await?
                    .ok_or_else(|| unauthenticated("invalid token"))?;
                if record.revoked_at.is_some() {
                    return Err(unauthenticated("token revoked"));
                }
                let cached = cache::CachedToken {
                    id: record.id,
                    user_id: record.user_id,
                    expires_at: record.expires_at,
                    last_used_at: Arc::new(Mutex::new(record.last_used_at)),
                };
                auth_cache.put_token(generation, hash, cached.clone());
                cached
            }
        };
        let now = Utc::now();
        if record.expires_at.is_some_and(|at| at <= now) {
            return Err(unauthenticated("token expired"));
        }
        record.touch(&db.conn, now).await?;
        record.user_id
    } else if token.split('.').count() == 3 {
        let (user_id, iat) = jwt.verify(token)?;
        issued_at = Some(iat);
        user_id
    } else {
        return Err(unauthenticated("invalid token"));
    };
    let actor = cached_actor(&db.conn, auth_cache, generation, user_id)
        .await?
        .ok_or_else(|| unauthenticated("user inactive or deleted"))?;
    let changed = actor
        .user
        .credentials_changed_at
        .map(|at| at.timestamp_millis());
    if let (Some(iat), Some(changed)) = (issued_at, changed) {
        if iat < changed {
            return Err(unauthenticated("token revoked"));
        }
    }
    Ok(actor)
}
