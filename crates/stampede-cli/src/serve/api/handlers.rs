//! The endpoints: each reads its parameters, records the request when it
//! counts, and answers.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{OriginalUri, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use super::error::{ApiError, shown};
use super::hints::Hints;
use super::params::{Params, Verb, final_status};
use crate::serve::state::{LogEntry, Seen, Store};

/// Largest `fail` of `/api/flaky`.
const MAX_FAIL: u64 = 1_000;
/// Largest `down_ms` of `/api/outage` (ten minutes).
const MAX_DOWN_MS: u64 = 600_000;
/// Largest `ms` of `/api/slow`.
const MAX_SLOW_MS: u64 = 10_000;

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

type Shared = State<Arc<Store>>;

/// `/api/flaky?key=K&fail=N[&status=S][&retry_after=..][&pushback_ms=..]`:
/// the first N requests for K fail with S (default 503), then 200.
pub(super) async fn flaky(
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
pub(super) async fn status(
    State(store): Shared,
    Verb(method): Verb,
    OriginalUri(uri): OriginalUri,
    code: Result<Path<String>, PathRejection>,
    params: Params,
) -> Result<Response, ApiError> {
    let code = match code {
        Ok(Path(code)) => final_status(&code)?,
        // The route matched, so the code is there: it is not UTF-8 once percent-decoded
        // (`%FF`), said as a query parameter's is (the page's demo API says the same).
        Err(_) => {
            let raw = uri.path().rsplit('/').next().unwrap_or_default();
            return Err(ApiError::bad(
                "code",
                format!(
                    "expected UTF-8 text once percent-decoded, got {}",
                    shown(raw)
                ),
            ));
        }
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
pub(super) async fn outage(
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
pub(super) async fn slow(
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
pub(super) async fn log(State(store): Shared, params: Params) -> Result<Response, ApiError> {
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
pub(super) async fn reset(State(store): Shared, params: Params) -> Result<Response, ApiError> {
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
pub(super) async fn health() -> Json<serde_json::Value> {
    Json(json!({ "ok": true }))
}

/// Any other path under `/api`.
pub(super) async fn not_found(OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such endpoint: {}", uri.path()),
    }
}
