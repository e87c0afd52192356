//! Random secrets for API tokens and sessions; only their SHA-256 is ever stored.
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Prefix that makes deskgraph API tokens recognisable (and tells them apart from JWTs).
pub const API_TOKEN_PREFIX: &str = "dg_";

/// A new random secret: 32 bytes, hex encoded, behind `prefix`.
pub fn new_secret(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("{prefix}{}", hex::encode(bytes))
}

/// Hex SHA-256 of a secret, as stored.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Compare two strings in constant time (for CSRF tokens).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
