//! The HTTP client `openidconnect` talks to the provider with: the project's reqwest (rustls), following no
//! redirects (a redirect from the provider's endpoints could point the service at anything), with time
//! limits, and reading at most [`MAX_RESPONSE_BYTES`] of any answer.
use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Longest answer read from the provider (discovery, keys, tokens are a few kilobytes).
pub const MAX_RESPONSE_BYTES: usize = 1 << 20;

/// Longest one call to the provider may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a call to the provider failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderHttpError {
    /// The request could not be sent or its answer not read.
    #[error("{0}")]
    Transport(#[from] reqwest::Error),
    /// The answer was longer than [`MAX_RESPONSE_BYTES`].
    #[error("the provider's answer is longer than {MAX_RESPONSE_BYTES} bytes")]
    TooLarge,
    /// The answer could not be handed over.
    #[error("{0}")]
    Http(#[from] openidconnect::http::Error),
}

/// reqwest as an [`AsyncHttpClient`].
#[derive(Clone, Debug)]
pub struct ProviderHttp(reqwest::Client);

impl ProviderHttp {
    /// A client with no redirects and the call time limit.
    pub fn new() -> anyhow::Result<Self> {
        // reqwest is built without a TLS provider of its own; the process uses ring (as for webhooks).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .timeout(CALL_TIMEOUT)
            .build()?;
        Ok(ProviderHttp(client))
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, ProviderHttpError> {
        let request = reqwest::Request::try_from(request)?;
        let mut response = self.0.execute(request).await?;
        let mut answer = openidconnect::http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            answer = answer.header(name, value);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(ProviderHttpError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(answer.body(body)?)
    }
}

impl<'c> AsyncHttpClient<'c> for ProviderHttp {
    type Error = ProviderHttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Self::Error>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(self.send(request))
    }
}
