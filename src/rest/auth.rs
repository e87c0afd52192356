//! `POST /api/auth/token/`: trade a username and password for a short-lived JWT.
use crate::error::AppResult;
use crate::rest::json::Json;
use crate::service::auth::login;
use crate::state::AppState;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{json, Value};

/// Credentials.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    username: String,
    password: String,
}

/// Issue an access token for valid credentials (401 otherwise).
pub async fn issue_token(
    State(state): State<AppState>,
    Json(body): Json<Credentials>,
) -> AppResult<axum::Json<Value>> {
    let session = login(&state, &body.username, &body.password).await?;
    Ok(axum::Json(json!({
        "token": session.token,
        "token_type": "Bearer",
        "expires_at": crate::rest::shapes::timestamp(&session.expires_at),
        "user": { "id": session.user.id, "username": session.user.username, "full_name": session.user.full_name },
    })))
}
