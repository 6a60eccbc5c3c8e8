//! One error type for every setting that can be wrong, as data rather than prose.
//!
//! A front end (the command line, the WebAssembly glue, a server) needs three things from a
//! bad setting: *which* setting, *what* it accepts, and *what it got*. When those travel
//! as an English sentence, every front end ends up matching the core's wording with
//! regular expressions to translate it, and the copies drift. So [`ConfigError`] carries a
//! [`Field`] (an enum a front end maps with an exhaustive `match`: a new setting that one
//! front end forgets does not compile), an [`Expected`] (a range with its [`Unit`], a list
//! of names, …) and a [`Got`]. Its `Display` is the one-line form for people,
//! `cap: expected a duration at least base (200 ms) and at most 86400000 ms, got 100`.
//!
//! ```
//! use stampede::backoff::{BackoffSettings, Strategy};
//! use stampede::{Code, Expected, Field, Got, Unit};
//! let e = BackoffSettings::new(Strategy::Full, 200.0, 100.0).build().unwrap_err();
//! assert_eq!(e.field, Field::Cap);
//! assert_eq!(e.code(), Code::OutOfRange);
//! assert_eq!(e.got, Got::Number(100.0));
//! let Expected::AtLeastField { other, min, unit, .. } = e.expected else { panic!() };
//! assert_eq!((other, min, unit), (Field::Base, 200.0, Unit::Ms));
//! ```

use core::fmt;

pub use crate::field::Field;
pub use crate::work_bound::WorkBound;

/// A setting that failed validation.
///
/// Every constructor in this crate validates its settings once and returns this error,
/// so nothing downstream has to check again (and nothing can panic on a bad value that
/// arrived from a JavaScript slider).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The setting that is wrong.
    pub field: Field,
    /// What the setting accepts.
    pub expected: Expected,
    /// The value that was given.
    pub got: Got,
}

/// What a setting accepts.
///
/// Like [`Field`], deliberately not `#[non_exhaustive]`: a front end that builds its own
/// messages from these (the WebAssembly glue does) must fail to compile when a new shape
/// appears, rather than fall back to a vague message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// A finite number in `min..=max` (a whole one if `whole`).
    Range(Limit),
    /// A finite number more than `min` (exclusive) and at most `max`.
    Above {
        /// The bound the value must exceed.
        min: f64,
        /// The largest value accepted.
        max: f64,
        /// The unit of both.
        unit: Unit,
    },
    /// At least the value of another setting (`cap` at least `base`), and at most `max`.
    AtLeastField {
        /// The other setting.
        other: Field,
        /// Its value: the smallest accepted.
        min: f64,
        /// The largest value accepted.
        max: f64,
        /// The unit of both.
        unit: Unit,
    },
    /// One of these names (compared case-insensitively).
    OneOf(&'static [&'static str]),
    /// Text of a given shape, described for a person (`"an HTTP method such as GET"`).
    Syntax(&'static str),
    /// A string of at most this many characters (front ends bound the text they take by
    /// [`MAX_TEXT_CHARS`] before handing it over).
    AtMostChars(u32),
    /// Settings whose work together stays under a bound; `max` is the largest value of
    /// the error's field that fits, given the others.
    Work {
        /// The bound.
        max: f64,
        /// Which bound.
        bound: WorkBound,
    },
    /// The same, when only a larger value of the error's field fits: `min` is the least
    /// value that does, given the others (a closed loop whose cycle is so short that even
    /// the shortest duration makes too many requests: `think` at least `min`).
    WorkAtLeast {
        /// The least value that fits.
        min: f64,
        /// Which bound.
        bound: WorkBound,
    },
    /// A new name for a registry that already holds `max` names.
    RegistryFull {
        /// The most names a registry holds.
        max: u32,
    },
}

/// A range with its unit: the bounds of one numeric setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// The smallest value accepted.
    pub min: f64,
    /// The largest value accepted.
    pub max: f64,
    /// The unit of both.
    pub unit: Unit,
    /// Whether only whole numbers are accepted.
    pub whole: bool,
}

impl Limit {
    /// A range of fractional values.
    pub const fn new(min: f64, max: f64, unit: Unit) -> Self {
        Limit {
            min,
            max,
            unit,
            whole: false,
        }
    }

    /// A range of whole numbers.
    pub const fn whole(min: f64, max: f64, unit: Unit) -> Self {
        Limit {
            min,
            max,
            unit,
            whole: true,
        }
    }

    /// Whether `value` is finite, in range and, if needed, whole.
    pub fn contains(&self, value: f64) -> bool {
        value.is_finite()
            && value >= self.min
            && value <= self.max
            && (!self.whole || value.fract() == 0.0)
    }
}

/// The unit of a numeric setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// Per second (tokens, requests).
    PerSecond,
    /// A number of things (attempts, clients, tokens).
    Count,
    /// A fraction, 0 to 1.
    Fraction,
    /// Characters of a string.
    Chars,
    /// A plain number (a multiplier, a status code, a seed).
    None,
}

impl Unit {
    /// The unit's name in machine-readable errors: `"ms"`, `"per_second"`, `"count"`,
    /// `"fraction"`, `"chars"`; `None` for a plain number.
    pub const fn name(self) -> Option<&'static str> {
        match self {
            Unit::Ms => Some("ms"),
            Unit::PerSecond => Some("per_second"),
            Unit::Count => Some("count"),
            Unit::Fraction => Some("fraction"),
            Unit::Chars => Some("chars"),
            Unit::None => None,
        }
    }
}

/// The value a setting was given.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    /// A number (whole settings too).
    Number(f64),
    /// A string.
    Text(String),
}

/// What kind of wrong a [`ConfigError`] is, for machines: the `code` of the JavaScript
/// errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// A number outside its range (infinities included).
    OutOfRange,
    /// `NaN`.
    NotANumber,
    /// A fraction where a whole number is needed.
    NotWhole,
    /// A name not in the list.
    UnknownValue,
    /// A string past its length bound.
    TooLong,
    /// A string that does not parse.
    BadSyntax,
    /// More work than one call may ask for.
    TooMuchWork,
}

impl Code {
    /// `"out_of_range"`, `"not_a_number"`, `"not_whole"`, `"unknown_value"`, `"too_long"`,
    /// `"bad_syntax"`, `"too_much_work"`.
    pub const fn name(self) -> &'static str {
        match self {
            Code::OutOfRange => "out_of_range",
            Code::NotANumber => "not_a_number",
            Code::NotWhole => "not_whole",
            Code::UnknownValue => "unknown_value",
            Code::TooLong => "too_long",
            Code::BadSyntax => "bad_syntax",
            Code::TooMuchWork => "too_much_work",
        }
    }
}

impl ConfigError {
    /// An error for `field`.
    pub fn new(field: Field, expected: Expected, got: Got) -> Self {
        ConfigError {
            field,
            expected,
            got,
        }
    }

    /// `field` outside its range `limit`, given `value`.
    pub fn range(field: Field, limit: Limit, value: f64) -> Self {
        ConfigError::new(field, Expected::Range(limit), Got::Number(value))
    }

    /// `field` given the string `value`, not one of `names`.
    pub fn one_of(field: Field, names: &'static [&'static str], value: &str) -> Self {
        ConfigError::new(field, Expected::OneOf(names), Got::Text(value.to_owned()))
    }

    /// What kind of wrong this is.
    pub fn code(&self) -> Code {
        let number = match self.got {
            Got::Number(n) => n,
            Got::Text(_) => f64::NAN,
        };
        match self.expected {
            Expected::OneOf(_) => Code::UnknownValue,
            Expected::Syntax(_) => Code::BadSyntax,
            Expected::AtMostChars(_) => Code::TooLong,
            Expected::Work { .. } | Expected::WorkAtLeast { .. } => Code::TooMuchWork,
            Expected::RegistryFull { .. } => Code::OutOfRange,
            _ if number.is_nan() => Code::NotANumber,
            Expected::Range(l) if l.whole && number.is_finite() && number.fract() != 0.0 => {
                Code::NotWhole
            }
            Expected::Range(_) | Expected::Above { .. } | Expected::AtLeastField { .. } => {
                Code::OutOfRange
            }
        }
    }
}

impl Expected {
    /// The unit of the range expected, if it is a range (a front end that quotes the value
    /// it was given in that unit says so: `got 1000 ms`).
    pub const fn unit(&self) -> Option<Unit> {
        match *self {
            Expected::Range(l) => Some(l.unit),
            Expected::Above { unit, .. } | Expected::AtLeastField { unit, .. } => Some(unit),
            _ => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, got {}",
            self.field.name(),
            self.expected,
            self.got
        )
    }
}

impl std::error::Error for ConfigError {}

/// The phrase after "expected". The WebAssembly package writes the same phrases in
/// JavaScript (`js/errors.js`) from the same data.
impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Expected::Range(l) => {
                let (min, max) = (fmt_num(l.min), fmt_num(l.max));
                match l.unit {
                    Unit::Ms => write!(f, "a duration from {min} ms to {max} ms"),
                    Unit::PerSecond => write!(f, "a rate from {min} to {max} per second"),
                    Unit::Fraction => write!(f, "a fraction from {min} to {max}"),
                    Unit::Chars => write!(f, "from {min} to {max} characters"),
                    Unit::Count | Unit::None if l.whole => {
                        write!(f, "a whole number from {min} to {max}")
                    }
                    Unit::Count | Unit::None => write!(f, "a number from {min} to {max}"),
                }
            }
            Expected::Above { min, max, unit } => {
                let u = unit_suffix(unit);
                write!(
                    f,
                    "more than {}{u} and at most {}{u}",
                    fmt_num(min),
                    fmt_num(max)
                )
            }
            Expected::AtLeastField {
                other,
                min,
                max,
                unit,
            } => {
                let u = unit_suffix(unit);
                let what = if unit == Unit::Ms { "a duration " } else { "" };
                write!(
                    f,
                    "{what}at least {} ({}{u}) and at most {}{u}",
                    other.name(),
                    fmt_num(min),
                    fmt_num(max)
                )
            }
            Expected::OneOf(names) => {
                f.write_str("one of ")?;
                for (i, n) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(n)?;
                }
                Ok(())
            }
            Expected::Syntax(what) => f.write_str(what),
            Expected::AtMostChars(n) => write!(f, "at most {n} characters"),
            // Written to the thousandth toward the side that fits (26.666 of 26.6666…, not
            // 26.667, which is then refused): the value read is the value to type.
            Expected::Work { max, bound } => {
                let shown = to_thousandth(max, f64::floor);
                write!(f, "at most {} ", fmt_num(shown))?;
                write_counted(f, shown, bound.describe())
            }
            Expected::WorkAtLeast { min, bound } => {
                let shown = to_thousandth(min, f64::ceil);
                write!(f, "at least {} ", fmt_num(shown))?;
                write_counted(f, shown, bound.describe())
            }
            Expected::RegistryFull { max } => write!(
                f,
                "one of at most {max} call sites per registry (name a place in the code, not a URL)"
            ),
        }
    }
}

/// A work bound's text after its count: its first word, a plural noun ("clients",
/// "layers"), in the singular after a count of exactly 1 ("at most 1 layer", not "1
/// layers"). "ms" and a text that starts with no noun ("per client per second") stay.
fn write_counted(f: &mut fmt::Formatter<'_>, count: f64, text: &str) -> fmt::Result {
    let (word, rest) = text.split_at(text.find(' ').unwrap_or(text.len()));
    match word.strip_suffix('s') {
        Some(one) if count == 1.0 && word != "ms" => {
            f.write_str(one)?;
            f.write_str(rest)
        }
        _ => f.write_str(text),
    }
}

fn unit_suffix(unit: Unit) -> &'static str {
    match unit {
        Unit::Ms => " ms",
        Unit::PerSecond => " per second",
        Unit::Chars => " characters",
        Unit::Count | Unit::Fraction | Unit::None => "",
    }
}

impl fmt::Display for Got {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Got::Number(n) => f.write_str(&fmt_num(*n)),
            Got::Text(s) => write!(f, "\"{s}\""),
        }
    }
}

/// The longest delay, cap or deadline the crate accepts: one day, in milliseconds.
///
/// Bounding durations is what lets the simulator use bucketed event queues, and no
/// real client should plan a retry further away than this.
pub const MAX_DURATION_MS: f64 = 86_400_000.0;

/// The longest string a front end takes for a setting, a call-site name or a header
/// value (in UTF-16 units for JavaScript). Long enough for any real one; it keeps a
/// huge string from growing a WebAssembly module's memory, which never shrinks.
pub const MAX_TEXT_CHARS: u32 = 4096;

/// The index of `s` (trimmed, compared case-insensitively) in `names`, or the error of
/// `field` listing them. One copy for every enum parsed from its names: inlined into
/// each, the loop over the names was kilobytes of WebAssembly.
///
/// Public so that a front end parsing many named options can share this one body too
/// (with the enum's `ALL` for the value), instead of one `FromStr` copy per enum: the
/// same rule, since every `FromStr` of a named enum is this call.
///
/// ```
/// use stampede::{Field, lookup};
/// use stampede::sim::QueueOrder;
/// assert_eq!(lookup(Field::QueueOrder, QueueOrder::NAMES, " LIFO "), Ok(1));
/// assert_eq!(QueueOrder::ALL[1], QueueOrder::Lifo);
/// assert!(lookup(Field::QueueOrder, QueueOrder::NAMES, "random").is_err());
/// ```
#[inline(never)]
pub fn lookup(field: Field, names: &'static [&'static str], s: &str) -> Result<usize, ConfigError> {
    find_name(names, s.trim()).ok_or_else(|| ConfigError::one_of(field, names, s))
}

/// The index of `s` in `names`, compared case-insensitively.
#[inline(never)]
pub(crate) fn find_name(names: &[&str], s: &str) -> Option<usize> {
    names.iter().position(|n| n.eq_ignore_ascii_case(s))
}

/// Formats a number for a message: whole numbers without a fraction, others to at most
/// three decimals (`1.5`, `0.001`), small ones in exponent form (`1e-6`), huge ones too
/// (`1e300`), `NaN` and `infinity` by name.
///
/// Integer arithmetic only: this keeps `core`'s float formatting (Grisu/Dragon4 and their
/// tables, ~20 KB) out of the WebAssembly build. (The build no longer formats messages at
/// all, but the crate stays light for any other small target.)
/// `v` to the thousandth `fmt_num` writes, rounded by `round` (toward the side that fits);
/// as it is below a thousandth, which `fmt_num` writes in full.
fn to_thousandth(v: f64, round: fn(f64) -> f64) -> f64 {
    if v >= 0.001 {
        round(v * 1000.0) / 1000.0
    } else {
        v
    }
}

pub(crate) fn fmt_num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    if a.is_infinite() {
        return format!("{sign}infinity");
    }
    if a >= 1e15 || (a > 0.0 && a < 0.0005) {
        let (mut m, mut e) = (a, 0i32);
        while m >= 10.0 {
            m /= 10.0;
            e += 1;
        }
        while m < 1.0 {
            m *= 10.0;
            e -= 1;
        }
        // The divisions may leave 9.9999… for a power of ten: rounded to the three decimals
        // shown, that is 10, so the mantissa moves up a digit (1e20, not 10e19).
        if (m * 1000.0).round() >= 10_000.0 {
            m /= 10.0;
            e += 1;
        }
        return format!("{sign}{}e{e}", fmt_num(m));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_messages() {
        for (v, s) in [
            (200.0, "200"),
            (-1.25, "-1.25"),
            (2.0 / 3.0, "0.667"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-infinity"),
            (1e300, "1e300"),
            (1e20, "1e20"),
            (9.9999e20, "1e21"),
            (1.8446744073709552e19, "1.845e19"),
            (1e-6, "1e-6"),
            (0.0, "0"),
            (86_400_000.0, "86400000"),
        ] {
            assert_eq!(fmt_num(v), s, "{v}");
        }
    }

    #[test]
    fn codes_follow_the_value() {
        let whole = Limit::whole(1.0, 100.0, Unit::Count);
        let code = |v| ConfigError::range(Field::MaxAttempts, whole, v).code();
        assert_eq!(code(f64::NAN), Code::NotANumber);
        assert_eq!(code(2.5), Code::NotWhole);
        assert_eq!(code(101.0), Code::OutOfRange);
        assert_eq!(code(f64::INFINITY), Code::OutOfRange);
        let e = ConfigError::one_of(Field::Scenario, &["burst"], "chaos");
        assert_eq!(e.code(), Code::UnknownValue);
        assert_eq!(
            e.to_string(),
            "scenario: expected one of burst, got \"chaos\""
        );
    }

    #[test]
    fn work_bounds_quote_the_core_constants() {
        let steady = fmt_num(crate::sim::MAX_STEADY_REQUESTS);
        assert!(WorkBound::SteadyRequests.describe().contains(&steady));
        let delays = crate::backoff::MAX_SAMPLE_DELAYS.to_string();
        assert!(WorkBound::Delays.describe().contains(&delays));
        let attempts = crate::sim::MAX_RUN_ATTEMPTS.to_string();
        assert!(WorkBound::RunAttempts.describe().contains(&attempts));
        let occ = crate::sim::Scenario::AwsOcc.name();
        assert!(WorkBound::OccClients.describe().contains(occ));
    }

    #[test]
    fn a_bound_of_one_names_one_thing() {
        let said = |max: f64, bound: WorkBound| {
            ConfigError::new(
                Field::Layers,
                Expected::Work { max, bound },
                Got::Number(3.0),
            )
            .to_string()
        };
        assert!(said(1.0, WorkBound::Layers).contains("at most 1 layer for this"));
        assert!(said(2.0, WorkBound::Layers).contains("at most 2 layers for this"));
        assert!(said(1.0, WorkBound::Runs).contains("at most 1 run of these"));
        assert!(said(1.0, WorkBound::SteadyRequests).contains("at most 1 per client"));
        let least = ConfigError::new(
            Field::Think,
            Expected::WorkAtLeast {
                min: 1.0,
                bound: WorkBound::ClosedThink,
            },
            Got::Number(0.0),
        );
        assert!(
            least.to_string().contains("at least 1 ms of think"),
            "{least}"
        );
    }

    #[test]
    fn display_keeps_the_one_line_form() {
        let e = Field::Base.check(-1.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "base: expected a duration from 0 ms to 86400000 ms, got -1"
        );
        let e = Field::MaxAttempts.check(0.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "max_attempts: expected a whole number from 1 to 100, got 0"
        );
    }
}
