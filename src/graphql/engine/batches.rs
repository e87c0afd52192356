//! Where a request's loaders run their batches: inside the request's own task.
//!
//! async-graphql's `DataLoader` starts a batch by handing a future to its spawner: the future waits the
//! loader's delay, then takes every key asked for so far. Spawned onto the runtime, that future runs on
//! another worker, so on a busy machine it can take the keys while the request is still half-way through
//! asking for them (one poll over a page of a hundred comments), and the page's statements then depend on
//! timing. Run inside the request's task instead ([`Batches::drive`]), a batch can only start between two
//! polls of the request, after every field that could ask has asked: how many statements a page takes
//! depends on its selection and its data, never on the machine's load.
use async_graphql::dataloader::{CacheFactory, DataLoader};
use futures_util::future::BoxFuture;
use futures_util::task::{ArcWake, AtomicWaker};
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// How long a batch no request drives waits for more keys.
const UNDRIVEN_DELAY: Duration = Duration::from_millis(1);

/// The batches a request's loaders start, run by the request that asks ([`Batches::drive`]), or spawned
/// onto the runtime when no one drives them (subscription streams).
#[derive(Default)]
pub struct Batches {
    queue: Mutex<Queue>,
}

#[derive(Default)]
struct Queue {
    /// Whether a request is driving the batches now.
    driven: bool,
    /// Batches started since the driver last looked.
    waiting: Vec<BoxFuture<'static, ()>>,
    /// Whether the driver is polling the request now: it looks at `waiting` right after.
    polling: bool,
    /// The driving task, for a batch started while it is not polling (not expected: fields ask while polled).
    waker: Option<Waker>,
}

impl Batches {
    /// A loader whose batches run here. Driven, a batch starts as soon as the request has asked for all it
    /// can, so it needs no delay: which keys share a batch then depends on the selection, not on timing.
    pub fn loader<L, C>(self: &Arc<Self>, loader: L, cache: C) -> DataLoader<L, C>
    where
        L: Send + Sync + 'static,
        C: CacheFactory + 'static,
    {
        let spawner = self.clone();
        DataLoader::with_cache(loader, move |batch| spawner.spawn(batch), cache)
            .delay(Duration::ZERO)
    }

    /// The loaders' spawner: queue the batch for the driving request, else spawn it.
    pub fn spawn(&self, batch: BoxFuture<'static, ()>) {
        let mut queue = self.lock();
        if !queue.driven {
            drop(queue);
            // The loaders start their batches at once ([`Batches::loader`]); spawned, a batch waits a little
            // for the keys asked for around it, as async-graphql's default delay would.
            tokio::spawn(async move {
                tokio::time::sleep(UNDRIVEN_DELAY).await;
                batch.await;
            });
            return;
        }
        queue.waiting.push(batch);
        // Polling, the driver looks once the request's poll ends; waking it would only poll it once more.
        let waker = if queue.polling {
            None
        } else {
            queue.waker.clone()
        };
        drop(queue);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Run `work` (an execution using these loaders) with the batches it starts polled in the same task,
    /// each after `work` has asked for all it can. Dropping the returned future (a timeout) drops the
    /// batches with it, so their statements stop too.
    pub async fn drive<F: Future>(&self, work: F) -> F::Output {
        let Some(_driving) = self.start() else {
            // Already driven further out: that driver polls these batches.
            return work.await;
        };
        let mut work = pin!(work);
        let mut running: Vec<BoxFuture<'static, ()>> = Vec::new();
        let nudge = Arc::new(Nudge::default());
        let waker = futures_util::task::waker(nudge.clone());
        poll_fn(|cx| {
            nudge.waker.register(cx.waker());
            nudge.woken.store(false, Ordering::Release);
            running.append(&mut self.polling(true, cx.waker()));
            let polled = work.as_mut().poll(&mut Context::from_waker(&waker));
            running.append(&mut self.polling(false, cx.waker()));
            if polled.is_ready() {
                return polled;
            }
            if nudge.woken.load(Ordering::Acquire) {
                // `work` gave way with more to do (a long list is polled in parts): every field that can ask
                // asks before a batch starts. It is polled again at once.
                return Poll::Pending;
            }
            // Every batch that started is here now. A few run at once; each is polled in turn (a
            // `FuturesUnordered` would wake this task after every round, and each wake polls the whole of
            // `work` again). One that finishes answers `work` through a channel, which wakes this task.
            running.retain_mut(|batch| batch.as_mut().poll(cx).is_pending());
            Poll::Pending
        })
        .await
    }

    /// Note whether the driver is polling its request; the batches that started meanwhile.
    fn polling(&self, now: bool, waker: &Waker) -> Vec<BoxFuture<'static, ()>> {
        let mut queue = self.lock();
        queue.polling = now;
        if !queue.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
            queue.waker = Some(waker.clone());
        }
        std::mem::take(&mut queue.waiting)
    }

    /// Mark the batches driven, unless they already are.
    fn start(&self) -> Option<Driving<'_>> {
        let mut queue = self.lock();
        if queue.driven {
            return None;
        }
        queue.driven = true;
        Some(Driving(self))
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding it; a poisoned queue is still a consistent one.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Wakes the driver, noting that `work` was woken: while polled, that means it gave way with more to do.
#[derive(Default)]
struct Nudge {
    woken: AtomicBool,
    waker: AtomicWaker,
}

impl ArcWake for Nudge {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.woken.store(true, Ordering::Release);
        arc_self.waker.wake();
    }
}

/// Ends driving when the driver finishes or is dropped: batches started later are spawned, and those
/// queued for a driver that is gone are dropped with the answers no one waits for.
struct Driving<'a>(&'a Batches);

impl Drop for Driving<'_> {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.driven = false;
        queue.polling = false;
        queue.waker = None;
        queue.waiting.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::dataloader::{Loader, NoCache};
    use std::collections::HashMap;

    /// Records the keys of each batch.
    struct Recorder(Arc<Mutex<Vec<Vec<i32>>>>);

    impl Loader<i32> for Recorder {
        type Value = i32;
        type Error = std::convert::Infallible;

        async fn load(&self, keys: &[i32]) -> Result<HashMap<i32, i32>, Self::Error> {
            let mut sorted = keys.to_vec();
            sorted.sort_unstable();
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(sorted);
            Ok(keys.iter().map(|k| (*k, k * 2)).collect())
        }
    }

    /// Return pending once, waking itself at once: how a long list (`FuturesUnordered`) gives way.
    async fn give_way() {
        let mut gave = false;
        poll_fn(|cx| {
            if gave {
                return Poll::Ready(());
            }
            gave = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await
    }

    /// Keys asked for before the request waits form one batch, however long asking takes and though the
    /// request gives way half-way.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_slow_poll_still_makes_one_batch() {
        let batches = Arc::new(Batches::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let loader = batches.loader(Recorder(seen.clone()), NoCache);
        let loads = (0..20).map(|k| {
            let loader = &loader;
            async move {
                // Longer than a timer's tick, inside one poll: a spawned batch would start here.
                std::thread::sleep(Duration::from_millis(2));
                if k % 3 == 0 {
                    // Twice: a batch polled while the request gives way would start in between.
                    give_way().await;
                    std::thread::sleep(Duration::from_millis(2));
                    give_way().await;
                }
                loader.load_one(k).await
            }
        });
        let answers = batches.drive(futures_util::future::join_all(loads)).await;
        assert_eq!(answers.len(), 20);
        assert!(answers.iter().all(|a| a.is_ok_and(|v| v.is_some())));
        let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
        assert_eq!(seen, vec![(0..20).collect::<Vec<_>>()]);
    }

    /// Without a driver the batches are spawned and answer as before.
    #[tokio::test]
    async fn undriven_batches_are_spawned() {
        let batches = Arc::new(Batches::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let loader = batches.loader(Recorder(seen), NoCache);
        assert_eq!(loader.load_one(4).await.ok().flatten(), Some(8));
    }
}
