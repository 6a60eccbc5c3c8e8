//! `retryFetch`: the browser's `fetch` under the core policy.
//!
//! Every decision — whether to retry, how long to wait, whether the budget allows it — is
//! `Policy::decide_verdict` from the core; this module only performs the attempts, reads
//! what came back, and waits with `setTimeout` (no async runtime: `globalThis.fetch` and
//! `setTimeout` exist in windows, workers and Node 20 alike).
//!
//! Two things a browser hides from script: a cross-origin response's `Retry-After`
//! unless the server sends `Access-Control-Expose-Headers: Retry-After`, and the
//! difference between a CORS failure and a network failure — both are the same
//! `TypeError`, which is read here as a refused connection (`connect`).

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Date, Function, Object, Promise, Reflect};
use stampede::budget::BudgetSettings;
use stampede::classify::{Action, HttpStatus, Method, Outcome, Request, TransportError, Verdict};
use stampede::policy::{Decision, Policy, StopReason};
use stampede::{SeededRng, seeded};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, Response};

use crate::budget::{DEFAULT_BUDGET, budget_settings, exhausted_error, with_bucket};
use crate::opts::{Opts, config_error, range_error, set, type_error};
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

struct FetchOptions {
    policy: Policy,
    rng: SeededRng,
    call_site: Option<String>,
    budget: BudgetSettings,
    attempt_timeout_ms: Option<f64>,
    idempotent: bool,
    signal: Option<AbortSignal>,
    on_attempt: Option<Function>,
}

fn read_options(options: &JsValue) -> Result<FetchOptions, JsValue> {
    let o = Opts::new(options, "retryFetch options", "")?;
    let policy_value = o.raw("policy")?.unwrap_or(JsValue::UNDEFINED);
    let policy_opts = Opts::new(&policy_value, "policy", "policy.")?;
    let mut settings = policy_settings(&policy_opts)?;
    if let Some(deadline) = o.f64("deadlineMs")? {
        settings = settings.with_max_elapsed_ms(Some(deadline));
    }
    let policy = settings.build().map_err(|e| config_error("", &e))?;
    let budget = match o.raw("budget")? {
        Some(b) => budget_settings(&Opts::new(&b, "budget", "budget.")?)?,
        None => DEFAULT_BUDGET,
    };
    let attempt_timeout_ms = match o.f64("attemptTimeoutMs")? {
        Some(ms) if ms > 0.0 && ms <= stampede::MAX_DURATION_MS => Some(ms),
        Some(ms) => {
            return Err(range_error(format!(
                "attemptTimeoutMs: expected 1 ms to 1 day, got {}",
                stampede::format_number(ms)
            )));
        }
        None => None,
    };
    let signal = match o.raw("signal")? {
        Some(s)
            if s.has_type::<AbortSignal>()
                || Reflect::has(&s, &"aborted".into()).unwrap_or(false) =>
        {
            Some(s.unchecked_into::<AbortSignal>())
        }
        Some(_) => return Err(type_error("signal: expected an AbortSignal".to_owned())),
        None => None,
    };
    let on_attempt = match o.raw("onAttempt")? {
        Some(f) => Some(
            f.dyn_into::<Function>()
                .map_err(|_| type_error("onAttempt: expected a function".to_owned()))?,
        ),
        None => None,
    };
    Ok(FetchOptions {
        policy,
        rng: seeded(policy_opts.seed()?),
        call_site: o.string("callSite")?,
        budget,
        attempt_timeout_ms,
        idempotent: o.bool("idempotent")?.unwrap_or(false),
        signal,
        on_attempt,
    })
}

/// The request's method: `init.method`, else a `Request` input's, else GET.
fn method_of(input: &JsValue, init: &JsValue) -> Result<Method, JsValue> {
    let from = |v: &JsValue| -> Option<String> {
        if v.is_object() {
            Reflect::get(v, &"method".into())
                .ok()
                .and_then(|m| m.as_string())
        } else {
            None
        }
    };
    match from(init).or_else(|| from(input)) {
        Some(m) => m.parse::<Method>().map_err(|e| config_error("init.", &e)),
        None => Ok(Method::Get),
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

/// Sends one attempt with its own `AbortController`, aborted by the caller's signal or by
/// the timeout, whichever comes first.
async fn attempt_once(
    input: &JsValue,
    init: &JsValue,
    timeout_ms: Option<f64>,
    signal: Option<&AbortSignal>,
) -> Result<Attempted, JsValue> {
    let ctrl = AbortController::new()?;
    let timed_out = Rc::new(Cell::new(false));
    let on_abort = {
        let ctrl = ctrl.clone();
        Closure::<dyn FnMut()>::new(move || ctrl.abort())
    };
    if let Some(s) = signal {
        s.add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref())?;
    }
    let on_timeout = {
        let (ctrl, timed_out) = (ctrl.clone(), timed_out.clone());
        Closure::<dyn FnMut()>::new(move || {
            timed_out.set(true);
            ctrl.abort();
        })
    };
    let timer = timeout_ms.map(|ms| set_timeout(on_timeout.as_ref().unchecked_ref(), ms));
    let init2 = Object::new();
    if init.is_object() {
        Object::assign(&init2, init.unchecked_ref());
    }
    set(&init2, "signal", ctrl.signal());
    let result = match global_fetch(input, &init2) {
        Ok(p) => JsFuture::from(p).await,
        Err(e) => Err(e),
    };
    if let Some(t) = &timer {
        clear_timeout(t);
    }
    if let Some(s) = signal {
        s.remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref())?;
    }
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
            let kind = if signal.is_some_and(AbortSignal::aborted) {
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

/// Waits `ms`, or rejects with the signal's reason as soon as it aborts.
async fn sleep(ms: f64, signal: Option<&AbortSignal>) -> Result<(), JsValue> {
    let mut fns: Option<(Function, Function)> = None;
    let promise = Promise::new(&mut |resolve, reject| fns = Some((resolve, reject)));
    let Some((resolve, reject)) = fns else {
        return Err(type_error("Promise executor did not run".to_owned()));
    };
    let on_timer = Closure::<dyn FnMut()>::new(move || {
        let _ = resolve.call0(&JsValue::NULL);
    });
    let timer = set_timeout(on_timer.as_ref().unchecked_ref(), ms);
    let on_abort = signal.map(|s| {
        let (s, timer) = (s.clone(), timer.clone());
        Closure::<dyn FnMut()>::new(move || {
            clear_timeout(&timer);
            let _ = reject.call1(&JsValue::NULL, &s.reason());
        })
    });
    if let (Some(s), Some(cb)) = (signal, &on_abort) {
        s.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref())?;
    }
    let result = JsFuture::from(promise).await;
    if let (Some(s), Some(cb)) = (signal, &on_abort) {
        s.remove_event_listener_with_callback("abort", cb.as_ref().unchecked_ref())?;
    }
    result.map(|_| ())
}

/// Throws away a response body we will not read, so its connection can be reused.
fn discard_body(resp: &Response) {
    if let Ok(body) = Reflect::get(resp, &"body".into())
        && body.is_object()
        && let Ok(cancel) = Reflect::get(&body, &"cancel".into())
        && let Some(f) = cancel.dyn_ref::<Function>()
        && let Ok(p) = f.call0(&body)
        && let Some(p) = p.dyn_ref::<Promise>()
    {
        // A rejected cancel must not surface as an unhandled rejection.
        let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
        let _ = p.catch(&ignore);
        ignore.forget();
    }
}

fn retry_error(reason: &str, attempts: &Array, cause: &JsValue) -> JsValue {
    let err = js_sys::Error::new(&format!("retryFetch gave up: {reason}"));
    err.set_name("RetryError");
    set(&err, "reason", reason);
    set(&err, "attempts", attempts.clone());
    set(&err, "cause", cause.clone());
    err.into()
}

fn decision_name(d: &Decision) -> &'static str {
    match d {
        Decision::Retry { .. } => "retry",
        Decision::Stop(StopReason::Succeeded(_)) => "success",
        Decision::Stop(_) => "stop",
    }
}

/// `retryFetch(url, init, { policy, callSite, budget, attemptTimeoutMs, deadlineMs,
/// idempotent, signal, onAttempt })`: `fetch` with retries decided by the core policy.
///
/// Resolves with the first successful `Response`, or — like `fetch`, which does not throw
/// on a 503 — with the last `Response` when it gives up on an HTTP status. Rejects with a
/// `RetryError` (`attempts`, `reason`) when it gives up on a transport failure, with a
/// `BudgetExhaustedError` at once, calling nothing, when the call site's budget is spent,
/// and with the signal's reason when the caller aborts.
#[wasm_bindgen(js_name = retryFetch)]
pub async fn retry_fetch(
    input: JsValue,
    init: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let mut o = read_options(&options)?;
    let request = Request::new(method_of(&input, &init)?).idempotent(o.idempotent);
    let signal = o.signal.clone();
    if let Some(s) = &signal
        && s.aborted()
    {
        return Err(s.reason());
    }
    let started = Date::now();
    if let Some(cs) = &o.call_site {
        let admitted = with_bucket(cs, o.budget, started, |b| o.policy.admit(Some(b), started))?;
        if let Err(e) = admitted {
            return Err(exhausted_error(cs, &e));
        }
    }
    let mut state = o.policy.start(started);
    let attempts = Array::new();
    loop {
        let number = state.made() + 1;
        let attempt_started = Date::now();
        let remaining = o
            .policy
            .max_elapsed_ms()
            .map(|max| (max - (attempt_started - started)).max(1.0));
        let timeout = match (o.attempt_timeout_ms, remaining) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        };
        let a = attempt_once(&input, &init, timeout, signal.as_ref()).await?;
        let now = Date::now();
        let outcome = match (a.status, a.error) {
            (_, Some(e)) => Outcome::Transport(e),
            (Some(code), None) => match HttpStatus::new(code) {
                Ok(status) => Outcome::Response {
                    status,
                    retry_after: a.retry_after.as_deref(),
                    pushback_ms: a.pushback.as_deref(),
                },
                // An opaque (no-cors) response has status 0 and cannot be inspected.
                Err(_) => Outcome::response(HttpStatus::OK),
            },
            (None, None) => Outcome::Transport(TransportError::Connect),
        };
        let verdict: Verdict = o.policy.rules().classify(request, &outcome, now);
        let (decision, tokens) = match &o.call_site {
            Some(cs) => with_bucket(cs, o.budget, now, |b| {
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

        let info = Object::new();
        set(&info, "number", number);
        set(&info, "startedMs", attempt_started);
        match (a.status, a.error) {
            (_, Some(e)) => set(&info, "error", e.name()),
            (Some(s), None) => set(&info, "status", s),
            _ => {}
        }
        set(&info, "decision", decision_name(&decision));
        let reason = match &decision {
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
        attempts.push(&info);
        if let Some(f) = &o.on_attempt {
            // A failing callback must not break the request it reports on.
            let _ = f.call1(&JsValue::NULL, &info);
        }

        match decision {
            Decision::Retry { delay_ms, .. } => {
                if let Last::Response(r) = &a.last {
                    discard_body(r);
                }
                sleep(delay_ms, signal.as_ref()).await?;
            }
            Decision::Stop(_) => {
                return match a.last {
                    Last::Response(r) => Ok(r.into()),
                    Last::Error(e)
                        if verdict.action == Action::DoNotRetry
                            && a.error == Some(TransportError::Abort) =>
                    {
                        Err(signal.as_ref().map_or(e, AbortSignal::reason))
                    }
                    Last::Error(e) => Err(retry_error(&reason, &attempts, &e)),
                };
            }
        }
    }
}
