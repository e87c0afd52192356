//! The guarded socket: its phase, told from the bytes read and written, and the deadline of that phase.
use crate::config::ConnectionLimits;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{Instant, Sleep};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Head,
    Request,
    Upgraded,
}

/// A client socket that closes itself (an I/O error to hyper) when its header or idle deadline passes.
pub struct Guarded {
    io: TcpStream,
    _slot: OwnedSemaphorePermit,
    limits: ConnectionLimits,
    phase: Phase,
    /// How much of a header's closing blank line has been read: 1 after `\n`, 2 after `\n\r`.
    blank: u8,
    deadline: Option<Instant>,
    timer: Pin<Box<Sleep>>,
}

impl Guarded {
    pub(super) fn new(io: TcpStream, slot: OwnedSemaphorePermit, limits: ConnectionLimits) -> Self {
        metrics::gauge!("http_connections_open").increment(1.0);
        let deadline = Instant::now() + Duration::from_secs(limits.idle_timeout_seconds);
        Guarded {
            io,
            _slot: slot,
            limits,
            phase: Phase::Idle,
            blank: 0,
            deadline: Some(deadline),
            timer: Box::pin(tokio::time::sleep_until(deadline)),
        }
    }

    fn idle(&mut self) {
        self.phase = Phase::Idle;
        self.deadline =
            Some(Instant::now() + Duration::from_secs(self.limits.idle_timeout_seconds));
    }

    fn read(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.phase == Phase::Idle {
            self.phase = Phase::Head;
            self.blank = 0;
            self.deadline =
                Some(Instant::now() + Duration::from_secs(self.limits.header_timeout_seconds));
        }
        if self.phase != Phase::Head {
            return;
        }
        // A header ends at an empty line: `\r\n\r\n`, or `\n\n` from lenient clients.
        for &b in bytes {
            self.blank = match (self.blank, b) {
                (1 | 2, b'\n') => {
                    self.phase = Phase::Request;
                    self.deadline = None;
                    return;
                }
                (1, b'\r') => 2,
                (_, b'\n') => 1,
                _ => 0,
            };
        }
    }

    fn wrote(&mut self, first: &[u8]) {
        if first.is_empty() || self.phase == Phase::Upgraded {
            return;
        }
        // Only the first write of an answer starts with its status line; later chunks are its body.
        let answering = self.phase == Phase::Request && first.starts_with(b"HTTP/1.");
        let status = first.get(9..13).filter(|_| answering);
        if status == Some(b"101 ") {
            self.phase = Phase::Upgraded;
            self.deadline = None;
        } else if status == Some(b"100 ") {
            // `100 Continue`: the body is still to come.
        } else {
            // An answer (or more of one): the connection is idle until the next request begins.
            self.idle();
        }
    }

    /// Set the timer to the phase's deadline and have it wake this connection's task; whether it passed.
    fn arm(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(deadline) = self.deadline else {
            return false;
        };
        if self.timer.deadline() != deadline {
            self.timer.as_mut().reset(deadline);
        }
        self.timer.as_mut().poll(cx).is_ready()
    }

    /// Called when the socket would wait: an error once the phase's deadline has passed.
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        if !self.arm(cx) {
            return None;
        }
        let reason = match self.phase {
            Phase::Head => "header_timeout",
            _ => "idle_timeout",
        };
        metrics::counter!("http_connections_closed_total", "reason" => reason).increment(1);
        tracing::debug!(reason, "closing a slow or idle connection");
        self.deadline = None;
        Some(io::Error::new(io::ErrorKind::TimedOut, reason))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        metrics::gauge!("http_connections_open").decrement(1.0);
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                this.read(&buf.filled()[before..]);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                this.wrote(&buf[..n]);
                // The read side may already be waiting with no deadline; the timer wakes it at the new one.
                this.arm(cx);
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    let first = bufs.iter().find(|b| !b.is_empty()).map(|b| &b[..]);
                    this.wrote(first.unwrap_or_default());
                    this.arm(cx);
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::net::TcpListener;
    use tokio::sync::Semaphore;

    async fn guarded() -> Guarded {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let _client = TcpStream::connect(addr).await;
        let (io, _) = listener.accept().await.unwrap_or_else(|e| panic!("{e}"));
        let slot = Arc::new(Semaphore::new(1))
            .acquire_owned()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        Guarded::new(io, slot, ConnectionLimits::default())
    }

    #[tokio::test]
    async fn phases_follow_the_bytes() {
        let mut g = guarded().await;
        assert_eq!(g.phase, Phase::Idle);
        g.read(b"GET / HTTP/1.1\r\nHost: x\r\n");
        assert_eq!(g.phase, Phase::Head);
        g.read(b"\r");
        g.read(b"\nbody bytes");
        assert_eq!((g.phase, g.deadline), (Phase::Request, None));
        g.wrote(b"HTTP/1.1 100 Continue\r\n\r\n");
        assert_eq!(g.phase, Phase::Request);
        g.wrote(b"HTTP/1.1 200 OK\r\n");
        assert_eq!(g.phase, Phase::Idle);
        g.read(b"GET / HTTP/1.1\nHost: x\n\n");
        assert_eq!(g.phase, Phase::Request);
        g.wrote(b"HTTP/1.1 101 Switching Protocols\r\n");
        assert_eq!((g.phase, g.deadline), (Phase::Upgraded, None));
        g.wrote(b"frames");
        g.read(b"frames");
        assert_eq!(g.phase, Phase::Upgraded);
    }
}
