//! One error type for every setting that can be wrong.

use core::fmt;

/// A setting that failed validation.
///
/// Every constructor in this crate validates its settings once and returns this error,
/// so nothing downstream has to check again (and nothing can panic on a bad value that
/// arrived from a JavaScript slider). The error names the field in the crate's own
/// snake_case vocabulary (`base`, `cap`, `max_attempts`, …); front ends map it to
/// their own names (`--base`, `baseMs`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The field that is wrong, e.g. `"cap"`.
    pub field: &'static str,
    /// What the field accepts, e.g. `"a duration in milliseconds, at least base (200)"`.
    pub expected: String,
    /// The value that was given, formatted for a person.
    pub got: String,
}

impl ConfigError {
    /// Builds an error for `field`.
    pub fn new(field: &'static str, expected: impl Into<String>, got: impl fmt::Display) -> Self {
        ConfigError {
            field,
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.field, self.expected, self.got
        )
    }
}

impl std::error::Error for ConfigError {}

/// The longest delay, cap or deadline the crate accepts: one day, in milliseconds.
///
/// Bounding durations is what lets the simulator use bucketed event queues, and no
/// real client should plan a retry further away than this.
pub const MAX_DURATION_MS: f64 = 86_400_000.0;

/// Checks that `value` is a finite number of milliseconds in `[min, MAX_DURATION_MS]`.
pub(crate) fn check_ms(field: &'static str, value: f64, min: f64) -> Result<f64, ConfigError> {
    if value.is_finite() && value >= min && value <= MAX_DURATION_MS {
        Ok(value)
    } else {
        Err(ConfigError::new(
            field,
            format!(
                "a finite duration from {} ms to {} ms",
                fmt_num(min),
                fmt_num(MAX_DURATION_MS)
            ),
            fmt_num(value),
        ))
    }
}

/// Checks that `value` is finite and in `[min, max]`.
pub(crate) fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
    what: &str,
) -> Result<f64, ConfigError> {
    if value.is_finite() && value >= min && value <= max {
        Ok(value)
    } else {
        Err(ConfigError::new(
            field,
            format!("{what} from {} to {}", fmt_num(min), fmt_num(max)),
            fmt_num(value),
        ))
    }
}

/// Formats a number without a trailing `.0` when it is whole.
pub(crate) fn fmt_num(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
