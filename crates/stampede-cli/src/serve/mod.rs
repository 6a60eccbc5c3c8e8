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
//! All answer JSON, to any method, with CORS open to any origin (see below).
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
//! The hints go on failing answers only: `retry_after` becomes `Retry-After`
//! (delta-seconds or an HTTP-date, sent as given) and `pushback_ms` becomes
//! `grpc-retry-pushback-ms` (a signed 32-bit integer).
//!
//! Bad input is a `400` with `{"error":"NAME: ..."}` naming the parameter; an
//! unknown path under `/api` is a `404`, a body over [`MAX_BODY_BYTES`] a `413`,
//! both with the same JSON shape.
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
//! the client accepts it (`.wasm` included). Without an `index.html`, `/`
//! answers a short page saying to run `make run`; the API works regardless.
//!
//! # Limits
//!
//! The state is bounded: [`MAX_KEYS`] keys (the least recently created is
//! evicted first), [`MAX_LOG_ENTRIES`] log entries per key (the oldest is
//! dropped first), request bodies of [`MAX_BODY_BYTES`].

mod api;
mod state;
mod static_files;

use std::future::Future;
use std::io::{self, IsTerminal};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;

use self::state::Store;

/// How many keys the demo API remembers at most; past that, the least
/// recently created key is forgotten.
pub const MAX_KEYS: usize = 10_000;

/// How many log entries the demo API keeps per key at most; past that, the
/// oldest entry is dropped (the key's request counter keeps counting).
pub const MAX_LOG_ENTRIES: usize = 1_000;

/// The largest request body the demo API accepts, in bytes (64 KiB); a larger
/// one is answered `413 Payload Too Large`.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// What `stampede serve` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeOptions {
    /// The address to listen on, e.g. `127.0.0.1:8080`. It is bound as given.
    pub addr: SocketAddr,
    /// The directory holding the built page (`index.html`, `assets/`, ...).
    pub static_dir: PathBuf,
}

/// Limits of the demo API's state; [`AppConfig::default`] has the real ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppConfig {
    /// How many keys to remember at most (at least 1); see [`MAX_KEYS`].
    pub max_keys: usize,
    /// How many log entries to keep per key at most (at least 1); see
    /// [`MAX_LOG_ENTRIES`].
    pub max_log_entries: usize,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self {
            max_keys: MAX_KEYS,
            max_log_entries: MAX_LOG_ENTRIES,
        }
    }
}

/// Builds the whole app (static files from `static_dir` and the demo API
/// under `/api`) with its own fresh state and the default limits.
pub fn app(static_dir: &Path) -> Router {
    app_with(static_dir, AppConfig::default())
}

/// Like [`app`], with the state's limits taken from `config`.
pub fn app_with(static_dir: &Path, config: AppConfig) -> Router {
    let store = Arc::new(Store::new(config));
    Router::new()
        .nest("/api", api::router(store))
        .fallback_service(static_files::router(static_dir))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(log_request))
}

/// Binds `opts.addr`, prints `stampede serve: http://ADDR/ (static: DIR)` to
/// stdout, and serves [`app`] until Ctrl-C or SIGTERM, then shuts down
/// gracefully (in-flight requests are answered first).
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
    let shutdown = shutdown_signal()?;
    let listener = TcpListener::bind(opts.addr)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", opts.addr)))?;
    serve(listener, &opts.static_dir, shutdown).await
}

/// Serves [`app`] on `listener` until `shutdown` completes, then finishes the
/// requests in flight and returns. Prints the same line as [`run`] first.
///
/// [`run`] is this with a bound address and Ctrl-C/SIGTERM as `shutdown`;
/// tests use it to stop a server at a chosen moment.
///
/// # Errors
///
/// Fails only if the listener's local address cannot be read; failures of
/// single connections (or of accepting one) do not stop the server.
pub async fn serve(
    listener: TcpListener,
    static_dir: &Path,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let addr = listener.local_addr()?;
    if !static_dir.join("index.html").is_file() {
        tracing::warn!(
            "no index.html in {}: `/` answers a \"not built yet\" page (run `make run`)",
            static_dir.display()
        );
    }
    println!(
        "stampede serve: http://{addr}/ (static: {})",
        static_dir.display()
    );
    axum::serve(listener, app(static_dir))
        .with_graceful_shutdown(shutdown)
        .await?;
    tracing::info!("stopped");
    Ok(())
}

/// Installs the stderr log subscriber, unless one is installed already.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Fails only if a subscriber is set already, which is fine.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(io::stderr().is_terminal())
        .try_init();
}

/// A future that completes on the first SIGINT (Ctrl-C) or SIGTERM.
///
/// The signal handlers are installed by this call, not when the future is
/// first polled.
fn shutdown_signal() -> io::Result<impl Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            let name = tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            };
            tracing::info!("{name}: shutting down after the requests in flight");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            tracing::info!("Ctrl-C: shutting down after the requests in flight");
        })
    }
}

/// Logs one line per request: method, path and query, status, latency (to
/// the response head).
async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let start = Instant::now();
    let response = next.run(request).await;
    tracing::info!(
        "{method} {uri} {} {:.1?}",
        response.status().as_u16(),
        start.elapsed()
    );
    response
}
