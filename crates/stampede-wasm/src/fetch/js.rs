//! The caller's JavaScript, reached only through fallible calls.
//!
//! Why this module exists: `retryFetch` is an `async fn`, which wasm-bindgen-futures polls
//! from a `queueMicrotask` callback. This crate is built with `panic = "abort"`, so a
//! JavaScript exception thrown by an import that is not declared `catch` unwinds straight
//! through the wasm frames: no Rust destructor runs, the poll never returns, the exception
//! escapes the microtask uncaught (which ends a Node process), the returned promise never
//! settles, and the executor's queue is left in the middle of a run: another `retryFetch`
//! started in the same tick never settles either (tests/js/fetch-hostile.test.mjs checks
//! both; the build before this module failed them). Nothing on the Rust side can catch it.
//!
//! So the rule for everything under `fetch`: whatever the caller controls — getters and Proxy
//! traps on `input`, `init`, `options` and signals, `fetch` and the `then` of what it returns,
//! a signal's `addEventListener`, `onAttempt`, a response's `status`, `headers` and
//! `headers.get`, a body's `cancel` — is reached only through the `catch` bindings below and
//! `js_sys::Reflect` / `Function::call*` (all `catch`), or from inside the `try` blocks of the
//! JavaScript helpers below, which return an error instead of throwing it. Each returns a
//! `Result` (or an error value), `?` carries an error up to `retry_fetch`'s `Err`, and
//! wasm-bindgen turns that into the promise's rejection. [`threw`] names the culprit in that
//! rejection. Only our own objects (the controllers, plain objects we build) go through
//! infallible bindings: the platform's globals (`AbortController`, `Promise`) are trusted,
//! the caller's values never are.

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `globalThis.fetch`, looked up at every call (a polyfill or a test may replace it).
    #[wasm_bindgen(catch, js_name = fetch)]
    pub(super) fn global_fetch(input: &JsValue, init: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = setTimeout)]
    pub(super) fn set_timeout(handler: &Function, ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    pub(super) fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
    /// `Object.assign(target, source)`: runs the source's getters and Proxy traps.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = assign)]
    pub(super) fn object_assign(target: &Object, source: &JsValue) -> Result<JsValue, JsValue>;
}

/// `v[key]`, which may run a getter or a Proxy trap: an exception becomes a rejection naming
/// `{prefix}{key}`.
#[inline(never)]
pub(super) fn get(v: &JsValue, prefix: &str, key: &str) -> Result<JsValue, JsValue> {
    Reflect::get(v, &JsValue::from_str(key)).map_err(threw(prefix, key))
}

/// `v[key]` when `v` is an object or a function, else `undefined`.
#[inline(never)]
pub(super) fn get_if_object(v: &JsValue, prefix: &str, key: &str) -> Result<JsValue, JsValue> {
    if v.is_object() || v.is_function() {
        get(v, prefix, key)
    } else {
        Ok(JsValue::UNDEFINED)
    }
}

/// Turns what the caller's code threw into a `TypeError` that names the culprit
/// (`{prefix}{name}: threw an exception: {its message}`), with what was thrown as `cause`.
pub(crate) fn threw<'a>(prefix: &'a str, name: &'a str) -> impl FnOnce(JsValue) -> JsValue + 'a {
    move |thrown| threw_error(prefix, name, &thrown)
}

// Written in JavaScript, as the settings errors' messages are (see opts.rs): every call into
// the caller's code is inside a `try`, which costs nothing in wasm where the same checks in
// Rust cost kilobytes. None of these functions throws.
#[wasm_bindgen(inline_js = r#"
export function threwError(prefix, name, thrown) {
  let m;
  try {
    m = thrown !== null && typeof thrown === "object" ? thrown.message : thrown;
  } catch {}
  const quoted = typeof m === "string" && m !== "" ? `: ${m.length > 200 ? `${m.slice(0, 200)}…` : m}` : "";
  const error = new TypeError(`${prefix}${name}: threw an exception${quoted}`, { cause: thrown });
  // Named as a settings error is (no code: the value is the caller's code's to give).
  error.field = prefix + name;
  return error;
}
const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
export function follow(promise, resolve, reject) {
  let then;
  try {
    then = isObject(promise) ? promise.then : undefined;
  } catch (e) {
    return threwError("fetch(…).", "then", e);
  }
  if (typeof then !== "function") return false;
  try {
    then.call(promise, resolve, reject);
  } catch (e) {
    return threwError("fetch(…).", "then", e);
  }
}
export function readResponse(v, maxText) {
  let status, headers, get;
  try {
    status = isObject(v) ? v.status : undefined;
  } catch (e) {
    return threwError("response.", "status", e);
  }
  try {
    headers = isObject(v) ? v.headers : undefined;
    get = isObject(headers) ? headers.get : undefined;
  } catch (e) {
    return threwError("response.", "headers", e);
  }
  // 0 is an opaque (no-cors) answer; any other status an HTTP response can carry is 100-599.
  const valid = status === 0 || (Number.isInteger(status) && status >= 100 && status <= 599);
  if (!valid || typeof get !== "function") return null;
  const hint = (name) => {
    const h = get.call(headers, name);
    if (typeof h !== "string") return undefined;
    // As js/headers.js's cutHint (an inline snippet imports nothing): one longer than maxText
    // is cut to maxText + 1 units, a surrogate pair kept whole, which the core rules malformed.
    return h.length <= maxText ? h : h.slice(0, (h.charCodeAt(maxText) & 0xfc00) === 0xd800 ? maxText + 2 : maxText + 1);
  };
  try {
    return [status, hint("retry-after"), hint("grpc-retry-pushback-ms")];
  } catch (e) {
    return threwError("response.headers.", "get", e);
  }
}
// What the caller's callback returned, as `await` makes a promise of it (a thenable is
// followed; Promise.resolve may throw, reading a real promise's `constructor`).
export function awaited(v) {
  try {
    return Promise.resolve(v);
  } catch (e) {
    return Promise.reject(e);
  }
}
const ignore = () => {};
// Our own promise (one attempt's): its rejection is handled even if the attempt fails
// before anyone awaits it.
export function handled(p) {
  p.then(undefined, ignore);
}
// Our own promise (one attempt's), tagged with its index for a race: never rejects.
export function tagged(p, i) {
  return p.then((v) => [i, true, v], (e) => [i, false, e]);
}
export function discardBody(response) {
  try {
    const body = isObject(response) ? response.body : undefined;
    const done = isObject(body) && typeof body.cancel === "function" ? body.cancel() : undefined;
    // A rejected cancel must not surface as an unhandled rejection.
    if (isObject(done) && typeof done.then === "function") done.then(undefined, ignore);
  } catch {}
}
"#)]
extern "C" {
    /// Throws away a response body that will not be read, so its connection can be reused.
    /// Best effort: whatever fails is ignored (the call's outcome is already known).
    #[wasm_bindgen(js_name = discardBody)]
    pub(super) fn discard_body(response: &JsValue);
    /// `p` (one of our attempts' promises) as a promise of `[i, true, value]` or
    /// `[i, false, error]`, for a race between attempts.
    pub(super) fn tagged(p: &js_sys::Promise, i: u32) -> js_sys::Promise;
    /// Marks `p` (one of our attempts' promises) handled: if the attempt fails while it is
    /// sent (the caller's `clone`, `fetch` or `then` throws after an abort rejected `p`),
    /// its rejection is not reported as unhandled.
    pub(super) fn handled(p: &js_sys::Promise);
    /// What the caller's callback returned, as `await` makes a promise of it: never throws.
    pub(super) fn awaited(v: &JsValue) -> js_sys::Promise;
    #[wasm_bindgen(js_name = threwError)]
    fn threw_error(prefix: &str, name: &str, thrown: &JsValue) -> JsValue;
    /// `promise.then(resolve, reject)`: `undefined` once done, `false` if `promise` is not a
    /// thenable, else the error to reject with (its `then` threw).
    pub(super) fn follow(promise: &JsValue, resolve: &Function, reject: &Function) -> JsValue;
    /// `[status, retryAfter, pushback]` of a Response (a `status` of 0 or 100 to 599
    /// and `headers.get`; a hint that is not a string of at most `max_text` characters is no
    /// hint); `null` for anything else; or the error to reject with (a getter threw).
    #[wasm_bindgen(js_name = readResponse)]
    pub(super) fn read_response(v: &JsValue, max_text: u32) -> JsValue;
}
