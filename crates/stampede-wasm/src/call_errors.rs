//! How a `retryFetch` call that stops ends, for both drivers (the full entry's `fetch.rs`
//! and the slim entry's `call.rs`): the error classes of `js/errors.js`, chosen by the
//! reason the call stopped for.

use js_sys::Array;
use stampede::nets::Blocked;
use stampede::policy::StopReason;
use wasm_bindgen::prelude::*;

use crate::budget::exhausted_error;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = retryError)]
    pub(crate) fn retry_error_js(reason: &str, attempts: &Array, cause: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = blockedError)]
    pub(crate) fn blocked_error_js(
        kind: u8,
        call_site: Option<&str>,
        reason: &str,
        value: f64,
        attempts: &Array,
        cause: &JsValue,
    ) -> JsValue;
    /// A RangeError naming `input` when it is a string no URL parser reads; undefined
    /// otherwise (see js/errors.js: the check is the environment's URL parser).
    #[wasm_bindgen(js_name = urlError)]
    pub(crate) fn url_error_js(input: &JsValue) -> JsValue;
    /// A RangeError naming `init` when fetch would refuse it whatever the network does
    /// (see js/errors.js: the environment's `Request` is asked, of a Request input's copy);
    /// undefined otherwise, and for an input of the caller's with a `clone` (`cloned`).
    #[wasm_bindgen(js_name = initError)]
    pub(crate) fn init_error_js(input: &JsValue, init: &JsValue, cloned: bool) -> JsValue;
}

/// The error a call rejects with when `reason` stopped it and its last attempt (if any)
/// failed with `cause`: an open circuit or a throttle is `CircuitOpenError` or
/// `ThrottledError`, anything else (a budget too, as before the other nets) `RetryError`.
pub(crate) fn stop_error(
    call_site: Option<&str>,
    reason: &StopReason,
    text: &str,
    attempts: &Array,
    cause: &JsValue,
) -> JsValue {
    match reason {
        StopReason::CircuitOpen(e) => {
            blocked_error_js(0, call_site, text, e.retry_in_ms, attempts, cause)
        }
        StopReason::Throttled(e) => {
            blocked_error_js(1, call_site, text, e.probability, attempts, cause)
        }
        _ => retry_error_js(text, attempts, cause),
    }
}

/// The error of a first attempt the nets refused: nothing was sent.
pub(crate) fn refused_error(call_site: Option<&str>, b: Blocked) -> JsValue {
    match b {
        Blocked::Budget(e) => exhausted_error(call_site, &e),
        b => {
            let reason = StopReason::from(b);
            stop_error(
                call_site,
                &reason,
                &reason.to_string(),
                &Array::new(),
                &JsValue::UNDEFINED,
            )
        }
    }
}
