//! Password sign-in for JWTs (REST and GraphQL `login`) and, later, web sessions.
use crate::auth::password::verify_password_async;
use crate::error::{AppError, AppResult};
use crate::service::users::find_by_username;
use crate::state::AppState;
use chrono::{DateTime, Utc};
use entity::user;

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

/// Check a username and password; a wrong pair or inactive user is 401 with one message for all cases.
pub async fn check_credentials(
    state: &AppState,
    username: &str,
    password: &str,
) -> AppResult<user::Model> {
    let invalid = || AppError::Unauthenticated("invalid username or password".into());
    let user = find_by_username(&state.db.conn, username.trim())
        .await?
        .filter(|u| u.is_active);
    let Some(user) = user else {
        return Err(invalid());
    };
    if verify_password_async(user.password_hash.clone(), password.to_string()).await {
        Ok(user)
    } else {
        Err(invalid())
    }
}

/// Sign in and issue a JWT.
pub async fn login(state: &AppState, username: &str, password: &str) -> AppResult<LoginResult> {
    let user = check_credentials(state, username, password).await?;
    let (token, expires_at) = state.jwt.issue(user.id)?;
    Ok(LoginResult {
        token,
        expires_at,
        user,
    })
}
