//! Aborting and waiting: the caller's signals, the call's own controller, timers.
//!
//! The caller's signals may be any object with an `aborted` property and an
//! `addEventListener` method, so they are read only through [`super::js`]'s fallible calls.
//! Our own controllers' signals are real `AbortSignal`s.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, EventTarget};

use super::js::{clear_timeout, get, set_timeout, threw};
use crate::opts::{type_error, wrong_type};

/// One of the caller's signals: `signal`, `init.signal` or a `Request` input's `signal`.
#[derive(Clone)]
pub(super) struct Signal {
    target: JsValue,
    /// The prefix of its properties' names in messages: `init.signal.`.
    prefix: &'static str,
}

impl Signal {
    /// The caller's object.
    pub(super) fn target(&self) -> &JsValue {
        &self.target
    }

    /// `v` as a signal (`None` when `undefined` or `null`), else a `TypeError` naming
    /// `field`. An `AbortSignal`, or an object with an `aborted` property and an
    /// `addEventListener` method; what `aborted` holds is checked when it is read.
    pub(super) fn new(
        v: JsValue,
        field: &'static str,
        prefix: &'static str,
    ) -> Result<Option<Signal>, JsValue> {
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        let like = v.has_type::<AbortSignal>()
            || (v.is_object()
                && Reflect::has(&v, &JsValue::from_str("aborted"))
                    .map_err(threw(prefix, "aborted"))?
                && get(&v, prefix, "addEventListener")?.is_function());
        if !like {
            return Err(wrong_type("", field, "an AbortSignal", &v));
        }
        Ok(Some(Signal { target: v, prefix }))
    }

    /// `aborted`, which must be `true` or `false`.
    pub(super) fn aborted(&self) -> Result<bool, JsValue> {
        let v = get(&self.target, self.prefix, "aborted")?;
        v.as_bool()
            .ok_or_else(|| wrong_type(self.prefix, "aborted", "true or false", &v))
    }

    /// `reason`; if reading it throws, a `TypeError` naming it is the reason instead.
    fn reason(&self) -> JsValue {
        get(&self.target, self.prefix, "reason").unwrap_or_else(|e| e)
    }

    fn on_abort(&self, f: impl FnMut() + 'static) -> Result<Listener, JsValue> {
        Listener::on_abort(&self.target, Closure::new(f))
            .map_err(threw(self.prefix, "addEventListener"))
    }
}

/// An `abort` listener, removed when dropped (so no event can reach a freed closure).
pub(super) struct Listener {
    target: EventTarget,
    cb: Option<Closure<dyn FnMut()>>,
}

impl Listener {
    /// `addEventListener("abort", f)` on `target` (a real signal or one of the caller's).
    #[inline(never)]
    pub(super) fn on_abort(
        target: &JsValue,
        cb: Closure<dyn FnMut()>,
    ) -> Result<Listener, JsValue> {
        let target: EventTarget = target.clone().unchecked_into();
        if let Err(e) =
            target.add_event_listener_with_callback("abort", cb.as_ref().unchecked_ref())
        {
            // It may have kept the function before throwing: keep the closure alive, so a
            // late call runs it instead of a freed one.
            cb.forget();
            return Err(e);
        }
        Ok(Listener {
            target,
            cb: Some(cb),
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let Some(cb) = self.cb.take() else { return };
        let removed = self
            .target
            .remove_event_listener_with_callback("abort", cb.as_ref().unchecked_ref());
        if removed.is_err() {
            // A signal-like object that cannot remove it may still call it: same as above.
            cb.forget();
        }
    }
}

/// A `setTimeout`, cleared when dropped.
pub(super) struct Timer {
    id: JsValue,
    _cb: Closure<dyn FnMut()>,
}

impl Timer {
    #[inline(never)]
    pub(super) fn new(ms: f64, cb: Closure<dyn FnMut()>) -> Result<Timer, JsValue> {
        let id = set_timeout(cb.as_ref().unchecked_ref(), ms).map_err(threw("", "setTimeout"))?;
        Ok(Timer { id, _cb: cb })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = clear_timeout(&self.id);
    }
}

#[wasm_bindgen(module = "/js/fetch-env.js")]
extern "C" {
    /// Keeps `response`'s body abortable by the caller's `signals` once the call resolved:
    /// each aborts `ctrl` (the attempt's that answered), its listener gone when one fires
    /// or the response is collected (see js/fetch-env.js).
    #[wasm_bindgen(js_name = follow)]
    pub(super) fn follow_body(response: &JsValue, signals: &js_sys::Array, ctrl: &AbortController);
    /// Marks an attempt's own `signal`: a call made with it is at `depth` (see
    /// js/fetch-env.js).
    #[wasm_bindgen(js_name = markDepth)]
    pub(super) fn mark_depth(signal: &AbortSignal, depth: u32);
    /// The deepest of the caller's signals, by the marks of `mark_depth`; 0 for none.
    #[wasm_bindgen(js_name = depthOf)]
    pub(super) fn depth_of(a: &JsValue, b: &JsValue, c: &JsValue) -> u32;
    /// Whether a rejection of `fetch` is this package's own settings error (a `retryFetch`
    /// that `fetch` called in turn, refused): the caller's mistake, not retried.
    pub(super) fn mistake(e: &JsValue) -> bool;
    /// Puts a copy of `init.body` in its place when it is bytes or a form, so that every
    /// attempt sends what the call was given (see js/fetch-env.js); throws for a detached
    /// buffer.
    #[wasm_bindgen(catch, js_name = fixedBody)]
    pub(super) fn fixed_body(init: &Object) -> Result<(), JsValue>;
    /// Puts a copy of `init.headers` in its place, of the same shape, so that every attempt
    /// sends the headers the call was given (see js/fetch-env.js).
    #[wasm_bindgen(catch, js_name = fixedHeaders)]
    pub(super) fn fixed_headers(init: &Object) -> Result<(), JsValue>;
    /// The input as fetch reads it, once, at the call: a string or a Request as it is,
    /// anything else its text; what the caller's code throws, a TypeError naming it (see
    /// js/fetch-env.js).
    #[wasm_bindgen(catch, js_name = fixedInput)]
    pub(super) fn fixed_input(input: &JsValue) -> Result<JsValue, JsValue>;
    /// What clones a Request's copy for each attempt: its own `clone`, else `made`, the one
    /// that made it (see js/fetch-env.js).
    #[wasm_bindgen(catch, js_name = cloneOf)]
    pub(super) fn clone_of(copy: &JsValue, made: &Function) -> Result<Function, JsValue>;
    /// The transport error a rejected `fetch` stands for, by its place in
    /// `TransportError::ALL` (Node's system error codes on its `cause`; `connect` when it
    /// says nothing, as in browsers).
    #[wasm_bindgen(js_name = failureKind)]
    pub(super) fn failure_kind(e: &JsValue) -> u32;
    /// Links the call's `ctrl` to the real AbortSignal `signal` through the one listener
    /// it carries for every call; returns what unlinks it (see js/fetch-env.js).
    #[wasm_bindgen(catch)]
    fn join(signal: &JsValue, ctrl: &AbortController) -> Result<Function, JsValue>;
}

/// The call's own controller, aborted (with the caller's reason) by any of the caller's
/// signals.
pub(super) struct Cancel {
    ctrl: AbortController,
    /// The caller's signals, for [`follow_body`] once the call resolves.
    pub(super) given: js_sys::Array,
    _links: Vec<Listener>,
    _joined: Vec<Joined>,
}

/// A real `AbortSignal`'s shared link to the call's controller (js/fetch-env.js, `join`):
/// one listener on the signal for every call it follows. Unlinked when dropped.
struct Joined(Function);

impl Drop for Joined {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::UNDEFINED);
    }
}

impl Cancel {
    pub(super) fn new(signals: [Option<Signal>; 3]) -> Result<Cancel, JsValue> {
        let ctrl = AbortController::new()?;
        let given = js_sys::Array::new();
        let (mut links, mut joined) = (Vec::new(), Vec::new());
        for s in signals.iter().flatten() {
            given.push(&s.target);
            if s.aborted()? {
                ctrl.abort_with_reason(&s.reason());
                break;
            }
            // A real AbortSignal shares one listener among the calls; a signal-like (or a
            // signal whose addEventListener throws) has one a call, naming what threw.
            if s.target.has_type::<AbortSignal>() {
                if let Ok(unlink) = join(&s.target, &ctrl) {
                    joined.push(Joined(unlink));
                    continue;
                }
            }
            let (c, src) = (ctrl.clone(), s.clone());
            links.push(s.on_abort(move || c.abort_with_reason(&src.reason()))?);
        }
        Ok(Cancel {
            ctrl,
            given,
            _links: links,
            _joined: joined,
        })
    }

    pub(super) fn signal(&self) -> AbortSignal {
        self.ctrl.signal()
    }

    /// `Err(reason)` once aborted.
    pub(super) fn check(&self) -> Result<(), JsValue> {
        let s = self.ctrl.signal();
        if s.aborted() { Err(s.reason()) } else { Ok(()) }
    }
}

/// A pending promise and its `resolve` and `reject` functions.
pub(super) fn deferred() -> Result<(Promise, Function, Function), JsValue> {
    let mut fns: Option<(Function, Function)> = None;
    let promise = Promise::new(&mut |resolve, reject| fns = Some((resolve, reject)));
    let (resolve, reject) = fns.ok_or_else(|| type_error("Promise executor did not run"))?;
    Ok((promise, resolve, reject))
}

/// Rejects through `reject` with `signal`'s reason when it aborts (for as long as the
/// returned listener lives).
pub(super) fn reject_on_abort(signal: &AbortSignal, reject: Function) -> Result<Listener, JsValue> {
    let s = signal.clone();
    Listener::on_abort(
        signal,
        Closure::new(move || {
            let _ = reject.call1(&JsValue::NULL, &s.reason());
        }),
    )
}

/// Waits for `value` as `await` does (a thenable is followed, anything else is there at
/// once): `Err` with what it rejected with; or, as soon as the signal aborts, `Ok(false)`
/// (the caller checks the signal next); or, at `deadline` (the monotonic clock's ms), if
/// one is given, `Ok(true)`: the call's deadline bounds the wait too, so a callback whose
/// promise never settles cannot hold the call past it.
pub(super) async fn settled(
    value: &JsValue,
    signal: &AbortSignal,
    deadline: Option<f64>,
) -> Result<bool, JsValue> {
    let (aborted, resolve, _) = deferred()?;
    let _abort = Listener::on_abort(
        signal,
        Closure::new(move || {
            let _ = resolve.call0(&JsValue::NULL);
        }),
    )?;
    if signal.aborted() {
        return Ok(false);
    }
    let both = js_sys::Array::of2(&super::js::awaited(value), &aborted);
    // The deadline's timer resolves with a value of its own, told apart from the
    // callback's (which may be anything) by identity.
    let late = Object::new();
    let _timer = match deadline {
        Some(d) => {
            let (timeout, resolve, _) = deferred()?;
            let at = late.clone();
            both.push(&timeout);
            let wait = (d - crate::clock::mono_ms()).max(0.0);
            Some(Timer::new(
                wait,
                Closure::new(move || {
                    let _ = resolve.call1(&JsValue::NULL, &at);
                }),
            )?)
        }
        None => None,
    };
    let first = JsFuture::from(Promise::race(&both)).await?;
    Ok(Object::is(&first, &late))
}

/// Waits `ms`, or rejects with the signal's reason as soon as it aborts.
pub(super) async fn sleep(ms: f64, signal: &AbortSignal) -> Result<(), JsValue> {
    let (promise, resolve, reject) = deferred()?;
    let _timer = Timer::new(
        ms,
        Closure::new(move || {
            let _ = resolve.call0(&JsValue::NULL);
        }),
    )?;
    let _abort = reject_on_abort(signal, reject)?;
    JsFuture::from(promise).await.map(|_| ())
}
