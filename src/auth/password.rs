//! Password hashing with argon2; hashing runs off the async threads.
use crate::error::{AppError, AppResult};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;

/// Hash a password for storage.
pub fn hash_password(password: &str) -> AppResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| AppError::internal(anyhow::anyhow!("password hashing failed: {e}")))
}

/// Whether `password` matches the stored hash (an empty or malformed hash never matches).
pub fn verify_password(stored: &str, password: &str) -> bool {
    match PasswordHash::new(stored) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
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
}
