//! HTTP status codes and sets of them (the statuses a [`RetryRules`](super::RetryRules) retries).

use core::fmt;

use crate::error::{ConfigError, Expected, Field, Got};

/// An HTTP status code, 100–599.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HttpStatus(u16);

impl HttpStatus {
    /// 200 OK.
    pub const OK: HttpStatus = HttpStatus(200);
    /// 503 Service Unavailable.
    pub const SERVICE_UNAVAILABLE: HttpStatus = HttpStatus(503);
    /// 500 Internal Server Error.
    pub const INTERNAL_SERVER_ERROR: HttpStatus = HttpStatus(500);

    /// Checks that `code` is in 100–599.
    pub fn new(code: u16) -> Result<Self, ConfigError> {
        Field::Status.check(f64::from(code))?;
        Ok(HttpStatus(code))
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
    /// inclusive ranges, separated by commas. A blank list is the empty set; an empty item
    /// in a list (`5xx,,429`) is an error.
    pub fn parse(spec: &str) -> Result<Self, ConfigError> {
        let bad = |item: &str| {
            ConfigError::new(
                Field::RetryOn,
                Expected::Syntax(
                    "a comma-separated list of statuses (100-599), classes like 5xx, or ranges like 500-504",
                ),
                Got::Text(item.to_owned()),
            )
        };
        // A status is three digits (RFC 9110 §15); `u16`'s parser alone also takes `+500`,
        // `0500` and, through the class rule, `05xx`. An error names the item as given
        // (`6xx`, `500-600`), not the part or the rewriting that failed.
        let code = |s: &str, item: &str| -> Result<u16, ConfigError> {
            let t = s.trim();
            Some(t)
                .filter(|t| t.len() == 3 && t.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|t| t.parse::<u16>().ok())
                .filter(|c| (100..=599).contains(c))
                .ok_or_else(|| bad(item))
        };
        let mut set = StatusSet::empty();
        // A blank list is the empty set (retry no status); an empty item inside a list
        // (`5xx,,429`, a trailing comma) is an error, not something to skip: it is most
        // likely a status that went missing.
        if spec.trim().is_empty() {
            return Ok(set);
        }
        for item in spec.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(bad(spec));
            }
            let lower = item.to_ascii_lowercase();
            if let Some(class) = lower.strip_suffix("xx") {
                let d = code(&format!("{class}00"), item)?;
                set = set.with_range(d, d + 99);
            } else if let Some((lo, hi)) = item.split_once('-') {
                let (lo, hi) = (code(lo, item)?, code(hi, item)?);
                if lo > hi {
                    return Err(bad(item));
                }
                set = set.with_range(lo, hi);
            } else {
                set = set.with(code(item, item)?);
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
