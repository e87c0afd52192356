//! Single sign-on with OpenID Connect: the authorization code flow with PKCE, `state` and `nonce`, and ID
//! tokens verified against the keys the provider publishes. Discovery and keys are fetched when first
//! needed and kept for an hour (`provider`); a token signed by a key not among them makes one early
//! refetch, in case the provider rotated its keys. What the account becomes is `service::users::sso`.
pub mod flow;
pub mod http;
mod provider;

use crate::config::OidcSettings;
use flow::{FlowKey, Pending, FLOW_SECONDS};
use http::ProviderHttp;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreGenderClaim, CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, AuthorizationCode, ClaimsVerificationError, CsrfToken, EmptyExtraTokenFields,
    IdTokenFields, Nonce, PkceCodeChallenge, PkceCodeVerifier, Scope, SignatureVerificationError,
    StandardTokenResponse, TokenResponse,
};
use provider::{OidcClient, ProviderCache};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Claims beside the standard ones, kept whole so the configured groups claim can be read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OtherClaims {
    #[serde(flatten)]
    claims: Map<String, Value>,
}

impl AdditionalClaims for OtherClaims {}

/// The token endpoint's answer, with an ID token carrying [`OtherClaims`].
type TokenAnswer = StandardTokenResponse<
    IdTokenFields<
        OtherClaims,
        EmptyExtraTokenFields,
        CoreGenderClaim,
        CoreJweContentEncryptionAlgorithm,
        CoreJwsSigningAlgorithm,
    >,
    CoreTokenType,
>;

/// Most groups read from the groups claim.
const MAX_GROUPS: usize = 1000;

/// Who the provider says signed in, from a verified ID token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// The provider's subject identifier.
    pub subject: String,
    /// `email`.
    pub email: Option<String>,
    /// `email_verified`, when the provider says.
    pub email_verified: Option<bool>,
    /// `name`.
    pub name: Option<String>,
    /// `preferred_username`.
    pub preferred_username: Option<String>,
    /// The groups claim's strings (a single string counts as one group).
    pub groups: Vec<String>,
}

/// Why a sign-in through the provider stopped; each says what the person can do.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// Discovery, keys or the token endpoint could not be reached or read.
    #[error("the identity provider could not be reached: {0}")]
    Unreachable(String),
    /// No flow cookie, a forged or expired one, or a `state` that is not its own.
    #[error("sign-in attempt unknown or expired: {0}")]
    Flow(&'static str),
    /// The provider answered the browser with an error (the person cancelled, or was refused).
    #[error("the identity provider refused: {0}")]
    Denied(String),
    /// The code or the ID token was refused: signature, issuer, audience, expiry, nonce.
    #[error("the identity provider's answer was refused: {0}")]
    Rejected(String),
}

impl OidcError {
    /// The status of the sign-in page that shows it.
    pub fn status(&self) -> axum::http::StatusCode {
        use axum::http::StatusCode;
        match self {
            OidcError::Unreachable(_) => StatusCode::BAD_GATEWAY,
            OidcError::Flow(_) => StatusCode::BAD_REQUEST,
            OidcError::Denied(_) | OidcError::Rejected(_) => StatusCode::UNAUTHORIZED,
        }
    }

    /// What the sign-in page says (the cause is logged, not shown).
    pub fn message(&self, provider: &str) -> String {
        match self {
            OidcError::Unreachable(_) => {
                format!("{provider} could not be reached. Try again in a moment.")
            }
            OidcError::Flow(_) => {
                "This sign-in attempt expired or was not started in this browser. Please try again."
                    .into()
            }
            OidcError::Denied(_) => format!("Sign-in was cancelled or refused at {provider}."),
            OidcError::Rejected(_) => {
                format!(
                    "The answer from {provider} could not be verified, so you were not signed in."
                )
            }
        }
    }
}

/// `err` and its causes, for the log.
fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// The parameters the provider sends the browser back with.
#[derive(Debug, Default, Deserialize)]
pub struct Callback {
    /// The authorization code.
    pub code: Option<String>,
    /// The `state` sent out.
    pub state: Option<String>,
    /// An OAuth error code instead of a code.
    pub error: Option<String>,
}

/// The configured provider and what is remembered of it.
#[derive(Debug)]
pub struct Oidc {
    settings: OidcSettings,
    key: FlowKey,
    provider: ProviderCache,
}

impl Oidc {
    /// The provider of `settings`; flow cookies are signed with a key derived from `secret`. Nothing is
    /// fetched yet: the service starts while the provider is away.
    pub fn new(settings: OidcSettings, secret: &str) -> anyhow::Result<Oidc> {
        let provider = ProviderCache::new(&settings, ProviderHttp::new()?)?;
        Ok(Oidc {
            settings,
            key: FlowKey::new(secret),
            provider,
        })
    }

    /// What was configured.
    pub fn settings(&self) -> &OidcSettings {
        &self.settings
    }

    /// Start a sign-in leading to `next` (a local path): the provider's authorization URL to send the browser
    /// to, and the flow cookie's value.
    pub async fn begin(&self, next: &str) -> Result<(url::Url, String), OidcError> {
        let client = self.provider.client(false).await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge);
        for scope in &self.settings.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.url();
        let pending = Pending {
            state: state.into_secret(),
            nonce: nonce.secret().clone(),
            verifier: verifier.into_secret(),
            next: next.to_string(),
            expires: chrono::Utc::now().timestamp() + FLOW_SECONDS,
        };
        Ok((url, self.key.seal(&pending)))
    }

    /// Finish a sign-in: check the browser's flow cookie against the callback's `state`, redeem the code
    /// with the PKCE verifier, and verify the ID token (signature, issuer, audience, expiry, nonce). Returns
    /// who signed in and where they were going.
    pub async fn finish(
        &self,
        cookie: Option<&str>,
        callback: &Callback,
    ) -> Result<(Identity, String), OidcError> {
        let now = chrono::Utc::now().timestamp();
        let pending = cookie
            .ok_or(OidcError::Flow("no flow cookie"))
            .and_then(|c| {
                self.key
                    .open(c, now)
                    .ok_or(OidcError::Flow("flow cookie refused"))
            })?;
        let state = callback.state.as_deref().unwrap_or("");
        if !crate::auth::tokens::constant_time_eq(state, &pending.state) {
            return Err(OidcError::Flow("state does not match"));
        }
        if let Some(error) = &callback.error {
            return Err(OidcError::Denied(error.chars().take(100).collect()));
        }
        let code = callback
            .code
            .clone()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| OidcError::Rejected("no code".into()))?;
        let client = self.provider.client(false).await?;
        let answer = self.redeem(&client, code, pending.verifier).await?;
        let token = answer
            .id_token()
            .ok_or_else(|| OidcError::Rejected("no ID token".into()))?;
        let nonce = Nonce::new(pending.nonce);
        let claims = match token.claims(&client.id_token_verifier(), &nonce) {
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                let client = self.provider.client(true).await?;
                let verifier = client.id_token_verifier();
                token
                    .claims(&verifier, &nonce)
                    .map_err(|e| OidcError::Rejected(with_causes(&e)))?
                    .clone()
            }
            other => other
                .map_err(|e| OidcError::Rejected(with_causes(&e)))?
                .clone(),
        };
        let groups = match claims
            .additional_claims()
            .claims
            .get(&self.settings.groups_claim)
        {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .take(MAX_GROUPS)
                .map(str::to_string)
                .collect(),
            Some(Value::String(one)) => vec![one.clone()],
            _ => Vec::new(),
        };
        let identity = Identity {
            subject: claims.subject().to_string(),
            email: claims.email().map(|e| e.to_string()),
            email_verified: claims.email_verified(),
            name: claims
                .name()
                .and_then(|n| n.get(None))
                .map(|n| n.to_string()),
            preferred_username: claims.preferred_username().map(|u| u.to_string()),
            groups,
        };
        Ok((identity, pending.next))
    }

    async fn redeem(
        &self,
        client: &OidcClient,
        code: String,
        verifier: String,
    ) -> Result<TokenAnswer, OidcError> {
        use openidconnect::RequestTokenError;
        client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| OidcError::Unreachable(e.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(verifier))
            .request_async(self.provider.http())
            .await
            .map_err(|e| match e {
                RequestTokenError::Request(e) => OidcError::Unreachable(with_causes(&e)),
                RequestTokenError::ServerResponse(e) => OidcError::Rejected(e.to_string()),
                other => OidcError::Rejected(with_causes(&other)),
            })
    }
}
