//! Failures below HTTP (no status came back), and sets of them.

use core::fmt;
use core::str::FromStr;

use crate::error::{ConfigError, Field};

/// A failure below HTTP: no status came back.
///
/// `#[non_exhaustive]`: transports add failures (TLS, HTTP/2 stream resets); front ends
/// name them through `FromStr` and `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

    /// Every transport error's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    pub const NAMES: [&'static str; 5] = ["timeout", "connect", "reset", "dns", "abort"];

    /// The name used on the command line and in JS: `timeout`, `connect`, `reset`, `dns`, `abort`.
    pub const fn name(self) -> &'static str {
        TransportError::NAMES[self as usize]
    }

    pub(super) const fn describe(self) -> &'static str {
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
        crate::error::lookup(Field::Error, &TransportError::NAMES, s)
            .map(|i| TransportError::ALL[i])
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
