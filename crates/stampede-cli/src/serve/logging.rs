//! The server's log on stderr: one line per request, filtered by `RUST_LOG`.

use std::io::{self, IsTerminal};
use std::time::Instant;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

use super::MAX_METHOD_BYTES;

/// Installs the stderr log subscriber, unless one is installed already.
pub(super) fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Fails only if a subscriber is set already, which is fine.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        // A line that cannot be written is lost, and the server goes on: by default the
        // subscriber reported it with `eprintln!`, which panics when stderr fails, so a
        // server whose stderr was a closed pipe (`2>&1 | head -n 1`) or a full disk died at
        // its first request.
        .log_internal_errors(false)
        .with_ansi(io::stderr().is_terminal())
        .try_init();
}

/// Logs one line per request: method, path and query, status, latency (to
/// the response head). Overlong methods and URIs are cut short, so that one
/// line stays short.
pub(super) async fn log_request(request: Request, next: Next) -> Response {
    let method = clip(request.method().as_str(), 2 * MAX_METHOD_BYTES);
    let uri = clip(&request.uri().to_string(), 1024);
    let start = Instant::now();
    let response = next.run(request).await;
    tracing::info!(
        "{method} {uri} {} {:.1?}",
        response.status().as_u16(),
        start.elapsed()
    );
    response
}

/// `text`, or its first `max` characters and an ellipsis.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_cuts_long_text_only() {
        assert_eq!(clip("GET", 4), "GET");
        assert_eq!(clip("ABCDE", 4), "ABCD…");
        assert_eq!(clip("ééééé", 2), "éé…");
    }
}
