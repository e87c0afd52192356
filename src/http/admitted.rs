//! How a request past the front checks runs: with a turn of its viewer's share of the database
//! ([`viewer_gate`]), and, when it may write, to its end whatever its client does.
//!
//! A write (POST, PUT, PATCH, DELETE: every GraphQL mutation comes as a POST) runs on a task of its own,
//! which owns the handler's future and the viewer's turn. The connection's future only waits for that
//! task: a client that closes its socket, or the request timeout, drops the wait, not the write, which
//! goes on to its commit or rollback. Dropped halfway, a write's future would leave a transaction to the
//! connection's clean-up, and a `BEGIN` dropped while under way can leave one open on a pooled connection
//! (see `crate::db`). Each of its statements stays bounded by the statement timeout. Reads are dropped with
//! their client: they hold no transaction, and their connection goes back to the pool at once.
use super::errors::error_response;
use super::{ratelimit, viewer_gate};
use crate::error::AppError;
use crate::state::AppState;
use axum::extract::Request;
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;

/// Writes running on a task of their own now, their clients gone or not.
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

/// Wait up to `limit` for the writes still running on their own tasks: at shutdown, after the connections
/// are done, so that a write whose client left is not cut short by the process ending.
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

/// Run `req` through the rest of the stack with a turn of its viewer's share, and on a task of its own when
/// it may write.
pub async fn run(state: &AppState, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let turn = if viewer_gate::exempt(&path) {
        None
    } else {
        let (viewer, _) = ratelimit::viewer(state, &req);
        match state.viewer_gate.turn(viewer).await {
            Ok(turn) => Some(turn),
            Err(err) => return error_response(&path, err),
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
    let task = tokio::spawn(tracing::Instrument::in_current_span(work));
    match task.await {
        Ok(response) => response,
        Err(err) if err.is_panic() => error_response(
            &path,
            AppError::internal(anyhow::anyhow!("the request's handler panicked")),
        ),
        // Only when the runtime shuts down under it.
        Err(err) => error_response(&path, AppError::Unavailable(err.into())),
    }
}

/// Whether a request of this method may change something.
fn writes(method: &Method) -> bool {
    matches!(
        *method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    )
}
