//! `retryFetch`: the browser's `fetch` under the core policy.
//!
//! Every decision — whether to retry, how long to wait, whether the budget allows it — is
//! `Policy::decide_verdict` from the core; this module only performs the attempts, reads
//! what came back, and waits with `setTimeout` (no async runtime: `globalThis.fetch` and
//! `setTimeout` exist in windows, workers and Node 20 alike).
//!
//! Aborting: the caller's signals (`options.signal`, `init.signal`, a `Request` input's
//! own signal) are folded into one controller for the whole call, so an abort is seen
//! whenever it happens — before the call, during an attempt, inside `onAttempt`, during a
//! wait. `signal.aborted` is checked before every attempt and before every wait; an
//! aborted call rejects at once with the signal's reason and sends nothing more.
//!
//! Bodies: a `Request` input is cloned for every attempt (its body is read once per
//! send); one whose body was already used, and a `ReadableStream` as `init.body` (a stream
//! can be sent only once), are refused up front with a `TypeError` rather than retried
//! with an empty or failing body.
//!
//! Hostile input: the caller's getters, Proxy traps, signals, `fetch` and `onAttempt` are
//! reached only through fallible calls (see [`js`] for why a single uncaught one would leave
//! the promise pending and end a Node process), so whatever they throw rejects the promise
//! with a `TypeError` naming the culprit (`init: threw an exception: …`, the thrown value as
//! its `cause`). `fetch` is held to the real one's contract: a promise of a Response, else a
//! `TypeError` naming `fetch`. Each attempt waits for `fetch` only until its own timeout
//! (`attemptTimeoutMs`, or what is left before the deadline) or the caller's abort, so a
//! `fetch` that ignores its signal cannot hold the call past them.
//!
//! Two things a browser hides from script: a cross-origin response's `Retry-After`
//! unless the server sends `Access-Control-Expose-Headers: Retry-After`, and the
//! difference between a CORS failure and a network failure — both are the same
//! `TypeError`, which is read here as a refused connection (`connect`).

mod abort;
mod attempt;
mod js;

use js_sys::{Array, Date, Function, Object};
use stampede::budget::BudgetSettings;
use stampede::classify::{Method, Request, TransportError, Verdict};
use stampede::policy::{Decision, Policy, StopReason};
use stampede::{Field, SeededRng, seeded};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use self::abort::{Signal, sleep};
use self::attempt::{Attempted, Call, Last};
use self::js::{get, named, threw};
use crate::budget::{budget_settings, exhausted_error, with_bucket};
use crate::opts::{Opts, config_error, set, text, type_error, wrong_type};
use crate::policy::policy_settings;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = retryError)]
    fn retry_error_js(reason: &str, attempts: &Array, cause: &JsValue) -> JsValue;
}

struct FetchOptions {
    policy: Policy,
    rng: SeededRng,
    call_site: Option<String>,
    /// Explicit settings for the call site's budget (they reconfigure it).
    budget: Option<BudgetSettings>,
    attempt_timeout_ms: Option<f64>,
    idempotent: bool,
    signal: Option<Signal>,
    on_attempt: Option<Function>,
}

fn read_options(options: &JsValue) -> Result<FetchOptions, JsValue> {
    // Every getter or Proxy trap the settings readers run names its field if it throws.
    let options = named(options, "");
    let o = Opts::new(&options, "retryFetch options", "")?;
    let policy_value = named(&o.raw("policy")?.unwrap_or(JsValue::UNDEFINED), "policy.");
    let policy_opts = Opts::new(&policy_value, "policy", "policy.")?;
    let mut settings = policy_settings(&policy_opts)?;
    // Both in the core's ranges, under the caller's names for them.
    if let Some(deadline) = o.checked(Field::Deadline)? {
        // Whichever limit is nearer: the policy's maxElapsedMs or this call's deadline.
        let limit = settings
            .max_elapsed_ms
            .map_or(deadline, |m| m.min(deadline));
        settings = settings.with_max_elapsed_ms(Some(limit));
    }
    let policy = settings.build().map_err(|e| config_error("policy.", &e))?;
    let call_site = o.string("callSite")?;
    let budget = match o.raw("budget")? {
        Some(b) => {
            let b = named(&b, "budget.");
            Some(budget_settings(&Opts::new(&b, "budget", "budget.")?)?)
        }
        None => None,
    };
    if budget.is_some() && call_site.is_none() {
        return Err(type_error(
            "budget: needs callSite, the name of the budget in the registry",
        ));
    }
    let attempt_timeout_ms = o.checked(Field::AttemptTimeout)?;
    let on_attempt = match o.raw("onAttempt")? {
        Some(f) => Some(
            f.dyn_into::<Function>()
                .map_err(|f| wrong_type("", "onAttempt", "a function", &f))?,
        ),
        None => None,
    };
    Ok(FetchOptions {
        policy,
        rng: seeded(policy_opts.seed()?),
        call_site,
        budget,
        attempt_timeout_ms,
        idempotent: o.bool("idempotent")?.unwrap_or(false),
        signal: match o.raw("signal")? {
            Some(s) => Signal::new(s, "signal", "signal.")?,
            None => None,
        },
        on_attempt,
    })
}

/// The request's method: `init.method` (read from the call's copy of `init`), else a
/// `Request` input's, else GET.
fn method_of(input: &JsValue, init: &Object) -> Result<Method, JsValue> {
    for (v, prefix) in [(init.as_ref(), "init."), (input, "input.")] {
        if !v.is_object() {
            continue;
        }
        let m = get(v, prefix, "method")?;
        if m.is_undefined() || m.is_null() {
            continue;
        }
        let m = text(&m, prefix, "method")?;
        return m.parse::<Method>().map_err(|e| config_error(prefix, &e));
    }
    Ok(Method::Get)
}

fn decision_name(d: &Decision) -> &'static str {
    match d {
        Decision::Retry { .. } => "retry",
        Decision::Stop(StopReason::Succeeded(_)) => "success",
        Decision::Stop(_) => "stop",
    }
}

/// The `onAttempt` record of one attempt, and the reason in words.
#[inline(never)]
fn attempt_info(
    number: u32,
    started_ms: f64,
    a: &Attempted,
    verdict: &Verdict,
    decision: &Decision,
    tokens: Option<f64>,
) -> (Object, String) {
    let info = Object::new();
    set(&info, "number", number);
    set(&info, "startedMs", started_ms);
    match (a.status, a.error) {
        (_, Some(e)) => set(&info, "error", e.name()),
        (Some(s), None) => set(&info, "status", s),
        _ => {}
    }
    set(&info, "decision", decision_name(decision));
    let reason = match decision {
        Decision::Retry {
            delay_ms,
            from_server,
            ..
        } => {
            set(&info, "delayMs", *delay_ms);
            set(&info, "fromServer", *from_server);
            verdict.reason.to_string()
        }
        Decision::Stop(r) => r.to_string(),
    };
    set(&info, "reason", reason.as_str());
    if let Some(t) = tokens {
        set(&info, "budgetTokens", t);
    }
    (info, reason)
}

/// `retryFetch(url, init, { policy, callSite, budget, attemptTimeoutMs, deadlineMs,
/// idempotent, signal, onAttempt })`: `fetch` with retries decided by the core policy.
///
/// Resolves with the first successful `Response`, or — like `fetch`, which does not throw
/// on a 503 — with the last `Response` when it gives up on an HTTP status. Rejects with a
/// `RetryError` (`attempts`, `reason`) when it gives up on a transport failure, with a
/// `BudgetExhaustedError` at once, calling nothing, when the call site's budget is spent,
/// and with the signal's reason when the caller aborts (`options.signal` or
/// `init.signal`), at whatever point that happens. It always settles: whatever the
/// caller's code throws (a getter, a Proxy trap, a signal, `fetch`, `onAttempt`) rejects it
/// with a `TypeError` naming the culprit.
#[wasm_bindgen(js_name = retryFetch)]
pub async fn retry_fetch(
    input: JsValue,
    init: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let mut o = read_options(&options)?;
    let call = Call::new(&input, &init, o.signal.take())?;
    let request = Request::new(method_of(&input, &call.init)?).idempotent(o.idempotent);
    // Aborted before the call: nothing is sent, and the budget is not touched.
    call.cancel.check()?;
    // The budget and the deadline run on the monotonic clock (see `clock`).
    let started = crate::clock::mono_ms();
    if let Some(cs) = &o.call_site {
        let admitted = with_bucket(cs, o.budget, started, "callSite", |b| {
            o.policy.admit(Some(b), started)
        })?;
        if let Err(e) = admitted {
            return Err(exhausted_error(cs, &e));
        }
    }
    let mut state = o.policy.start(started);
    let attempts = Array::new();
    loop {
        call.cancel.check()?;
        let number = state.made() + 1;
        let attempt_started = Date::now();
        let elapsed = crate::clock::mono_ms() - started;
        let remaining = o
            .policy
            .max_elapsed_ms()
            .map(|max| (max - elapsed).max(1.0));
        let timeout = match (o.attempt_timeout_ms, remaining) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        };
        let a = call.attempt(timeout).await?;
        // The wall clock reads a Retry-After date; the budget and deadline use the other.
        let at = crate::clock::now();
        let verdict: Verdict = o.policy.rules().classify(request, &a.outcome(), at.wall_ms);
        // Timers count whole milliseconds and may fire a fraction of one early on the
        // monotonic clock: when the deadline's own timer ended the attempt, the deadline
        // has passed, whatever the clock reads, so no retry slips in just before it.
        let deadline_fired = a.error == Some(TransportError::Timeout)
            && remaining.is_some_and(|r| timeout == Some(r));
        let now = match remaining {
            Some(r) if deadline_fired => at.mono_ms.max(started + elapsed + r),
            _ => at.mono_ms,
        };
        let (decision, tokens) = match &o.call_site {
            Some(cs) => with_bucket(cs, None, now, "callSite", |b| {
                let d = o
                    .policy
                    .decide_verdict(&mut state, &verdict, now, Some(b), &mut o.rng);
                (d, Some(b.tokens(now)))
            })?,
            None => (
                o.policy
                    .decide_verdict(&mut state, &verdict, now, None, &mut o.rng),
                None,
            ),
        };
        let (info, reason) = attempt_info(number, attempt_started, &a, &verdict, &decision, tokens);
        attempts.push(&info);
        if let Some(f) = &o.on_attempt
            && let Err(e) = f.call1(&JsValue::NULL, &info)
        {
            // A broken callback ends the call, as any of the caller's code that throws.
            a.discard_body();
            return Err(threw("", "onAttempt")(e));
        }
        // Aborted during the attempt or from inside onAttempt: stop here, send no more.
        if let Err(abort_reason) = call.cancel.check() {
            a.discard_body();
            return Err(abort_reason);
        }
        match decision {
            Decision::Retry { delay_ms, .. } => {
                a.discard_body();
                sleep(delay_ms, &call.cancel.signal()).await?;
            }
            Decision::Stop(_) => {
                return match a.last {
                    Last::Response(r) => Ok(r),
                    Last::Error(e) => Err(retry_error_js(&reason, &attempts, &e)),
                };
            }
        }
    }
}
