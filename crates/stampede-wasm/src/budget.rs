//! `Budget`: the module's registry of retry budgets, keyed by call site.
//!
//! The rule (the core's `BudgetRegistry`): naming a call site *with* settings
//! (`Budget.forCallSite(name, options)`, `retryFetch`'s `budget` option) makes them the call
//! site's settings — a new bucket starts full, an existing one keeps its tokens, clamped to
//! the new capacity; naming it *without* settings gets the bucket as it is (or a new one
//! with the defaults). One call site has one bucket, whatever handles point at it. The
//! registry holds at most 1,000 call sites; a new name past that is a `RangeError`.

use std::cell::RefCell;

use stampede::budget::{BudgetExhausted, BudgetRegistry, BudgetSettings, TokenBucket};
use stampede::{ConfigError, Field};
use wasm_bindgen::prelude::*;

use crate::errors::{config_error, config_error_as};
use crate::fields::{Group, prefix_of};
use crate::opts::{Opts, finite_arg, text};

thread_local! {
    /// One registry per module instance (per page, per worker).
    static REGISTRY: RefCell<BudgetRegistry> = RefCell::new(BudgetRegistry::new());
}

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = budgetExhaustedError)]
    fn budget_exhausted_error(
        call_site: &str,
        reason: &str,
        retry_in_ms: f64,
        tokens: f64,
    ) -> JsValue;
}

/// Reads `BudgetOptions` (`{ capacity, refillPerSec, retryCost?, successRefund? }`);
/// missing fields take the core's defaults (`BudgetSettings::default()`).
pub(crate) fn budget_settings(opts: &Opts<'_>) -> Result<BudgetSettings, JsValue> {
    let mut s = BudgetSettings::default();
    let fields: [(Field, &mut f64); 4] = [
        (Field::Capacity, &mut s.capacity),
        (Field::RefillPerSec, &mut s.refill_per_sec),
        (Field::RetryCost, &mut s.retry_cost),
        (Field::SuccessRefund, &mut s.success_refund),
    ];
    for (field, slot) in fields {
        if let Some(v) = opts.number(field)? {
            *slot = v;
        }
    }
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// A registry error: a full registry names the call-site argument (`name`, `callSite`).
fn registry_error(name_field: &str, e: &ConfigError) -> JsValue {
    match e.field {
        Field::CallSite => config_error_as("", name_field, e),
        _ => config_error(prefix_of(Group::Budget), e),
    }
}

/// Runs `f` on the bucket of `call_site` at `now_ms`. With `settings`, they become the
/// call site's settings first (see the module docs); without, an existing bucket is used
/// as it is and a missing one is made with the core's default. `name_field` names the
/// call-site argument in errors.
pub(crate) fn with_bucket<T>(
    call_site: &str,
    settings: Option<BudgetSettings>,
    now_ms: f64,
    name_field: &str,
    f: impl FnOnce(&mut TokenBucket) -> T,
) -> Result<T, JsValue> {
    let mut f = Some(f);
    let mut out = None;
    bucket_dyn(call_site, settings, now_ms, name_field, &mut |b| {
        out = f.take().map(|f| f(b));
    })?;
    // `bucket_dyn` calls back exactly once when it succeeds.
    out.ok_or(JsValue::UNDEFINED)
}

/// The one, non-generic body of [`with_bucket`] (one copy in the wasm, not one per use).
#[inline(never)]
fn bucket_dyn(
    call_site: &str,
    settings: Option<BudgetSettings>,
    now_ms: f64,
    name_field: &str,
    f: &mut dyn FnMut(&mut TokenBucket),
) -> Result<(), JsValue> {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        let bucket = match settings {
            Some(s) => r.configure(call_site, s, now_ms),
            None => r.get_or_insert(call_site, BudgetSettings::default(), now_ms),
        }
        .map_err(|e| registry_error(name_field, &e))?;
        f(bucket);
        Ok(())
    })
}

/// The `BudgetExhaustedError` `retryFetch` rejects with when a call site's budget is spent.
pub(crate) fn exhausted_error(call_site: &str, e: &BudgetExhausted) -> JsValue {
    budget_exhausted_error(call_site, &e.to_string(), e.retry_in_ms, e.tokens)
}

/// A handle on one call site's token bucket in the module's registry.
#[wasm_bindgen]
pub struct Budget {
    call_site: String,
}

/// `nowMs` (a finite number), or the monotonic clock `retryFetch` charges the budget on
/// when omitted (see `clock`).
fn now_arg(now_ms: &JsValue) -> Result<f64, JsValue> {
    Ok(finite_arg(now_ms, "nowMs")?.unwrap_or_else(crate::clock::mono_ms))
}

#[wasm_bindgen]
impl Budget {
    /// `Budget.forCallSite("GET /api/orders", { capacity: 10, refillPerSec: 1 })`: the
    /// bucket of that call site. With `options`, they become its settings (a new bucket
    /// starts full; an existing one keeps its tokens, clamped to the new capacity); without
    /// them the existing bucket is returned untouched (a new one gets 10 tokens, +1/s).
    /// `retryFetch`'s `callSite` option names the same bucket.
    #[wasm_bindgen(js_name = forCallSite)]
    pub fn for_call_site(name: JsValue, options: JsValue) -> Result<Budget, JsValue> {
        let name = text(&name, "", "name")?;
        let opts = Opts::new(&options, "Budget options", "")?;
        let settings = if options.is_undefined() || options.is_null() {
            None
        } else {
            Some(budget_settings(&opts)?)
        };
        with_bucket(&name, settings, crate::clock::mono_ms(), "name", |_| ())?;
        Ok(Budget { call_site: name })
    }

    /// The call site's name.
    #[wasm_bindgen(getter, js_name = callSite)]
    pub fn call_site(&self) -> String {
        self.call_site.clone()
    }

    /// Tokens left at `nowMs` (default: the monotonic clock, see `clock`).
    pub fn tokens(&self, now_ms: JsValue) -> Result<f64, JsValue> {
        let now = now_arg(&now_ms)?;
        with_bucket(&self.call_site, None, now, "name", |b| b.tokens(now))
    }

    /// Whether the circuit is open (calls fail fast) at `nowMs`.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self, now_ms: JsValue) -> Result<bool, JsValue> {
        let now = now_arg(&now_ms)?;
        with_bucket(&self.call_site, None, now, "name", |b| b.is_open(now))
    }

    /// Spends one retry's tokens if the bucket can pay; returns whether it could.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now_ms: JsValue) -> Result<bool, JsValue> {
        let now = now_arg(&now_ms)?;
        with_bucket(&self.call_site, None, now, "name", |b| {
            b.try_retry(now).is_ok()
        })
    }

    /// Refills the bucket to full, under the call site's current settings.
    pub fn reset(&self) -> Result<(), JsValue> {
        let now = crate::clock::mono_ms();
        with_bucket(&self.call_site, None, now, "name", |b| b.reset(now))
    }
}
