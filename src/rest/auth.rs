//! `POST /api/auth/token/`: trade a username and password for a short-lived JWT.
use crate::error::AppResult;
use crate::http::client_ip::ClientAddress;
use crate::rest::json::Json;
use crate::service::auth::{login, Credentials as Attempt};
use crate::state::AppState;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{json, Value};

/// Credentials; other fields are ignored, as on every REST body.
#[derive(Debug, Deserialize)]
pub struct Credentials {
    username: String,
    password: String,
}

/// Issue an access token for valid credentials (401 otherwise; 429 while the account or address is locked
/// out after repeated failures).
pub async fn issue_token(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    Json(body): Json<Credentials>,
) -> AppResult<axum::Json<Value>> {
    let attempt = Attempt {
        username: &body.username,
        password: &body.password,
        client,
    };
    let session = login(&state, attempt).await?;
    Ok(axum::Json(json!({
        "token": session.token,
        "token_type": "Bearer",
        "expires_at": crate::rest::shapes::timestamp(&session.expires_at),
        "user": { "id": session.user.id, "username": session.user.username, "full_name": session.user.full_name },
    })))
}
