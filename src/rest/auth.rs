//! `POST /api/auth/token/`: trade a username and password for a short-lived JWT.
use crate::error::AppResult;
use crate::http::client_ip::ClientAddress;
use crate::rest::json::Json;
use crate::rest::shapes::{timestamp, UserRef};
use crate::service::sign_in::{login, Credentials as Attempt};
use crate::state::AppState;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Credentials (JSON, or a form for the session login).
// Other fields are ignored, as on every REST body.
#[derive(Debug, Deserialize, ToSchema)]
pub struct Credentials {
    /// Login name.
    username: String,
    /// Password.
    password: String,
}

/// A short-lived JWT access token.
#[derive(Serialize, ToSchema)]
pub struct AccessToken {
    /// Send as `Authorization: Bearer <token>`.
    token: String,
    /// Always `Bearer`.
    token_type: &'static str,
    /// ISO 8601 UTC.
    #[schema(format = DateTime)]
    expires_at: String,
    /// Who it was issued to.
    user: UserRef,
}

/// Issue an access token for valid credentials (401 otherwise; 429 while the account or address is locked
/// out after repeated failures).
#[utoipa::path(post, path = "/api/auth/token/", tag = "auth", operation_id = "issueToken",
    summary = "Trade a username and password for a short-lived JWT.",
    request_body = Credentials,
    responses(
        (status = 200, description = "Issued", body = AccessToken),
        (status = 401, description = "Wrong credentials", body = crate::error::bodies::Error),
        (status = 429, description = "Too many failed sign-ins for this account or from this address (or over \
            the rate limit), whatever the password; retry after `Retry-After` seconds",
            body = crate::error::bodies::RateLimitError,
            headers(("Retry-After" = u64, description = "Seconds until sign-ins are accepted again"))),
    ))]
pub async fn issue_token(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    Json(body): Json<Credentials>,
) -> AppResult<axum::Json<AccessToken>> {
    let attempt = Attempt {
        username: &body.username,
        password: &body.password,
        client,
    };
    let session = login(
        &state.db,
        &state.counters,
        &state.config,
        &state.jwt,
        attempt,
    )
    .await?;
    Ok(axum::Json(AccessToken {
        token: session.token,
        token_type: "Bearer",
        expires_at: timestamp(&session.expires_at),
        user: UserRef::of(&session.user),
    }))
}
