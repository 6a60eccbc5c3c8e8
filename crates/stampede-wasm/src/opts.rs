//! Reading settings out of JavaScript objects, with errors that name the field.
//!
//! A slider can send `NaN`, a form an empty string, a caller a typo. Every getter here
//! checks the JavaScript type (wrong type: `TypeError`) and every core setting is validated
//! by the core (bad value: `RangeError`); the message names the field as JavaScript spells
//! it (`baseMs`, `budget.capacity`). Nothing here can panic.

use js_sys::{Object, Reflect};
use stampede::ConfigError;
use wasm_bindgen::prelude::*;

/// A settings object, or `undefined`/`null` (every field then takes its default).
pub(crate) struct Opts<'a> {
    obj: Option<&'a Object>,
    /// A prefix for field names in messages: `""` or `"budget."`.
    prefix: &'static str,
}

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// `TypeError`: `{prefix}{field}: expected {expected}, got {value, described}`.
    #[wasm_bindgen(js_name = typeError)]
    pub(crate) fn wrong_type(prefix: &str, field: &str, expected: &str, value: &JsValue)
    -> JsValue;
    /// `RangeError`: `{prefix}{field}: expected {expected}, got {got}`; `got` is shown as
    /// JavaScript writes it (a string as it is).
    #[wasm_bindgen(js_name = rangeError)]
    pub(crate) fn out_of_range(prefix: &str, field: &str, expected: &str, got: &JsValue)
    -> JsValue;
    /// `new RangeError("{prefix}{field}: expected a whole number from {min} to {max}, got {got}")`.
    #[wasm_bindgen(js_name = wholeError)]
    fn whole_error_js(prefix: &str, field: &str, min: f64, max: f64, got: f64) -> JsValue;
}

// Messages are put together in JavaScript (js/errors.js): formatting them in Rust would
// cost kilobytes of wasm for text that only ever ends up in a JavaScript error.

/// A `TypeError` with a message of its own.
pub(crate) fn type_error(msg: &str) -> JsValue {
    js_sys::TypeError::new(msg).into()
}

/// The longest string taken from JavaScript (a setting, a call-site name, a header
/// value), in UTF-16 units. Checked before the string is copied into wasm memory, which
/// never shrinks: a huge string must not grow it for good, or exhaust it.
pub(crate) const MAX_TEXT: u32 = 4096;

/// `v` as a string of at most [`MAX_TEXT`] characters: `TypeError` for another type,
/// `RangeError` for a longer string, both naming `{prefix}{field}`.
pub(crate) fn text(v: &JsValue, prefix: &str, field: &str) -> Result<String, JsValue> {
    match v.dyn_ref::<js_sys::JsString>() {
        Some(s) if s.length() <= MAX_TEXT => Ok(String::from(s)),
        Some(s) => Err(out_of_range(
            prefix,
            field,
            "at most 4096 characters",
            &JsValue::from(s.length()),
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
        Some(n) if !n.is_finite() => Err(out_of_range("", field, "a finite number", &shown(n))),
        n => Ok(n),
    }
}

/// A number as the core's messages write it (`NaN`, `infinity`, at most 3 decimals).
pub(crate) fn shown(n: f64) -> JsValue {
    JsValue::from_str(&stampede::format_number(n))
}

/// Turns a core settings error into a `RangeError` naming the JavaScript field.
#[inline(never)]
pub(crate) fn config_error(prefix: &str, e: &ConfigError) -> JsValue {
    out_of_range(
        prefix,
        js_name(e.field),
        &e.expected,
        &JsValue::from_str(&e.got),
    )
}

/// The JavaScript name of a core field.
pub(crate) fn js_name(field: &str) -> &str {
    match field {
        "base" => "baseMs",
        "cap" => "capMs",
        "max_attempts" => "maxAttempts",
        "max_elapsed" => "maxElapsedMs",
        "max_retry_after" => "maxRetryAfterMs",
        "outage" => "outageMs",
        "outage_start" => "outageStartMs",
        "capacity_rps" => "capacityRps",
        "reject_cost" => "rejectCost",
        "latency" => "latencyMs",
        "latency_sd" => "latencySdMs",
        "burst_window" => "burstWindowMs",
        "retry_after" => "retryAfterMs",
        "slot" => "slotMs",
        "rate" => "ratePerClient",
        "duration" => "durationMs",
        "refill_per_sec" => "refillPerSec",
        "retry_cost" => "retryCost",
        "success_refund" => "successRefund",
        "budget_scope" => "budgetScope",
        "retry_on" => "retryOn",
        other => other,
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
                Some(n) => Err(out_of_range(self.prefix, key, "a finite number", &shown(n))),
                None => Err(wrong_type(self.prefix, key, "a number", &v)),
            },
        }
    }

    /// A whole number in `[min, max]`.
    pub(crate) fn whole(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>, JsValue> {
        match self.f64(key)? {
            Some(n) if n.fract() == 0.0 && n >= min && n <= max => Ok(Some(n)),
            Some(n) => Err(whole_error_js(self.prefix, key, min, max, n)),
            None => Ok(None),
        }
    }

    /// A string field (at most [`MAX_TEXT`] characters).
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
        Ok(match self.whole("seed", 0.0, 9_007_199_254_740_991.0)? {
            Some(n) => n as u64,
            None => random_seed(),
        })
    }
}

/// A seed from `Math.random`, 53 bits of it.
pub(crate) fn random_seed() -> u64 {
    (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64
}

/// Sets `obj[key] = value` on a plain object being built for JavaScript.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}
