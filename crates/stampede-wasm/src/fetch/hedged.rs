//! Hedging in `retryFetch`: real concurrent `fetch` calls, the first success wins.
//!
//! The rules are the core's `stampede::hedge::Hedge` (gRFC A6 `hedgingPolicy`, Polly v8):
//! this module only sends what it says to send, when it says, and tells it what came back.
//! The first attempt goes out at once; when `delayMs` passes with no answer, the next one;
//! a failure the classifier retries sends the next at once, a server hint (`Retry-After`,
//! `grpc-retry-pushback-ms`) delays it; up to `maxAttempts` in all. Each hedge is charged
//! to the call site's budget and throttle (and must pass its breaker) when it is decided,
//! which is the moment it is sent. A request that may not be repeated (POST, PATCH, … not
//! marked `idempotent`) is never hedged: it makes one attempt.
//!
//! Each attempt has its own `AbortController`, chained to the call's signal (so the
//! caller's abort aborts every attempt in flight) and to its own timeout. When the request
//! is over — an attempt won, or one failed in a way that ends it — every attempt still in
//! flight is aborted through its controller and reported to `onAttempt` as an `abort`;
//! so is every attempt in flight when the call ends any other way (an abort, a callback
//! that throws). The one JavaScript wait per step is a `Promise.race` between the
//! attempts in flight, the hedge timer and the caller's abort.

use js_sys::{Array, Date, Promise};
use stampede::classify::{Reason, Request, TransportError, Verdict};
use stampede::hedge::{HedgeStep, Hedging};
use stampede::policy::StopReason;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::abort::{Listener, Timer, deferred, reject_on_abort};
use super::attempt::{Attempted, Call, Sent};
use super::js::{awaited, handled, tagged};
use super::{FetchOptions, Nets, Report, attempt_info, finish, report};
use crate::call_errors::retry_error_js;

/// One attempt in flight.
struct Flight {
    /// Its index in the order attempts were sent (0 is the first, the rest are hedges).
    index: u32,
    /// When it was sent (`Date.now()`).
    started_ms: f64,
    sent: Sent,
    /// `sent.settled` tagged with `index` for the race.
    tagged: Promise,
    /// Its timeout was what was left before the deadline.
    deadline_bound: bool,
}

/// The attempts in flight. Whatever is left when this is dropped is aborted: no attempt
/// outlives its call.
struct Flights(Vec<Flight>);

impl Drop for Flights {
    fn drop(&mut self) {
        for f in &self.0 {
            f.sent.abort();
        }
    }
}

/// The reason given for an attempt aborted because the request was over.
const CANCELLED: &str = "cancelled: another attempt ended the request";

/// Runs one hedged request whose first attempt the nets admitted at `started`.
pub(super) async fn run(
    o: &mut FetchOptions,
    call: &Call,
    request: Request,
    nets: &mut Nets,
    started: f64,
    hedging: Hedging,
) -> Result<JsValue, JsValue> {
    let attempts = Array::new();
    let mut flights = Flights(Vec::new());
    // The last attempt that ended without ending the request: what a request that then
    // stops with nothing in flight hands back.
    let mut last: Option<Attempted> = None;
    let mut launched = 0;
    // The hedge delay counts from the moment the first attempt is sent (gRFC A6), so the
    // clock is read once `fetch` has been called: read before, a slow `launch` (a busy
    // machine, the first call's compilation) took its time out of the first delay.
    launch(o, call, started, &mut flights, &mut launched)?;
    let mut h = hedging.start(&o.policy, request, crate::clock::mono_ms());
    loop {
        unless_aborted(o, call, &attempts, &flights)?;
        let due = h.next_due_ms();
        let (wake, _timer, _abort) = race(&flights, due, call)?;
        // Rejects with the caller's reason when the caller aborts (dropping `flights`
        // aborts the attempts, already aborted through their chained controllers).
        let woke = JsFuture::from(wake).await;
        unless_aborted(o, call, &attempts, &flights)?;
        let woke = woke?;
        let Some(woke) = woke.dyn_ref::<Array>() else {
            // The hedge timer: the next hedge is decided (timers may fire a fraction of a
            // millisecond early on the monotonic clock: the due time has come).
            let now = crate::clock::mono_ms().max(due.unwrap_or(0.0));
            let step = nets.with(now, |g| h.on_due(now, g, &mut o.rng))?;
            match step {
                HedgeStep::Send => launch(o, call, started, &mut flights, &mut launched)?,
                HedgeStep::Wait => {}
                HedgeStep::Done(r) => {
                    let text = r.to_string();
                    return match last {
                        Some(a) => finish(a, call, nets.call_site(), &r, &text, &attempts),
                        None => Err(retry_error_js(&text, &attempts, &JsValue::UNDEFINED)),
                    };
                }
            }
            continue;
        };
        let index = woke.get(0).as_f64().unwrap_or(0.0) as u32;
        let Some(at) = flights.0.iter().position(|f| f.index == index) else {
            continue;
        };
        let flight = flights.0.remove(at);
        let result = if woke.get(1).is_truthy() {
            Ok(woke.get(2))
        } else {
            Err(woke.get(2))
        };
        let a = flight.sent.attempted(result)?;
        let clock = crate::clock::now();
        let verdict: Verdict = o
            .policy
            .rules()
            .classify(request, &a.outcome(), clock.wall_ms);
        let fired = a.timed_out && flight.deadline_bound;
        let now = crate::deadline::now_at_deadline(h.deadline_ms(), fired, clock.mono_ms);
        let step = nets.with(now, |g| h.on_outcome(&verdict, now, g, &mut o.rng))?;
        let (decision, delay, reason) = match &step {
            HedgeStep::Send => ("retry", Some((0.0, false)), verdict.reason.to_string()),
            HedgeStep::Wait => {
                // A server hint moved the next hedge: say when it goes.
                let delay = match (verdict.hint, h.next_due_ms()) {
                    (Some(_), Some(d)) => Some(((d - now).max(0.0), true)),
                    _ => None,
                };
                ("wait", delay, verdict.reason.to_string())
            }
            HedgeStep::Done(r @ StopReason::Succeeded(_)) => ("success", None, r.to_string()),
            HedgeStep::Done(r) => ("stop", None, r.to_string()),
        };
        // The attempt whose response the call resolves with: a success, or the status
        // hedging ends on (as `fetch`, the call resolves with a 503 it gives up on).
        let won = matches!(step, HedgeStep::Done(_)) && a.error.is_none();
        let info = attempt_info(
            a.status,
            a.error,
            &Report {
                number: flight.index + 1,
                started_ms: flight.started_ms,
                decision,
                delay,
                reason: &reason,
                tokens: nets.tokens(now)?,
                hedge: flight.index > 0,
                won,
            },
        );
        let signal = call.cancel.signal();
        let cut = match report(
            o.on_attempt.as_ref(),
            &attempts,
            &info,
            &signal,
            h.deadline_ms(),
        )
        .await
        {
            Ok(cut) => cut,
            Err(e) => {
                a.discard_body();
                return Err(e);
            }
        };
        if let Err(abort_reason) = unless_aborted(o, call, &attempts, &flights) {
            a.discard_body();
            return Err(abort_reason);
        }
        // A slow onAttempt may have taken the time a hedge had: one that would now start
        // at or past the deadline is not sent (see `Hedge::may_send`).
        let step = match step {
            HedgeStep::Send => {
                let at = crate::clock::mono_ms();
                h.may_send(crate::deadline::now_at_deadline(h.deadline_ms(), cut, at))
            }
            step => step,
        };
        match step {
            HedgeStep::Send => {
                replace(&mut last, a);
                launch(o, call, started, &mut flights, &mut launched)?;
            }
            HedgeStep::Wait => replace(&mut last, a),
            HedgeStep::Done(r) => {
                if let Some(prev) = last.take() {
                    prev.discard_body();
                }
                if let Err(e) = cancel_losers(o, call, &attempts, flights, h.deadline_ms()).await {
                    a.discard_body();
                    return Err(e);
                }
                // Aborted while onAttempt was told of the losers: the caller's reason.
                if let Err(abort_reason) = call.cancel.check() {
                    a.discard_body();
                    return Err(abort_reason);
                }
                return finish(a, call, nets.call_site(), &r, &r.to_string(), &attempts);
            }
        }
    }
}

/// `Err(reason)` once the caller aborted, the attempts still in flight (aborted as
/// `flights` is dropped) reported to `onAttempt` as an `abort` first, as the one in flight
/// is when retrying. The call is over, so nothing is waited for, and what the callback
/// throws or rejects with then is nobody's: the call rejects with the caller's reason.
#[inline(never)]
fn unless_aborted(
    o: &FetchOptions,
    call: &Call,
    attempts: &Array,
    flights: &Flights,
) -> Result<(), JsValue> {
    let aborted = call.cancel.check();
    if aborted.is_err() {
        let reason = Reason::Aborted.to_string();
        for f in &flights.0 {
            let info = aborted_info(f, &reason);
            attempts.push(&info);
            let cb = o.on_attempt.as_ref();
            if let Some(told) = cb.and_then(|f| f.call1(&JsValue::NULL, &info).ok()) {
                handled(&awaited(&told));
            }
        }
    }
    aborted
}

/// Keeps `a` as the last attempt, throwing away the body of the one before.
fn replace(last: &mut Option<Attempted>, a: Attempted) {
    if let Some(prev) = last.replace(a) {
        prev.discard_body();
    }
}

/// Sends the next attempt, with its own timeout: `attemptTimeoutMs`, or what is left
/// before the deadline, whichever is sooner.
fn launch(
    o: &FetchOptions,
    call: &Call,
    started: f64,
    flights: &mut Flights,
    launched: &mut u32,
) -> Result<(), JsValue> {
    let elapsed = crate::clock::mono_ms() - started;
    let (timeout, deadline_bound) =
        crate::deadline::attempt_timeout(o.attempt_timeout_ms, o.deadline_ms, elapsed);
    let started_ms = Date::now();
    let sent = call.send(timeout)?;
    let index = *launched;
    *launched += 1;
    flights.0.push(Flight {
        index,
        started_ms,
        tagged: tagged(&sent.settled, index),
        sent,
        deadline_bound,
    });
    Ok(())
}

/// A promise of whichever comes first: an attempt in flight settling (`[index, ok,
/// value]`), the hedge timer at `due` (`undefined`), or the caller's abort (a rejection
/// with its reason). The timer and the listener must live until it settles.
fn race(
    flights: &Flights,
    due: Option<f64>,
    call: &Call,
) -> Result<(Promise, Option<Timer>, Listener), JsValue> {
    let (wake, resolve, reject) = deferred()?;
    let timer = match due {
        Some(d) => {
            let ms = (d - crate::clock::mono_ms()).max(0.0);
            let cb = Closure::new(move || {
                let _ = resolve.call0(&JsValue::NULL);
            });
            Some(Timer::new(ms, cb)?)
        }
        None => None,
    };
    let abort = reject_on_abort(&call.cancel.signal(), reject)?;
    let all: Array = flights.0.iter().map(|f| JsValue::from(&f.tagged)).collect();
    all.push(&wake);
    Ok((Promise::race(&all), timer, abort))
}

/// The request is over: every attempt still in flight is aborted through its own
/// controller and reported to `onAttempt` as an `abort`, in the order they were sent.
async fn cancel_losers(
    o: &FetchOptions,
    call: &Call,
    attempts: &Array,
    flights: Flights,
    deadline: Option<f64>,
) -> Result<(), JsValue> {
    for f in &flights.0 {
        f.sent.abort();
        let info = aborted_info(f, CANCELLED);
        report(
            o.on_attempt.as_ref(),
            attempts,
            &info,
            &call.cancel.signal(),
            deadline,
        )
        .await?;
    }
    Ok(())
}

/// The `onAttempt` record of attempt `f`, aborted in flight for `reason`.
fn aborted_info(f: &Flight, reason: &str) -> js_sys::Object {
    attempt_info(
        None,
        Some(TransportError::Abort),
        &Report {
            number: f.index + 1,
            started_ms: f.started_ms,
            decision: "stop",
            delay: None,
            reason,
            tokens: None,
            hedge: f.index > 0,
            won: false,
        },
    )
}
