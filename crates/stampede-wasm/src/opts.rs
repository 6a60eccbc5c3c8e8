//! Reading settings out of JavaScript objects, with errors that name the field.
//!
//! A slider can send `NaN`, a form an empty string, a caller a typo. Every getter here
//! checks the JavaScript type (wrong type: `TypeError`) and every core setting is validated
//! by the core (bad value: `RangeError`); the message names the field as JavaScript spells
//! it (`baseMs`, `budget.capacity`). Nothing here can panic.

use js_sys::{Object, Reflect};
use stampede::{ConfigError, format_number};
use wasm_bindgen::{JsCast, JsValue};

/// A settings object, or `undefined`/`null` (every field then takes its default).
pub(crate) struct Opts<'a> {
    obj: Option<&'a Object>,
    /// A prefix for field names in messages: `""` or `"budget."`.
    prefix: &'static str,
}

pub(crate) fn type_error(msg: String) -> JsValue {
    js_sys::TypeError::new(&msg).into()
}

pub(crate) fn range_error(msg: String) -> JsValue {
    js_sys::RangeError::new(&msg).into()
}

fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        format!("\"{s}\"")
    } else if let Some(n) = v.as_f64() {
        format_number(n)
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}

/// Turns a core settings error into a `RangeError` naming the JavaScript field.
#[inline(never)]
pub(crate) fn config_error(prefix: &str, e: &ConfigError) -> JsValue {
    range_error(format!(
        "{prefix}{}: expected {}, got {}",
        js_name(e.field),
        e.expected,
        e.got
    ))
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
            _ => Err(type_error(format!(
                "{what}: expected an object, got {}",
                describe(value)
            ))),
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
                Some(n) => Err(range_error(format!(
                    "{}{key}: expected a finite number, got {}",
                    self.prefix,
                    format_number(n)
                ))),
                None => Err(type_error(format!(
                    "{}{key}: expected a number, got {}",
                    self.prefix,
                    describe(&v)
                ))),
            },
        }
    }

    /// A whole number in `[min, max]`.
    pub(crate) fn whole(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>, JsValue> {
        match self.f64(key)? {
            Some(n) if n.fract() == 0.0 && n >= min && n <= max => Ok(Some(n)),
            Some(n) => Err(range_error(format!(
                "{}{key}: expected a whole number from {} to {}, got {}",
                self.prefix,
                format_number(min),
                format_number(max),
                format_number(n)
            ))),
            None => Ok(None),
        }
    }

    /// A string field.
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => v.as_string().map(Some).ok_or_else(|| {
                type_error(format!(
                    "{}{key}: expected a string, got {}",
                    self.prefix,
                    describe(&v)
                ))
            }),
        }
    }

    /// A boolean field.
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                type_error(format!(
                    "{}{key}: expected true or false, got {}",
                    self.prefix,
                    describe(&v)
                ))
            }),
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
