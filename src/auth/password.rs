//! Password hashing with argon2; hashing runs off the async threads.
use crate::auth::tokens::new_secret;
use crate::error::{AppError, AppResult};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use std::sync::LazyLock;

/// The hash of a random password, made once with the parameters of [`hash_password`]. A sign-in without a
/// real hash to check (unknown or inactive user, no password set) is verified against it, so that it costs
/// what a real one does and its timing does not tell whether the account exists.
static STAND_IN: LazyLock<String> =
    LazyLock::new(|| hash_password(&new_secret("")).unwrap_or_default());

/// Make the stand-in hash now (start-up), so that the first sign-in of an unknown user does not pay for it.
pub fn prepare_stand_in() {
    LazyLock::force(&STAND_IN);
}

/// Hash a password for storage.
pub fn hash_password(password: &str) -> AppResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| AppError::internal(anyhow::anyhow!("password hashing failed: {e}")))
}

/// Whether `password` matches the stored hash. An empty or malformed hash never matches, and costs one
/// verification all the same (against the stand-in hash).
pub fn verify_password(stored: &str, password: &str) -> bool {
    let verify = |hash: &PasswordHash<'_>| {
        Argon2::default()
            .verify_password(password.as_bytes(), hash)
            .is_ok()
    };
    match PasswordHash::new(stored) {
        Ok(parsed) => verify(&parsed),
        Err(_) => {
            if let Ok(stand_in) = PasswordHash::new(&STAND_IN) {
                verify(&stand_in);
            }
            false
        }
    }
}

/// Verify on the blocking pool so a burst of logins does not stall request handling.
pub async fn verify_password_async(stored: String, password: String) -> bool {
    tokio::task::spawn_blocking(move || verify_password(&stored, &password))
        .await
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_reject() -> AppResult<()> {
        let hash = hash_password("correct horse")?;
        assert!(verify_password(&hash, "correct horse"));
        assert!(!verify_password(&hash, "wrong"));
        assert!(!verify_password("", "anything"));
        Ok(())
    }

    #[test]
    fn a_missing_hash_costs_a_verification() {
        assert!(
            PasswordHash::new(&STAND_IN).is_ok(),
            "stand-in: {}",
            *STAND_IN
        );
        // Nothing anyone types matches the stand-in's random password.
        assert!(!verify_password("", ""));
        assert!(!verify_password("not a hash", "not a hash"));
    }
}
