//! The JavaScript errors of bad settings, built in `js/errors.js` from the core's data.
//!
//! Every settings error is a `RangeError` (bad value) or `TypeError` (wrong type) whose
//! message names the option as JavaScript spells it (`budget.capacity: expected …, got …`)
//! and which carries the contract's properties: `field`, `code` and, where they apply,
//! `min`, `max`, `unit`, `allowed`, `got` (see `stampede.d.ts`, `SettingsErrorInfo`).

use js_sys::Array;
use stampede::{ConfigError, Got};
use wasm_bindgen::prelude::*;

pub(crate) use crate::error_parts::Shape;
use crate::error_parts::parts;
use crate::fields::js_name;

/// What a settings reader fails with: the JavaScript error itself (the slim entry's is
/// data, `slim/errors.rs`).
pub(crate) type Fail = JsValue;

/// The error of a path that cannot be taken (a callback that did not run): never thrown,
/// but not a panic either.
pub(crate) fn unreachable() -> Fail {
    JsValue::UNDEFINED
}

// Errors are put together in JavaScript (js/errors.js) from the core's data: the wasm
// passes names and numbers and formats nothing, which keeps the text (and the code that
// would format it) out of the module.
#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// `TypeError` (`field: "init.body"`, `code: "wrong_type"`): `init.body: {what} can be
    /// sent only once, so retryFetch cannot retry it; …`.
    #[wasm_bindgen(js_name = onceBody)]
    pub(crate) fn once_body(what: &str) -> JsValue;
    /// `TypeError` (`field: "input"`, `code: "wrong_type"`): a `Request` input whose body
    /// was already read.
    #[wasm_bindgen(js_name = usedBody)]
    pub(crate) fn used_body() -> JsValue;
    /// The `DOMException` ("TimeoutError") an attempt cut off by its timeout is aborted
    /// with, as `AbortSignal.timeout`'s is.
    #[wasm_bindgen(js_name = timeoutError)]
    pub(crate) fn timeout_error() -> JsValue;
    /// `TypeError` (`code: "wrong_type"`): `{prefix}{field}: expected {expected}, got
    /// {value, described}`.
    #[wasm_bindgen(js_name = typeError)]
    pub(crate) fn wrong_type(prefix: &str, field: &str, expected: &str, value: &JsValue)
    -> JsValue;
    /// Whether the options object `v` (`what` in an error) is an array: `Err` with the
    /// TypeError naming `what` for what the question throws (a revoked Proxy), which would
    /// otherwise unwind through the wasm frames.
    #[wasm_bindgen(catch, js_name = arrayOptions)]
    pub(crate) fn array_options(v: &JsValue, what: &str) -> Result<bool, JsValue>;
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
    /// The `RangeError` (`code: "not_read"`) of a budget field its kind does not read
    /// (`owners`: the kinds that read it, comma-separated).
    #[wasm_bindgen(js_name = notRead)]
    pub(crate) fn not_read(
        prefix: &str,
        field: &str,
        kind: &str,
        owners: &str,
        got: &JsValue,
    ) -> JsValue;
    /// The `RangeError` (`code: "bad_syntax"`) of text with an unpaired surrogate.
    #[wasm_bindgen(js_name = unpairedError)]
    pub(crate) fn unpaired_error(prefix: &str, field: &str, got: &JsValue) -> JsValue;
}

/// A `TypeError` with a message of its own (not a settings error: a call's shape).
pub(crate) fn type_error(msg: &str) -> JsValue {
    js_sys::TypeError::new(msg).into()
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
    let p = parts(e);
    let allowed = match p.shape {
        Shape::OneOf => names_array(p.allowed).into(),
        _ => JsValue::UNDEFINED,
    };
    settings_error_js(
        prefix,
        field,
        p.code,
        &got,
        p.shape as u8,
        p.min,
        p.max,
        p.unit,
        p.whole,
        &allowed,
        p.detail,
    )
}

/// `names` as a JavaScript array of strings.
pub(crate) fn names_array(names: &[&str]) -> Array {
    names.iter().map(|n| JsValue::from_str(n)).collect()
}
