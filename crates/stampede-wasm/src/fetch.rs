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
//! Two things a browser hides from script: a cross-origin response's `Retry-After`
//! unless the server sends `Access-Control-Expose-Headers: Retry-After`, and the
//! difference between a CORS failure and a network failure — both are the same
//! `TypeError`, which is read here as a refused connection (`connect`).

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Date, Function, Object, Promise, Reflect};
use stampede::budget::BudgetSettings;
use stampede::classify::{HttpStatus, Method, Outcome, Request, TransportError, Verdict};
use stampede::policy::{Decision, Policy, StopReason};
use stampede::{SeededRng, seeded};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, Response};

use crate::budget::{budget_settings, exhausted_error, with_bucket};
use crate::opts::{Opts, config_error, out_of_range, set, text, type_error, wrong_type};
use crate::policy::policy_settings;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_name = fetch)]
    fn global_fetch(input: &JsValue, init: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = retryError)]
    fn retry_error_js(reason: &str, attempts: &Array, cause: &JsValue) -> JsValue;
}

thread_local! {
    /// The one handler for every discarded body's `cancel()` promise: made once for the
    /// module's lifetime instead of one leaked closure per retry.
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

struct FetchOptions {
    policy: Policy,
    rng: SeededRng,
    call_site: Option<String>,
    /// Explicit settings for the call site's budget (they reconfigure it).
    budget: Option<BudgetSettings>,
    attempt_timeout_ms: Option<f64>,
    idempotent: bool,
    signal: Option<AbortSignal>,
    on_attempt: Option<Function>,
}

/// `v` as an `AbortSignal` (or `None` when absent), else a `TypeError` naming `field`.
fn abort_signal(v: Option<JsValue>, field: &str) -> Result<Option<AbortSignal>, JsValue> {
    let Some(s) = v else { return Ok(None) };
    let like = s.is_object()
        && Reflect::has(&s, &"aborted".into()).unwrap_or(false)
        && Reflect::get(&s, &"addEventListener".into()).is_ok_and(|f| f.is_function());
    if s.has_type::<AbortSignal>() || like {
        Ok(Some(s.unchecked_into()))
    } else {
        Err(wrong_type("", field, "an AbortSignal", &s))
    }
}

fn read_options(options: &JsValue) -> Result<FetchOptions, JsValue> {
    let o = Opts::new(options, "retryFetch options", "")?;
    let policy_value = o.raw("policy")?.unwrap_or(JsValue::UNDEFINED);
    let policy_opts = Opts::new(&policy_value, "policy", "policy.")?;
    let mut settings = policy_settings(&policy_opts)?;
    if let Some(deadline) = o.f64("deadlineMs")? {
        // The core's range for a deadline, under the caller's name for it.
        stampede::check_ms("deadline", deadline, 0.0)
            .map_err(|e| out_of_range("", "deadlineMs", &e.expected, &JsValue::from_str(&e.got)))?;
        // Whichever limit is nearer: the policy's maxElapsedMs or this call's deadline.
        let limit = settings
            .max_elapsed_ms
            .map_or(deadline, |m| m.min(deadline));
        settings = settings.with_max_elapsed_ms(Some(limit));
    }
    let policy = settings.build().map_err(|e| config_error("policy.", &e))?;
    let call_site = o.string("callSite")?;
    let budget = match o.raw("budget")? {
        Some(b) => Some(budget_settings(&Opts::new(&b, "budget", "budget.")?)?),
        None => None,
    };
    if budget.is_some() && call_site.is_none() {
        return Err(type_error(
            "budget: needs callSite, the name of the budget in the registry",
        ));
    }
    let attempt_timeout_ms = match o.f64("attemptTimeoutMs")? {
        Some(ms) if ms > 0.0 && ms <= stampede::MAX_DURATION_MS => Some(ms),
        Some(ms) => {
            return Err(out_of_range(
                "",
                "attemptTimeoutMs",
                "more than 0 ms and at most 86400000 ms (a day)",
                &JsValue::from(ms),
            ));
        }
        None => None,
    };
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
        signal: abort_signal(o.raw("signal")?, "signal")?,
        on_attempt,
    })
}

/// The request's method: `init.method`, else a `Request` input's, else GET.
fn method_of(input: &JsValue, init: &JsValue) -> Result<Method, JsValue> {
    for (v, prefix) in [(init, "init."), (input, "input.")] {
        if !v.is_object() {
            continue;
        }
        let m = Reflect::get(v, &"method".into())?;
        if m.is_undefined() || m.is_null() {
            continue;
        }
        let m = text(&m, prefix, "method")?;
        return m.parse::<Method>().map_err(|e| config_error(prefix, &e));
    }
    Ok(Method::Get)
}

/// An `abort` listener, removed when dropped (so no event can reach a freed closure).
struct Listener {
    signal: AbortSignal,
    cb: Closure<dyn FnMut()>,
}

impl Listener {
    fn on_abort(signal: &AbortSignal, f: impl FnMut() + 'static) -> Result<Listener, JsValue> {
        let cb = Closure::<dyn FnMut()>::new(f);
        signal.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref())?;
        Ok(Listener {
            signal: signal.clone(),
            cb,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.cb.as_ref().unchecked_ref());
    }
}

/// A `setTimeout`, cleared when dropped.
struct Timer {
    id: JsValue,
    _cb: Closure<dyn FnMut()>,
}

impl Timer {
    fn new(ms: f64, f: impl FnMut() + 'static) -> Timer {
        let cb = Closure::<dyn FnMut()>::new(f);
        Timer {
            id: set_timeout(cb.as_ref().unchecked_ref(), ms),
            _cb: cb,
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// The call's own controller, aborted (with the caller's reason) by any of the caller's
/// signals.
struct Cancel {
    ctrl: AbortController,
    _links: Vec<Listener>,
}

impl Cancel {
    fn new(signals: &[AbortSignal]) -> Result<Cancel, JsValue> {
        let ctrl = AbortController::new()?;
        let mut links = Vec::new();
        for s in signals {
            if s.aborted() {
                ctrl.abort_with_reason(&s.reason());
                break;
            }
            let (c, src) = (ctrl.clone(), s.clone());
            links.push(Listener::on_abort(s, move || {
                c.abort_with_reason(&src.reason())
            })?);
        }
        Ok(Cancel {
            ctrl,
            _links: links,
        })
    }

    fn signal(&self) -> AbortSignal {
        self.ctrl.signal()
    }

    /// `Err(reason)` once aborted.
    fn check(&self) -> Result<(), JsValue> {
        let s = self.ctrl.signal();
        if s.aborted() { Err(s.reason()) } else { Ok(()) }
    }
}

/// What every attempt sends: `fetch(input, init)`, with a fresh signal per attempt.
struct Call {
    input: JsValue,
    /// A `Request` input's `clone`: each attempt sends a clone, so its body is read once
    /// per send and the original is never consumed.
    clone: Option<Function>,
    /// A copy of the caller's `init`; its `signal` is replaced per attempt.
    init: Object,
    cancel: Cancel,
}

impl Call {
    /// Checks `input` and `init` and gathers the caller's signals (`signal` from the
    /// options, `init.signal`, a `Request` input's own signal).
    fn new(input: &JsValue, init: &JsValue, signal: Option<AbortSignal>) -> Result<Call, JsValue> {
        let copy = Object::new();
        let mut signals: Vec<AbortSignal> = signal.into_iter().collect();
        if init.is_object() {
            Object::assign(&copy, init.unchecked_ref());
            let body = Reflect::get(init, &"body".into())?;
            if body.is_object() && Reflect::get(&body, &"getReader".into())?.is_function() {
                return Err(type_error(
                    "init.body: a ReadableStream can be sent only once, so retryFetch cannot \
                     retry it; pass a string, Blob, ArrayBuffer, FormData or URLSearchParams, \
                     or call fetch",
                ));
            }
            signals.extend(abort_signal(
                Some(Reflect::get(init, &"signal".into())?)
                    .filter(|s| !s.is_null() && !s.is_undefined()),
                "init.signal",
            )?);
        } else if !init.is_undefined() && !init.is_null() {
            return Err(wrong_type("", "init", "an object", init));
        }
        let mut clone = None;
        if input.is_object() {
            let used = Reflect::get(input, &"bodyUsed".into())?;
            let f = Reflect::get(input, &"clone".into())?;
            if let (Some(used), Some(f)) = (used.as_bool(), f.dyn_ref::<Function>()) {
                if used {
                    return Err(type_error(
                        "input: the Request's body was already used, so it cannot be sent; \
                         pass a fresh Request",
                    ));
                }
                clone = Some(f.clone());
                signals.extend(abort_signal(
                    Some(Reflect::get(input, &"signal".into())?).filter(|s| s.is_object()),
                    "input.signal",
                )?);
            }
        }
        Ok(Call {
            input: input.clone(),
            clone,
            init: copy,
            cancel: Cancel::new(&signals)?,
        })
    }

    /// Sends one attempt with its own `AbortController`, aborted by the call's signal or
    /// by the timeout, whichever comes first.
    async fn attempt(&self, timeout_ms: Option<f64>) -> Result<Attempted, JsValue> {
        let ctrl = AbortController::new()?;
        let cancel = self.cancel.signal();
        let _follow = {
            let (ctrl, cancel) = (ctrl.clone(), cancel.clone());
            Listener::on_abort(&cancel.clone(), move || {
                ctrl.abort_with_reason(&cancel.reason())
            })?
        };
        let timed_out = Rc::new(Cell::new(false));
        let _timer = timeout_ms.map(|ms| {
            let (ctrl, timed_out) = (ctrl.clone(), timed_out.clone());
            Timer::new(ms, move || {
                timed_out.set(true);
                ctrl.abort();
            })
        });
        set(&self.init, "signal", ctrl.signal());
        let input = match &self.clone {
            Some(f) => f.call0(&self.input)?,
            None => self.input.clone(),
        };
        let result = match global_fetch(&input, &self.init) {
            Ok(p) => JsFuture::from(p).await,
            Err(e) => Err(e),
        };
        Ok(match result {
            Ok(v) => {
                let resp: Response = v.unchecked_into();
                let headers = resp.headers();
                Attempted {
                    status: Some(resp.status()),
                    error: None,
                    retry_after: headers.get("retry-after").ok().flatten(),
                    pushback: headers.get("grpc-retry-pushback-ms").ok().flatten(),
                    last: Last::Response(resp),
                }
            }
            Err(e) => {
                let kind = if cancel.aborted() {
                    TransportError::Abort
                } else if timed_out.get() {
                    TransportError::Timeout
                } else {
                    TransportError::Connect
                };
                Attempted {
                    last: Last::Error(e),
                    status: None,
                    error: Some(kind),
                    retry_after: None,
                    pushback: None,
                }
            }
        })
    }
}

/// What the last attempt left: a response to hand back, or an error.
enum Last {
    Response(Response),
    Error(JsValue),
}

/// One attempt's outcome and what it left.
struct Attempted {
    last: Last,
    status: Option<u16>,
    error: Option<TransportError>,
    retry_after: Option<String>,
    pushback: Option<String>,
}

impl Attempted {
    fn outcome(&self) -> Outcome<'_> {
        match (self.status, self.error) {
            (_, Some(e)) => Outcome::Transport(e),
            (Some(code), None) => match HttpStatus::new(code) {
                Ok(status) => Outcome::Response {
                    status,
                    retry_after: self.retry_after.as_deref(),
                    pushback_ms: self.pushback.as_deref(),
                },
                // An opaque (no-cors) response has status 0 and cannot be inspected.
                Err(_) => Outcome::response(HttpStatus::OK),
            },
            (None, None) => Outcome::Transport(TransportError::Connect),
        }
    }

    /// Throws away a response body we will not read, so its connection can be reused.
    fn discard_body(&self) {
        let Last::Response(resp) = &self.last else {
            return;
        };
        if let Ok(body) = Reflect::get(resp, &"body".into())
            && body.is_object()
            && let Ok(cancel) = Reflect::get(&body, &"cancel".into())
            && let Some(f) = cancel.dyn_ref::<Function>()
            && let Ok(p) = f.call0(&body)
            && let Some(p) = p.dyn_ref::<Promise>()
        {
            // A rejected cancel must not surface as an unhandled rejection.
            IGNORE.with(|ignore| {
                let _ = p.catch(ignore);
            });
        }
    }
}

/// Waits `ms`, or rejects with the signal's reason as soon as it aborts.
async fn sleep(ms: f64, signal: &AbortSignal) -> Result<(), JsValue> {
    let mut fns: Option<(Function, Function)> = None;
    let promise = Promise::new(&mut |resolve, reject| fns = Some((resolve, reject)));
    let Some((resolve, reject)) = fns else {
        return Err(type_error("Promise executor did not run"));
    };
    let _timer = Timer::new(ms, move || {
        let _ = resolve.call0(&JsValue::NULL);
    });
    let _abort = {
        let s = signal.clone();
        Listener::on_abort(signal, move || {
            let _ = reject.call1(&JsValue::NULL, &s.reason());
        })?
    };
    JsFuture::from(promise).await.map(|_| ())
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
/// `init.signal`), at whatever point that happens.
#[wasm_bindgen(js_name = retryFetch)]
pub async fn retry_fetch(
    input: JsValue,
    init: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let mut o = read_options(&options)?;
    let call = Call::new(&input, &init, o.signal.take())?;
    let request = Request::new(method_of(&input, &init)?).idempotent(o.idempotent);
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
        let now = at.mono_ms;
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
        if let Some(f) = &o.on_attempt {
            // A failing callback must not break the request it reports on.
            let _ = f.call1(&JsValue::NULL, &info);
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
                    Last::Response(r) => Ok(r.into()),
                    Last::Error(e) => Err(retry_error_js(&reason, &attempts, &e)),
                };
            }
        }
    }
}
