//! The request body limit: every body under `/api` is read whole, up to
//! [`MAX_BODY_BYTES`] and within the body timeout, before an endpoint sees
//! the request.

use std::future::poll_fn;
use std::pin::Pin;
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, CONTENT_LENGTH};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use crate::serve::MAX_BODY_BYTES;

/// How much of an oversized body is read and thrown away before answering
/// `413`, so that a client still writing its body gets to read the answer
/// instead of a connection reset. Bodies declared larger are refused unread.
const MAX_DRAIN_BYTES: usize = 1024 * 1024;

/// Why a request body was refused.
#[derive(Debug)]
enum BodyError {
    TooLarge,
    TooSlow(Duration),
    Unreadable(axum::Error),
}

/// Buffers the request body, answering `413` past [`MAX_BODY_BYTES`], and
/// `408` with `Connection: close` when it has not arrived in full within
/// `timeout`: a client trickling its body would otherwise hold its
/// connection, and a place under the connection cap, for as long as it likes.
///
/// This holds whether or not the endpoint reads the body, and whether the
/// body's length is declared or chunked.
pub(super) async fn limit_body(
    State(timeout): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let result = match declared {
        Some(len) if len > MAX_DRAIN_BYTES as u64 => Err(BodyError::TooLarge),
        _ => tokio::time::timeout(timeout, read_body(body, MAX_BODY_BYTES))
            .await
            .unwrap_or(Err(BodyError::TooSlow(timeout))),
    };
    match result {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        // The rest of the body is not read, so the connection cannot carry another request:
        // say so (a client would otherwise send its next one into a closed socket and see a
        // spurious reset).
        Err(BodyError::TooLarge) => closing(ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!("body: larger than the limit of {MAX_BODY_BYTES} bytes"),
        }),
        // The rest of the body may still be on its way: do not wait for it.
        Err(BodyError::TooSlow(timeout)) => closing(ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            message: format!("body: not received in full within {timeout:?}"),
        }),
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

/// `error`'s answer, saying that the connection closes after it.
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
