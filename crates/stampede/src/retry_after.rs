//! The server's own backoff: `Retry-After` (RFC 9110 §10.2.3) and gRPC's
//! `grpc-retry-pushback-ms` (gRFC A6).
//!
//! A server that answers 429 or 503 knows better than any client when it will have room
//! again. A client that ignores `Retry-After: 30` and retries after its own 200 ms is the
//! thundering herd in person: the server asked for air and the client said no. So the
//! server's hint comes first, and the policy never retries sooner than it asks.
//!
//! Two forms are legal: delta-seconds (`120`) and an HTTP-date, which itself has three
//! forms (RFC 9110 §5.6.7) — IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete
//! RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`. Many
//! clients (Envoy, vercel/fetch-retry) ignore dates; this crate reads all three, by the
//! `httpdate` crate's rules (hyper's: see `http_date`), relative to the `now` the caller
//! passes. A date in the past means "now". RFC 850's two-digit years follow `httpdate`:
//! 70–99 are 19xx, 00–69 20xx.
//!
//! ```
//! use stampede::retry_after::parse_retry_after;
//! // 2015-10-21 07:28:00 UTC, one minute before the date below.
//! let now_ms = 1_445_412_420_000.0;
//! assert_eq!(parse_retry_after("120", now_ms), Ok(120_000.0));
//! assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now_ms), Ok(60_000.0));
//! assert!(parse_retry_after("soon", now_ms).is_err());
//! ```

use core::fmt;

/// Why a hint from the server was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HintError {
    /// `Retry-After` was neither delta-seconds nor an HTTP-date.
    MalformedRetryAfter,
    /// `grpc-retry-pushback-ms` was not a signed 32-bit decimal integer.
    MalformedPushback,
}

impl fmt::Display for HintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HintError::MalformedRetryAfter => {
                "Retry-After is neither delta-seconds nor an HTTP-date (IMF-fixdate, RFC 850 or asctime)"
            }
            HintError::MalformedPushback => {
                "grpc-retry-pushback-ms is not a signed 32-bit integer of milliseconds"
            }
        })
    }
}

impl std::error::Error for HintError {}

/// A hint longer than [`MAX_TEXT_CHARS`](crate::MAX_TEXT_CHARS) bytes is malformed, whatever
/// it holds (padding included): no valid one comes near that length, so a front end copies at
/// most the first `MAX_TEXT_CHARS + 1` characters of a longer one (a response's header is the
/// server's, not the caller's: it is never refused as a setting too long would be). Before, a
/// long `grpc-retry-pushback-ms` was read as no hint (retried with the backoff) where a short
/// malformed one stops, and a long `Retry-After` made `classify` throw.
fn overlong(value: &str) -> bool {
    value.len() > crate::MAX_TEXT_CHARS as usize
}

/// Parses a `Retry-After` value into a delay in ms from `now_ms` (ms since the Unix epoch).
///
/// Delta-seconds are digits only (RFC 9110: `1*DIGIT`), read as a float so that a huge
/// value is reported as given (1e20 s, not a 64-bit integer's 1.8e19); past `f64::MAX` they
/// saturate there, which any maximum then rejects. A date in the past gives `0`.
pub fn parse_retry_after(value: &str, now_ms: f64) -> Result<f64, HintError> {
    if overlong(value) {
        return Err(HintError::MalformedRetryAfter);
    }
    let v = value.trim();
    if v.is_empty() {
        return Err(HintError::MalformedRetryAfter);
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        // Exact up to 2^53 s; past that each digit rounds once (the same on every platform).
        let secs = v
            .bytes()
            .fold(0.0f64, |acc, b| acc * 10.0 + f64::from(b - b'0'));
        return Ok((secs * 1000.0).min(f64::MAX));
    }
    let at_ms = crate::http_date::parse_http_date(v).ok_or(HintError::MalformedRetryAfter)?;
    Ok((at_ms - now_ms).max(0.0))
}

/// What a `grpc-retry-pushback-ms` value asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pushback {
    /// Retry after this many ms, and start the backoff over.
    RetryAfter(f64),
    /// A negative value: do not retry.
    DoNotRetry,
}

/// Parses `grpc-retry-pushback-ms`: ASCII decimal, signed 32-bit (gRFC A6).
///
/// ```
/// use stampede::retry_after::{parse_pushback, Pushback};
/// assert_eq!(parse_pushback("250"), Ok(Pushback::RetryAfter(250.0)));
/// assert_eq!(parse_pushback("-1"), Ok(Pushback::DoNotRetry));
/// assert!(parse_pushback("2s").is_err());
/// assert!(parse_pushback("2147483648").is_err());
/// ```
pub fn parse_pushback(value: &str) -> Result<Pushback, HintError> {
    if overlong(value) {
        return Err(HintError::MalformedPushback);
    }
    let v = value.trim();
    let digits = v.strip_prefix('-').unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HintError::MalformedPushback);
    }
    let ms: i32 = v.parse().map_err(|_| HintError::MalformedPushback)?;
    Ok(if ms < 0 {
        Pushback::DoNotRetry
    } else {
        Pushback::RetryAfter(f64::from(ms))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hint longer than `MAX_TEXT_CHARS` bytes is malformed whatever it holds, padding
    /// included; one of exactly that length is read.
    #[test]
    fn an_overlong_hint_is_malformed() {
        let max = crate::MAX_TEXT_CHARS as usize;
        let padded = |v: &str, len: usize| format!("{v}{}", " ".repeat(len - v.len()));
        assert_eq!(parse_retry_after(&padded("1", max), 0.0), Ok(1000.0));
        assert_eq!(
            parse_retry_after(&padded("1", max + 1), 0.0),
            Err(HintError::MalformedRetryAfter)
        );
        assert_eq!(
            parse_pushback(&padded("250", max)),
            Ok(Pushback::RetryAfter(250.0))
        );
        assert_eq!(
            parse_pushback(&"9".repeat(max + 1)),
            Err(HintError::MalformedPushback)
        );
    }

    /// 1994-11-06 08:49:37 UTC, RFC 9110's example date.
    const RFC_DATE_MS: f64 = 784_111_777_000.0;

    #[test]
    fn rfc9110_examples_and_malformed_values() {
        let now = RFC_DATE_MS - 10_000.0;
        let table: &[(&str, Result<f64, HintError>)] = &[
            ("120", Ok(120_000.0)),
            ("0", Ok(0.0)),
            ("  7 ", Ok(7_000.0)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Ok(10_000.0)),
            ("Sunday, 06-Nov-94 08:49:37 GMT", Ok(10_000.0)),
            ("Sun Nov  6 08:49:37 1994", Ok(10_000.0)),
            ("", Err(HintError::MalformedRetryAfter)),
            ("   ", Err(HintError::MalformedRetryAfter)),
            ("-1", Err(HintError::MalformedRetryAfter)),
            ("1.5", Err(HintError::MalformedRetryAfter)),
            ("+5", Err(HintError::MalformedRetryAfter)),
            ("soon", Err(HintError::MalformedRetryAfter)),
            ("120 seconds", Err(HintError::MalformedRetryAfter)),
            (
                "Sun, 06 Nov 1994 08:49:37",
                Err(HintError::MalformedRetryAfter),
            ),
            (
                "Sun, 06 Nov 1994 25:49:37 GMT",
                Err(HintError::MalformedRetryAfter),
            ),
            (
                "Sun, 31 Feb 1994 08:49:37 GMT",
                Err(HintError::MalformedRetryAfter),
            ),
            (
                "Mon, 06 Nov 1994 08:49:37 GMT",
                Err(HintError::MalformedRetryAfter),
            ),
            ("2015-10-21T07:28:00Z", Err(HintError::MalformedRetryAfter)),
            (
                "Wed, 21 Oct 2015 07:28:00 GMT\u{e9}",
                Err(HintError::MalformedRetryAfter),
            ),
        ];
        for (value, want) in table {
            assert_eq!(
                parse_retry_after(value, now),
                *want,
                "Retry-After {value:?}"
            );
        }
    }

    #[test]
    fn a_past_date_means_now() {
        let now = RFC_DATE_MS + 3_600_000.0;
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
            Ok(0.0)
        );
    }

    #[test]
    fn huge_delta_seconds_are_read_as_given_and_saturate_instead_of_overflowing() {
        // Past u64 (1.8e19): still the value given, to within a float's rounding.
        let d = parse_retry_after("100000000000000000000", 0.0).unwrap();
        assert!((d / 1e23 - 1.0).abs() < 1e-12, "{d}");
        assert_eq!(
            parse_retry_after("9007199254740993", 0.0),
            Ok(9.007_199_254_740_992e18)
        );
        // Thousands of digits: the largest finite float, never infinity or NaN.
        assert_eq!(parse_retry_after(&"9".repeat(4000), 0.0), Ok(f64::MAX));
    }

    #[test]
    fn pushback_table() {
        let table: &[(&str, Result<Pushback, HintError>)] = &[
            ("0", Ok(Pushback::RetryAfter(0.0))),
            ("1500", Ok(Pushback::RetryAfter(1500.0))),
            ("2147483647", Ok(Pushback::RetryAfter(2_147_483_647.0))),
            ("-1", Ok(Pushback::DoNotRetry)),
            ("-2147483648", Ok(Pushback::DoNotRetry)),
            ("2147483648", Err(HintError::MalformedPushback)),
            ("", Err(HintError::MalformedPushback)),
            ("-", Err(HintError::MalformedPushback)),
            ("+5", Err(HintError::MalformedPushback)),
            ("1.5", Err(HintError::MalformedPushback)),
            ("ten", Err(HintError::MalformedPushback)),
        ];
        for (value, want) in table {
            assert_eq!(parse_pushback(value), *want, "pushback {value:?}");
        }
    }
}
