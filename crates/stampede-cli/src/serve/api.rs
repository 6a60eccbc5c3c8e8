//! The demo API under `/api`: endpoints that fail the way production fails.
//!
//! Every endpoint answers JSON, every bad parameter is a `400` whose `{"error":...}`
//! starts with the parameter's name, and every response carries open CORS
//! headers (see [`cors`]) and `Cache-Control: no-store`. See the
//! [module docs](super) for the endpoints.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, OriginalUri, Path, Query, Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_LENGTH, RETRY_AFTER};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use serde::Serialize;
use serde_json::json;
use tower_http::cors::{AllowHeaders, AllowMethods, Any, CorsLayer};
use tower_http::set_header::SetResponseHeaderLayer;

use super::MAX_BODY_BYTES;
use super::state::{LogEntry, MAX_METHOD_BYTES, MethodName, Seen, Store};

/// The gRPC retry-pushback hint header (milliseconds; negative means "do not retry").
const PUSHBACK_HEADER: HeaderName = HeaderName::from_static("grpc-retry-pushback-ms");
/// Longest key accepted, in bytes.
const MAX_KEY_BYTES: usize = 200;
/// Largest `fail` of `/api/flaky`.
const MAX_FAIL: u64 = 1_000;
/// Largest `down_ms` of `/api/outage` (ten minutes).
const MAX_DOWN_MS: u64 = 600_000;
/// Largest `ms` of `/api/slow`.
const MAX_SLOW_MS: u64 = 10_000;
/// How much of an oversized body is read and thrown away before answering
/// `413`, so that a client still writing its body gets to read the answer
/// instead of a connection reset. Bodies declared larger are refused unread.
const MAX_DRAIN_BYTES: usize = 1024 * 1024;

/// The `/api` router, with its CORS and body-limit layers, over `store`.
pub(crate) fn router(store: Arc<Store>) -> Router {
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
        .layer(middleware::from_fn(limit_body))
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

// ---------------------------------------------------------------------------
// Errors

/// An error answer: `status` with the JSON body `{"error": message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    /// A `400` about parameter `name`: the message reads `"{name}: {problem}"`.
    fn bad(name: &str, problem: impl std::fmt::Display) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: format!("{name}: {problem}"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

/// `value` quoted for an error message, cut short if long.
fn shown(value: &str) -> String {
    const MAX_CHARS: usize = 40;
    match value.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{:?}…", &value[..cut]),
        None => format!("{value:?}"),
    }
}

// ---------------------------------------------------------------------------
// Parameters

/// The query string as name/value pairs; the first occurrence of a name wins,
/// unknown names are ignored.
#[derive(Debug, Default)]
pub(crate) struct Params(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Query::<Vec<(String, String)>>::from_request_parts(parts, state).await {
            Ok(Query(pairs)) => Ok(Self(pairs)),
            Err(rejection) => Err(ApiError::bad("query", rejection.body_text())),
        }
    }
}

/// The request's method, as the log keeps it: at most [`MAX_METHOD_BYTES`]
/// bytes, or a `400` naming `method`.
pub(crate) struct Verb(MethodName);

impl<S: Send + Sync> FromRequestParts<S> for Verb {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        verb(&parts.method).map(Self)
    }
}

fn verb(method: &Method) -> Result<MethodName, ApiError> {
    MethodName::new(method).ok_or_else(|| {
        ApiError::bad(
            "method",
            format!(
                "expected at most {MAX_METHOD_BYTES} bytes, got {} bytes ({})",
                method.as_str().len(),
                shown(method.as_str())
            ),
        )
    })
}

/// Retry hints to send with a failing answer, already validated.
#[derive(Debug, Default, Clone)]
struct Hints {
    retry_after: Option<HeaderValue>,
    pushback_ms: Option<HeaderValue>,
}

impl Hints {
    /// These hints if `status` is a failure (400 and up), else none.
    fn for_status(self, status: StatusCode) -> Self {
        if status.is_client_error() || status.is_server_error() {
            self
        } else {
            Self::default()
        }
    }

    fn apply(&self, headers: &mut HeaderMap) {
        if let Some(value) = &self.retry_after {
            headers.insert(RETRY_AFTER, value.clone());
        }
        if let Some(value) = &self.pushback_ms {
            headers.insert(PUSHBACK_HEADER, value.clone());
        }
    }
}

impl Params {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The required `key`: 1 to [`MAX_KEY_BYTES`] bytes.
    fn key(&self) -> Result<String, ApiError> {
        self.optional_key()?.ok_or_else(|| {
            ApiError::bad(
                "key",
                format!("missing; expected 1 to {MAX_KEY_BYTES} bytes"),
            )
        })
    }

    /// `key` if given: 1 to [`MAX_KEY_BYTES`] bytes.
    fn optional_key(&self) -> Result<Option<String>, ApiError> {
        let Some(key) = self.get("key") else {
            return Ok(None);
        };
        if key.is_empty() {
            Err(ApiError::bad(
                "key",
                format!("expected 1 to {MAX_KEY_BYTES} bytes, got an empty key"),
            ))
        } else if key.len() > MAX_KEY_BYTES {
            Err(ApiError::bad(
                "key",
                format!(
                    "expected 1 to {MAX_KEY_BYTES} bytes, got {} bytes",
                    key.len()
                ),
            ))
        } else {
            Ok(Some(key.to_owned()))
        }
    }

    /// The required whole number `name`, in `0..=max`.
    fn number(&self, name: &str, max: u64) -> Result<u64, ApiError> {
        let expected = format!("a whole number from 0 to {max}");
        match self.get(name) {
            None => Err(ApiError::bad(name, format!("missing; expected {expected}"))),
            Some(raw) => parse_whole(raw).filter(|n| *n <= max).ok_or_else(|| {
                ApiError::bad(name, format!("expected {expected}, got {}", shown(raw)))
            }),
        }
    }

    /// `/api/flaky`'s `status`: a failing status, 400 to 599, default 503.
    fn failing_status(&self) -> Result<StatusCode, ApiError> {
        let Some(raw) = self.get("status") else {
            return Ok(StatusCode::SERVICE_UNAVAILABLE);
        };
        parse_whole(raw)
            .filter(|code| (400..=599).contains(code))
            .and_then(|code| u16::try_from(code).ok())
            .and_then(|code| StatusCode::from_u16(code).ok())
            .ok_or_else(|| {
                ApiError::bad(
                    "status",
                    format!(
                        "expected a failing HTTP status from 400 to 599, got {}",
                        shown(raw)
                    ),
                )
            })
    }

    /// The optional hints `retry_after` (delta-seconds or an HTTP-date) and
    /// `pushback_ms` (a signed 32-bit integer).
    fn hints(&self) -> Result<Hints, ApiError> {
        let retry_after = self
            .get("retry_after")
            .map(|raw| {
                let valid = parse_whole(raw).is_some() || httpdate::parse_http_date(raw).is_ok();
                valid
                    .then(|| HeaderValue::from_str(raw).ok())
                    .flatten()
                    .ok_or_else(|| {
                        ApiError::bad(
                            "retry_after",
                            format!(
                                "expected delta-seconds (digits) or an HTTP-date such as \
                                 \"Wed, 21 Oct 2015 07:28:00 GMT\", got {}",
                                shown(raw)
                            ),
                        )
                    })
            })
            .transpose()?;
        let pushback_ms = self
            .get("pushback_ms")
            .map(|raw| {
                raw.parse::<i32>().map(HeaderValue::from).map_err(|_| {
                    ApiError::bad(
                        "pushback_ms",
                        format!("expected a signed 32-bit integer, got {}", shown(raw)),
                    )
                })
            })
            .transpose()?;
        Ok(Hints {
            retry_after,
            pushback_ms,
        })
    }
}

/// A string of ASCII digits as a number (no sign, no spaces, no overflow).
fn parse_whole(raw: &str) -> Option<u64> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// `/api/status/{code}`'s code: a final HTTP status, 200 to 599.
fn final_status(raw: &str) -> Result<StatusCode, ApiError> {
    parse_whole(raw)
        .filter(|code| (200..=599).contains(code))
        .and_then(|code| u16::try_from(code).ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .ok_or_else(|| {
            ApiError::bad(
                "code",
                format!(
                    "expected an HTTP status from 200 to 599 (1xx is not a final status), got {}",
                    shown(raw)
                ),
            )
        })
}

// ---------------------------------------------------------------------------
// Responses

/// `status` with a JSON body and the hint headers.
fn answer(status: StatusCode, body: impl Serialize, hints: &Hints) -> Response {
    let mut response = (status, Json(body)).into_response();
    hints.apply(response.headers_mut());
    response
}

#[derive(Serialize)]
struct Attempt<'a> {
    key: &'a str,
    attempt: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    up: Option<bool>,
}

// ---------------------------------------------------------------------------
// Endpoints

type Shared = State<Arc<Store>>;

/// `/api/flaky?key=K&fail=N[&status=S][&retry_after=..][&pushback_ms=..]`:
/// the first N requests for K fail with S (default 503), then 200.
async fn flaky(
    State(store): Shared,
    Verb(method): Verb,
    params: Params,
) -> Result<Response, ApiError> {
    let key = params.key()?;
    let fail = params.number("fail", MAX_FAIL)?;
    let failing = params.failing_status()?;
    let hints = params.hints()?;
    let (seen, status) = store.record(&key, method, |seen: Seen| {
        if seen.attempt <= fail {
            failing
        } else {
            StatusCode::OK
        }
    });
    let failed = status != StatusCode::OK;
    let body = Attempt {
        key: &key,
        attempt: seen.attempt,
        status: failed.then_some(status.as_u16()),
        up: None,
    };
    Ok(answer(status, body, &hints.for_status(status)))
}

/// `/api/status/{code}[?retry_after=..][&pushback_ms=..][&key=K]`: always `code`.
async fn status(
    State(store): Shared,
    Verb(method): Verb,
    code: Result<Path<String>, PathRejection>,
    params: Params,
) -> Result<Response, ApiError> {
    let code = match code {
        Ok(Path(code)) => final_status(&code)?,
        Err(rejection) => return Err(ApiError::bad("code", rejection.body_text())),
    };
    let hints = params.hints()?.for_status(code);
    if let Some(key) = params.optional_key()? {
        store.record(&key, method, |_| code);
    }
    let no_body = matches!(
        code,
        StatusCode::NO_CONTENT | StatusCode::RESET_CONTENT | StatusCode::NOT_MODIFIED
    );
    Ok(if no_body {
        let mut response = code.into_response();
        hints.apply(response.headers_mut());
        response
    } else {
        answer(code, json!({ "status": code.as_u16() }), &hints)
    })
}

/// `/api/outage?key=K&down_ms=D[&retry_after=..][&pushback_ms=..]`: 503 for D ms
/// after K's first request, then 200.
async fn outage(
    State(store): Shared,
    Verb(method): Verb,
    params: Params,
) -> Result<Response, ApiError> {
    let key = params.key()?;
    let down = Duration::from_millis(params.number("down_ms", MAX_DOWN_MS)?);
    let hints = params.hints()?;
    let (seen, status) = store.record(&key, method, |seen: Seen| {
        if seen.since_first < down {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::OK
        }
    });
    let up = status == StatusCode::OK;
    let body = Attempt {
        key: &key,
        attempt: seen.attempt,
        status: (!up).then_some(status.as_u16()),
        up: Some(up),
    };
    Ok(answer(status, body, &hints.for_status(status)))
}

/// `/api/slow?ms=M[&key=K]`: 200 after M ms (at most 10 s).
async fn slow(
    State(store): Shared,
    Verb(method): Verb,
    params: Params,
) -> Result<Response, ApiError> {
    let ms = params.number("ms", MAX_SLOW_MS)?;
    if let Some(key) = params.optional_key()? {
        store.record(&key, method, |_| StatusCode::OK);
    }
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(Json(json!({ "slept_ms": ms })).into_response())
}

/// `/api/log?key=K`: what the server received for K, in arrival order.
async fn log(State(store): Shared, params: Params) -> Result<Response, ApiError> {
    let key = params.key()?;
    #[derive(Serialize)]
    struct KeyLog<'a> {
        key: &'a str,
        entries: Vec<LogEntry>,
    }
    let entries = store.log(&key);
    Ok(Json(KeyLog { key: &key, entries }).into_response())
}

/// `/api/reset?key=K`: forgets K.
async fn reset(State(store): Shared, params: Params) -> Result<Response, ApiError> {
    let key = params.key()?;
    #[derive(Serialize)]
    struct Reset<'a> {
        key: &'a str,
        reset: bool,
    }
    store.reset(&key);
    Ok(Json(Reset {
        key: &key,
        reset: true,
    })
    .into_response())
}

/// `/api/health`: `{"ok":true}`.
async fn health() -> Json<serde_json::Value> {
    Json(json!({ "ok": true }))
}

/// Any other path under `/api`.
async fn not_found(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such endpoint: {}", uri.path()),
    }
}

// ---------------------------------------------------------------------------
// Body limit

/// Why a request body was refused.
#[derive(Debug)]
enum BodyError {
    TooLarge,
    Unreadable(axum::Error),
}

/// Buffers the request body, answering `413` past [`MAX_BODY_BYTES`].
///
/// This holds whether or not the endpoint reads the body, and whether the
/// body's length is declared or chunked.
async fn limit_body(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let result = match declared {
        Some(len) if len > MAX_DRAIN_BYTES as u64 => Err(BodyError::TooLarge),
        _ => read_body(body, MAX_BODY_BYTES).await,
    };
    match result {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(BodyError::TooLarge) => ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!("body: larger than the limit of {MAX_BODY_BYTES} bytes"),
        }
        .into_response(),
        Err(BodyError::Unreadable(error)) => {
            ApiError::bad("body", format_args!("could not be read: {error}")).into_response()
        }
    }
}

/// Reads `body` whole if it is at most `limit` bytes; past that, throws away
/// up to [`MAX_DRAIN_BYTES`] in all and reports it too large.
async fn read_body(mut body: Body, limit: usize) -> Result<Bytes, BodyError> {
    let mut buffer = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(BodyError::Unreadable)?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        total = total.saturating_add(data.len());
        if total > limit {
            while total <= MAX_DRAIN_BYTES {
                match poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
                    Some(Ok(frame)) => {
                        let len = frame.data_ref().map_or(0, Bytes::len);
                        total = total.saturating_add(len);
                    }
                    Some(Err(_)) | None => break,
                }
            }
            return Err(BodyError::TooLarge);
        }
        buffer.extend_from_slice(&data);
    }
    Ok(Bytes::from(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn whole_numbers_are_plain_digits() {
        assert_eq!(parse_whole("0"), Some(0));
        assert_eq!(parse_whole("007"), Some(7));
        for bad in [
            "",
            "+1",
            "-1",
            " 1",
            "1 ",
            "1.0",
            "1e3",
            "x",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_whole(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn number_errors_name_the_parameter() {
        let p = params(&[("fail", "x")]);
        assert_eq!(
            p.number("fail", 1000).unwrap_err().message,
            r#"fail: expected a whole number from 0 to 1000, got "x""#
        );
        assert!(
            p.number("down_ms", 5)
                .unwrap_err()
                .message
                .starts_with("down_ms: missing")
        );
        assert_eq!(params(&[("fail", "1000")]).number("fail", 1000), Ok(1000));
        assert!(params(&[("fail", "1001")]).number("fail", 1000).is_err());
    }

    #[test]
    fn first_occurrence_wins() {
        let p = params(&[("fail", "1"), ("fail", "x")]);
        assert_eq!(p.number("fail", 1000), Ok(1));
    }

    #[test]
    fn hints_are_validated() {
        let ok = params(&[
            ("retry_after", "Wed, 21 Oct 2015 07:28:00 GMT"),
            ("pushback_ms", "-1"),
        ]);
        let hints = ok.hints().unwrap();
        assert_eq!(hints.retry_after.unwrap(), "Wed, 21 Oct 2015 07:28:00 GMT");
        assert_eq!(hints.pushback_ms.unwrap(), "-1");
        assert_eq!(
            params(&[("retry_after", "120")])
                .hints()
                .unwrap()
                .retry_after
                .unwrap(),
            "120"
        );
        for bad in ["", "-1", "1.5", "soon", "Wed, 32 Oct 2015 07:28:00 GMT"] {
            let error = params(&[("retry_after", bad)]).hints().unwrap_err();
            assert!(
                error.message.starts_with("retry_after: "),
                "{bad:?}: {error:?}"
            );
        }
        for bad in ["", "2147483648", "1.0", "x"] {
            let error = params(&[("pushback_ms", bad)]).hints().unwrap_err();
            assert!(
                error.message.starts_with("pushback_ms: "),
                "{bad:?}: {error:?}"
            );
        }
    }

    #[test]
    fn keys_are_bounded() {
        assert_eq!(params(&[]).optional_key(), Ok(None));
        assert!(
            params(&[])
                .key()
                .unwrap_err()
                .message
                .starts_with("key: missing")
        );
        assert!(params(&[("key", "")]).key().is_err());
        let long = "k".repeat(MAX_KEY_BYTES);
        assert_eq!(params(&[("key", &long)]).key(), Ok(long.clone()));
        let longer = format!("{long}k");
        assert!(params(&[("key", &longer)]).key().is_err());
    }

    #[test]
    fn statuses_are_checked() {
        assert_eq!(final_status("204"), Ok(StatusCode::NO_CONTENT));
        assert_eq!(final_status("599").map(|s| s.as_u16()), Ok(599));
        for bad in ["100", "199", "600", "0", "abc", ""] {
            assert!(
                final_status(bad).unwrap_err().message.starts_with("code: "),
                "{bad:?}"
            );
        }
        assert_eq!(
            params(&[]).failing_status(),
            Ok(StatusCode::SERVICE_UNAVAILABLE)
        );
        assert_eq!(
            params(&[("status", "429")]).failing_status(),
            Ok(StatusCode::TOO_MANY_REQUESTS)
        );
        for bad in ["200", "399", "600", "x"] {
            let error = params(&[("status", bad)]).failing_status().unwrap_err();
            assert!(error.message.starts_with("status: "), "{bad:?}");
        }
    }

    #[test]
    fn methods_are_bounded() {
        assert!(verb(&Method::PATCH).is_ok());
        let longest = Method::from_bytes(b"BASELINE-CONTROL").unwrap();
        assert_eq!(verb(&longest).unwrap().as_str(), "BASELINE-CONTROL");
        let longer = Method::from_bytes(b"UPDATEREDIRECTREF").unwrap();
        assert_eq!(
            verb(&longer).unwrap_err().message,
            r#"method: expected at most 16 bytes, got 17 bytes ("UPDATEREDIRECTREF")"#
        );
    }

    #[test]
    fn hints_go_with_failures_only() {
        let hints = params(&[("retry_after", "3"), ("pushback_ms", "10")])
            .hints()
            .unwrap();
        for code in [200u16, 201, 204, 301, 304, 399] {
            let status = StatusCode::from_u16(code).unwrap();
            let kept = hints.clone().for_status(status);
            assert!(
                kept.retry_after.is_none() && kept.pushback_ms.is_none(),
                "{code}"
            );
        }
        for code in [400u16, 429, 500, 503, 599] {
            let status = StatusCode::from_u16(code).unwrap();
            let kept = hints.clone().for_status(status);
            assert!(
                kept.retry_after.is_some() && kept.pushback_ms.is_some(),
                "{code}"
            );
        }
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = "é".repeat(100);
        let shown = shown(&long);
        assert!(shown.chars().count() < 50, "{shown}");
        assert_eq!(super::shown("x"), r#""x""#);
    }
}
