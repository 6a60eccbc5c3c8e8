//! A connection whose client stops reading is closed: writes that make no progress for
//! [`Limits::write_stall`](super::Limits::write_stall) fail with `TimedOut`.
//!
//! hyper writes an answer for as long as the socket accepts bytes. A client that sends
//! requests (pipelined, or one asking for a big file) and never reads the answers fills
//! the socket's send buffer, and every write then waits for good: the connection kept its
//! place under the cap forever (4 such clients locked out a server capped at 4, measured).
//! Any progress restarts the clock, so a slow but live reader keeps its connection.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Sleep, sleep};

/// `S` whose writes fail once stalled for `limit`.
pub(super) struct StallTimeout<S> {
    inner: S,
    limit: Duration,
    /// Armed while a write waits: it fires `limit` after the write first waited.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> StallTimeout<S> {
    pub(super) fn new(inner: S, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stalled: None,
        }
    }

    /// What a write returned: progress disarms the clock; a wait arms it (once) and fails
    /// the write when it has waited `limit`.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let limit = self.limit;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(sleep(limit)));
        ready!(timer.as_mut().poll(cx));
        self.stalled = None;
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client has not read its answer",
        )))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for StallTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for StallTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.watch(cx, polled)
    }
}
