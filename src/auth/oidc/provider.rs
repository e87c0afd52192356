//! The provider's discovery document and signing keys, fetched when first needed and kept for
//! [`KEEP`]; one fetch at a time, however many sign-ins wait for it. A failed refetch keeps what was
//! known and is retried after [`RETRY`].
use super::http::ProviderHttp;
use super::{OidcError, OtherClaims, TokenAnswer};
use crate::config::OidcSettings;
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreClientAuthMethod, CoreErrorResponseType, CoreGenderClaim,
    CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreProviderMetadata, CoreRevocableToken,
    CoreRevocationErrorResponse, CoreTokenIntrospectionResponse,
};
use openidconnect::{
    AuthType, Client, ClientId, ClientSecret, EndpointMaybeSet, EndpointNotSet, EndpointSet,
    IssuerUrl, RedirectUrl, StandardErrorResponse,
};
use std::time::{Duration, Instant};

/// How long discovery and keys are used before they are fetched again.
const KEEP: Duration = Duration::from_secs(3600);
/// After a failed fetch, how long until the next try.
const RETRY: Duration = Duration::from_secs(60);
/// The youngest keys refetched because a token names a key not among them (one refetch a minute at most,
/// whatever tokens arrive).
const MIN_AGE_FOR_UNKNOWN_KEY: Duration = Duration::from_secs(60);

/// An OpenID Connect client of the discovered provider, reading [`OtherClaims`].
pub(super) type OidcClient = Client<
    OtherClaims,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    TokenAnswer,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

#[derive(Debug)]
struct Known {
    metadata: CoreProviderMetadata,
    fetched: Instant,
    next_fetch: Instant,
}

/// Discovery and keys of the configured provider, as last fetched.
#[derive(Debug)]
pub(super) struct ProviderCache {
    issuer: IssuerUrl,
    client_id: ClientId,
    client_secret: ClientSecret,
    redirect: RedirectUrl,
    http: ProviderHttp,
    known: tokio::sync::Mutex<Option<Known>>,
}

impl ProviderCache {
    pub(super) fn new(settings: &OidcSettings, http: ProviderHttp) -> anyhow::Result<Self> {
        Ok(ProviderCache {
            issuer: IssuerUrl::new(settings.issuer_url.clone())?,
            client_id: ClientId::new(settings.client_id.clone()),
            client_secret: ClientSecret::new(settings.client_secret.clone()),
            redirect: RedirectUrl::new(settings.redirect_url.clone())?,
            http,
            known: tokio::sync::Mutex::new(None),
        })
    }

    pub(super) fn http(&self) -> &ProviderHttp {
        &self.http
    }

    /// A client over the provider's current metadata; `keys_unknown`: a token named a key the known set
    /// lacks, so keys older than a minute are fetched again.
    pub(super) async fn client(&self, keys_unknown: bool) -> Result<OidcClient, OidcError> {
        let mut known = self.known.lock().await;
        let now = Instant::now();
        let due = match known.as_ref() {
            None => true,
            Some(k) if keys_unknown => k.fetched.elapsed() >= MIN_AGE_FOR_UNKNOWN_KEY,
            Some(k) => now >= k.next_fetch,
        };
        if due {
            match CoreProviderMetadata::discover_async(self.issuer.clone(), &self.http).await {
                Ok(metadata) => {
                    *known = Some(Known {
                        metadata,
                        fetched: now,
                        next_fetch: now + KEEP,
                    })
                }
                Err(err) => match known.as_mut() {
                    Some(stale) => {
                        tracing::warn!(error = %err, "OpenID Connect discovery failed; using what was fetched before");
                        stale.next_fetch = now + RETRY;
                    }
                    None => return Err(OidcError::Unreachable(super::with_causes(&err))),
                },
            }
        }
        let metadata = known
            .as_ref()
            .map(|k| k.metadata.clone())
            .ok_or_else(|| OidcError::Unreachable("no discovery document".into()))?;
        drop(known);
        // Secret in the body only for providers that take it no other way.
        let methods = metadata.token_endpoint_auth_methods_supported();
        let body_only = methods.is_some_and(|m| {
            !m.contains(&CoreClientAuthMethod::ClientSecretBasic)
                && m.contains(&CoreClientAuthMethod::ClientSecretPost)
        });
        let client = OidcClient::from_provider_metadata(
            metadata,
            self.client_id.clone(),
            Some(self.client_secret.clone()),
        )
        .set_redirect_uri(self.redirect.clone());
        Ok(if body_only {
            client.set_auth_type(AuthType::RequestBody)
        } else {
            client
        })
    }
}
