//! What came back from one attempt: a response with its hint headers, or a transport error.

use super::{HttpStatus, TransportError};

/// What came back from one attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome<'a> {
    /// An HTTP response, with the raw values of the two hint headers if present.
    Response {
        /// The status.
        status: HttpStatus,
        /// The raw `Retry-After` value.
        retry_after: Option<&'a str>,
        /// The raw `grpc-retry-pushback-ms` value.
        pushback_ms: Option<&'a str>,
    },
    /// No response.
    Transport(TransportError),
}

impl<'a> Outcome<'a> {
    /// A response with no hint headers.
    pub const fn response(status: HttpStatus) -> Self {
        Outcome::Response {
            status,
            retry_after: None,
            pushback_ms: None,
        }
    }

    /// A response, picking `Retry-After` and `grpc-retry-pushback-ms` out of `headers`
    /// (names compared case-insensitively; the first of each wins).
    pub fn with_headers<I>(status: HttpStatus, headers: I) -> Self
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut retry_after = None;
        let mut pushback_ms = None;
        for (name, value) in headers {
            let name = name.trim();
            if retry_after.is_none() && name.eq_ignore_ascii_case("retry-after") {
                retry_after = Some(value);
            } else if pushback_ms.is_none() && name.eq_ignore_ascii_case("grpc-retry-pushback-ms") {
                pushback_ms = Some(value);
            }
        }
        Outcome::Response {
            status,
            retry_after,
            pushback_ms,
        }
    }
}
