//! Query parameters and the request method, validated: each failure is a
//! `400` naming the parameter.
//!
//! The query is decoded here rather than by axum's `Query`, which decodes
//! invalid UTF-8 lossily: `key=%FF` and `key=%FE` would both become `"\u{FFFD}"`
//! and share one counter. A value that is not UTF-8 once percent-decoded is
//! kept as an error instead, reported under the parameter's name when an
//! endpoint reads it.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};

use super::error::{ApiError, shown};
use crate::serve::state::{MAX_METHOD_BYTES, MethodName};

/// Longest key accepted, in bytes.
pub(super) const MAX_KEY_BYTES: usize = 200;

/// The query string as name/value pairs; the first occurrence of a name wins,
/// unknown names are ignored.
///
/// A value is its decoded text, or, when the decoded bytes are not UTF-8, the
/// value as it was sent (still percent-encoded), for the error message.
#[derive(Debug, Default)]
pub(crate) struct Params(Vec<(String, Result<String, String>)>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::parse(parts.uri.query().unwrap_or("")))
    }
}

/// The request's method, as the log keeps it: at most [`MAX_METHOD_BYTES`]
/// bytes, or a `400` naming `method`.
pub(crate) struct Verb(pub(super) MethodName);

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

impl Params {
    /// Parses a query string as `application/x-www-form-urlencoded`, as
    /// browsers encode it: pairs split on `&`, name and value on the first
    /// `=`, `+` for a space, `%XX` for a byte.
    pub(super) fn parse(query: &str) -> Self {
        let pairs = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                // A name that is not UTF-8 cannot be one the API knows.
                let name = String::from_utf8_lossy(&form_decode(name)).into_owned();
                let value = String::from_utf8(form_decode(value)).map_err(|_| value.to_owned());
                (name, value)
            })
            .collect();
        Self(pairs)
    }

    /// The first value of `name`, if any; a `400` naming it if that value is
    /// not UTF-8 once decoded.
    pub(super) fn get(&self, name: &str) -> Result<Option<&str>, ApiError> {
        match self.0.iter().find(|(n, _)| n == name) {
            None => Ok(None),
            Some((_, Ok(value))) => Ok(Some(value)),
            Some((_, Err(raw))) => Err(ApiError::bad(
                name,
                format!(
                    "expected UTF-8 text once percent-decoded, got {}",
                    shown(raw)
                ),
            )),
        }
    }

    /// The required `key`: 1 to [`MAX_KEY_BYTES`] bytes.
    pub(super) fn key(&self) -> Result<String, ApiError> {
        self.optional_key()?.ok_or_else(|| {
            ApiError::bad(
                "key",
                format!("missing; expected 1 to {MAX_KEY_BYTES} bytes"),
            )
        })
    }

    /// `key` if given: 1 to [`MAX_KEY_BYTES`] bytes.
    pub(super) fn optional_key(&self) -> Result<Option<String>, ApiError> {
        let Some(key) = self.get("key")? else {
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
    pub(super) fn number(&self, name: &str, max: u64) -> Result<u64, ApiError> {
        let expected = format!("a whole number from 0 to {max}");
        match self.get(name)? {
            None => Err(ApiError::bad(name, format!("missing; expected {expected}"))),
            Some(raw) => parse_whole(raw).filter(|n| *n <= max).ok_or_else(|| {
                ApiError::bad(name, format!("expected {expected}, got {}", shown(raw)))
            }),
        }
    }

    /// `/api/flaky`'s `status`: a failing status, 400 to 599, default 503.
    pub(super) fn failing_status(&self) -> Result<StatusCode, ApiError> {
        let Some(raw) = self.get("status")? else {
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
}

/// Percent-decodes `raw`, with `+` for a space. A `%` not followed by two hex
/// digits stays as it is, as browsers and the URL standard leave it.
fn form_decode(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |at: usize| bytes.get(at).and_then(|d| char::from(*d).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                // Two hex digits make at most 0xFF.
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(u8::MAX));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// A string of ASCII digits as a number (no sign, no spaces, no overflow).
pub(super) fn parse_whole(raw: &str) -> Option<u64> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// `/api/status/{code}`'s code: a final HTTP status, 200 to 599.
pub(super) fn final_status(raw: &str) -> Result<StatusCode, ApiError> {
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

/// Parameters from literal pairs, for unit tests.
#[cfg(test)]
pub(super) fn params(pairs: &[(&str, &str)]) -> Params {
    Params(
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), Ok((*v).to_owned())))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn queries_are_form_decoded() {
        let p = Params::parse("key=a+b%2Bc%C3%A9&fail=%31&&x&odd=%zz%4&pct=100%");
        assert_eq!(p.get("key"), Ok(Some("a b+cé")));
        assert_eq!(p.get("fail"), Ok(Some("1")));
        assert_eq!(p.get("x"), Ok(Some("")));
        assert_eq!(p.get("odd"), Ok(Some("%zz%4")));
        assert_eq!(p.get("pct"), Ok(Some("100%")));
        assert_eq!(p.get("missing"), Ok(None));
        assert_eq!(Params::parse("k%65y=v").get("key"), Ok(Some("v")));
    }

    /// `%FF` and `%FE` once both decoded to U+FFFD, so the two keys shared
    /// one counter; invalid UTF-8 is an error naming the parameter instead.
    #[test]
    fn values_that_are_not_utf8_are_errors_naming_the_parameter() {
        for query in [
            "key=%FF",
            "key=%FE",
            "key=a%C3",
            "key=%C3%28",
            "key=%ED%A0%80",
        ] {
            let p = Params::parse(query);
            let error = p.key().unwrap_err();
            assert_eq!(error.status, StatusCode::BAD_REQUEST, "{query}");
            assert!(
                error
                    .message
                    .starts_with("key: expected UTF-8 text once percent-decoded, got \""),
                "{query}: {error:?}"
            );
            assert_eq!(p.optional_key(), Err(error));
        }
        let p = Params::parse("fail=%FF&status=%FF&retry_after=%FF&pushback_ms=%FF&ms=%80");
        assert!(
            p.number("fail", 10)
                .unwrap_err()
                .message
                .starts_with("fail: expected UTF-8")
        );
        assert!(
            p.number("ms", 10)
                .unwrap_err()
                .message
                .starts_with("ms: expected UTF-8")
        );
        assert!(
            p.failing_status()
                .unwrap_err()
                .message
                .starts_with("status: expected UTF-8")
        );
        // Only the parameters an endpoint reads matter.
        assert_eq!(Params::parse("other=%FF&key=k").key(), Ok("k".to_owned()));
        assert_eq!(Params::parse("%FF=1&key=k").key(), Ok("k".to_owned()));
    }

    #[test]
    fn first_occurrence_wins() {
        let p = params(&[("fail", "1"), ("fail", "x")]);
        assert_eq!(p.number("fail", 1000), Ok(1));
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
}
