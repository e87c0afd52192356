//! How a request past the front checks runs: with a turn of its viewer's share of the database
//! ([`viewer_gate`]), and, when it may write, to its end whatever its client does.
//!
//! A write (POST, PUT, PATCH, DELETE: every GraphQL mutation comes as a POST) runs in its connection's task
//! as any request does, but if that task drops it (a client that closes its socket, or the request timeout)
//! the write's future, with the viewer's turn, moves to a task of its own and goes on to its commit or
//! rollback ([`RunsToEnd`]). Dropped halfway, a write's future would leave a transaction to the
//! connection's clean-up, and a `BEGIN` dropped while under way can leave one open on a pooled connection
//! (see `crate::db`). Each of its statements stays bounded by the statement timeout. Reads are dropped with
//! their client: they hold no transaction, and their connection goes back to the pool at once.
//!
//! Not spawned up front: a task of its own for every write costs a spawn, and, for an upload, the body's
//! pieces would be read on one thread and freed on another (the allocator then kept several times the
//! memory an upload takes).
use super::errors::{error_response, Door};
use super::ratelimit;
use crate::db::viewer_gate;
use crate::state::AppState;
use axum::extract::Request;
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::Notify;
use tracing::Instrument;

/// Writes under way, their clients gone or not.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
/// Told when the last of them ends.
static FINISHED: Notify = Notify::const_new();

/// One write counted in [`RUNNING`] while it lives.
struct Running;

impl Running {
    fn start() -> Self {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if RUNNING.fetch_sub(1, Ordering::SeqCst) == 1 {
            FINISHED.notify_waiters();
        }
    }
}

/// Wait up to `limit` for the writes still under way: at shutdown, after the connections are done (what is
/// left then runs on its own task, its client gone), so that it is not cut short by the process ending.
pub async fn finish(limit: Duration) {
    let drained = async {
        loop {
            let told = FINISHED.notified();
            if RUNNING.load(Ordering::SeqCst) == 0 {
                return;
            }
            told.await;
        }
    };
    if tokio::time::timeout(limit, drained).await.is_err() {
        tracing::warn!("writes still running at shutdown were cut short");
    }
}

/// Run `req` through the rest of the stack with a turn of its viewer's share; a write runs to its end.
pub async fn run(state: &AppState, door: Door, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let turn = if viewer_gate::exempt(&path) {
        None
    } else {
        let (viewer, _) = ratelimit::viewer(state, &req);
        match state.viewer_gate.turn(viewer).await {
            Ok(turn) => Some(turn),
            Err(err) => return error_response(door, err),
        }
    };
    if !writes(req.method()) {
        let response = next.run(req).await;
        drop(turn);
        return response;
    }
    let running = Running::start();
    let work = async move {
        let response = next.run(req).await;
        drop((turn, running));
        response
    };
    RunsToEnd(Some(Box::pin(work.in_current_span()))).await
}

/// A write's future: polled where it is awaited; dropped before it is done, handed to a task of its own to
/// finish.
struct RunsToEnd<F: Future<Output = Response> + Send + 'static>(Option<Pin<Box<F>>>);

impl<F: Future<Output = Response> + Send + 'static> Future for RunsToEnd<F> {
    type Output = Response;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        let Some(work) = self.0.as_mut() else {
            return Poll::Pending;
        };
        let answer = work.as_mut().poll(cx);
        if answer.is_ready() {
            self.0 = None;
        }
        answer
    }
}

impl<F: Future<Output = Response> + Send + 'static> Drop for RunsToEnd<F> {
    fn drop(&mut self) {
        let Some(work) = self.0.take() else {
            return;
        };
        // A future whose poll panicked is not polled again; without a runtime the process is ending.
        if std::thread::panicking() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                drop(work.await);
            });
        }
    }
}

/// Whether a request of this method may change something.
fn writes(method: &Method) -> bool {
    matches!(
        *method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    )
}
