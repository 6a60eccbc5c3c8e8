//! The classifier's answer: an [`Action`], always with a [`Reason`], and the server's hint.

use core::fmt;

use super::{HttpStatus, Method, TransportError};
use crate::error::fmt_num;
use crate::retry_after::HintError;

/// A delay the server asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ServerHint {
    /// From `Retry-After`: wait at least this long (ms).
    RetryAfter(f64),
    /// From `grpc-retry-pushback-ms`: wait this long (ms), then start the backoff over.
    Pushback(f64),
}

impl ServerHint {
    /// The delay asked for, in ms.
    pub const fn ms(self) -> f64 {
        match self {
            ServerHint::RetryAfter(ms) | ServerHint::Pushback(ms) => ms,
        }
    }
}

/// Why a verdict is what it is. Its `Display` is a sentence for a person.
///
/// `#[non_exhaustive]`: new mechanisms (breakers, throttling, hedging) add reasons; front
/// ends show the `Display` sentence and never match every reason.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Reason {
    /// 1xx, 2xx or 3xx: nothing to retry.
    NotAFailure(HttpStatus),
    /// A status the rules retry.
    RetryableStatus(HttpStatus),
    /// A 4xx the rules do not retry (other than 408 and 429, which may pass on a retry).
    ClientError(HttpStatus),
    /// 410 Gone.
    Gone,
    /// A 5xx, 408 or 429 the rules were configured not to retry.
    StatusNotRetried(HttpStatus),
    /// A transport error the rules retry.
    RetryableTransport(TransportError),
    /// A transport error the rules do not retry.
    TransportNotRetried(TransportError),
    /// The caller aborted.
    Aborted,
    /// A retryable failure of a request that is not idempotent.
    NotIdempotent(Method),
    /// The server asked for a longer wait than the maximum.
    HintTooLong {
        /// What the server asked for (ms).
        asked_ms: f64,
        /// The configured maximum (ms).
        max_ms: f64,
    },
    /// A negative `grpc-retry-pushback-ms`: the server asks not to retry.
    PushbackStop,
    /// A `grpc-retry-pushback-ms` that does not parse: gRPC reads it as do-not-retry.
    PushbackMalformed,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reason::NotAFailure(s) => write!(f, "{s} is not a failure"),
            Reason::RetryableStatus(s) => match s.code() {
                408 => write!(
                    f,
                    "{s}: the server timed out waiting for the request, which may pass on a retry"
                ),
                429 => write!(f, "{s}: the server is shedding load, retry later"),
                // A client error the rules were told to retry (`retryOn`).
                ..=499 => write!(f, "{s} is one of the statuses these rules retry"),
                _ => write!(f, "{s} is a server-side failure that may pass on a retry"),
            },
            Reason::ClientError(s) => {
                write!(
                    f,
                    "{s} is a client error: the same request would get the same answer"
                )
            }
            Reason::Gone => f.write_str("410 Gone: the resource is permanently gone"),
            Reason::StatusNotRetried(s) => {
                write!(f, "{s} is not in the statuses these rules retry")
            }
            Reason::RetryableTransport(e) => {
                write!(f, "{} ({e}), which may pass on a retry", e.describe())
            }
            Reason::TransportNotRetried(e) => {
                write!(f, "{} ({e}), which these rules do not retry", e.describe())
            }
            Reason::Aborted => f.write_str("the caller aborted the request: never retried"),
            Reason::NotIdempotent(m) => write!(
                f,
                "{m} is not idempotent: a retry could apply it twice (mark the request idempotent to allow it)"
            ),
            Reason::HintTooLong { asked_ms, max_ms } => write!(
                f,
                "the server asked to wait {} s, more than the {} s maximum: giving up rather than waiting",
                fmt_num(asked_ms / 1000.0),
                fmt_num(max_ms / 1000.0)
            ),
            Reason::PushbackStop => {
                f.write_str("the server's grpc-retry-pushback-ms is negative: it asks not to retry")
            }
            Reason::PushbackMalformed => f.write_str(
                "grpc-retry-pushback-ms is malformed, which gRPC treats as do-not-retry",
            ),
        }
    }
}

/// What a verdict says to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// The attempt did not fail.
    Success,
    /// Retry (the policy decides when, honouring the hint if there is one).
    Retry,
    /// Stop.
    DoNotRetry,
}

/// The classifier's answer for one outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// What to do.
    pub action: Action,
    /// Why.
    pub reason: Reason,
    /// The server's hint, as read, even when it led to [`Action::DoNotRetry`].
    pub hint: Option<ServerHint>,
    /// A hint that was present but ignored, and why.
    pub ignored_hint: Option<HintError>,
    /// Whether the dependency failed, whatever this request's own rules then decide: any
    /// 5xx, 408 or 429, a status the rules retry, or a transport failure (not the caller's
    /// abort). A 503 to a POST is not retried, nor one whose `Retry-After` is too long,
    /// but each is still the service failing: this is what the safety nets count (the
    /// breaker's failures, the throttle's requests not accepted, gRPC's token debits).
    pub dependency_failed: bool,
}

impl Verdict {
    pub(super) const fn new(action: Action, reason: Reason, dependency_failed: bool) -> Self {
        Verdict {
            action,
            reason,
            hint: None,
            ignored_hint: None,
            dependency_failed,
        }
    }

    /// Whether the failure may be retried.
    pub const fn is_retryable(&self) -> bool {
        matches!(self.action, Action::Retry)
    }

    /// The server's hint in ms, if it gave one.
    pub fn hint_ms(&self) -> Option<f64> {
        self.hint.map(ServerHint::ms)
    }
}
