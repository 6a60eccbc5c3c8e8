//! How the server treats connections: how long a client may take to send a
//! request header, how many connections are served at once, how long a
//! shutdown waits. Their defaults and ranges live here, and nowhere else: the
//! `stampede serve` flags read them from this file.

use std::ops::RangeInclusive;
use std::time::Duration;

/// How long a connection may take to deliver a whole request header, counted
/// from when the server starts waiting for one: from the accept, and on a
/// kept-alive connection from the end of the previous answer. Past it the
/// connection is closed unanswered, so the same bound closes idle keep-alive
/// connections.
///
/// Five seconds is what Node's HTTP server gives an idle keep-alive
/// connection; a real client sends its header in one packet, well within it.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// The header timeouts `--header-timeout` accepts: from 10 ms (for tests) to
/// ten minutes.
pub const HEADER_TIMEOUT_RANGE: RangeInclusive<Duration> =
    Duration::from_millis(10)..=Duration::from_secs(600);

/// How many connections the server serves at once by default. Each holds a
/// file descriptor (and a static file being sent, another), so 512 stays well
/// inside the common `ulimit -n 1024`.
pub const MAX_CONNECTIONS: usize = 512;

/// The connection caps `--max-connections` accepts.
pub const MAX_CONNECTIONS_RANGE: RangeInclusive<usize> = 1..=100_000;

/// How many connections past the cap may be getting their refusal (a `503`)
/// at once; past that, one more is closed unanswered.
pub const MAX_REFUSING: usize = 64;

/// How long a refusal may take in all: writing the `503`, then reading what
/// the client sent until it closes. Past it the connection is dropped.
pub const REFUSAL_LINGER: Duration = Duration::from_secs(1);

/// How long the server waits after `accept` failed for want of a resource
/// (file descriptors, memory) before it tries again.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How many connections the kernel may hold for `stampede serve` before it
/// accepts them (the `listen` backlog; Linux caps it at `net.core.somaxconn`).
/// The standard library and tokio ask for 128, which a burst of clients
/// overflows while the server is busy; a dropped SYN is sent again only a
/// second later.
pub const LISTEN_BACKLOG: u32 = 1024;

/// How long the requests in flight get to finish once a shutdown starts.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long writing an answer may make no progress (the client not reading it) before
/// the connection is closed. Any progress restarts it: a slow reader keeps its connection,
/// one that stopped reading does not keep its place under the cap.
pub const WRITE_STALL: Duration = Duration::from_secs(10);

/// How long one connection is served in all. Past it, the request in flight is answered
/// and the connection closed (requests pipelined behind it go unanswered: the client sends
/// them again on a new connection, as HTTP/1.1 clients do when a server closes). Without
/// it, one write of 20,000 pipelined `/api/slow?ms=10000` requests held a place under the
/// cap for 55 hours, and 512 such sockets would shut everyone else out for that long.
pub const MAX_CONNECTION_LIFE: Duration = Duration::from_secs(60);

/// hyper's read buffer for a request's head (its line and headers), in bytes: a head still
/// incomplete when the buffer holds this much is answered `431` and the connection closed.
/// hyper checks between reads, so a head that arrives in one read may pass it by up to a
/// read's size (measured: 48,000 bytes passed 27 times in 30, 56,000 never). hyper's
/// default, ~400 KB, let each of 300 connections trickling an endless header hold 0.4 MB
/// until the header timeout (130 MB in all, measured); at 32 KiB (nginx's default for large
/// headers), 512 connections hold some 30 MB at most.
pub const MAX_HEAD_BYTES: usize = 32 * 1024;

/// The server's limits on connections; [`Limits::default`] has the real ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// How many connections are served at once (at least 1); see
    /// [`MAX_CONNECTIONS`]. One past the cap is refused (see
    /// [the module docs](super#connections)).
    pub max_connections: usize,
    /// How long the requests in flight get to finish once a shutdown starts;
    /// see [`SHUTDOWN_GRACE`].
    pub grace: Duration,
    /// See [`WRITE_STALL`].
    pub write_stall: Duration,
    /// See [`MAX_CONNECTION_LIFE`].
    pub max_life: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: HEADER_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            grace: SHUTDOWN_GRACE,
            write_stall: WRITE_STALL,
            max_life: MAX_CONNECTION_LIFE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_their_ranges() {
        let limits = Limits::default();
        assert!(HEADER_TIMEOUT_RANGE.contains(&limits.header_timeout));
        assert!(MAX_CONNECTIONS_RANGE.contains(&limits.max_connections));
    }
}
