//! Failed sign-ins, counted per account and per client address in [`crate::counters`] (shared by every
//! instance when Redis is configured), whatever door the attempt came through.
//!
//! Failures are counted over the last `window_seconds` (a sliding count over two clock-aligned windows), so
//! that failures just before a window's boundary are not forgotten just after it. The failure that reaches
//! the limit also marks the next window as locked, so that a lock lasts from that failure to the end of the
//! following window (between one and two windows) rather than until a boundary that may be a second away.
//!
//! An attempt is reserved (counted) against both its account and its address before its password is
//! checked, each with one atomic increment that also judges the new count (in memory or in Redis):
//! concurrent attempts cannot all pass a check made before any of them failed, so a burst from one address
//! has at most its limit of passwords checked. A success clears the account's count and gives the address
//! its one back, so that the sign-ins that succeed from one address (an office) never lock it.
use crate::config::LoginThrottle;
use crate::counters::address_key;
use crate::counters::{now, Counters, Window};
use crate::error::{AppError, AppResult};
use sha2::{Digest, Sha256};
use std::net::IpAddr;

/// The counters of one attempt: taken by [`admit`], settled by [`Attempt::succeeded`] or
/// [`Attempt::failed`].
pub struct Attempt<'a> {
    counters: &'a Counters,
    limits: LoginThrottle,
    account: Keys,
    address: Option<Keys>,
    client: Option<IpAddr>,
    /// When the attempt was reserved: it is counted and judged then, and a success gives the address's
    /// count back in that window.
    at: u64,
}

/// A subject's failure count and its lock for the next window.
struct Keys {
    failures: String,
    lock: String,
}

impl Keys {
    fn new(kind: &str, id: &str) -> Keys {
        Keys {
            failures: format!("login:{kind}:{id}"),
            lock: format!("login:{kind}-lock:{id}"),
        }
    }
}

/// Refuse the attempt when its account or address is locked; otherwise count it against its account.
/// `username` is the name the sign-in looks up (trimmed, case kept). Unknown names are counted like real
/// ones, so that a lock tells nothing about whether an account exists.
pub async fn admit<'a>(
    counters: &'a Counters,
    limits: LoginThrottle,
    username: &str,
    client: Option<IpAddr>,
) -> AppResult<Attempt<'a>> {
    admit_at(counters, limits, username, client, now()).await
}

/// [`admit`] at `now` (epoch seconds).
async fn admit_at<'a>(
    counters: &'a Counters,
    limits: LoginThrottle,
    username: &str,
    client: Option<IpAddr>,
    now: u64,
) -> AppResult<Attempt<'a>> {
    let window = Window(limits.window_seconds);
    // Hashed: a name of any length (or content) makes a short, plain key.
    let account = Keys::new("account", &hex::encode(Sha256::digest(username.as_bytes())));
    let address = client.map(|ip| Keys::new("address", &address_key(ip)));
    if let Some(address) = &address {
        if counters.count(&address.lock, window, now).await > 0 {
            return Err(refused("address", window, now, false));
        }
    }
    if counters.count(&account.lock, window, now).await > 0 {
        return Err(refused("account", window, now, false));
    }
    if let Some(address) = &address {
        let reserved = counters
            .take_sliding(
                &address.failures,
                1,
                limits.max_failures_per_address,
                window,
                now,
            )
            .await;
        if !reserved.allowed {
            return Err(refused("address", window, now, true));
        }
    }
    let reserved = counters
        .take_sliding(&account.failures, 1, limits.max_failures, window, now)
        .await;
    if !reserved.allowed {
        // The address's reservation stands: a refused attempt still counts against where it came from.
        return Err(refused("account", window, now, true));
    }
    Ok(Attempt {
        counters,
        limits,
        account,
        address,
        client,
        at: now,
    })
}

impl Attempt<'_> {
    /// The password was right: the account's failures are forgotten, and the address gets back the one
    /// this attempt reserved (its earlier failures stand).
    pub async fn succeeded(self) {
        let window = Window(self.limits.window_seconds);
        self.counters
            .reset(&self.account.failures, window, now())
            .await;
        if let Some(address) = &self.address {
            self.counters
                .give_back(&address.failures, 1, window, self.at)
                .await;
        }
    }

    /// The password was wrong (or the account unknown or inactive): the account's count stands, the
    /// address's grows, and whichever reached its limit is locked through the next window too.
    pub async fn failed(self) {
        let window = Window(self.limits.window_seconds);
        let now = self.at;
        let account = self
            .counters
            .count_sliding(&self.account.failures, window, now)
            .await;
        if account >= self.limits.max_failures {
            self.lock_next_window(&self.account, "account", window, now)
                .await;
        }
        if let Some(address) = &self.address {
            // Counted when the attempt was reserved.
            let counted = self
                .counters
                .count_sliding(&address.failures, window, now)
                .await;
            if counted >= self.limits.max_failures_per_address {
                self.lock_next_window(address, "address", window, now).await;
            }
        }
    }

    async fn lock_next_window(&self, keys: &Keys, kind: &'static str, window: Window, now: u64) {
        self.counters
            .take(&keys.lock, 1, 1, window, now + window.0)
            .await;
        metrics::counter!("login_lockouts_total", "by" => kind).increment(1);
        let client = self.client.map(|ip| ip.to_string());
        tracing::warn!(
            by = kind,
            client = client.as_deref().unwrap_or("-"),
            "repeated failed sign-ins: further attempts refused until the end of the next window"
        );
    }
}

/// The 429 of a locked account or address: until the end of this window, and of the next one too when the
/// lock was reached in this window (`through_next`).
fn refused(by: &'static str, window: Window, now: u64, through_next: bool) -> AppError {
    metrics::counter!("login_refusals_total", "by" => by).increment(1);
    let end = window.reset(now) + if through_next { window.0 } else { 0 };
    AppError::RateLimited {
        retry_after: end.saturating_sub(now).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> LoginThrottle {
        LoginThrottle {
            max_failures: 3,
            max_failures_per_address: 5,
            window_seconds: 900,
        }
    }

    async fn attempt(counters: &Counters, user: &str, ip: &str, ok: bool) -> AppResult<()> {
        attempt_at(counters, user, ip, ok, now()).await
    }

    async fn attempt_at(
        counters: &Counters,
        user: &str,
        ip: &str,
        ok: bool,
        at: u64,
    ) -> AppResult<()> {
        let client = ip.parse().ok();
        let attempt = admit_at(counters, limits(), user, client, at).await?;
        if ok {
            attempt.succeeded().await;
        } else {
            attempt.failed().await;
        }
        Ok(())
    }

    #[tokio::test]
    async fn accounts_lock_after_their_failures_and_a_success_clears_them() {
        let counters = Counters::memory();
        for _ in 0..2 {
            assert!(attempt(&counters, "ann", "192.0.2.1", false).await.is_ok());
        }
        assert!(attempt(&counters, "ann", "192.0.2.2", true).await.is_ok());
        for _ in 0..3 {
            assert!(attempt(&counters, "ann", "192.0.2.3", false).await.is_ok());
        }
        let locked = attempt(&counters, "ann", "192.0.2.4", true).await;
        let Err(AppError::RateLimited { retry_after }) = locked else {
            panic!("not locked: {locked:?}");
        };
        // The rest of this window and the whole next one.
        assert!((900..=1800).contains(&retry_after), "{retry_after}");
        assert!(attempt(&counters, "bob", "192.0.2.4", true).await.is_ok());
    }

    #[tokio::test]
    async fn addresses_lock_after_their_failures_on_any_account() {
        let counters = Counters::memory();
        for user in ["a", "b", "c", "d", "e"] {
            assert!(attempt(&counters, user, "2001:db8::1", false).await.is_ok());
        }
        // The same /64, another account, the right password: refused.
        let locked = attempt(&counters, "f", "2001:db8::2", true).await;
        assert!(
            matches!(locked, Err(AppError::RateLimited { .. })),
            "{locked:?}"
        );
        assert!(attempt(&counters, "f", "2001:db8:0:1::2", true)
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn failures_either_side_of_a_boundary_still_lock() {
        let counters = Counters::memory();
        let boundary = 1_800_000_u64 * 900;
        for second in [3, 2] {
            assert!(
                attempt_at(&counters, "ann", "192.0.2.1", false, boundary - second)
                    .await
                    .is_ok()
            );
        }
        assert!(
            attempt_at(&counters, "ann", "192.0.2.2", false, boundary + 1)
                .await
                .is_ok()
        );
        let locked = attempt_at(&counters, "ann", "192.0.2.3", true, boundary + 2).await;
        assert!(
            matches!(locked, Err(AppError::RateLimited { .. })),
            "{locked:?}"
        );
        // A quiet window later the account may try again.
        assert!(
            attempt_at(&counters, "ann", "192.0.2.3", true, boundary + 2 * 900)
                .await
                .is_ok()
        );
    }
}
