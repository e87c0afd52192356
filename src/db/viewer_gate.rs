//! Each viewer's share of the database: at most `DESKGRAPH_VIEWER_CONCURRENCY` requests of one account (or,
//! signed out, of one client address) run at once (a quarter of the pool by default); more wait up to
//! `DESKGRAPH_VIEWER_QUEUE_MS` for a turn, then answer 429 `rate_limited` with `Retry-After: 1`. Part of
//! [`crate::http::layers::front`], after the credentials are resolved, so every door is counted by the
//! viewer it serves; a request that runs on after its client left ([`crate::http::layers`]) keeps its turn
//! until its work ends. A GraphQL request resolves its root fields one at a time (`graphql::query`), so
//! one request uses one connection at a time however many aliases it has: together, one viewer's
//! requests hold at most its share of the pool, and the rest is left to everyone else.
use crate::error::AppError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The turns of every viewer with a request under way.
#[derive(Debug)]
pub struct ViewerGate {
    share: usize,
    queue: Duration,
    viewers: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

/// One request's turn; given back when dropped (a viewer with no request left is forgotten).
#[derive(Debug)]
pub struct Turn {
    permit: Option<OwnedSemaphorePermit>,
    key: String,
    viewers: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

/// The viewer key of a signed-in account (as [`crate::http::ratelimit::viewer`] names it).
pub fn user_key(id: i32) -> String {
    format!("user:{id}")
}

/// Paths outside the share: probes and static files, which never use the database.
pub fn exempt(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics") || path.starts_with("/static/")
}

impl ViewerGate {
    /// `share` requests per viewer at once; more wait up to `queue`.
    pub fn new(share: usize, queue: Duration) -> Self {
        ViewerGate {
            share: share.max(1),
            queue,
            viewers: Arc::default(),
        }
    }

    /// Requests of one viewer allowed at once.
    pub fn share(&self) -> usize {
        self.share
    }

    /// A turn for the viewer `key` (see [`crate::http::ratelimit::viewer`]), waiting for one up to the queue
    /// time; past it, 429 with a retry after a second.
    pub async fn turn(&self, key: String) -> Result<Turn, AppError> {
        let semaphore = lock(&self.viewers)
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(self.share)))
            .clone();
        // The turn exists before the wait so that a refused request still forgets an idle viewer.
        let mut turn = Turn {
            permit: None,
            key,
            viewers: self.viewers.clone(),
        };
        turn.permit = match semaphore.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            // Never closed: only the timeout refuses.
            Err(_) => tokio::time::timeout(self.queue, semaphore.clone().acquire_owned())
                .await
                .ok()
                .and_then(Result::ok),
        };
        drop(semaphore);
        if turn.permit.is_none() {
            metrics::counter!("viewer_share_rejections_total").increment(1);
            return Err(AppError::Busy { retry_after: 1 });
        }
        Ok(turn)
    }

    /// Viewers with a request under way or waiting (for tests).
    pub fn viewers(&self) -> usize {
        lock(&self.viewers).len()
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut viewers = lock(&self.viewers);
        // Clones are taken under this lock, so a count of one (the map's) means no turn holds or awaits it.
        if viewers
            .get(&self.key)
            .is_some_and(|semaphore| Arc::strong_count(semaphore) == 1)
        {
            viewers.remove(&self.key);
        }
    }
}

/// The map, even after a panic elsewhere left its lock poisoned (its entries stay consistent: each change
/// is one insert or remove).
fn lock(
    viewers: &Mutex<HashMap<String, Arc<Semaphore>>>,
) -> MutexGuard<'_, HashMap<String, Arc<Semaphore>>> {
    viewers
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_viewer_past_its_share_waits_then_is_refused_and_others_are_not(
    ) -> Result<(), AppError> {
        let gate = ViewerGate::new(2, Duration::from_millis(50));
        let first = gate.turn("user:1".into()).await?;
        let _second = gate.turn("user:1".into()).await?;
        let refused = gate.turn("user:1".into()).await;
        assert!(matches!(refused, Err(AppError::Busy { retry_after: 1 })));
        let _other = gate.turn("user:2".into()).await?;
        drop(first);
        let _third = gate.turn("user:1".into()).await?;
        assert_eq!(gate.viewers(), 2);
        Ok(())
    }

    #[tokio::test]
    async fn a_waiting_request_gets_the_next_turn_and_idle_viewers_are_forgotten(
    ) -> Result<(), AppError> {
        let gate = Arc::new(ViewerGate::new(1, Duration::from_secs(5)));
        let first = gate.turn("ip:10.0.0.1".into()).await?;
        let waiting = tokio::spawn({
            let gate = gate.clone();
            async move { gate.turn("ip:10.0.0.1".into()).await.map(drop) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(first);
        assert!(matches!(waiting.await, Ok(Ok(()))));
        assert_eq!(gate.viewers(), 0);
        Ok(())
    }
}
