//! `ApiToken`.
use crate::graphql::ids;
use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};
use entity::api_token;

/// One of the viewer's API tokens; the secret is never shown again after creation.
pub struct ApiToken(pub api_token::Model);

/// One of the viewer's API tokens; the secret is never shown again after creation.
#[Object]
impl ApiToken {
    /// Global id.
    pub async fn id(&self) -> ID {
        ids::encode("ApiToken", self.0.id)
    }

    /// The integer id used by REST.
    async fn database_id(&self) -> i32 {
        self.0.id
    }

    /// Name given at creation.
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// When it was issued.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// Last use, recorded at most once a minute.
    async fn last_used_at(&self) -> Option<DateTime<Utc>> {
        self.0.last_used_at
    }

    /// Expiry, if any.
    async fn expires_at(&self) -> Option<DateTime<Utc>> {
        self.0.expires_at
    }

    /// Revocation time, if revoked.
    async fn revoked_at(&self) -> Option<DateTime<Utc>> {
        self.0.revoked_at
    }
}
