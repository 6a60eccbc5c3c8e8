//! One call's request (`input`, a copy of `init`, the caller's signals) and its attempts:
//! each one `fetch`, raced against its own abort, and what came back.
//!
//! `fetch` is whatever `globalThis.fetch` is, so it is held to the contract of the real one:
//! it returns a promise (a thenable) and that promise resolves to a Response (an object with
//! a `status` of 0 or 100 to 599 and `headers.get`). Anything else is a `TypeError`
//! naming `fetch` and ends the call; a rejection is a transport failure, retried as one.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use stampede::classify::{HttpStatus, Outcome, TransportError};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

use super::abort::{
    Cancel, Listener, Signal, Timer, clone_of, deferred, depth_of, failure_kind, fixed_body,
    fixed_headers, follow_body, mark_depth, mistake, reject_on_abort,
};
use super::js::{
    self, follow, get, get_if_object, global_fetch, handled, object_assign, read_response, threw,
};
use crate::errors::{once_body, timeout_error};
use crate::in_flight::Flight;
use crate::opts::{set, wrong_type};
use stampede::MAX_TEXT_CHARS;

/// What every attempt sends: `fetch(input, init)`, with a fresh signal per attempt.
pub(super) struct Call {
    input: JsValue,
    /// A `Request` input's `clone`: each attempt sends a clone, so its body is read once
    /// per send and the original is never consumed.
    pub(super) clone: Option<Function>,
    /// A copy of the caller's `init` (its getters ran once, here); its `signal` is replaced
    /// per attempt. Made without a prototype, so no inherited setter sees that.
    pub(super) init: Object,
    pub(super) cancel: Cancel,
    /// Counted among the calls in flight, at its depth (`in_flight.rs`), until it ends.
    flight: Flight,
}

impl Call {
    /// Checks `input` and `init` and gathers the caller's signals (`signal` from the
    /// options, `init.signal`, a `Request` input's own signal).
    pub(super) fn new(
        input: &JsValue,
        init: &JsValue,
        signal: Option<Signal>,
        flight: Flight,
    ) -> Result<Call, JsValue> {
        let (copy, init_signal) = copy_init(init)?;
        let (clone, input_signal) = request_parts(input)?;
        // A Request is copied once, here, and each attempt clones the copy: headers the
        // caller sets on its Request since reach no retry.
        let (source, clone) = match clone {
            Some(f) => {
                let copy = f.call0(input).map_err(threw("input.", "clone"))?;
                let each = clone_of(&copy, &f).map_err(threw("input.clone().", "clone"))?;
                (copy, Some(each))
            }
            None => (input.clone(), None),
        };
        // A call made with one of our attempts' signals is below that attempt's call, however
        // it got here (a fetch that awaited something first; see `in_flight.rs`).
        let target = |s: &Option<Signal>| {
            s.as_ref()
                .map_or(JsValue::UNDEFINED, |s| s.target().clone())
        };
        let below = depth_of(
            &target(&signal),
            &target(&init_signal),
            &target(&input_signal),
        );
        let mut flight = flight;
        flight.below(below)?;
        Ok(Call {
            input: source,
            clone,
            init: copy,
            cancel: Cancel::new([signal, init_signal, input_signal])?,
            flight,
        })
    }

    /// Sends one attempt with its own `AbortController`, aborted by the call's signal or
    /// by the timeout, whichever comes first. `Err` only when the caller's code fails
    /// (`input.clone`, a misbehaving `fetch` or response): the call ends there.
    pub(super) async fn attempt(&self, timeout_ms: Option<f64>) -> Result<Attempted, JsValue> {
        let sent = self.send(timeout_ms)?;
        let result = JsFuture::from(sent.settled.clone()).await;
        sent.attempted(result)
    }

    /// Starts one attempt: `fetch(input, init)` under a fresh controller. What it returns
    /// settles when fetch's promise does, or as soon as the attempt is aborted, even by a
    /// `fetch` that ignores its signal (or a thenable that never calls back).
    #[inline(never)]
    pub(super) fn send(&self, timeout_ms: Option<f64>) -> Result<Sent, JsValue> {
        let timed_out = Rc::new(Cell::new(false));
        let ctrl = AbortController::new()?;
        let cancel = self.cancel.signal();
        let (c, s) = (ctrl.clone(), cancel.clone());
        let cancelled = Listener::on_abort(
            &cancel,
            Closure::new(move || c.abort_with_reason(&s.reason())),
        )?;
        let timer = match timeout_ms {
            Some(ms) => {
                let (c, t) = (ctrl.clone(), Rc::clone(&timed_out));
                let expire = move || {
                    t.set(true);
                    c.abort_with_reason(&timeout_error());
                };
                Some(Timer::new(ms, Closure::new(expire))?)
            }
            None => None,
        };
        let (settled, resolve, reject) = deferred()?;
        // An error below drops `settled`, which an abort may already have rejected.
        handled(&settled);
        let abort = reject_on_abort(&ctrl.signal(), reject.clone())?;
        mark_depth(&ctrl.signal(), self.flight.depth() + 1);
        set(&self.init, "signal", ctrl.signal());
        let input = match &self.clone {
            Some(f) => f.call0(&self.input).map_err(threw("input.", "clone"))?,
            None => self.input.clone(),
        };
        let promise = self
            .flight
            .fetching(|| global_fetch(&input, &self.init))
            .map_err(threw("", "fetch"))?;
        match follow(&promise, &resolve, &reject) {
            done if done.is_undefined() => {}
            not_then if not_then.is_falsy() => {
                return Err(wrong_type("", "fetch", "a Promise", &promise));
            }
            e => return Err(e),
        }
        Ok(Sent {
            settled,
            ctrl,
            timed_out,
            aborted: self.cancel.signal(),
            _guards: (cancelled, timer, abort),
        })
    }
}

/// What a bytes body must be (one detached since it was made cannot be copied, nor sent).
const DETACHED: &str = "bytes that are not detached";

/// A copy of `init` (its getters and Proxy traps run once, here) and its signal. The copy
/// has no prototype, so an inherited setter cannot see the signal set on it per attempt.
#[inline(never)]
fn copy_init(init: &JsValue) -> Result<(Object, Option<Signal>), JsValue> {
    let copy = Object::create(JsValue::NULL.unchecked_ref());
    if !init.is_object() {
        if !init.is_undefined() && !init.is_null() {
            return Err(wrong_type("", "init", "an object", init));
        }
        return Ok((copy, None));
    }
    object_assign(&copy, init).map_err(threw("", "init"))?;
    let body = get(&copy, "init.", "body")?;
    if get_if_object(&body, "init.body.", "getReader")?.is_function() {
        return Err(once_body("a ReadableStream"));
    }
    // Node's fetch also sends an async iterable (a generator, a stream.Readable): once too.
    if (body.is_object() || body.is_function())
        && Reflect::get(&body, &js_sys::Symbol::async_iterator())
            .map_err(threw("init.body.", "[Symbol.asyncIterator]"))?
            .is_function()
    {
        return Err(once_body(
            "an async iterable (a generator or a Node stream)",
        ));
    }
    fixed_body(&copy).map_err(|_| wrong_type("init.", "body", DETACHED, &body))?;
    fixed_headers(&copy).map_err(threw("init.", "headers"))?;
    let signal = Signal::new(
        get(&copy, "init.", "signal")?,
        "init.signal",
        "init.signal.",
    )?;
    Ok((copy, signal))
}

/// A `Request` input's `clone` method and its own signal (`None`s for a URL or a string).
#[inline(never)]
fn request_parts(input: &JsValue) -> Result<(Option<Function>, Option<Signal>), JsValue> {
    let used = get_if_object(input, "input.", "bodyUsed")?;
    let Some(used) = used.as_bool() else {
        return Ok((None, None));
    };
    let Ok(clone) = get(input, "input.", "clone")?.dyn_into::<Function>() else {
        return Ok((None, None));
    };
    if used {
        return Err(crate::errors::used_body());
    }
    let own = get(input, "input.", "signal")?;
    if !own.is_object() {
        return Ok((Some(clone), None));
    }
    Ok((
        Some(clone),
        Signal::new(own, "input.signal", "input.signal.")?,
    ))
}

/// An attempt on its way: the promise to wait for, its own controller, and what must live
/// until it settles.
pub(super) struct Sent {
    /// Settles when fetch's promise does, or as soon as the attempt is aborted.
    pub(super) settled: Promise,
    ctrl: AbortController,
    timed_out: Rc<Cell<bool>>,
    /// The call's signal: aborted when the caller aborts.
    aborted: web_sys::AbortSignal,
    _guards: (Listener, Option<Timer>, Listener),
}

impl Sent {
    /// What the attempt left, once `settled` has: `Err` only when the caller's code broke
    /// the contract of `fetch` (see [`Attempted::response`]).
    pub(super) fn attempted(&self, result: Result<JsValue, JsValue>) -> Result<Attempted, JsValue> {
        match result {
            Ok(v) => Attempted::response(v).map(|a| Attempted {
                ctrl: Some(self.ctrl.clone()),
                ..a
            }),
            // This package's own settings error (a retryFetch that `fetch` called in turn,
            // refused at a bound): the caller's mistake, which no retry mends.
            Err(e) if !self.aborted.aborted() && mistake(&e) => Err(e),
            Err(e) => Ok(Attempted::failed(
                e,
                self.aborted.aborted(),
                self.timed_out.get(),
            )),
        }
    }

    /// Aborts this attempt through its own controller (a hedge that lost the race).
    pub(super) fn abort(&self) {
        self.ctrl.abort();
    }
}

/// What the last attempt left: a response to hand back, or an error.
pub(super) enum Last {
    Response(JsValue),
    Error(JsValue),
}

/// One attempt's outcome and what it left.
pub(super) struct Attempted {
    pub(super) last: Last,
    pub(super) status: Option<u16>,
    pub(super) error: Option<TransportError>,
    /// The attempt's own timer ended it (not the network's timeout): only then can it be
    /// the deadline's.
    pub(super) timed_out: bool,
    /// The controller of an attempt that answered (its body follows it).
    ctrl: Option<AbortController>,
    retry_after: Option<String>,
    pushback: Option<String>,
}

impl Attempted {
    /// A rejected attempt: aborted by the caller, timed out, or else a failed connection.
    fn failed(e: JsValue, aborted: bool, timed_out: bool) -> Attempted {
        let kind = if aborted {
            TransportError::Abort
        } else if timed_out {
            TransportError::Timeout
        } else {
            let kind = failure_kind(&e) as usize;
            TransportError::ALL
                .get(kind)
                .copied()
                .unwrap_or(TransportError::Connect)
        };
        Attempted {
            last: Last::Error(e),
            status: None,
            error: Some(kind),
            timed_out: !aborted && timed_out,
            ctrl: None,
            retry_after: None,
            pushback: None,
        }
    }

    /// Reads what `fetch` resolved to: a `TypeError` naming `fetch` unless it is a
    /// Response (a `status` of 0 or 100 to 599 and a `headers.get` method).
    fn response(v: JsValue) -> Result<Attempted, JsValue> {
        let read = read_response(&v, MAX_TEXT_CHARS);
        if read.is_null() {
            return Err(wrong_type(
                "",
                "fetch",
                "a Promise of a Response (a status of 0 or 100 to 599, and headers.get)",
                &v,
            ));
        }
        let read: Array = read.dyn_into()?;
        Ok(Attempted {
            status: read.get(0).as_f64().map(|s| s as u16),
            error: None,
            timed_out: false,
            ctrl: None,
            retry_after: read.get(1).as_string(),
            pushback: read.get(2).as_string(),
            last: Last::Response(v),
        })
    }

    pub(super) fn outcome(&self) -> Outcome<'_> {
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

    /// The call ends with this attempt: if it is a Response, the call resolves with it, and
    /// the caller's signals keep aborting its body while it is read, as `fetch`'s own does.
    pub(super) fn resolved(&self, call: &Call) {
        if let (Last::Response(r), Some(ctrl)) = (&self.last, &self.ctrl) {
            if call.cancel.given.length() > 0 {
                follow_body(r, &call.cancel.given, ctrl);
            }
        }
    }

    /// Throws away a response body we will not read, so its connection can be reused.
    pub(super) fn discard_body(&self) {
        if let Last::Response(resp) = &self.last {
            js::discard_body(resp);
        }
    }
}
