//! `Budget`: the module's registry of retry budgets, keyed by call site.

use std::cell::RefCell;

use stampede::budget::{BudgetExhausted, BudgetRegistry, BudgetSettings, TokenBucket};
use wasm_bindgen::prelude::*;

use crate::opts::{Opts, config_error};

thread_local! {
    /// One registry per module instance (per page, per worker).
    static REGISTRY: RefCell<BudgetRegistry> = RefCell::new(BudgetRegistry::new());
}

/// The budget a call site gets when none was configured: 10 retries, 1 more per second.
pub(crate) const DEFAULT_BUDGET: BudgetSettings = BudgetSettings::new(10.0, 1.0);

/// Reads `BudgetOptions` (`{ capacity, refillPerSec, retryCost?, successRefund? }`).
pub(crate) fn budget_settings(opts: &Opts<'_>) -> Result<BudgetSettings, JsValue> {
    let mut s = DEFAULT_BUDGET;
    if let Some(v) = opts.f64("capacity")? {
        s.capacity = v;
    }
    if let Some(v) = opts.f64("refillPerSec")? {
        s.refill_per_sec = v;
    }
    if let Some(v) = opts.f64("retryCost")? {
        s.retry_cost = v;
    }
    if let Some(v) = opts.f64("successRefund")? {
        s.success_refund = v;
    }
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// Runs `f` on the bucket of `call_site`, making it with `settings` if it is new.
#[inline(never)]
pub(crate) fn with_bucket<T>(
    call_site: &str,
    settings: BudgetSettings,
    now_ms: f64,
    f: impl FnOnce(&mut TokenBucket) -> T,
) -> Result<T, JsValue> {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        let bucket = r
            .get_or_insert(call_site, settings, now_ms)
            .map_err(|e| config_error("budget.", &e))?;
        Ok(f(bucket))
    })
}

/// The error `retryFetch` rejects with when a call site's budget is spent.
pub(crate) fn exhausted_error(call_site: &str, e: &BudgetExhausted) -> JsValue {
    let err = js_sys::Error::new(&format!("{call_site}: {e}"));
    err.set_name("BudgetExhaustedError");
    crate::opts::set(&err, "callSite", call_site);
    crate::opts::set(&err, "retryInMs", e.retry_in_ms);
    crate::opts::set(&err, "tokens", e.tokens);
    err.into()
}

/// A handle on one call site's token bucket in the module's registry.
#[wasm_bindgen]
pub struct Budget {
    call_site: String,
    settings: BudgetSettings,
}

fn now_or(now_ms: Option<f64>) -> f64 {
    now_ms
        .filter(|n| n.is_finite())
        .unwrap_or_else(js_sys::Date::now)
}

#[wasm_bindgen]
impl Budget {
    /// `Budget.forCallSite("GET /api/orders", { capacity: 10, refillPerSec: 1 })`: the
    /// bucket of that call site, made full now if it does not exist yet (an existing
    /// bucket keeps its tokens). `retryFetch`'s `callSite` option names the same bucket.
    #[wasm_bindgen(js_name = forCallSite)]
    pub fn for_call_site(name: String, options: JsValue) -> Result<Budget, JsValue> {
        let opts = Opts::new(&options, "Budget options", "")?;
        let settings = budget_settings(&opts)?;
        with_bucket(&name, settings, js_sys::Date::now(), |_| ())?;
        Ok(Budget {
            call_site: name,
            settings,
        })
    }

    /// The call site's name.
    #[wasm_bindgen(getter, js_name = callSite)]
    pub fn call_site(&self) -> String {
        self.call_site.clone()
    }

    /// Tokens left at `nowMs` (default: `Date.now()`).
    pub fn tokens(&self, now_ms: Option<f64>) -> Result<f64, JsValue> {
        let now = now_or(now_ms);
        with_bucket(&self.call_site, self.settings, now, |b| b.tokens(now))
    }

    /// Whether the circuit is open (calls fail fast) at `nowMs`.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self, now_ms: Option<f64>) -> Result<bool, JsValue> {
        let now = now_or(now_ms);
        with_bucket(&self.call_site, self.settings, now, |b| b.is_open(now))
    }

    /// Spends one retry's tokens if the bucket can pay; returns whether it could.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now_ms: Option<f64>) -> Result<bool, JsValue> {
        let now = now_or(now_ms);
        with_bucket(&self.call_site, self.settings, now, |b| {
            b.try_retry(now).is_ok()
        })
    }

    /// Refills the bucket to full.
    pub fn reset(&self) -> Result<(), JsValue> {
        REGISTRY.with(|r| {
            r.borrow_mut()
                .configure(&self.call_site, self.settings, js_sys::Date::now())
                .map(|_| ())
                .map_err(|e| config_error("budget.", &e))
        })
    }
}
