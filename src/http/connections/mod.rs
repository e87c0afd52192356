//! Client connections: a cap on how many are open, a deadline for each request header and one for idle
//! connections, so clients that crawl or fall silent cannot hold the process's sockets.
//!
//! The deadlines sit on the socket rather than in hyper: hyper's header timeout also starts while a
//! kept-alive connection waits for its next request, so it could not tell a crawling header from an idle
//! client. A connection is in one of four phases, told from its bytes: idle (no request begun), head
//! (a request begun, its blank line not yet read), request (being answered: no deadline here, the
//! request timeout covers it) and upgraded (a WebSocket: left alone).
mod socket;

use crate::config::ConnectionLimits;
use axum::serve::{Listener, ListenerExt};
use axum::Router;
pub use socket::Guarded;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};

/// Set once the server stops taking connections.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// Told when [`STOPPING`] is set.
static STOPPED: Notify = Notify::const_new();

/// Resolves once the server begins to shut down. Responses that stream for as long as their client listens
/// (the queue's live feed) end then: the shutdown waits for every connection's response to finish.
pub async fn stopping() {
    loop {
        let told = STOPPED.notified();
        if STOPPING.load(Ordering::SeqCst) {
            return;
        }
        told.await;
    }
}

/// Serve `app` on `listener` under `limits` until `shutdown` resolves, then let requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    // `tap_io` keeps the client address available as `ConnectInfo<SocketAddr>`.
    let listener = GuardedListener::new(listener, limits).tap_io(|_| {});
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        STOPPING.store(true, Ordering::SeqCst);
        STOPPED.notify_waiters();
    })
    .await
}

/// A listener that accepts at most `max_connections` at once and hands out [`Guarded`] sockets.
pub struct GuardedListener {
    inner: TcpListener,
    limits: ConnectionLimits,
    slots: Arc<Semaphore>,
    full: bool,
}

impl GuardedListener {
    /// A listener handing out guarded sockets.
    pub fn new(inner: TcpListener, limits: ConnectionLimits) -> Self {
        GuardedListener {
            inner,
            limits,
            slots: Arc::new(Semaphore::new(limits.max_connections)),
            full: false,
        }
    }
}

impl Listener for GuardedListener {
    type Io = Guarded;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Guarded, SocketAddr) {
        let full = self.slots.available_permits() == 0;
        if full != self.full {
            self.full = full;
            if full {
                tracing::warn!(
                    max = self.limits.max_connections,
                    "connection limit reached: new connections wait to be accepted"
                );
            }
        }
        // Waiting for a free slot before accepting leaves further clients in the kernel's backlog.
        let slot = match self.slots.clone().acquire_owned().await {
            Ok(slot) => slot,
            Err(_) => std::future::pending().await,
        };
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => return (Guarded::new(stream, slot, self.limits), addr),
                // The client went away between connecting and being accepted.
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    // Out of file descriptors, typically; waiting lets some close.
                    tracing::error!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}
