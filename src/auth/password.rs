//! Password hashing with argon2; hashing runs off the async threads.
use crate::error::{AppError, AppResult};
use argon2::password_hash::{
    self, rand_core::OsRng, Output, ParamsString, PasswordHash, Salt, SaltString,
};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use std::cell::RefCell;
use std::sync::{mpsc, Arc, LazyLock, Mutex};

/// The hash of a random password nobody was told, made with the parameters of [`hash_password`] (a test
/// checks they still are). A sign-in without a real hash to check (unknown or inactive user, no password
/// set) is verified against it, so that it costs what a real one does and its timing does not tell whether
/// the account exists; its answer is thrown away. A constant rather than made at start, since making it
/// takes argon2's 19 MiB of working memory, which the process would keep as its peak.
const STAND_IN: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$YmOesZUyuCkyRVgbmSkYwA$l+tjS4USMRIY19hH6nejFdvYVHkEt8gmcipq3MwYvhA";

/// Each hash or verification takes argon2's 19 MiB of working memory and tens of milliseconds of a core:
/// they run on their own threads, one per core and at most 4, whatever the number of sign-ins in flight.
/// A flood of them queues instead of taking the memory of hundreds (more at once would not finish sooner),
/// and only these threads' allocators ever hold such blocks, so the memory they keep is bounded too.
pub fn at_once() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

type Job = Box<dyn FnOnce() + Send>;

/// The queue of the hashing threads, started on first use.
static HASHING: LazyLock<Option<mpsc::Sender<Job>>> = LazyLock::new(|| {
    let (send, receive) = mpsc::channel::<Job>();
    let receive = Arc::new(Mutex::new(receive));
    for i in 0..at_once() {
        let receive = receive.clone();
        let started = std::thread::Builder::new()
            .name(format!("password-{i}"))
            .spawn(move || loop {
                let job = match receive.lock() {
                    Ok(queue) => queue.recv(),
                    Err(_) => return,
                };
                match job {
                    Ok(job) => job(),
                    Err(_) => return,
                }
            });
        if let Err(err) = started {
            tracing::error!(error = %err, "could not start a password thread");
            return None;
        }
    }
    Some(send)
});

/// Run `work` (hashing or verifying) on the hashing threads and wait for its answer.
async fn bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> AppResult<T> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = answer.send(work());
    });
    let queued = HASHING
        .as_ref()
        .is_some_and(|queue| queue.send(job).is_ok());
    if !queued {
        return Err(AppError::internal(anyhow::anyhow!(
            "password threads unavailable"
        )));
    }
    answered.await.map_err(AppError::internal)
}

// The argon2 working memory of this thread, kept between hashes: each takes 19 MiB, and an allocator
// handed a fresh 19 MiB per sign-in keeps more of them than there are threads.
thread_local! {
    static BLOCKS: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// The argon2 output for `password` and `salt` under `argon2` (whose parameters are `params`), computed in
/// this thread's working memory.
fn output(
    argon2: &Argon2<'_>,
    params: &Params,
    password: &[u8],
    salt: &Salt<'_>,
) -> password_hash::Result<Output> {
    let mut salt_bytes = [0u8; 64];
    let salt = salt.decode_b64(&mut salt_bytes)?;
    let len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    BLOCKS.with(|blocks| {
        let mut blocks = blocks
            .try_borrow_mut()
            .map_err(|_| password_hash::Error::Crypto)?;
        blocks.resize(params.block_count(), Block::default());
        Output::init_with(len, |out| {
            Ok(argon2.hash_password_into_with_memory(password, salt, out, &mut blocks[..])?)
        })
    })
}

/// Hash a password for storage.
pub fn hash_password(password: &str) -> AppResult<String> {
    let made = || -> password_hash::Result<String> {
        let salt = SaltString::generate(&mut OsRng);
        let argon2 = Argon2::default();
        let params = argon2.params().clone();
        let hash = PasswordHash {
            algorithm: Algorithm::default().ident(),
            version: Some(Version::default().into()),
            params: ParamsString::try_from(&params)?,
            salt: Some(salt.as_salt()),
            hash: Some(output(
                &argon2,
                &params,
                password.as_bytes(),
                &salt.as_salt(),
            )?),
        };
        Ok(hash.to_string())
    };
    made().map_err(|e| AppError::internal(anyhow::anyhow!("password hashing failed: {e}")))
}

/// What an account without a password stores: no password matches it (it is not a hash), and, unlike a
/// hash of a random password, it costs nothing to make. Random, as Django's unusable passwords, so that
/// no two accounts store the same value.
pub fn unusable() -> String {
    crate::auth::tokens::new_secret("!")
}

/// Whether `password` matches the stored hash. An empty or malformed hash never matches, and costs one
/// verification all the same (against the stand-in hash).
pub fn verify_password(stored: &str, password: &str) -> bool {
    let verify = |hash: &PasswordHash<'_>| -> password_hash::Result<bool> {
        let algorithm = Algorithm::try_from(hash.algorithm)?;
        let version = hash
            .version
            .map(Version::try_from)
            .transpose()?
            .unwrap_or_default();
        let params = Params::try_from(hash)?;
        let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else {
            return Ok(false);
        };
        let argon2 = Argon2::new(algorithm, version, params.clone());
        // `Output`'s comparison takes constant time.
        Ok(output(&argon2, &params, password.as_bytes(), &salt)? == expected)
    };
    match PasswordHash::new(stored) {
        Ok(parsed) => verify(&parsed).unwrap_or(false),
        Err(_) => {
            if let Ok(stand_in) = PasswordHash::new(STAND_IN) {
                let _ = verify(&stand_in);
            }
            false
        }
    }
}

/// Verify on the password threads, so a burst of logins neither stalls request handling nor runs more
/// than [`at_once`] checks at a time.
pub async fn verify_password_async(stored: String, password: String) -> bool {
    bounded(move || verify_password(&stored, &password))
        .await
        .unwrap_or(false)
}

/// [`hash_password`] on the password threads (at most [`at_once`] at a time).
pub async fn hash_password_async(password: String) -> AppResult<String> {
    bounded(move || hash_password(&password)).await?
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
    fn hashes_made_by_the_argon2_crate_verify_and_the_reverse() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default()
            .hash_password(b"tr0ub4dor", &salt)
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(verify_password(&theirs, "tr0ub4dor"));
        assert!(!verify_password(&theirs, "tr0ub4dor!"));
        let ours = hash_password("tr0ub4dor").unwrap_or_default();
        let parsed = PasswordHash::new(&ours);
        assert!(parsed.is_ok_and(|p| Argon2::default().verify_password(b"tr0ub4dor", &p).is_ok()));
    }

    #[test]
    fn a_missing_hash_costs_a_verification() {
        // The stand-in costs what a stored hash costs: same algorithm, same parameters.
        let stand_in = PasswordHash::new(STAND_IN).map_err(|e| e.to_string());
        let fresh = hash_password("anything").map_err(|e| e.to_string());
        let (Ok(stand_in), Ok(fresh)) = (stand_in, &fresh) else {
            panic!("stand-in or fresh hash unreadable");
        };
        let fresh = PasswordHash::new(fresh).map_err(|e| e.to_string());
        let Ok(fresh) = fresh else {
            panic!("fresh hash unreadable");
        };
        assert_eq!(stand_in.algorithm, fresh.algorithm);
        assert_eq!(stand_in.version, fresh.version);
        assert_eq!(stand_in.params, fresh.params);
        // Nothing anyone types matches the stand-in's random password.
        assert!(!verify_password("", ""));
        assert!(!verify_password("not a hash", "not a hash"));
    }
}
