//! `retryFetch`: the browser's `fetch` under the core policy.
//!
//! Every decision — whether to retry, how long to wait, whether the call site's nets (a
//! budget of any kind, a circuit breaker, an adaptive throttle) allow it — is the core's:
//! `Policy::admit_guarded` before the first attempt, `Policy::decide_verdict_guarded` after
//! each one, or, with `hedging`, the core's `Hedge` (see [`hedged`]). This module only
//! performs the attempts, reads what came back, and waits with `setTimeout` (no async
//! runtime: `globalThis.fetch` and `setTimeout` exist in windows, workers and Node 20 alike).
//!
//! The nets: with `callSite`, the call site's in the module's registry (`registry`), shared
//! by every call that names it; without, the nets the call gives are its own and die with
//! it. The throttle draws from the call's RNG (`policy.seed`).
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
mod hedged;
mod js;

/// Names the culprit when the caller's code throws (used by `classify`'s headers too).
pub(crate) use js::threw;

use js_sys::{Array, Date, Function, Object};
use stampede::SeededRng;
use stampede::classify::{Method, Request, TransportError, Verdict};
use stampede::hedge::Hedging;
use stampede::nets::GuardSettings;
use stampede::policy::{Decision, Policy, StopReason};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use self::abort::{Signal, sleep};
use self::attempt::{Attempted, Call, Last};
use self::js::get;
use crate::call_errors::{refused_error, stop_error};
use crate::call_nets::Nets;
use crate::call_settings::{CallSettings, read_call_settings};
use crate::opts::{Opts, config_error, set, text, wrong_type};

struct FetchOptions {
    policy: Policy,
    rng: SeededRng,
    call_site: Option<String>,
    /// The nets this call gives (`budget`, `breaker`, `throttle`): they configure the call
    /// site's, or, without a call site, are the call's own.
    nets: GuardSettings,
    hedging: Option<Hedging>,
    attempt_timeout_ms: Option<f64>,
    deadline_ms: Option<f64>,
    idempotent: bool,
    signal: Option<Signal>,
    on_attempt: Option<Function>,
}

fn read_options(options: &JsValue) -> Result<FetchOptions, JsValue> {
    // Every getter or Proxy trap the settings readers run names its field if it throws
    // (`Opts::raw`).
    let o = Opts::new(options, "retryFetch options", "")?;
    let CallSettings {
        policy,
        rng,
        call_site,
        nets,
        hedging,
        attempt_timeout_ms,
        deadline_ms,
    } = read_call_settings(&o)?;
    let on_attempt = match o.raw("onAttempt")? {
        Some(f) => Some(
            f.dyn_into::<Function>()
                .map_err(|f| wrong_type("", "onAttempt", "a function", &f))?,
        ),
        None => None,
    };
    Ok(FetchOptions {
        policy,
        rng,
        call_site,
        nets,
        hedging,
        attempt_timeout_ms,
        deadline_ms,
        idempotent: o.bool("idempotent")?.unwrap_or(false),
        signal: match o.raw("signal")? {
            Some(s) => Signal::new(s, "signal", "signal.")?,
            None => None,
        },
        on_attempt,
    })
}

/// Hands back what a call that stopped for `reason` with attempt `a` last ends with: its
/// response (a success, or the last HTTP status, as `fetch` would; see
/// [`Attempted::resolved`]), or the error of its last transport failure.
fn finish(
    a: Attempted,
    call: &Call,
    call_site: Option<&str>,
    reason: &StopReason,
    text: &str,
    attempts: &Array,
) -> Result<JsValue, JsValue> {
    a.resolved(call);
    match a.last {
        Last::Response(r) => Ok(r),
        Last::Error(e) => Err(stop_error(call_site, reason, text, attempts, &e)),
    }
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
        return Method::for_fetch(&m).map_err(|e| config_error(prefix, &e));
    }
    Ok(Method::Get)
}

/// What `onAttempt` is told of one attempt (besides its outcome).
struct Report<'a> {
    /// The attempt's number, in the order attempts were sent.
    number: u32,
    /// When it was sent (`Date.now()`).
    started_ms: f64,
    /// `"retry"`, `"success"`, `"stop"` or (hedging) `"wait"`.
    decision: &'static str,
    /// The wait before the next attempt, and whether the server set it.
    delay: Option<(f64, bool)>,
    reason: &'a str,
    tokens: Option<f64>,
    /// Sent as a hedge (hedging only; `false` otherwise).
    hedge: bool,
    /// The attempt whose answer the call resolves with (hedging only).
    won: bool,
}

/// The `onAttempt` record of an attempt whose outcome was `status` or `error`.
#[inline(never)]
fn attempt_info(status: Option<u16>, error: Option<TransportError>, r: &Report<'_>) -> Object {
    let info = Object::new();
    set(&info, "number", r.number);
    set(&info, "startedMs", r.started_ms);
    match (status, error) {
        (_, Some(e)) => set(&info, "error", e.name()),
        (Some(s), None) => set(&info, "status", s),
        _ => {}
    }
    set(&info, "decision", r.decision);
    if let Some((delay_ms, from_server)) = r.delay {
        set(&info, "delayMs", delay_ms);
        set(&info, "fromServer", from_server);
    }
    set(&info, "reason", r.reason);
    if let Some(t) = r.tokens {
        set(&info, "budgetTokens", t);
    }
    set(&info, "hedge", r.hedge);
    if r.won {
        set(&info, "won", true);
    }
    info
}

/// Logs `info` in `attempts` and calls `onAttempt` with it. A broken callback ends the
/// call, as any of the caller's code that throws. A callback that returns a promise (any
/// object, as `await` takes it) is waited for, as ky's hooks, p-retry's `onFailedAttempt`
/// and axios-retry's `onRetry` are, and its rejection ends the call the same way: before,
/// such a rejection was nobody's, and Node ends a process on a rejection nobody handles.
/// `signal` (the call's own, see `abort.rs`) ends the wait, and so does the call's
/// `deadline` (the monotonic clock's ms), if it has one: `Ok(true)` then, and the caller
/// goes on as if the callback had returned (a retry then starts past the deadline, and so
/// stops: see `Policy::retry_may_start`).
async fn report(
    on_attempt: Option<&Function>,
    attempts: &Array,
    info: &Object,
    signal: &web_sys::AbortSignal,
    deadline: Option<f64>,
) -> Result<bool, JsValue> {
    attempts.push(info);
    let Some(f) = on_attempt else {
        return Ok(false);
    };
    let told = f
        .call1(&JsValue::NULL, info)
        .map_err(threw("", "onAttempt"))?;
    if told.is_object() || told.is_function() {
        return abort::settled(&told, signal, deadline)
            .await
            .map_err(threw("", "onAttempt"));
    }
    Ok(false)
}

/// `retryFetch(url, init, { policy, callSite, budget, breaker, throttle, hedging,
/// attemptTimeoutMs, deadlineMs, idempotent, signal, onAttempt })`: `fetch` with retries
/// (or hedges) decided by the core policy, under the call site's safety nets.
///
/// Resolves with the first successful `Response`, or — like `fetch`, which does not throw
/// on a 503 — with the last `Response` when it gives up on an HTTP status. Rejects with a
/// `RetryError` (`attempts`, `reason`) when it gives up on a transport failure; at once,
/// calling nothing, with a `BudgetExhaustedError` when the budget refuses the call, a
/// `CircuitOpenError` when the breaker is open, a `ThrottledError` when the throttle
/// rejects it (the last two also when they stop a call whose last attempt failed on the
/// network); and with the signal's reason when the caller aborts (`options.signal` or
/// `init.signal`), at whatever point that happens. It always settles: whatever the
/// caller's code throws (a getter, a Proxy trap, a signal, `fetch`, `onAttempt`) rejects it
/// with a `TypeError` naming the culprit.
///
/// Everything up to the first attempt (the options, `init` with its body, the nets' word)
/// is read when it is called, as `fetch` reads its arguments: a bytes body the caller
/// writes into or detaches right after the call is still the one sent (as an `async fn`
/// this ran in a later task, and a retry sent "bbbb" for a call made with "aaaa").
#[wasm_bindgen(js_name = retryFetch)]
pub fn retry_fetch(input: JsValue, init: JsValue, options: JsValue) -> js_sys::Promise {
    match Started::new(&input, &init, &options) {
        Ok(started) => wasm_bindgen_futures::future_to_promise(started.run()),
        Err(e) => js_sys::Promise::reject(&e),
    }
}

/// A call read and admitted, its attempts still to make.
struct Started {
    o: FetchOptions,
    call: Call,
    request: Request,
    nets: Nets,
    started: f64,
}

impl Started {
    fn new(input: &JsValue, init: &JsValue, options: &JsValue) -> Result<Started, JsValue> {
        let flight = crate::in_flight::Flight::enter()?;
        let mut o = read_options(options)?;
        // The URL read once, here, as fetch reads it (see `abort::fixed_input`).
        let input = &abort::fixed_input(input)?;
        // A URL fetch would refuse at once is the caller's mistake, not a refused connection.
        let bad_url = crate::call_errors::url_error_js(input);
        if !bad_url.is_undefined() {
            return Err(bad_url);
        }
        let call = Call::new(input, init, o.signal.take(), flight)?;
        let request = Request::new(method_of(input, &call.init)?).idempotent(o.idempotent);
        // So is an `init` fetch refuses whatever the network does (a header no HTTP carries,
        // a body on GET…), with a URL or a Request input (see `initError`).
        let refused = crate::call_errors::init_error_js(input, &call.init, call.clone.is_some());
        if !refused.is_undefined() {
            return Err(refused);
        }
        // Aborted before the call: nothing is sent, and the nets are not touched.
        call.cancel.check()?;
        // The nets and the deadline run on the monotonic clock (see `clock`).
        let started = crate::clock::mono_ms();
        let mut nets = Nets::new(o.call_site.take(), o.nets, started)?;
        let admitted = nets.with(started, |g| o.policy.admit_guarded(g, started, &mut o.rng))?;
        if let Err(b) = admitted {
            return Err(refused_error(nets.call_site(), b));
        }
        Ok(Started {
            o,
            call,
            request,
            nets,
            started,
        })
    }

    async fn run(mut self) -> Result<JsValue, JsValue> {
        let Started {
            o,
            call,
            request,
            nets,
            started,
            ..
        } = &mut self;
        match o.hedging {
            Some(h) => hedged::run(o, call, *request, nets, *started, h).await,
            None => retry(o, call, *request, nets, *started).await,
        }
    }
}

/// The retry loop: one attempt at a time, the policy deciding after each.
async fn retry(
    o: &mut FetchOptions,
    call: &Call,
    request: Request,
    nets: &mut Nets,
    started: f64,
) -> Result<JsValue, JsValue> {
    let mut state = o.policy.start(started);
    let attempts = Array::new();
    // The call's deadline, which also ends the wait for an async onAttempt.
    // (`deadlineMs`: `policy.maxElapsedMs` only stops retries from starting.)
    let call_deadline = o.deadline_ms.map(|d| started + d);
    loop {
        call.cancel.check()?;
        let number = state.made() + 1;
        let attempt_started = Date::now();
        let elapsed = crate::clock::mono_ms() - started;
        let (timeout, deadline_bound) =
            crate::deadline::attempt_timeout(o.attempt_timeout_ms, o.deadline_ms, elapsed);
        let a = call.attempt(timeout).await?;
        // The wall clock reads a Retry-After date; the nets and deadline use the other.
        let at = crate::clock::now();
        let verdict: Verdict = o.policy.rules().classify(request, &a.outcome(), at.wall_ms);
        // Timers count whole milliseconds and may fire a fraction of one early on the
        // monotonic clock: when the deadline's own timer ended the attempt, the deadline
        // has passed, whatever the clock reads, so no retry slips in just before it.
        let deadline_fired = a.timed_out && deadline_bound;
        let deadline = timeout.map(|t| started + elapsed + t);
        let now = crate::deadline::now_at_deadline(deadline, deadline_fired, at.mono_ms);
        let (policy, rng) = (&o.policy, &mut o.rng);
        let decision = nets.with(now, |g| {
            policy.decide_verdict_guarded(&mut state, &verdict, now, g, rng)
        })?;
        let (name, delay, reason) = match &decision {
            Decision::Retry {
                delay_ms,
                from_server,
                ..
            } => (
                "retry",
                Some((*delay_ms, *from_server)),
                verdict.reason.to_string(),
            ),
            Decision::Stop(StopReason::Succeeded(_)) => ("success", None, decision_text(&decision)),
            Decision::Stop(_) => ("stop", None, decision_text(&decision)),
        };
        let info = attempt_info(
            a.status,
            a.error,
            &Report {
                number,
                started_ms: attempt_started,
                decision: name,
                delay,
                reason: &reason,
                tokens: nets.tokens(now)?,
                hedge: false,
                won: false,
            },
        );
        let signal = call.cancel.signal();
        let cut = match report(
            o.on_attempt.as_ref(),
            &attempts,
            &info,
            &signal,
            call_deadline,
        )
        .await
        {
            Ok(cut) => cut,
            Err(e) => {
                a.discard_body();
                return Err(e);
            }
        };
        // Aborted during the attempt or from inside onAttempt: stop here, send no more.
        if let Err(abort_reason) = call.cancel.check() {
            a.discard_body();
            return Err(abort_reason);
        }
        match decision {
            Decision::Retry { delay_ms, .. } => {
                // A slow onAttempt may have taken the time the retry had: one that would
                // start past the deadline now stops there, as the decision would have.
                let now =
                    crate::deadline::now_at_deadline(call_deadline, cut, crate::clock::mono_ms());
                if let Err(r) = o.policy.retry_may_start(&state, now, delay_ms) {
                    return finish(a, call, nets.call_site(), &r, &r.to_string(), &attempts);
                }
                a.discard_body();
                sleep(delay_ms, &signal).await?;
            }
            Decision::Stop(r) => return finish(a, call, nets.call_site(), &r, &reason, &attempts),
        }
    }
}

/// A stop's reason in words.
fn decision_text(d: &Decision) -> String {
    match d {
        Decision::Stop(r) => r.to_string(),
        Decision::Retry { reason, .. } => reason.to_string(),
    }
}
