//! A sign-in on its way through the provider: the `state`, `nonce` and PKCE verifier it was started with and
//! where it leads afterwards, kept in the browser that started it as an HttpOnly cookie for ten minutes,
//! sent only to `/accounts/oidc/`, signed with a key derived from the server secret (so it can be neither
//! forged nor edited), and cleared by the callback whatever its outcome. The PKCE verifier is in no URL; the
//! provider sees the `state`, the `nonce` and the verifier's challenge, as the protocol wants.
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Name of the cookie.
pub const FLOW_COOKIE: &str = "oidc_flow";

/// Path the cookie is sent to.
pub const FLOW_COOKIE_PATH: &str = "/accounts/oidc/";

/// How long a sign-in may spend at the provider.
pub const FLOW_SECONDS: i64 = 600;

/// What the callback needs to finish a sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// The `state` sent to the provider; the callback must bring it back.
    pub state: String,
    /// The `nonce` the ID token must carry.
    pub nonce: String,
    /// The PKCE verifier the code is redeemed with.
    pub verifier: String,
    /// The local path to go to once signed in.
    pub next: String,
    /// Unix time after which the cookie is refused.
    pub expires: i64,
}

/// The key flow cookies are signed with.
#[derive(Clone)]
pub struct FlowKey(Vec<u8>);

impl std::fmt::Debug for FlowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlowKey")
    }
}

fn mac(key: &[u8], data: &[u8]) -> Option<Hmac<Sha256>> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
    mac.update(data);
    Some(mac)
}

impl FlowKey {
    /// The key derived from the server secret.
    pub fn new(secret: &str) -> Self {
        let derived = mac(secret.as_bytes(), b"deskgraph oidc flow")
            .map(|m| m.finalize().into_bytes().to_vec())
            .unwrap_or_default();
        FlowKey(derived)
    }

    /// The cookie value carrying `pending`: its JSON and the signature, both base64url.
    pub fn seal(&self, pending: &Pending) -> String {
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(pending).unwrap_or_default());
        let signature = mac(&self.0, payload.as_bytes())
            .map(|m| URL_SAFE_NO_PAD.encode(m.finalize().into_bytes()))
            .unwrap_or_default();
        format!("{payload}.{signature}")
    }

    /// The sign-in a cookie value carries, when this key signed it and it has not expired at `now`.
    pub fn open(&self, sealed: &str, now: i64) -> Option<Pending> {
        let (payload, signature) = sealed.split_once('.')?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        mac(&self.0, payload.as_bytes())?
            .verify_slice(&signature)
            .ok()?;
        let pending: Pending =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
        (pending.expires > now).then_some(pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(expires: i64) -> Pending {
        Pending {
            state: "s".into(),
            nonce: "n".into(),
            verifier: "v".into(),
            next: "/tickets/".into(),
            expires,
        }
    }

    #[test]
    fn only_an_unexpired_cookie_of_this_key_opens() {
        let key = FlowKey::new("server-secret-server-secret");
        let sealed = key.seal(&pending(1_000));
        assert_eq!(key.open(&sealed, 999), Some(pending(1_000)));
        assert_eq!(key.open(&sealed, 1_000), None, "expired");
        let other = FlowKey::new("another-secret-another-secret");
        assert_eq!(other.open(&sealed, 0), None, "another key");
        let (_, signature) = sealed.split_once('.').unwrap_or_default();
        let edited =
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&pending(9_999)).unwrap_or_default());
        assert_eq!(key.open(&format!("{edited}.{signature}"), 0), None);
        assert_eq!(key.open("garbage", 0), None);
    }
}
