//! Password sign-in, for every door: JWTs (REST and GraphQL `login`) and web sessions (JSON and form).
//! Failed attempts are counted and locked out here ([`throttle`]), so every door has it.
mod throttle;

use crate::auth::jwt::JwtKeys;
use crate::auth::password::verify_password_async;
use crate::config::Config;
use crate::counters::Counters;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::service::text;
use crate::service::users::find_by_username;
use chrono::{DateTime, Utc};
use entity::user;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::net::IpAddr;

/// A successful sign-in.
#[derive(Debug)]
pub struct LoginResult {
    /// The JWT.
    pub token: String,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
    /// Who signed in.
    pub user: user::Model,
}

/// One sign-in attempt as a door received it.
#[derive(Debug, Clone, Copy)]
pub struct Credentials<'a> {
    /// The user name as typed (surrounding spaces are ignored).
    pub username: &'a str,
    /// The password as typed.
    pub password: &'a str,
    /// The client's address ([`crate::http::client_ip`]); `None` when the request came over no socket.
    pub client: Option<IpAddr>,
}

/// Check a username and password. A wrong pair, an unknown or inactive user is 401 with one message for
/// all cases, after the same work (one password verification); an account or address with too many recent
/// failures (`config.login_throttle`, counted in `counters`) is 429 `RateLimited`, whatever the password.
/// In SSO-only mode (`DESKGRAPH_OIDC_SSO_ONLY`) every user name but the break-glass user's is 403 before
/// any of that.
pub async fn check_credentials(
    db: &Db,
    counters: &Counters,
    config: &Config,
    credentials: Credentials<'_>,
) -> AppResult<user::Model> {
    text::single_line("username", credentials.username)?;
    let username = credentials.username.trim();
    if let Some(oidc) = config
        .oidc
        .as_ref()
        .filter(|o| !o.password_allowed(username))
    {
        return Err(AppError::forbidden(format!(
            "password sign-in is turned off: sign in with {}",
            oidc.provider_name
        )));
    }
    let limits = config.login_throttle;
    let user = find_by_username(&db.conn, username)
        .await?
        .filter(|u| u.is_active);
    let attempt = throttle::admit(counters, limits, username, credentials.client).await?;
    // Without a user the empty hash is verified against a stand-in: the same cost as a real check.
    let stored = user
        .as_ref()
        .map(|u| u.password_hash.clone())
        .unwrap_or_default();
    let matches = verify_password_async(stored, credentials.password.to_string()).await;
    match user {
        Some(mut user) if matches => {
            attempt.succeeded().await;
            let now = Utc::now();
            user::Entity::update_many()
                .col_expr(user::Column::LastLoginAt, Expr::value(now))
                .filter(user::Column::Id.eq(user.id))
                .exec(&db.conn)
                .await?;
            user.last_login_at = Some(now);
            Ok(user)
        }
        _ => {
            attempt.failed().await;
            Err(AppError::Unauthenticated(
                "invalid username or password".into(),
            ))
        }
    }
}

/// Sign in ([`check_credentials`]) and issue a JWT signed with `jwt`.
pub async fn login(
    db: &Db,
    counters: &Counters,
    config: &Config,
    jwt: &JwtKeys,
    credentials: Credentials<'_>,
) -> AppResult<LoginResult> {
    let user = check_credentials(db, counters, config, credentials).await?;
    let (token, expires_at) = jwt.issue(user.id)?;
    Ok(LoginResult {
        token,
        expires_at,
        user,
    })
}
