//! The `/api` router and the layers every answer goes through.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::HeaderValue;
use axum::http::header::{CACHE_CONTROL, RETRY_AFTER};
use axum::middleware;
use axum::routing::any;
use tower_http::cors::{AllowHeaders, AllowMethods, Any, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

use super::body_limit::limit_body;
use super::handlers::{flaky, health, log, not_found, outage, reset, slow, status};
use super::hints::PUSHBACK_HEADER;
use crate::serve::state::Store;

/// The `/api` router, with its CORS and body-limit layers, over `store`;
/// a request body must arrive in full within `body_timeout`.
pub(crate) fn router(store: Arc<Store>, body_timeout: Duration) -> Router {
    Router::new()
        .route("/flaky", any(flaky))
        .route("/status/{code}", any(status))
        .route("/outage", any(outage))
        .route("/slow", any(slow))
        .route("/log", any(log))
        .route("/reset", any(reset))
        .route("/health", any(health))
        .fallback(not_found)
        .with_state(store)
        .layer(middleware::from_fn_with_state(body_timeout, limit_body))
        // Inside the CORS and Cache-Control layers: its 405 is an API answer like any other
        // (outside them, a CONNECT to /api went without either).
        .layer(middleware::from_fn(super::error::no_tunnels))
        .layer(cors())
        // Outermost, so that preflights, 404s and 413s carry it too.
        .layer(SetResponseHeaderLayer::overriding(
            CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

/// CORS open to any origin, method and request header, exposing the hint
/// headers so that a page on another origin can read them.
///
/// The layer answers every `OPTIONS` request itself, as a preflight: an
/// `OPTIONS` request never reaches an endpoint, so it is never counted.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods(AllowMethods::mirror_request())
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([RETRY_AFTER, PUSHBACK_HEADER])
        .max_age(Duration::from_secs(600))
}
