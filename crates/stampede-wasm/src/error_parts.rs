//! A core settings error taken apart into the data `js/errors.js` builds its `RangeError`
//! from (`settingsError`): both entries hand JavaScript these parts, the full one through an
//! import, the slim one through `lastError` (`slim/errors.rs`); neither formats a message.

use stampede::{ConfigError, Expected, Limit, Unit, WorkBound};

use crate::fields::js_name;

/// The shapes of [`Expected`], as `js/errors.js` numbers them.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    Range = 0,
    Above = 1,
    AtLeastField = 2,
    OneOf = 3,
    Syntax = 4,
    AtMostChars = 5,
    Work = 6,
    RegistryFull = 7,
}

/// A [`ConfigError`]'s data: `min`/`max` are NaN where they do not apply, `allowed` is
/// empty but for a list of names.
pub(crate) struct Parts {
    pub(crate) code: &'static str,
    pub(crate) shape: Shape,
    pub(crate) min: f64,
    pub(crate) max: f64,
    /// `""` for a plain number.
    pub(crate) unit: &'static str,
    pub(crate) whole: bool,
    pub(crate) allowed: &'static [&'static str],
    /// The other field's name (`AtLeastField`), what a syntax is (`Syntax`), what `max`
    /// counts (`Work`).
    pub(crate) detail: &'static str,
}

/// The parts of `e`.
pub(crate) fn parts(e: &ConfigError) -> Parts {
    let none = f64::NAN;
    let mut allowed: &'static [&'static str] = &[];
    let mut detail = "";
    let (shape, min, max, unit, whole) = match e.expected {
        Expected::Range(Limit {
            min,
            max,
            unit,
            whole,
        }) => (Shape::Range, min, max, unit, whole),
        Expected::Above { min, max, unit } => (Shape::Above, min, max, unit, false),
        Expected::AtLeastField {
            other,
            min,
            max,
            unit,
        } => {
            detail = js_name(other);
            (Shape::AtLeastField, min, max, unit, false)
        }
        Expected::OneOf(names) => {
            allowed = names;
            (Shape::OneOf, none, none, Unit::None, false)
        }
        Expected::Syntax(what) => {
            detail = what;
            (Shape::Syntax, none, none, Unit::None, false)
        }
        Expected::AtMostChars(n) => (Shape::AtMostChars, none, f64::from(n), Unit::Chars, true),
        Expected::Work { max, bound } => {
            detail = work(bound);
            (Shape::Work, none, max, bound.unit(), false)
        }
        Expected::WorkAtLeast { min, bound } => {
            detail = work(bound);
            (Shape::Work, min, none, bound.unit(), false)
        }
        Expected::RegistryFull { max } => {
            (Shape::RegistryFull, none, f64::from(max), Unit::Count, true)
        }
    };
    Parts {
        code: e.code().name(),
        shape,
        min,
        max,
        unit: unit.name().unwrap_or(""),
        whole,
        allowed,
        detail,
    }
}

/// What a work bound's `max` counts, and why there is a bound (the core's text).
#[cfg(feature = "sim")]
fn work(bound: WorkBound) -> &'static str {
    bound.describe()
}

/// The slim entry can only be asked for too many samples (`RetryPolicy.sample`, the core's
/// `check_samples`) and too many calls in flight or nested (`in_flight.rs`): it carries those bounds'
/// texts only, not the simulator's (~1.3 KB).
#[cfg(not(feature = "sim"))]
fn work(bound: WorkBound) -> &'static str {
    match bound {
        WorkBound::Delays => WorkBound::Delays.describe(),
        WorkBound::CallsInFlight => WorkBound::CallsInFlight.describe(),
        WorkBound::NestedCalls => WorkBound::NestedCalls.describe(),
        _ => "",
    }
}
