//! `Budget`: a handle on one call site's budget in the module's registry (`registry`),
//! the one `retryFetch`'s `callSite` names.
//!
//! The budget may be of any kind (`{ kind: "bucket" | "ratio" | "grpc" | "aws", … }`, a
//! missing kind being today's token bucket); see `registry` for the rule that settles what
//! a call site holds when it is named again with other settings.

use stampede::budget::BudgetExhausted;
use stampede::nets::{Budget as Nets, Guard, GuardSettings};
use stampede::seeded;
use wasm_bindgen::prelude::*;

use crate::call_nets::{is_open, tokens_of};
use crate::opts::{Opts, finite_arg, random_seed, text};
use crate::registry::with_site;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = budgetExhaustedError)]
    fn budget_exhausted_error(
        call_site: Option<&str>,
        reason: &str,
        retry_in_ms: f64,
        tokens: f64,
    ) -> JsValue;
}

/// The `BudgetExhaustedError` `retryFetch` rejects with when a budget refuses a call.
pub(crate) fn exhausted_error(call_site: Option<&str>, e: &BudgetExhausted) -> JsValue {
    budget_exhausted_error(call_site, &e.to_string(), e.retry_in_ms, e.tokens)
}

/// A handle on one call site's budget in the module's registry.
#[wasm_bindgen]
pub struct Budget {
    call_site: String,
}

/// `nowMs` (a finite number), or the monotonic clock `retryFetch` charges the budget on
/// when omitted (see `clock`).
fn now_arg(now_ms: &JsValue) -> Result<f64, JsValue> {
    Ok(finite_arg(now_ms, "nowMs")?.unwrap_or_else(crate::clock::mono_ms))
}

impl Budget {
    /// Runs `f` on the call site's nets as they are.
    fn with<T>(
        &self,
        now_ms: f64,
        f: impl FnOnce(&mut Guard, &GuardSettings) -> T,
    ) -> Result<T, JsValue> {
        with_site(&self.call_site, GuardSettings::default(), now_ms, "name", f)
    }
}

#[wasm_bindgen]
impl Budget {
    /// `new Budget()` is refused, as in `stampede/fetch`: a budget belongs to a call site.
    /// (Without a constructor, wasm-bindgen's class made an object every method of which
    /// threw "null pointer passed to rust".)
    #[wasm_bindgen(constructor)]
    pub fn refused() -> Result<Budget, JsValue> {
        Err(js_sys::TypeError::new("Budget: use Budget.forCallSite(name, options)").into())
    }

    /// `Budget.forCallSite("GET /api/orders", { capacity: 10, refillPerSec: 1 })` or
    /// `{ kind: "ratio", ratio: 0.1, cap: 5 }`: the budget of that call site. With
    /// `options`, they become its budget's settings (see `registry` for what is kept);
    /// without them the call site is returned untouched (a new one gets a bucket of 10
    /// tokens, +1/s). `retryFetch`'s `callSite` option names the same call site.
    #[wasm_bindgen(js_name = forCallSite)]
    pub fn for_call_site(name: JsValue, options: JsValue) -> Result<Budget, JsValue> {
        let name = text(&name, "", "name")?;
        let opts = Opts::new(&options, "Budget options", "")?;
        let given = GuardSettings {
            budget: if options.is_undefined() || options.is_null() {
                None
            } else {
                Some(crate::nets::budget_kind(&opts)?)
            },
            ..GuardSettings::default()
        };
        with_site(&name, given, crate::clock::mono_ms(), "name", |_, _| ())?;
        Ok(Budget { call_site: name })
    }

    /// The call site's name.
    #[wasm_bindgen(getter, js_name = callSite)]
    pub fn call_site(&self) -> String {
        self.call_site.clone()
    }

    /// The budget's kind: `"bucket"`, `"ratio"`, `"grpc"` or `"aws"`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Result<String, JsValue> {
        self.with(crate::clock::mono_ms(), |_, s| {
            s.budget.map_or("bucket", |k| k.name()).to_owned()
        })
    }

    /// Tokens at `nowMs` (default: the monotonic clock, see `clock`): a bucket's tokens, a
    /// ratio budget's balance, gRPC's token count, the AWS quota's available tokens.
    pub fn tokens(&self, now_ms: JsValue) -> Result<f64, JsValue> {
        let now = now_arg(&now_ms)?;
        self.with(now, |g, _| tokens_of(g, now).unwrap_or(f64::INFINITY))
    }

    /// Whether a new call would fail fast at `nowMs`: an empty bucket (its circuit is
    /// open), or a breaker (mode `all`) open or waiting for its half-open probe.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self, now_ms: JsValue) -> Result<bool, JsValue> {
        let now = now_arg(&now_ms)?;
        self.with(now, |g, _| is_open(g, now))
    }

    /// Decides a retry at `nowMs` as `retryFetch` would: if the call site's budget, breaker
    /// and throttle let it through, it is charged to them and this returns `true`.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&self, now_ms: JsValue) -> Result<bool, JsValue> {
        let now = now_arg(&now_ms)?;
        let mut rng = seeded(random_seed());
        self.with(now, |g, _| g.try_retry(now, false, &mut rng).is_ok())
    }

    /// Refills the budget: a bucket to full, any other kind back to its start, under the
    /// call site's current settings.
    pub fn reset(&self) -> Result<(), JsValue> {
        let now = crate::clock::mono_ms();
        self.with(now, |g, s| match (g.budget(), s.budget) {
            (Some(Nets::Bucket(b)), _) => b.reset(now),
            (Some(b), Some(kind)) => {
                if let Ok(fresh) = kind.build(now) {
                    *b = fresh;
                }
            }
            _ => {}
        })
    }
}
