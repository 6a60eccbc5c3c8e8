//! Reading settings out of JavaScript objects, with errors that name the field.
//!
//! A slider can send `NaN`, a form an empty string, a caller a typo. Every getter here
//! checks the JavaScript type (wrong type: `TypeError`) and every core setting is validated
//! by the core (bad value: `RangeError`); the message names the field as JavaScript spells
//! it (`baseMs`, `budget.capacity`). Nothing here can panic.

use js_sys::{Array, Object, Reflect};
use stampede::{ConfigError, Expected, Field, Got, Limit, MAX_TEXT_CHARS, Unit};
use wasm_bindgen::prelude::*;

/// A settings object, or `undefined`/`null` (every field then takes its default).
pub(crate) struct Opts<'a> {
    obj: Option<&'a Object>,
    /// A prefix for field names in messages: `""`, `"policy."` or `"budget."`.
    prefix: &'static str,
}

// Errors are put together in JavaScript (js/errors.js) from the core's data: the wasm
// passes names and numbers and formats nothing, which keeps the text (and the code that
// would format it) out of the module.
#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// `TypeError` (`code: "wrong_type"`): `{prefix}{field}: expected {expected}, got
    /// {value, described}`.
    #[wasm_bindgen(js_name = typeError)]
    pub(crate) fn wrong_type(prefix: &str, field: &str, expected: &str, value: &JsValue)
    -> JsValue;
    /// `RangeError` (`code: "out_of_range"`, or `"not_a_number"` for `NaN`):
    /// `{prefix}{field}: expected {expected}, got {got}`.
    #[wasm_bindgen(js_name = rangeError)]
    pub(crate) fn out_of_range(prefix: &str, field: &str, expected: &str, got: &JsValue)
    -> JsValue;
    /// The `RangeError` of a core [`ConfigError`], with every property of the contract.
    #[wasm_bindgen(js_name = settingsError)]
    fn settings_error_js(
        prefix: &str,
        field: &str,
        code: &str,
        got: &JsValue,
        shape: u8,
        min: f64,
        max: f64,
        unit: &str,
        whole: bool,
        allowed: &JsValue,
        detail: &str,
    ) -> JsValue;
}

/// A `TypeError` with a message of its own (not a settings error: a call's shape).
pub(crate) fn type_error(msg: &str) -> JsValue {
    js_sys::TypeError::new(msg).into()
}

/// `v` as a string of at most [`MAX_TEXT_CHARS`] characters: `TypeError` for another type,
/// `RangeError` (`code: "too_long"`) for a longer string, both naming `{prefix}{field}`.
///
/// The length is checked before the string is copied into wasm memory, which never
/// shrinks: a huge string must not grow it for good, or exhaust it.
pub(crate) fn text(v: &JsValue, prefix: &str, field: &str) -> Result<String, JsValue> {
    match v.dyn_ref::<js_sys::JsString>() {
        Some(s) if s.length() <= MAX_TEXT_CHARS => Ok(String::from(s)),
        Some(_) => Err(settings_error_js(
            prefix,
            field,
            "too_long",
            v,
            Shape::AtMostChars as u8,
            f64::NAN,
            f64::from(MAX_TEXT_CHARS),
            "chars",
            true,
            &JsValue::UNDEFINED,
            "",
        )),
        None => Err(wrong_type(prefix, field, "a string", v)),
    }
}

/// A number argument of a method (`n`, `tMs`, `nowMs`): `None` when `undefined` or
/// `null`, `TypeError` naming `field` for any other non-number. `NaN` and infinities are
/// returned for the caller to judge.
pub(crate) fn number_arg(v: &JsValue, field: &str) -> Result<Option<f64>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_f64()
        .map(Some)
        .ok_or_else(|| wrong_type("", field, "a number", v))
}

/// A finite number argument, or `None` when omitted.
pub(crate) fn finite_arg(v: &JsValue, field: &str) -> Result<Option<f64>, JsValue> {
    match number_arg(v, field)? {
        Some(n) if !n.is_finite() => Err(out_of_range("", field, "a finite number", v)),
        n => Ok(n),
    }
}

/// The shapes of [`Expected`], as `js/errors.js` numbers them.
#[derive(Clone, Copy)]
enum Shape {
    Range = 0,
    Above = 1,
    AtLeastField = 2,
    OneOf = 3,
    Syntax = 4,
    AtMostChars = 5,
    Work = 6,
    RegistryFull = 7,
}

/// Turns a core settings error into a `RangeError` naming the JavaScript field, with the
/// contract's properties (`field`, `code`, `min`, `max`, `unit`, `allowed`, `got`).
pub(crate) fn config_error(prefix: &str, e: &ConfigError) -> JsValue {
    config_error_as(prefix, js_name(e.field), e)
}

/// [`config_error`] under another name for the field: the argument a caller passed it
/// as (`name` for `Budget.forCallSite`'s call site).
#[inline(never)]
pub(crate) fn config_error_as(prefix: &str, field: &str, e: &ConfigError) -> JsValue {
    let got = match &e.got {
        Got::Number(n) => JsValue::from(*n),
        Got::Text(s) => JsValue::from_str(s),
    };
    let none = f64::NAN;
    let mut allowed = JsValue::UNDEFINED;
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
            allowed = names_array(names).into();
            (Shape::OneOf, none, none, Unit::None, false)
        }
        Expected::Syntax(what) => {
            detail = what;
            (Shape::Syntax, none, none, Unit::None, false)
        }
        Expected::AtMostChars(n) => (Shape::AtMostChars, none, f64::from(n), Unit::Chars, true),
        Expected::Work { max, bound } => {
            detail = bound.describe();
            (Shape::Work, none, max, Unit::None, false)
        }
        Expected::RegistryFull { max } => {
            (Shape::RegistryFull, none, f64::from(max), Unit::Count, true)
        }
    };
    settings_error_js(
        prefix,
        field,
        e.code().name(),
        &got,
        shape as u8,
        min,
        max,
        unit.name().unwrap_or(""),
        whole,
        &allowed,
        detail,
    )
}

/// `names` as a JavaScript array of strings.
pub(crate) fn names_array(names: &[&str]) -> Array {
    names.iter().map(|n| JsValue::from_str(n)).collect()
}

/// The JavaScript name of a core field, as the options objects spell it.
pub(crate) const fn js_name(field: Field) -> &'static str {
    match field {
        Field::Strategy => "strategy",
        Field::Base => "baseMs",
        Field::Cap => "capMs",
        Field::Multiplier => "multiplier",
        Field::MaxAttempts => "maxAttempts",
        Field::MaxElapsed => "maxElapsedMs",
        Field::MaxRetryAfter => "maxRetryAfterMs",
        Field::Samples => "n",
        Field::Seed => "seed",
        Field::Method => "method",
        Field::Status => "status",
        Field::Error => "error",
        Field::RetryOn => "retryOn",
        Field::Capacity => "capacity",
        Field::RefillPerSec => "refillPerSec",
        Field::RetryCost => "retryCost",
        Field::SuccessRefund => "successRefund",
        Field::CallSite => "callSite",
        Field::Scenario => "scenario",
        Field::Clients => "clients",
        Field::Outage => "outageMs",
        Field::OutageStart => "outageStartMs",
        Field::CapacityRps => "capacityRps",
        Field::RejectCost => "rejectCost",
        Field::Latency => "latencyMs",
        Field::LatencySd => "latencySdMs",
        Field::Rate => "ratePerClient",
        Field::Duration => "durationMs",
        Field::BurstWindow => "burstWindowMs",
        Field::RetryAfter => "retryAfterMs",
        Field::BudgetScope => "budgetScope",
        Field::Slot => "slotMs",
        Field::LogClients => "logClients",
        Field::Runs => "runs",
        Field::Deadline => "deadlineMs",
        Field::AttemptTimeout => "attemptTimeoutMs",
    }
}

/// Where a field sits in the JavaScript API, which decides its prefix when nested.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// `PolicyOptions`: `policy.` inside `Simulation` and `retryFetch` options.
    Policy,
    /// `BudgetOptions`: `budget.` inside them.
    Budget,
    /// A top-level option or argument.
    Top,
    /// Not an option of the JavaScript API.
    None,
}

/// The group of a core field.
pub(crate) const fn group(field: Field) -> Group {
    match field {
        Field::Strategy
        | Field::Base
        | Field::Cap
        | Field::Multiplier
        | Field::MaxAttempts
        | Field::MaxElapsed
        | Field::MaxRetryAfter
        | Field::RetryOn => Group::Policy,
        Field::Capacity | Field::RefillPerSec | Field::RetryCost | Field::SuccessRefund => {
            Group::Budget
        }
        Field::Samples
        | Field::Seed
        | Field::Method
        | Field::Status
        | Field::Error
        | Field::CallSite
        | Field::Scenario
        | Field::Clients
        | Field::Outage
        | Field::OutageStart
        | Field::CapacityRps
        | Field::RejectCost
        | Field::Latency
        | Field::LatencySd
        | Field::Rate
        | Field::Duration
        | Field::BurstWindow
        | Field::RetryAfter
        | Field::BudgetScope
        | Field::Slot
        | Field::LogClients
        | Field::Deadline
        | Field::AttemptTimeout => Group::Top,
        Field::Runs => Group::None,
    }
}

/// The prefix of a nested group's fields in messages.
pub(crate) const fn prefix_of(group: Group) -> &'static str {
    match group {
        Group::Policy => "policy.",
        Group::Budget => "budget.",
        Group::Top | Group::None => "",
    }
}

impl<'a> Opts<'a> {
    /// Reads `value` as a settings object: an object, or `undefined`/`null`.
    pub(crate) fn new(
        value: &'a JsValue,
        what: &str,
        prefix: &'static str,
    ) -> Result<Self, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Opts { obj: None, prefix });
        }
        match value.dyn_ref::<Object>() {
            Some(obj) if value.is_object() => Ok(Opts {
                obj: Some(obj),
                prefix,
            }),
            _ => Err(wrong_type("", what, "an object", value)),
        }
    }

    pub(crate) fn prefix(&self) -> &'static str {
        self.prefix
    }

    /// The raw field; `undefined` when absent. `null` counts as absent too.
    pub(crate) fn raw(&self, key: &str) -> Result<Option<JsValue>, JsValue> {
        let Some(obj) = self.obj else { return Ok(None) };
        let v = Reflect::get(obj, &JsValue::from_str(key))?;
        Ok(if v.is_undefined() || v.is_null() {
            None
        } else {
            Some(v)
        })
    }

    /// A number field. `NaN` and infinities are numbers of the wrong range: `RangeError`.
    pub(crate) fn f64(&self, key: &str) -> Result<Option<f64>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() => Ok(Some(n)),
                Some(_) => Err(out_of_range(self.prefix, key, "a finite number", &v)),
                None => Err(wrong_type(self.prefix, key, "a number", &v)),
            },
        }
    }

    /// The number for `field` (under its JavaScript name), as given: `NaN` and infinities
    /// included, for the core to reject with the field's range.
    pub(crate) fn number(&self, field: Field) -> Result<Option<f64>, JsValue> {
        let key = js_name(field);
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) => Ok(Some(n)),
                None => Err(wrong_type(self.prefix, key, "a number", &v)),
            },
        }
    }

    /// The number for `field`, checked against the core's range for it (a whole-number
    /// field: a whole number).
    pub(crate) fn checked(&self, field: Field) -> Result<Option<f64>, JsValue> {
        match self.number(field)? {
            Some(n) => field
                .check(n)
                .map(Some)
                .map_err(|e| config_error(self.prefix, &e)),
            None => Ok(None),
        }
    }

    /// A string field (at most [`MAX_TEXT_CHARS`] characters).
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => text(&v, self.prefix, key).map(Some),
        }
    }

    /// A boolean field.
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| wrong_type(self.prefix, key, "true or false", &v)),
        }
    }

    /// A seed: a whole number from 0 to 2^53 − 1, or a fresh random one.
    ///
    /// Omitting it gives a random seed, which is what real clients want: a fleet whose
    /// members all share one seed draws the same "random" delays, and the herd is back.
    pub(crate) fn seed(&self) -> Result<u64, JsValue> {
        Ok(match self.checked(Field::Seed)? {
            Some(n) => n as u64,
            None => random_seed(),
        })
    }
}

/// A seed from `Math.random`, 53 bits of it.
pub(crate) fn random_seed() -> u64 {
    (js_sys::Math::random() * (stampede::MAX_EXACT_SEED as f64 + 1.0)) as u64
}

/// Sets `obj[key] = value` on a plain object being built for JavaScript.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    set_value(obj, key, &value.into());
}

/// The one, non-generic body of [`set`].
#[inline(never)]
fn set_value(obj: &Object, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}
