//! Retry hints a failing answer carries: `Retry-After` and
//! `grpc-retry-pushback-ms`, taken from the query and validated.

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};

use super::error::{ApiError, shown};
use super::params::{Params, parse_whole};

/// The gRPC retry-pushback hint header (milliseconds; negative means "do not retry").
pub(super) const PUSHBACK_HEADER: HeaderName = HeaderName::from_static("grpc-retry-pushback-ms");

/// Retry hints to send with a failing answer, already validated.
#[derive(Debug, Default, Clone)]
pub(super) struct Hints {
    retry_after: Option<HeaderValue>,
    pushback_ms: Option<HeaderValue>,
}

impl Hints {
    /// These hints if `status` is a failure (400 and up), else none.
    pub(super) fn for_status(self, status: StatusCode) -> Self {
        if status.is_client_error() || status.is_server_error() {
            self
        } else {
            Self::default()
        }
    }

    pub(super) fn apply(&self, headers: &mut HeaderMap) {
        if let Some(value) = &self.retry_after {
            headers.insert(RETRY_AFTER, value.clone());
        }
        if let Some(value) = &self.pushback_ms {
            headers.insert(PUSHBACK_HEADER, value.clone());
        }
    }
}

impl Params {
    /// The optional hints `retry_after` (delta-seconds or an HTTP-date) and
    /// `pushback_ms` (a signed 32-bit integer).
    pub(super) fn hints(&self) -> Result<Hints, ApiError> {
        let retry_after = self
            .get("retry_after")?
            .map(|raw| {
                let valid = parse_whole(raw).is_some() || httpdate::parse_http_date(raw).is_ok();
                valid
                    .then(|| HeaderValue::from_str(raw).ok())
                    .flatten()
                    .ok_or_else(|| {
                        ApiError::bad(
                            "retry_after",
                            format!(
                                "expected delta-seconds (digits, at most {}) or an \
                                 HTTP-date such as \"Wed, 21 Oct 2015 07:28:00 GMT\", got {}",
                                u64::MAX,
                                shown(raw)
                            ),
                        )
                    })
            })
            .transpose()?;
        let pushback_ms = self
            .get("pushback_ms")?
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

#[cfg(test)]
mod tests {
    use super::super::params::params;
    use super::*;

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
        // One past u64::MAX is digits, but too many: the message says so.
        let error = params(&[("retry_after", "18446744073709551616")])
            .hints()
            .unwrap_err();
        assert_eq!(
            error.message,
            "retry_after: expected delta-seconds (digits, at most 18446744073709551615) or an \
             HTTP-date such as \"Wed, 21 Oct 2015 07:28:00 GMT\", got \"18446744073709551616\""
        );
        for (name, query) in [
            ("retry_after", "retry_after=%FF"),
            ("pushback_ms", "pushback_ms=%FF"),
        ] {
            let error = Params::parse(query).hints().unwrap_err();
            assert!(
                error
                    .message
                    .starts_with(&format!("{name}: expected UTF-8")),
                "{query}: {error:?}"
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
}
