//! The JavaScript errors of bad settings, built in `js/errors.js` from the core's data.
//!
//! Every settings error is a `RangeError` (bad value) or `TypeError` (wrong type) whose
//! message names the option as JavaScript spells it (`budget.capacity: expected …, got …`)
//! and which carries the contract's properties: `field`, `code` and, where they apply,
//! `min`, `max`, `unit`, `allowed`, `got` (see `stampede.d.ts`, `SettingsErrorInfo`).

use js_sys::Array;
use stampede::{ConfigError, Expected, Got, Limit, Unit};
use wasm_bindgen::prelude::*;

use crate::fields::js_name;

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
    pub(crate) fn settings_error_js(
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
