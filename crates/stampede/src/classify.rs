//! What to retry: from an outcome to a [`Verdict`], always with a [`Reason`].
//!
//! Timing is only half of a retry policy; the other half is knowing what can succeed on a
//! second try. A 503 or a timeout may pass a moment later. A 404, a 400 or a 403 will not:
//! the request itself is wrong, and retrying it only multiplies the traffic a client bug
//! causes. 410 Gone says so outright. Libraries that retry every non-2xx turn client bugs
//! into retry storms, so here the rule is explicit configuration, [`RetryRules`], whose
//! defaults are the article's:
//!
//! - retry: 5xx, 408 Request Timeout, 429 Too Many Requests; timeouts, refused and reset
//!   connections;
//! - do not retry: any other 4xx, 410 Gone included, and DNS failures — defaults, which
//!   [`RetryRules`] can change;
//! - never, whatever the rules: an abort by the caller (the caller asked to stop);
//! - never a non-idempotent request (POST, PATCH, CONNECT, unknown methods) unless the
//!   caller marks it idempotent, e.g. because it carries an idempotency key — a retried
//!   POST can charge a card twice.
//!
//! The server's hints are read here too: `Retry-After` and `grpc-retry-pushback-ms`
//! (see [`retry_after`](crate::retry_after)).
//!
//! ```
//! use stampede::classify::{HttpStatus, Method, Outcome, Request, RetryRules};
//! let rules = RetryRules::default();
//! let get = Request::new(Method::Get);
//! let v = rules.classify(get, &Outcome::response(HttpStatus::new(503)?), 0.0);
//! assert!(v.is_retryable());
//! let v = rules.classify(get, &Outcome::response(HttpStatus::new(404)?), 0.0);
//! assert!(!v.is_retryable());
//! assert_eq!(v.reason.to_string(), "404 Not Found is a client error: the same request would get the same answer");
//! # Ok::<(), stampede::ConfigError>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::error::{ConfigError, check_ms, fmt_num, quoted};
use crate::retry_after::{HintError, Pushback, parse_pushback, parse_retry_after};

/// An HTTP request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// GET
    #[default]
    Get,
    /// HEAD
    Head,
    /// PUT
    Put,
    /// DELETE
    Delete,
    /// OPTIONS
    Options,
    /// TRACE
    Trace,
    /// POST
    Post,
    /// PATCH
    Patch,
    /// CONNECT
    Connect,
    /// Any other (extension) method; treated as not idempotent.
    Other,
}

impl Method {
    /// Whether RFC 9110 defines the method as idempotent (GET, HEAD, PUT, DELETE,
    /// OPTIONS, TRACE).
    pub const fn is_idempotent(self) -> bool {
        matches!(
            self,
            Method::Get
                | Method::Head
                | Method::Put
                | Method::Delete
                | Method::Options
                | Method::Trace
        )
    }

    /// The method's name; `"OTHER"` for extension methods.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Trace => "TRACE",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Connect => "CONNECT",
            Method::Other => "OTHER",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = ConfigError;

    /// Case-insensitive. Any other token is [`Method::Other`]; an empty or non-token
    /// string is an error.
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let known = [
            Method::Get,
            Method::Head,
            Method::Put,
            Method::Delete,
            Method::Options,
            Method::Trace,
            Method::Post,
            Method::Patch,
            Method::Connect,
        ];
        if let Some(m) = known.into_iter().find(|m| m.name().eq_ignore_ascii_case(s)) {
            return Ok(m);
        }
        let is_token = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if is_token {
            Ok(Method::Other)
        } else {
            Err(ConfigError::new(
                "method",
                "an HTTP method such as GET or POST",
                quoted(s),
            ))
        }
    }
}

/// An HTTP status code, 100–599.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HttpStatus(u16);

impl HttpStatus {
    /// 200 OK.
    pub const OK: HttpStatus = HttpStatus(200);
    /// 503 Service Unavailable.
    pub const SERVICE_UNAVAILABLE: HttpStatus = HttpStatus(503);

    /// Checks that `code` is in 100–599.
    pub fn new(code: u16) -> Result<Self, ConfigError> {
        if (100..=599).contains(&code) {
            Ok(HttpStatus(code))
        } else {
            Err(ConfigError::new(
                "status",
                "an HTTP status from 100 to 599",
                code,
            ))
        }
    }

    /// The numeric code.
    pub const fn code(self) -> u16 {
        self.0
    }

    /// The reason phrase of a registered status, or `""`.
    pub const fn phrase(self) -> &'static str {
        match self.0 {
            400 => "Bad Request",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            408 => "Request Timeout",
            409 => "Conflict",
            410 => "Gone",
            413 => "Content Too Large",
            422 => "Unprocessable Content",
            429 => "Too Many Requests",
            500 => "Internal Server Error",
            501 => "Not Implemented",
            502 => "Bad Gateway",
            503 => "Service Unavailable",
            504 => "Gateway Timeout",
            505 => "HTTP Version Not Supported",
            _ => "",
        }
    }
}

impl fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.phrase() {
            "" => write!(f, "{}", self.0),
            p => write!(f, "{} {p}", self.0),
        }
    }
}

/// A failure below HTTP: no status came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportError {
    /// No answer within the attempt's timeout.
    Timeout,
    /// The connection was refused (nothing listening, or a load balancer turning us away).
    Connect,
    /// The connection was reset mid-request.
    Reset,
    /// The host name did not resolve.
    Dns,
    /// The caller aborted the request. Never retried.
    Abort,
}

impl TransportError {
    /// Every transport error.
    pub const ALL: [TransportError; 5] = [
        TransportError::Timeout,
        TransportError::Connect,
        TransportError::Reset,
        TransportError::Dns,
        TransportError::Abort,
    ];

    /// The name used on the command line and in JS: `timeout`, `connect`, `reset`, `dns`, `abort`.
    pub const fn name(self) -> &'static str {
        match self {
            TransportError::Timeout => "timeout",
            TransportError::Connect => "connect",
            TransportError::Reset => "reset",
            TransportError::Dns => "dns",
            TransportError::Abort => "abort",
        }
    }

    const fn describe(self) -> &'static str {
        match self {
            TransportError::Timeout => "the attempt timed out",
            TransportError::Connect => "the connection was refused",
            TransportError::Reset => "the connection was reset",
            TransportError::Dns => "the host name did not resolve",
            TransportError::Abort => "the caller aborted the request",
        }
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl FromStr for TransportError {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        TransportError::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                ConfigError::new(
                    "error",
                    "one of timeout, connect, reset, dns, abort",
                    quoted(s),
                )
            })
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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

/// What is being retried: its method, and whether the caller vouches that repeating it is
/// safe (an idempotency key, a conditional write…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// `true` lets POST and PATCH be retried.
    pub idempotent: bool,
}

impl Request {
    /// A request of `method`, not marked idempotent.
    pub const fn new(method: Method) -> Self {
        Request {
            method,
            idempotent: false,
        }
    }

    /// The same request, marked idempotent (or not).
    pub const fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }

    const fn may_repeat(self) -> bool {
        self.idempotent || self.method.is_idempotent()
    }
}

/// A set of HTTP status codes (100–599), as a bitset.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StatusSet([u64; 10]);

impl StatusSet {
    /// The empty set.
    pub const fn empty() -> Self {
        StatusSet([0; 10])
    }

    /// The set with `code` added (codes outside 100–599 are ignored).
    pub const fn with(mut self, code: u16) -> Self {
        if code >= 100 && code <= 599 {
            self.0[(code / 64) as usize] |= 1 << (code % 64);
        }
        self
    }

    /// The set with `code` removed.
    pub const fn without(mut self, code: u16) -> Self {
        if code >= 100 && code <= 599 {
            self.0[(code / 64) as usize] &= !(1 << (code % 64));
        }
        self
    }

    /// The set with every code in `lo..=hi` added.
    pub const fn with_range(mut self, lo: u16, hi: u16) -> Self {
        // Only 100..=599 can be in a set: clamp first, so `hi = u16::MAX` cannot overflow
        // the counter (an endless loop in release builds, a panic in debug ones).
        let mut c = if lo < 100 { 100 } else { lo };
        let hi = if hi > 599 { 599 } else { hi };
        while c <= hi {
            self = self.with(c);
            c += 1;
        }
        self
    }

    /// Whether `code` is in the set.
    pub const fn contains(&self, code: u16) -> bool {
        code >= 100 && code <= 599 && self.0[(code / 64) as usize] & (1 << (code % 64)) != 0
    }

    /// Parses a list such as `5xx,408,429` or `500-504,429`: codes, `Nxx` classes and
    /// inclusive ranges, separated by commas.
    pub fn parse(spec: &str) -> Result<Self, ConfigError> {
        let bad = |item: &str| {
            ConfigError::new(
                "retry_on",
                "a comma-separated list of statuses (100-599), classes like 5xx, or ranges like 500-504",
                quoted(item),
            )
        };
        // A status is three digits (RFC 9110 §15); `u16`'s parser alone also takes `+500`,
        // `0500` and, through the class rule, `05xx`.
        let code = |s: &str| -> Result<u16, ConfigError> {
            let t = s.trim();
            Some(t)
                .filter(|t| t.len() == 3 && t.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|t| t.parse::<u16>().ok())
                .filter(|c| (100..=599).contains(c))
                .ok_or_else(|| bad(s))
        };
        let mut set = StatusSet::empty();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let lower = item.to_ascii_lowercase();
            if let Some(class) = lower.strip_suffix("xx") {
                let d = code(&format!("{class}00"))?;
                set = set.with_range(d, d + 99);
            } else if let Some((lo, hi)) = item.split_once('-') {
                let (lo, hi) = (code(lo)?, code(hi)?);
                if lo > hi {
                    return Err(bad(item));
                }
                set = set.with_range(lo, hi);
            } else {
                set = set.with(code(item)?);
            }
        }
        Ok(set)
    }

    /// The codes in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100..=599).filter(|c| self.contains(*c))
    }
}

impl fmt::Debug for StatusSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// A set of [`TransportError`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TransportSet(u8);

impl TransportSet {
    /// The empty set.
    pub const fn empty() -> Self {
        TransportSet(0)
    }
    /// The set with `e` added. Adding [`TransportError::Abort`] has no effect on
    /// classification: an abort is never retried.
    pub const fn with(self, e: TransportError) -> Self {
        TransportSet(self.0 | e.bit())
    }
    /// The set with `e` removed.
    pub const fn without(self, e: TransportError) -> Self {
        TransportSet(self.0 & !e.bit())
    }
    /// Whether `e` is in the set.
    pub const fn contains(self, e: TransportError) -> bool {
        self.0 & e.bit() != 0
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reason {
    /// 1xx, 2xx or 3xx: nothing to retry.
    NotAFailure(HttpStatus),
    /// A status the rules retry.
    RetryableStatus(HttpStatus),
    /// A 4xx the rules do not retry.
    ClientError(HttpStatus),
    /// 410 Gone.
    Gone,
    /// A 5xx the rules were configured not to retry.
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
}

impl Verdict {
    const fn new(action: Action, reason: Reason) -> Self {
        Verdict {
            action,
            reason,
            hint: None,
            ignored_hint: None,
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
        self.max_retry_after_ms = check_ms("max_retry_after", ms, 0.0)?;
        Ok(self)
    }

    /// Classifies one outcome. `now_ms` (ms since the Unix epoch) resolves HTTP-dates.
    pub fn classify(&self, request: Request, outcome: &Outcome<'_>, now_ms: f64) -> Verdict {
        let (status, retry_after, pushback) = match *outcome {
            Outcome::Transport(TransportError::Abort) => {
                return Verdict::new(Action::DoNotRetry, Reason::Aborted);
            }
            Outcome::Transport(e) => {
                if !self.transport.contains(e) {
                    return Verdict::new(Action::DoNotRetry, Reason::TransportNotRetried(e));
                }
                if !request.may_repeat() {
                    return Verdict::new(Action::DoNotRetry, Reason::NotIdempotent(request.method));
                }
                return Verdict::new(Action::Retry, Reason::RetryableTransport(e));
            }
            Outcome::Response {
                status,
                retry_after,
                pushback_ms,
            } => (status, retry_after, pushback_ms),
        };
        let code = status.code();
        if code < 400 {
            return Verdict::new(Action::Success, Reason::NotAFailure(status));
        }
        // The hints are read for every failure, so a verdict reports what the server asked
        // even when it does not retry.
        let (hint, hint_says, ignored_hint) = read_hints(retry_after, pushback, now_ms);
        let (action, reason) = if !self.statuses.contains(code) {
            let reason = match code {
                410 => Reason::Gone,
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

#[cfg(test)]
mod tests;
