//! The accept loop and each connection's life: what keeps the server up under
//! hostile clients.
//!
//! `axum::serve` accepts every connection and keeps it as long as the client
//! likes. 2,000 sockets that never finish a request header were held forever
//! (RSS 4.5 → 47 MB), and under `ulimit -n 1024` 1,100 of them made `accept`
//! fail and `/api/health` time out. This loop drives hyper itself and bounds
//! every way a client can hold the server's resources:
//!
//! - **Header timeout.** A connection must deliver a whole request header
//!   within [`Limits::header_timeout`] of the server starting to wait for one,
//!   or it is closed unanswered. hyper starts that clock on accept and again
//!   after each answer on a kept-alive connection, so the same bound closes
//!   idle keep-alive connections; a client trickling a header byte by byte
//!   gets no more time than one that sends nothing.
//! - **Connection cap.** At most [`Limits::max_connections`] connections are
//!   served at once. One past the cap is accepted, and once it has sent its
//!   request head it is answered with a short `503` carrying
//!   `Retry-After: 1` and `Connection: close` (see [`Refusal`]), by at most
//!   [`MAX_REFUSING`] refusals at a time, each given
//!   [`REFUSAL_LINGER`](super::REFUSAL_LINGER) at most; past those too, it
//!   is closed at once. Either
//!   way the accept queue keeps draining, so a client that arrives when a slot
//!   frees up is served, not stuck behind the ones that were refused.
//! - **Stalled answers.** Writing an answer that makes no progress for
//!   [`Limits::write_stall`] (the client stopped reading) closes the
//!   connection (see [`StallTimeout`]).
//! - **Connection life.** A connection is served for [`Limits::max_life`] at
//!   most: then its request in flight is answered and it is closed, whatever
//!   it has pipelined behind.
//! - **Accept errors.** Running out of file descriptors (`EMFILE`, `ENFILE`)
//!   or memory makes `accept` fail until a connection closes. The loop logs it
//!   (at most once a second), waits [`ACCEPT_BACKOFF`] and goes on: it neither
//!   stops nor spins.
//! - **Shutdown.** The loop stops accepting, asks every connection to close
//!   once its request in flight is answered, and waits up to
//!   [`Limits::grace`]; the connections still open then are closed unanswered.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;

use super::Limits;
use super::MAX_HEAD_BYTES;
use super::limits::{ACCEPT_BACKOFF, MAX_REFUSING};
use super::refuse::Refusal;
use super::stall::StallTimeout;

/// How often a burst of refusals or accept errors is logged at most.
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` within `limits` until `shutdown` completes,
/// then drains as the module docs say; `force` completing after `shutdown`
/// stops the draining at once.
pub(super) async fn serve_router(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    force: impl Future<Output = ()>,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // Not `half_close(true)`: a client that shuts its side after its request (`printf … |
        // nc -N`) gets no answer, but one that hangs up mid-request frees its place at once;
        // with it, fire-and-forget requests to /api/slow held all 512 places with no socket
        // open on the client's side.
        .max_buf_size(MAX_HEAD_BYTES);
    let cap = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let serving = Arc::new(Semaphore::new(cap));
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let refusal = Refusal::new(cap);
    let (stop, stopping) = watch::channel(false);
    // Every connection's task: dropping the set aborts those still running,
    // which closes their sockets.
    let mut tasks = JoinSet::new();
    let mut refusals = Report::default();
    let mut accept_errors = Report::default();
    let mut shutdown = pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                if let Err(error) = done {
                    if error.is_panic() {
                        tracing::error!("a connection's task panicked: {error}");
                    }
                }
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                // The client gave up before its connection was accepted.
                Err(error) if is_about_one_connection(&error) => continue,
                Err(error) => {
                    if let Some(count) = accept_errors.note() {
                        tracing::warn!(
                            "cannot accept connections ({count} failures since the last \
                             report): {error}; retrying every {ACCEPT_BACKOFF:?}"
                        );
                    }
                    tokio::select! {
                        () = &mut shutdown => break,
                        () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    }
                }
            },
        };
        if let Ok(permit) = Arc::clone(&serving).try_acquire_owned() {
            let connection = serve_connection(
                stream,
                http.clone(),
                router.clone(),
                limits.write_stall,
                limits.max_life,
                stopping.clone(),
                permit,
            );
            tasks.spawn(connection);
            continue;
        }
        let refused = match Arc::clone(&refusing).try_acquire_owned() {
            Ok(slot) => {
                tasks.spawn(refusal.clone().send(stream, slot));
                "gets a 503 once it has sent its request"
            }
            Err(_) => {
                drop(stream);
                "closed at once"
            }
        };
        if let Some(count) = refusals.note() {
            tracing::warn!(
                "at the limit of {cap} connections: refused {count} since the last report \
                 (this one {refused})"
            );
        }
    }
    drop(listener);
    // Receivers only fail once the sender is dropped, which it is not yet.
    let _ = stop.send(true);
    tokio::select! {
        () = async { while tasks.join_next().await.is_some() {} } => {
            tracing::info!("stopped");
        }
        () = tokio::time::sleep(limits.grace) => {
            tracing::warn!("stopped with requests still in flight after {:?}", limits.grace);
        }
        () = force => {
            tracing::warn!("stopped at once, without the requests in flight");
        }
    }
    tasks.abort_all();
}

/// Serves HTTP/1.1 on one connection until it closes, or until `stopping`
/// turns true and the request in flight, if any, is answered, or until an
/// answer's writing has made no progress for `write_stall`, or once it has
/// been served for `max_life` and its request in flight is answered. `_permit` is
/// the connection's place under the cap, given back when this ends.
async fn serve_connection(
    stream: TcpStream,
    http: http1::Builder,
    router: Router,
    write_stall: Duration,
    max_life: Duration,
    mut stopping: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    // An error means the loop is gone; its tasks are being aborted anyway.
    let stop_requested = async move {
        let _ = stopping.wait_for(|stop| *stop).await;
    };
    // Small answers go out at once rather than waiting on Nagle's algorithm.
    let _ = stream.set_nodelay(true);
    let stream = StallTimeout::new(stream, write_stall);
    let connection = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router));
    let mut connection = pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = stop_requested => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
        () = tokio::time::sleep(max_life) => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        // A header timeout, a client that went away, a malformed request:
        // nothing the server could do better.
        tracing::debug!("connection closed: {error}");
    }
}

/// Whether an `accept` error concerns only the connection being accepted
/// (the next one may well succeed), rather than the server's resources.
fn is_about_one_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
    )
}

/// Counts events of one kind and says when to log them: the first at once,
/// then at most once per [`REPORT_EVERY`], with how many happened since.
#[derive(Debug, Default)]
struct Report {
    last: Option<Instant>,
    count: u64,
}

impl Report {
    /// Counts one event; returns the count to log, if it is time to.
    fn note(&mut self) -> Option<u64> {
        self.count += 1;
        let now = Instant::now();
        if self.last.is_some_and(|last| now < last + REPORT_EVERY) {
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_first_event_then_at_most_once_per_interval() {
        let mut report = Report::default();
        assert_eq!(report.note(), Some(1));
        assert_eq!(report.note(), None);
        assert_eq!(report.note(), None);
        report.last = report.last.map(|last| last - REPORT_EVERY);
        assert_eq!(report.note(), Some(3), "the two held back, and this one");
        assert_eq!(report.note(), None);
    }

    #[test]
    fn only_connection_level_errors_are_retried_at_once() {
        for kind in [
            io::ErrorKind::ConnectionAborted,
            io::ErrorKind::ConnectionRefused,
            io::ErrorKind::ConnectionReset,
        ] {
            assert!(is_about_one_connection(&io::Error::from(kind)), "{kind:?}");
        }
        // EMFILE: "too many open files".
        let emfile = io::Error::from_raw_os_error(24);
        assert!(!is_about_one_connection(&emfile));
        assert!(!is_about_one_connection(&io::Error::from(
            io::ErrorKind::OutOfMemory
        )));
    }
}
