//! Short-lived HS256 access tokens for front-end apps.
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    iat: i64,
    exp: i64,
    typ: String,
    /// `iat` to the millisecond: a token issued just before the account's credentials changed is told
    /// apart from one issued just after, within the same second (absent in tokens of older releases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iat_ms: Option<i64>,
}

/// Signing and verification keys, built once from the secret.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    ttl_seconds: i64,
}

impl std::fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtKeys")
            .field("ttl_seconds", &self.ttl_seconds)
            .finish()
    }
}

impl JwtKeys {
    /// Keys for `secret`, issuing tokens valid for `ttl_seconds`.
    pub fn new(secret: &str, ttl_seconds: i64) -> Self {
        JwtKeys {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            ttl_seconds,
        }
    }

    /// Issue an access token for `user_id`, returning it with its expiry.
    pub fn issue(&self, user_id: i32) -> AppResult<(String, DateTime<Utc>)> {
        self.issue_at(user_id, Utc::now())
    }

    /// Issue a token as if now were `now` (tests use this to make expired tokens).
    pub fn issue_at(&self, user_id: i32, now: DateTime<Utc>) -> AppResult<(String, DateTime<Utc>)> {
        let expires_at = now + chrono::Duration::seconds(self.ttl_seconds);
        let claims = Claims {
            sub: user_id.to_string(),
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
            typ: "access".to_string(),
            iat_ms: Some(now.timestamp_millis()),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| AppError::internal(anyhow::anyhow!("jwt encode: {e}")))?;
        Ok((token, expires_at))
    }

    /// The user id of a valid, unexpired token, and when it was issued (epoch milliseconds).
    pub fn verify(&self, token: &str) -> AppResult<(i32, i64)> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let data = decode::<Claims>(token, &self.decoding, &validation).map_err(|e| {
            let reason = match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => "token expired",
                _ => "invalid token",
            };
            AppError::Unauthenticated(reason.to_string())
        })?;
        if data.claims.typ != "access" {
            return Err(AppError::Unauthenticated("invalid token".to_string()));
        }
        let user_id = data
            .claims
            .sub
            .parse()
            .map_err(|_| AppError::Unauthenticated("invalid token".to_string()))?;
        let issued = data
            .claims
            .iat_ms
            .unwrap_or_else(|| data.claims.iat.saturating_mul(1000));
        Ok((user_id, issued))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_expiry() -> AppResult<()> {
        let keys = JwtKeys::new("0123456789abcdef0123", 60);
        let (token, _) = keys.issue(7)?;
        assert_eq!(keys.verify(&token)?.0, 7);
        let (old, _) = keys.issue_at(7, Utc::now() - chrono::Duration::seconds(120))?;
        assert!(
            matches!(keys.verify(&old), Err(AppError::Unauthenticated(m)) if m == "token expired")
        );
        let other = JwtKeys::new("another-secret-entirely", 60);
        assert!(other.verify(&token).is_err());
        Ok(())
    }
}
