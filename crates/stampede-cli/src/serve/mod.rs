//! `stampede serve`: the playground page and a demo API that fails on purpose.
//!
//! Retry strategies are easy to get wrong in ways that only show against a
//! real server: retrying a `POST` twice, ignoring `Retry-After`, hammering a
//! service that is down. The demo API fails the way production fails — a few
//! `503`s in a row, an outage that lasts a while, a slow answer, hints that say
//! when to come back — so that the playground's live panel and the end-to-end
//! tests have something real to talk to, and a server-side log to check what
//! a client actually sent.
//!
//! # Endpoints
//!
//! All answer JSON, to any method but `CONNECT` (a `405`: no tunnels), with CORS open to any
//! origin (see below).
//! A *key* names one independent scenario (1 to 200 bytes); the server counts
//! the requests for each key and logs them.
//!
//! | endpoint | answer |
//! | --- | --- |
//! | `/api/flaky?key=K&fail=N[&status=S][&retry_after=R][&pushback_ms=P]` | the first N (0 to 1000) requests for K fail with S (400 to 599, default 503) and `{"key":K,"attempt":n,"status":S}`, then `200 {"key":K,"attempt":n}` |
//! | `/api/status/{code}[?retry_after=R][&pushback_ms=P][&key=K]` | always `code` (200 to 599) with `{"status":code}` (no body for 204, 205 and 304) |
//! | `/api/outage?key=K&down_ms=D[&retry_after=R][&pushback_ms=P]` | `503` for D ms (0 to 600000) after K's first request, then `200 {"key":K,"attempt":n,"up":true}` |
//! | `/api/slow?ms=M[&key=K]` | `200 {"slept_ms":M}` after M ms (0 to 10000) |
//! | `/api/log?key=K` | `{"key":K,"entries":[{"t_ms":..,"unix_ms":..,"method":"GET","status":503},..]}`, oldest first |
//! | `/api/reset?key=K` | forgets K; `{"key":K,"reset":true}` |
//! | `/api/health` | `{"ok":true}` |
//!
//! `n` is the 1-based number of the request among all the requests recorded
//! for K. Requests to `flaky` and `outage` are always recorded; requests to
//! `status` and `slow` are recorded when they name a `key`. A request rejected
//! with `400` is not recorded. `t_ms` counts from the server's start.
//!
//! The hints go on failing answers (status 400 and up) only, `status`'s
//! included: `retry_after` becomes `Retry-After` (delta-seconds or an
//! HTTP-date, sent as given) and `pushback_ms` becomes `grpc-retry-pushback-ms`
//! (a signed 32-bit integer). A malformed hint is a `400` even where it would
//! not be sent.
//!
//! Bad input is a `400` with `{"error":"NAME: ..."}` naming the parameter (a
//! value that is not UTF-8 once percent-decoded, such as `key=%FF`, included:
//! it is refused, never decoded lossily into another key); an
//! unknown path under `/api` is a `404`, a body over [`MAX_BODY_BYTES`] a `413`,
//! a body not in full within [`BODY_TIMEOUT`] (10 s) a `408` (and the
//! connection is closed), all with the same JSON shape. The request method counts as a parameter
//! too: `flaky`, `status`, `outage` and `slow` answer a method longer than
//! [`MAX_METHOD_BYTES`] (16) with a `400` naming `method`, since the log
//! keeps it: every registered method fits but WebDAV's `UPDATEREDIRECTREF`.
//!
//! Every answer under `/api` carries `Cache-Control: no-store`.
//!
//! CORS: `Access-Control-Allow-Origin: *`, any method and request headers
//! (mirrored in preflights), and `Access-Control-Expose-Headers: retry-after,
//! grpc-retry-pushback-ms` on every answer. Every `OPTIONS` request is answered
//! as a preflight and never reaches an endpoint (so it is never counted).
//!
//! # Static files
//!
//! Everything outside `/api` comes from the static directory (Vite's build of
//! the page): hashed files under `assets/` are cached for a year as immutable,
//! everything else is `no-cache`. Answers are gzip- or brotli-compressed when
//! the client accepts it (`.wasm` included): a file the build compressed
//! (`name.br`, `name.gz` beside it) is sent as the build made it, and other
//! answers are compressed as they go only up to [`MAX_COMPRESSED_ON_THE_FLY`]
//! (64 KiB; a compressor's window is as large as its input). Without an `index.html`, `/`
//! answers a short page saying to run `make run`; the API works regardless.
//!
//! # Limits
//!
//! The state is bounded, whatever the clients send:
//!
//! - at most [`MAX_KEYS`] keys (10,000) of at most 200 bytes each;
//! - at most [`MAX_LOG_ENTRIES`] log entries per key (1,000; the key's oldest
//!   entry is dropped first, its request counter keeps counting);
//! - at most [`MAX_TOTAL_LOG_ENTRIES`] log entries in all (100,000).
//!
//! Past the limit on keys or on entries in all, the least recently *created*
//! key (other than the one being recorded) is evicted whole, so a key that
//! is evicted starts over. A log entry takes [`ENTRY_BYTES`] (32) bytes,
//! its method inline, and a key's log buffer has room for at most twice its
//! entries or 4, whichever is more; so the log buffers take at most
//! `(2 × 100,000 + 4 × 10,000) × 32` bytes = 7.68 MB. The keys themselves,
//! with the maps that find and order them, take under 512 bytes each, 5.12 MB
//! for 10,000: about 13 MB in the worst case, on top of the requests in flight
//! (each buffers a body of at most [`MAX_BODY_BYTES`], 64 KiB).
//!
//! # Connections
//!
//! The server holds up under clients that open connections and never finish
//! a request (the limits are [`Limits`], set by `stampede serve`'s flags):
//!
//! - a connection that has not sent a whole request header
//!   [`HEADER_TIMEOUT`] (5 s, `--header-timeout`) after it opened, or after
//!   its previous answer when kept alive, is closed unanswered: the same
//!   bound closes idle keep-alive connections;
//! - at most [`MAX_CONNECTIONS`] (512, `--max-connections`) connections are
//!   served at once; one more is answered, as soon as it has sent its request
//!   head, with `503` and `{"error":"connections: ..."}`, `Retry-After: 1`
//!   and `Connection: close`, and closed. A refusal gets [`REFUSAL_LINGER`]
//!   (1 s) at most, and at most [`MAX_REFUSING`] (64) are under way at once:
//!   past them, a connection is closed unanswered;
//! - when `accept` fails for want of file descriptors or memory, the server
//!   waits [`ACCEPT_BACKOFF`] (100 ms) and goes on accepting;
//! - `stampede serve` listens with a backlog of [`LISTEN_BACKLOG`] (1,024),
//!   not the usual 128, so that a burst of connections waits for the accept
//!   loop instead of losing its SYNs (which clients send again a second
//!   later).
//!
//! The demo API gives a request body [`BODY_TIMEOUT`] to arrive. Writing an
//! answer is timed by its progress: a client that stops reading (its socket's
//! buffer full) for [`WRITE_STALL`] (10 s) has its connection closed; one
//! that reads slowly keeps it, and counts against the cap.
//!
//! # Shutdown
//!
//! On Ctrl-C or SIGTERM the server stops accepting connections and gives the
//! requests in flight up to [`SHUTDOWN_GRACE`] (5 s) to finish; then it stops
//! anyway and the connections still open are closed unanswered (a
//! `/api/slow?ms=10000` caught by a shutdown is cut off after 5 s). A second
//! Ctrl-C or SIGTERM stops it at once. Either way `stampede serve` exits with
//! status 0.

mod api;
mod limits;
mod logging;
mod refuse;
mod server;
mod signals;
mod stall;
mod state;
mod static_files;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware;
use tokio::net::{TcpListener, TcpSocket};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};

pub use self::limits::{
    ACCEPT_BACKOFF, HEADER_TIMEOUT, HEADER_TIMEOUT_RANGE, LISTEN_BACKLOG, Limits,
    MAX_CONNECTION_LIFE, MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE, MAX_HEAD_BYTES, MAX_REFUSING,
    REFUSAL_LINGER, SHUTDOWN_GRACE, WRITE_STALL,
};
use self::logging::{init_tracing, log_request};
use self::signals::{count_signals, nth_signal};
use self::state::Store;
pub use self::state::{ENTRY_BYTES, MAX_METHOD_BYTES};

/// How many keys the demo API remembers at most; past that, the least
/// recently created key is forgotten.
pub const MAX_KEYS: usize = 10_000;

/// How many log entries the demo API keeps per key at most; past that, the
/// oldest entry is dropped (the key's request counter keeps counting).
pub const MAX_LOG_ENTRIES: usize = 1_000;

/// How many log entries the demo API keeps in all at most; past that, the
/// least recently created key (other than the one being recorded) is forgotten.
pub const MAX_TOTAL_LOG_ENTRIES: usize = 100_000;

/// The largest request body the demo API accepts, in bytes (64 KiB); a larger
/// one is answered `413 Payload Too Large`.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How long the demo API waits for a request body to arrive in full; past
/// it, the answer is `408 Request Timeout` and the connection is closed.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// What `stampede serve` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeOptions {
    /// The address to listen on, e.g. `127.0.0.1:8080`. It is bound as given.
    pub addr: SocketAddr,
    /// The directory holding the built page (`index.html`, `assets/`, ...).
    pub static_dir: PathBuf,
    /// The limits on connections.
    pub limits: Limits,
}

/// Limits of the demo API's state; [`AppConfig::default`] has the real ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppConfig {
    /// How many keys to remember at most (at least 1); see [`MAX_KEYS`].
    pub max_keys: usize,
    /// How many log entries to keep per key at most (at least 1); see
    /// [`MAX_LOG_ENTRIES`].
    pub max_log_entries: usize,
    /// How many log entries to keep in all at most (at least 1); see
    /// [`MAX_TOTAL_LOG_ENTRIES`].
    pub max_total_log_entries: usize,
    /// How long to wait for a request body in full; see [`BODY_TIMEOUT`].
    pub body_timeout: Duration,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self {
            max_keys: MAX_KEYS,
            max_log_entries: MAX_LOG_ENTRIES,
            max_total_log_entries: MAX_TOTAL_LOG_ENTRIES,
            body_timeout: BODY_TIMEOUT,
        }
    }
}

/// The largest answer compressed as it is sent (64 KiB): a compressor holds a window as
/// large as what it compresses (~0.4 MB for the 260 KB wasm, a connection at a time: 450
/// clients that never read held 219 MB). The page's big files come compressed from its
/// build instead (see `static_files`); one without that is sent as it is.
pub const MAX_COMPRESSED_ON_THE_FLY: u64 = 64 * 1024;

/// Whether an answer is small enough to compress as it is sent: its length is known, and at
/// most [`MAX_COMPRESSED_ON_THE_FLY`].
fn small_body(
    _: axum::http::StatusCode,
    _: axum::http::Version,
    headers: &axum::http::HeaderMap,
    _: &axum::http::Extensions,
) -> bool {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .is_some_and(|n| n <= MAX_COMPRESSED_ON_THE_FLY)
}

/// Builds the whole app (static files from `static_dir` and the demo API
/// under `/api`) with its own fresh state and the default limits.
pub fn app(static_dir: &Path) -> Router {
    app_with(static_dir, AppConfig::default())
}

/// Like [`app`], with the state's limits taken from `config`.
pub fn app_with(static_dir: &Path, config: AppConfig) -> Router {
    let store = Arc::new(Store::new(config));
    let api = api::router(store, config.body_timeout);
    Router::new()
        // `/api/` is the API's too (its JSON 404 and headers), not the static files'.
        .route_service("/api/", api.clone().into_service())
        .nest("/api", api)
        .fallback_service(static_files::router(static_dir))
        .layer(CompressionLayer::new().compress_when(DefaultPredicate::new().and(small_body)))
        .layer(middleware::from_fn(log_request))
}

/// Binds `opts.addr`, prints `stampede serve: http://ADDR/ (static: DIR)` to
/// stdout, and serves [`app`] within `opts.limits` until Ctrl-C or SIGTERM,
/// then shuts down gracefully: the requests in flight get up to
/// `opts.limits.grace` to finish, and a second Ctrl-C or SIGTERM stops the
/// server at once.
///
/// Logs one line per request to stderr, filtered by `RUST_LOG` (default
/// `info`).
///
/// # Errors
///
/// Fails if the signal handlers cannot be installed or the address cannot be
/// bound (the error names the address), or as [`serve`] does.
pub async fn run(opts: ServeOptions) -> io::Result<()> {
    init_tracing();
    // Listen for the signals before announcing the address, so that a
    // supervisor that reads the line and then signals gets a graceful stop.
    let signals = count_signals()?;
    let listener = listen(opts.addr)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", opts.addr)))?;
    announce(&listener, &opts.static_dir)?;
    serve_app(
        listener,
        app(&opts.static_dir),
        opts.limits,
        nth_signal(signals.clone(), 1),
        nth_signal(signals, 2),
    )
    .await
}

/// Serves [`app`] on `listener` with the default [`Limits`] until `shutdown`
/// completes, then gives the requests in flight up to [`SHUTDOWN_GRACE`] to
/// finish and returns. Prints the same line as [`run`] first.
///
/// [`run`] is this with a bound address and Ctrl-C/SIGTERM as `shutdown`;
/// tests use this to stop a server at a chosen moment.
///
/// # Errors
///
/// Fails only if the listener's local address cannot be read; failures of
/// single connections (or of accepting one) do not stop the server.
pub async fn serve(
    listener: TcpListener,
    static_dir: &Path,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    serve_with(
        listener,
        static_dir,
        shutdown,
        std::future::pending(),
        SHUTDOWN_GRACE,
    )
    .await
}

/// Like [`serve`], with the grace period `grace`, and stopping at once when
/// `force` completes after `shutdown` did.
///
/// When the grace period ends (or `force` completes) first, the connections
/// still open are closed unanswered, and this returns.
///
/// # Errors
///
/// As [`serve`].
pub async fn serve_with(
    listener: TcpListener,
    static_dir: &Path,
    shutdown: impl Future<Output = ()>,
    force: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()> {
    announce(&listener, static_dir)?;
    let limits = Limits {
        grace,
        ..Limits::default()
    };
    serve_app(listener, app(static_dir), limits, shutdown, force).await
}

/// Serves `router` (usually [`app`] or [`app_with`]) on `listener` within
/// `limits` until `shutdown` completes, then shuts down gracefully, stopping
/// at once when `force` completes after `shutdown` did; see
/// [Connections](self#connections). Prints nothing.
///
/// # Errors
///
/// None so far: failures of single connections, or of accepting one, do not
/// stop the server. The `Result` leaves room for setup that can fail.
pub async fn serve_app(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    force: impl Future<Output = ()>,
) -> io::Result<()> {
    server::serve_router(listener, router, limits, shutdown, force).await;
    Ok(())
}

/// Binds `addr` and listens with a backlog of [`LISTEN_BACKLOG`], with
/// `SO_REUSEADDR` on Unix as [`TcpListener::bind`] sets it (a restarted server
/// can bind again at once).
fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Prints the line that says where the server listens, and warns when there
/// is no page to serve.
fn announce(listener: &TcpListener, static_dir: &Path) -> io::Result<()> {
    let addr = listener.local_addr()?;
    if !static_dir.join("index.html").is_file() {
        tracing::warn!(
            "no index.html in {}: `/` answers a \"not built yet\" page (run `make run`)",
            static_dir.display()
        );
    }
    {
        // Not println!, which panics when stdout fails (`> /dev/full`): the banner is a
        // courtesy, and the server runs without it.
        use std::io::Write as _;
        let _ = writeln!(
            io::stdout(),
            "stampede serve: http://{addr}/ (static: {})",
            static_dir.display()
        );
    }
    Ok(())
}
