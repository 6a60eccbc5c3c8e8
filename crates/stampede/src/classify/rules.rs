//! The rules themselves: which outcomes are retried, and how the server's hints are read.

use super::{
    Action, Outcome, Reason, Request, ServerHint, StatusSet, TransportError, TransportSet, Verdict,
};
use crate::error::{ConfigError, Field};
use crate::retry_after::{HintError, Pushback, parse_pushback, parse_retry_after};

/// The statuses the default rules retry, in [`StatusSet::parse`]'s syntax: what a front
/// end shows as the default of a "retry on" setting.
pub const DEFAULT_RETRY_ON: &str = "5xx,408,429";

/// The default maximum `Retry-After` a request will wait: 60 s.
pub const DEFAULT_MAX_RETRY_AFTER_MS: f64 = 60_000.0;

/// What to retry, as explicit configuration.
///
/// # Default
/// Statuses 5xx, 408 and 429; timeouts, refused and reset connections; a server hint of
/// at most 60 s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryRules {
    statuses: StatusSet,
    transport: TransportSet,
    max_retry_after_ms: f64,
}

impl Default for RetryRules {
    fn default() -> Self {
        RetryRules {
            statuses: StatusSet::empty().with_range(500, 599).with(408).with(429),
            transport: TransportSet::empty()
                .with(TransportError::Timeout)
                .with(TransportError::Connect)
                .with(TransportError::Reset),
            max_retry_after_ms: DEFAULT_MAX_RETRY_AFTER_MS,
        }
    }
}

impl RetryRules {
    /// The statuses retried.
    pub const fn statuses(&self) -> StatusSet {
        self.statuses
    }
    /// The transport errors retried.
    pub const fn transport(&self) -> TransportSet {
        self.transport
    }
    /// The longest server hint honoured (ms).
    pub const fn max_retry_after_ms(&self) -> f64 {
        self.max_retry_after_ms
    }

    /// The same rules retrying exactly `statuses`.
    pub const fn with_statuses(mut self, statuses: StatusSet) -> Self {
        self.statuses = statuses;
        self
    }

    /// The same rules retrying exactly `transport`.
    pub const fn with_transport(mut self, transport: TransportSet) -> Self {
        self.transport = transport;
        self
    }

    /// The same rules with another maximum hint, validated (0 ms to 1 day).
    pub fn with_max_retry_after_ms(mut self, ms: f64) -> Result<Self, ConfigError> {
        self.max_retry_after_ms = Field::MaxRetryAfter.check(ms)?;
        Ok(self)
    }

    /// Classifies one outcome. `now_ms` (ms since the Unix epoch) resolves HTTP-dates.
    pub fn classify(&self, request: Request, outcome: &Outcome<'_>, now_ms: f64) -> Verdict {
        let (status, retry_after, pushback) = match *outcome {
            Outcome::Transport(TransportError::Abort) => {
                return Verdict::new(Action::DoNotRetry, Reason::Aborted, false);
            }
            Outcome::Transport(e) => {
                if !self.transport.contains(e) {
                    return Verdict::new(Action::DoNotRetry, Reason::TransportNotRetried(e), true);
                }
                if !request.may_repeat() {
                    return Verdict::new(
                        Action::DoNotRetry,
                        Reason::NotIdempotent(request.method),
                        true,
                    );
                }
                return Verdict::new(Action::Retry, Reason::RetryableTransport(e), true);
            }
            Outcome::Response {
                status,
                retry_after,
                pushback_ms,
            } => (status, retry_after, pushback_ms),
        };
        let code = status.code();
        if code < 400 {
            return Verdict::new(Action::Success, Reason::NotAFailure(status), false);
        }
        // The hints are read for every failure, so a verdict reports what the server asked
        // even when it does not retry.
        let (hint, hint_says, ignored_hint) = read_hints(retry_after, pushback, now_ms);
        let (action, reason) = if !self.statuses.contains(code) {
            let reason = match code {
                410 => Reason::Gone,
                // 408 and 429 may pass on a retry: the rules were told not to retry them,
                // which is not the same answer for the same request.
                408 | 429 => Reason::StatusNotRetried(status),
                400..=499 => Reason::ClientError(status),
                _ => Reason::StatusNotRetried(status),
            };
            (Action::DoNotRetry, reason)
        } else if !request.may_repeat() {
            (Action::DoNotRetry, Reason::NotIdempotent(request.method))
        } else if let Some(stop) = hint_says {
            (Action::DoNotRetry, stop)
        } else {
            match hint {
                Some(h) if h.ms() > self.max_retry_after_ms => (
                    Action::DoNotRetry,
                    Reason::HintTooLong {
                        asked_ms: h.ms(),
                        max_ms: self.max_retry_after_ms,
                    },
                ),
                _ => (Action::Retry, Reason::RetryableStatus(status)),
            }
        };
        Verdict {
            action,
            reason,
            hint,
            ignored_hint,
            dependency_failed: self.statuses.contains(code) || matches!(code, 408 | 429 | 500..),
        }
    }
}

/// The server's hints on a failed response: the hint to honour, a do-not-retry that the
/// pushback header demands, and a `Retry-After` that was present but unreadable.
///
/// `grpc-retry-pushback-ms` governs (gRFC A6): negative or malformed means stop; otherwise
/// the backoff starts over. When `Retry-After` asks for longer than the pushback, the wait
/// is the longer of the two: a client never retries sooner than the server asked.
fn read_hints(
    retry_after: Option<&str>,
    pushback: Option<&str>,
    now_ms: f64,
) -> (Option<ServerHint>, Option<Reason>, Option<HintError>) {
    let (after, ignored) = match retry_after.map(|raw| parse_retry_after(raw, now_ms)) {
        None => (None, None),
        Some(Ok(ms)) => (Some(ms), None),
        Some(Err(e)) => (None, Some(e)),
    };
    match pushback.map(parse_pushback) {
        None => (after.map(ServerHint::RetryAfter), None, ignored),
        Some(Ok(Pushback::RetryAfter(ms))) => (
            Some(ServerHint::Pushback(after.map_or(ms, |a| a.max(ms)))),
            None,
            ignored,
        ),
        Some(Ok(Pushback::DoNotRetry)) => (None, Some(Reason::PushbackStop), ignored),
        Some(Err(_)) => (None, Some(Reason::PushbackMalformed), ignored),
    }
}
