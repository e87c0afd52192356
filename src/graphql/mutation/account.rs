//! `login` and the viewer's API tokens.
use crate::graphql::context::{request, viewer};
use crate::graphql::ids;
use crate::graphql::types::{ApiToken, User};
use crate::http::client_ip::ClientAddress;
use crate::service::sign_in;
use crate::service::tokens;
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};
use chrono::{DateTime, Utc};

/// Sign-in and token mutations.
#[derive(Default)]
pub struct AccountMutation;

/// Credentials.
#[derive(InputObject)]
pub struct LoginInput {
    /// Login name.
    username: String,
    /// Password.
    password: String,
}

/// A fresh JWT for the signed-in user.
#[derive(SimpleObject)]
pub struct LoginPayload {
    /// The bearer token.
    token: String,
    /// When it stops working.
    expires_at: DateTime<Utc>,
    /// Who signed in.
    user: User,
}

/// A new API token for the viewer.
#[derive(InputObject)]
pub struct CreateApiTokenInput {
    /// Name to recognise it by.
    name: String,
    /// Lifetime in days (1-3650); none: never expires.
    expires_in_days: Option<i32>,
}

/// The issued token; `token` is shown only here.
#[derive(SimpleObject)]
pub struct CreateApiTokenPayload {
    /// The secret, shown once.
    token: String,
    /// The stored record.
    api_token: ApiToken,
}

/// Which token to revoke.
#[derive(InputObject)]
pub struct RevokeApiTokenInput {
    /// Global id of one of the viewer's tokens.
    id: ID,
}

/// The revoked token.
#[derive(SimpleObject)]
pub struct RevokeApiTokenPayload {
    /// The record, with `revokedAt` set.
    api_token: ApiToken,
}

#[Object]
impl AccountMutation {
    /// Sign in with a username and password; works without authentication. After repeated failures
    /// for the account or from the client's address it answers `RATE_LIMITED` (with `retryAfter`).
    async fn login(&self, ctx: &Context<'_>, input: LoginInput) -> Result<LoginPayload> {
        let req = request(ctx)?;
        let credentials = sign_in::Credentials {
            username: &input.username,
            password: &input.password,
            client: ctx.data_opt::<ClientAddress>().and_then(|c| c.0),
        };
        let result = sign_in::login(
            &req.state.db,
            &req.state.counters,
            &req.state.config,
            &req.state.jwt,
            credentials,
        )
        .await?;
        Ok(LoginPayload {
            token: result.token,
            expires_at: result.expires_at,
            user: User(result.user),
        })
    }

    /// Issue an API token for the viewer.
    async fn create_api_token(
        &self,
        ctx: &Context<'_>,
        input: CreateApiTokenInput,
    ) -> Result<CreateApiTokenPayload> {
        let (req, actor) = viewer(ctx)?;
        let issued = tokens::create(
            &req.state.db,
            Some(actor.id()),
            actor.id(),
            &input.name,
            input.expires_in_days.map(i64::from),
        )
        .await?;
        Ok(CreateApiTokenPayload {
            token: issued.secret,
            api_token: ApiToken(issued.record),
        })
    }

    /// Revoke one of the viewer's API tokens; it stops working at once.
    async fn revoke_api_token(
        &self,
        ctx: &Context<'_>,
        input: RevokeApiTokenInput,
    ) -> Result<RevokeApiTokenPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "ApiToken", "id")?;
        let record = tokens::revoke(&req.state.db, &req.state.auth_cache, &actor, id).await?;
        Ok(RevokeApiTokenPayload {
            api_token: ApiToken(record),
        })
    }
}
