//! The two clocks a retry decision reads, in JavaScript (see `stampede::policy::Now`).
//!
//! The wall clock is `Date.now()`: only a `Retry-After` HTTP-date is read against it. The
//! monotonic clock, for budgets and deadlines, is `performance.now()` moved onto the epoch
//! scale: `Date.now() - performance.now()` taken once, plus `performance.now()`. It never
//! runs backwards and no change of the system clock moves it, yet it reads like
//! `Date.now()`, so a caller that still passes `Date.now()` as a budget's `nowMs` (as the
//! package's docs once said) stays on the same scale as `retryFetch`, off by at most the
//! clock's drift since the module loaded, instead of decades.

use std::cell::Cell;

use js_sys::Date;
use stampede::policy::Now;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`; `Err` where there is no `performance` (every browser, worker
    /// and Node 16+ has one).
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn performance_now() -> Result<f64, JsValue>;
}

thread_local! {
    /// `Date.now() - performance.now()` when first read: the monotonic clock's origin on
    /// the epoch scale.
    static ORIGIN: Cell<Option<f64>> = const { Cell::new(None) };
}

/// The monotonic clock (ms, on the epoch scale): for budgets and deadlines.
pub(crate) fn mono_ms() -> f64 {
    let Ok(p) = performance_now() else {
        return Date::now();
    };
    let origin = ORIGIN.with(|o| match o.get() {
        Some(origin) => origin,
        None => {
            let origin = Date::now() - p;
            o.set(Some(origin));
            origin
        }
    });
    origin + p
}

/// Now on both clocks.
pub(crate) fn now() -> Now {
    Now::new(mono_ms(), Date::now())
}
