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

/// Checks that `value` is a finite number of milliseconds in `[min, MAX_DURATION_MS]`, the
/// range of every duration setting of the crate; the error names `field`.
///
/// ```
/// assert_eq!(stampede::check_ms("deadline", 500.0, 0.0), Ok(500.0));
/// assert_eq!(stampede::check_ms("deadline", -1.0, 0.0).unwrap_err().field, "deadline");
/// ```
pub fn check_ms(field: &'static str, value: f64, min: f64) -> Result<f64, ConfigError> {
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

/// Formats a number for a message: whole numbers without a fraction, others to at most
/// three decimals (`1.5`, `0.001`), huge ones in exponent form, `NaN` and `infinity` by
/// name.
///
/// Integer arithmetic only: this keeps `core`'s float formatting (Grisu/Dragon4 and their
/// tables, ~20 KB) out of the WebAssembly build, which formats numbers only for messages.
///
/// ```
/// use stampede::format_number;
/// assert_eq!(format_number(200.0), "200");
/// assert_eq!(format_number(-1.25), "-1.25");
/// assert_eq!(format_number(2.0 / 3.0), "0.667");
/// assert_eq!(format_number(f64::NAN), "NaN");
/// assert_eq!(format_number(1e300), "1e300");
/// ```
pub fn format_number(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    if a.is_infinite() {
        return format!("{sign}infinity");
    }
    if a >= 1e15 {
        let (mut m, mut e) = (a, 0u32);
        while m >= 10.0 {
            m /= 10.0;
            e += 1;
        }
        return format!("{sign}{}e{e}", format_number(m));
    }
    let scaled = (a * 1000.0).round() as u64;
    let (int, frac) = (scaled / 1000, scaled % 1000);
    if frac == 0 {
        return if int == 0 {
            "0".to_owned()
        } else {
            format!("{sign}{int}")
        };
    }
    let digits = format!("{frac:03}");
    format!("{sign}{int}.{}", digits.trim_end_matches('0'))
}

pub(crate) use format_number as fmt_num;

/// A string in double quotes, for messages (without `Debug`'s escaping machinery).
pub(crate) fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}
