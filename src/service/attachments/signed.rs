//! Short-lived signed download links: `/api/attachments/<id>/download/?user=&expires=&signature=`, an
//! HMAC over the attachment, the viewer it was made for and the expiry, keyed from the server secret. The
//! link works without a bearer header (for `<img src>`), only until it expires, and only while that
//! viewer may still see the attachment: it is checked with the same rule as any other read.
use crate::auth::load_actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::storage::{BlobStore, ByteStream};
use entity::attachment;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How long a signed link stays valid.
pub const LINK_SECONDS: i64 = 15 * 60;

/// The key download links are signed with (derived from the server secret, so it differs from the key
/// that signs access tokens).
#[derive(Clone)]
pub struct UrlKey(Vec<u8>);

impl std::fmt::Debug for UrlKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UrlKey")
    }
}

impl UrlKey {
    /// The key derived from `secret`.
    pub fn new(secret: &str) -> Self {
        UrlKey(mac(secret.as_bytes(), b"deskgraph attachment links").to_vec())
    }

    fn signature(&self, id: i32, user_id: i32, expires: i64) -> String {
        hex::encode(mac(&self.0, format!("{id}:{user_id}:{expires}").as_bytes()))
    }

    /// A link to the bytes of attachment `id` for `user_id`, valid for [`LINK_SECONDS`] from now.
    pub fn link(&self, id: i32, user_id: i32) -> String {
        self.link_until(id, user_id, chrono::Utc::now().timestamp() + LINK_SECONDS)
    }

    /// A link to the bytes of attachment `id` for `user_id`, valid until the Unix time `expires`.
    pub fn link_until(&self, id: i32, user_id: i32, expires: i64) -> String {
        let signature = self.signature(id, user_id, expires);
        format!("/api/attachments/{id}/download/?user={user_id}&expires={expires}&signature={signature}")
    }

    /// Whether `signature` is this key's for these values (compared in constant time) and unexpired.
    fn verify(&self, id: i32, user_id: i32, expires: i64, signature: &str) -> bool {
        if expires < chrono::Utc::now().timestamp() {
            return false;
        }
        let Ok(given) = hex::decode(signature) else {
            return false;
        };
        let Ok(mut check) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            return false;
        };
        check.update(format!("{id}:{user_id}:{expires}").as_bytes());
        check.verify_slice(&given).is_ok()
    }
}

fn mac(key: &[u8], message: &[u8]) -> [u8; 32] {
    // HMAC takes keys of any length: this cannot fail.
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut m) => {
            m.update(message);
            m.finalize().into_bytes().into()
        }
        Err(_) => [0; 32],
    }
}

/// What a signed link carries.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct SignedQuery {
    /// The viewer the link was made for.
    pub user: i32,
    /// Unix time after which it is refused.
    pub expires: i64,
    /// Hex HMAC.
    pub signature: String,
}

/// The bytes behind a signed link: 403 for a forged or expired signature, 404 when the viewer it was made
/// for can no longer see the attachment. Links are checked with `url_key`; the bytes come from `storage`.
pub async fn open_signed(
    db: &Db,
    storage: &dyn BlobStore,
    url_key: &UrlKey,
    id: i32,
    link: &SignedQuery,
) -> AppResult<(attachment::Model, ByteStream)> {
    if !url_key.verify(id, link.user, link.expires, &link.signature) {
        return Err(AppError::forbidden(
            "the download link is invalid or has expired",
        ));
    }
    let actor = load_actor(&db.conn, link.user)
        .await?
        .ok_or_else(|| AppError::not_found("attachment"))?;
    super::open(db, storage, &actor, id).await
}
