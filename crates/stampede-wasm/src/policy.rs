//! `RetryPolicy`, `classify`, `parseRetryAfter`: the core's rules, reshaped for JavaScript.

use js_sys::{Float64Array, Object};
use stampede::backoff::check_samples;
use stampede::classify::{
    HttpStatus, Method, Outcome, Request, RetryRules, StatusSet, TransportError, Verdict,
};
use stampede::policy::Policy;
use stampede::{Field, MAX_TEXT_CHARS};
use stampede::{SeededRng, seeded};
use wasm_bindgen::prelude::*;

use crate::call_settings::policy_settings;
use crate::errors::{config_error, unpaired_error, wrong_type};
use crate::fetch::threw;
use crate::fields::action_name;
use crate::opts::{Opts, finite_arg, number_arg, set, text};

#[wasm_bindgen(module = "/js/headers.js")]
extern "C" {
    /// The entries of a headers argument that is not a Headers, as fresh `[name, value]`
    /// arrays (an iterable's pairs, a record's properties), or the error naming `headers`
    /// (a malformed pair, too many, or what the caller's code threw): through `catch`, as
    /// it runs the caller's getters, iterators and Proxy traps, and an exception through an
    /// infallible import would unwind through the wasm frames.
    #[wasm_bindgen(catch, js_name = headerEntries)]
    fn header_entries(h: &JsValue) -> Result<js_sys::Array, JsValue>;

    /// A hint value cut to `max + 1` units when longer than `max` (a surrogate pair kept
    /// whole): the core rules it malformed without the rest being copied.
    #[wasm_bindgen(js_name = cutHint)]
    fn cut_hint(h: &js_sys::JsString, max: u32) -> js_sys::JsString;
}

/// A hint value given to `classify` or `parseRetryAfter`: a string of any length (a setting's
/// string longer than [`MAX_TEXT_CHARS`] is refused; a header's is the server's, which the
/// caller only passes on), cut as `cutHint` (js/headers.js) cuts it.
fn hint_text(v: &JsValue, prefix: &str, field: &str) -> Result<String, JsValue> {
    let Some(s) = v.dyn_ref::<js_sys::JsString>() else {
        return Err(wrong_type(prefix, field, "a string", v));
    };
    if s.length() <= MAX_TEXT_CHARS {
        return text(v, prefix, field);
    }
    let cut = cut_hint(s, MAX_TEXT_CHARS);
    if !cut.is_valid_utf16() {
        return Err(unpaired_error(prefix, field, &cut.into()));
    }
    Ok(String::from(cut))
}

/// A validated policy and its own seeded generator: `delays()` for one client,
/// `sample(n)` for histograms.
#[wasm_bindgen]
pub struct RetryPolicy {
    policy: Policy,
    rng: SeededRng,
}

#[wasm_bindgen]
impl RetryPolicy {
    /// `new RetryPolicy({ strategy, baseMs, capMs, maxAttempts, multiplier, seed, maxElapsedMs, maxRetryAfterMs })`.
    /// Throws `RangeError` (bad value) or `TypeError` (wrong type) naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<RetryPolicy, JsValue> {
        let opts = Opts::new(&options, "RetryPolicy options", "")?;
        let settings = policy_settings(&opts)?;
        let policy = settings.build().map_err(|e| config_error("", &e))?;
        Ok(RetryPolicy {
            policy,
            rng: seeded(opts.seed()?),
        })
    }

    /// The `maxAttempts - 1` delays (ms) of one client's request; each call draws the next.
    pub fn delays(&mut self) -> Float64Array {
        let n = self.retries();
        let d: Vec<f64> = self
            .policy
            .backoff()
            .delays_ms(&mut self.rng)
            .take(n)
            .collect();
        Float64Array::from(&d[..])
    }

    /// `n` sequences of `maxAttempts - 1` delays, flattened row by row. `n` is a whole
    /// number up to 1,000,000, and `n × (maxAttempts − 1)` at most 10,000,000 values
    /// (80 MB): past that a `RangeError` naming `n` (the core's `check_samples`), never
    /// an allocation that could fail.
    ///
    /// The array is made in JavaScript and filled in chunks, so wasm memory does not grow
    /// with `n`.
    pub fn sample(&mut self, n: JsValue) -> Result<Float64Array, JsValue> {
        let per = self.retries();
        let n = number_arg(&n, "n")?.ok_or_else(|| wrong_type("", "n", "a number", &n))?;
        let n = check_samples(n, per as u32).map_err(|e| config_error("", &e))?;
        let total = n as usize * per;
        // total ≤ 10,000,000 (80 MB), so it fits in u32. Made with `Reflect.construct`, so a
        // failed allocation is a RangeError returned here, not an exception thrown across
        // the wasm frames.
        let ctor = Float64Array::new_with_length(0).constructor();
        let out: Float64Array =
            js_sys::Reflect::construct(&ctor, &js_sys::Array::of1(&JsValue::from(total as u32)))?
                .unchecked_into();
        let backoff = *self.policy.backoff();
        let mut chunk: Vec<f64> = Vec::with_capacity(SAMPLE_CHUNK.min(total));
        let mut at = 0u32;
        for _ in 0..n as usize {
            chunk.extend(backoff.delays_ms(&mut self.rng).take(per));
            if chunk.len() + per > SAMPLE_CHUNK {
                at = flush(&out, at, &mut chunk);
            }
        }
        flush(&out, at, &mut chunk);
        Ok(out)
    }

    /// Attempts in all, the first included.
    #[wasm_bindgen(getter, js_name = maxAttempts)]
    pub fn max_attempts(&self) -> u32 {
        self.policy.max_attempts()
    }

    /// The strategy's name.
    #[wasm_bindgen(getter)]
    pub fn strategy(&self) -> String {
        self.policy.backoff().strategy().name().to_owned()
    }

    fn retries(&self) -> usize {
        self.policy.max_attempts() as usize - 1
    }
}

/// Values drawn in wasm memory before they are copied out.
const SAMPLE_CHUNK: usize = 8192;

/// Copies `chunk` into `out` at `at` and empties it; returns the next position.
fn flush(out: &Float64Array, at: u32, chunk: &mut Vec<f64>) -> u32 {
    let end = at + chunk.len() as u32;
    out.subarray(at, end).copy_from(chunk);
    chunk.clear();
    end
}

/// A verdict as `{ retryable, action, reason, retryAfterMs, ignoredHint? }`.
#[inline(never)]
pub(crate) fn verdict_object(v: &Verdict) -> Object {
    let o = Object::new();
    set(&o, "retryable", v.is_retryable());
    set(&o, "action", action_name(v.action));
    set(&o, "reason", v.reason.to_string());
    set(
        &o,
        "retryAfterMs",
        v.hint_ms().map_or(JsValue::UNDEFINED, JsValue::from),
    );
    if let Some(h) = v.ignored_hint {
        set(&o, "ignoredHint", h.to_string());
    }
    o
}

/// Reads a headers argument: anything with a `get(name)` method (a `Headers`), else as
/// fetch reads a `HeadersInit`: an iterable of `[name, value]` pairs or a record. Returns
/// the raw `Retry-After` and `grpc-retry-pushback-ms` values.
#[inline(never)]
pub(crate) fn hint_headers(
    headers: Option<JsValue>,
) -> Result<(Option<String>, Option<String>), JsValue> {
    let Some(h) = headers else {
        return Ok((None, None));
    };
    if !h.is_object() {
        return Err(wrong_type("", "headers", "an object or a Headers", &h));
    }
    // What the caller's code throws (the `get` getter, `get` itself, a getter of a plain
    // object) becomes a TypeError naming it.
    let get =
        js_sys::Reflect::get(&h, &JsValue::from_str("get")).map_err(threw("headers.", "get"))?;
    // A Map has a `get` too, but its keys are case-sensitive and its values any type: it is
    // read as the `[name, value]` pairs it iterates, as fetch reads it.
    if let Some(f) = get
        .dyn_ref::<js_sys::Function>()
        .filter(|_| !h.is_instance_of::<js_sys::Map>())
    {
        let read = |name: &str| -> Result<Option<String>, JsValue> {
            let v = f
                .call1(&h, &JsValue::from_str(name))
                .map_err(threw("headers.", "get"))?;
            if v.is_null() || v.is_undefined() {
                Ok(None)
            } else {
                hint_text(&v, "headers.", name).map(Some)
            }
        };
        return Ok((read("retry-after")?, read("grpc-retry-pushback-ms")?));
    }
    let mut retry_after = None;
    let mut pushback = None;
    for entry in header_entries(&h)?.iter() {
        let pair: js_sys::Array = entry.unchecked_into();
        let (name, value) = (pair.get(0), pair.get(1));
        // Only two names matter; others are never copied into wasm memory.
        let Some(name) = name
            .dyn_ref::<js_sys::JsString>()
            .filter(|n| matches!(n.length(), 11 | 22))
            .map(String::from)
        else {
            continue;
        };
        let slot = if name.eq_ignore_ascii_case("retry-after") {
            &mut retry_after
        } else if name.eq_ignore_ascii_case("grpc-retry-pushback-ms") {
            &mut pushback
        } else {
            continue;
        };
        if slot.is_none() {
            *slot = Some(match number_text(&value) {
                Some(n) => n,
                None => hint_text(&value, "headers.", &name)?,
            });
        }
    }
    Ok((retry_after, pushback))
}

/// `classify({ status, method, headers, nowMs, error, idempotent, maxRetryAfterMs, retryOn })`
/// → `{ retryable, action, reason, retryAfterMs, ignoredHint? }`.
#[wasm_bindgen]
pub fn classify(input: JsValue) -> Result<JsValue, JsValue> {
    let o = Opts::new(&input, "classify input", "")?;
    let method = match o.text(Field::Method)? {
        Some(m) => m.parse::<Method>().map_err(|e| config_error("", &e))?,
        None => Method::Get,
    };
    let request = Request::new(method).idempotent(o.bool("idempotent")?.unwrap_or(false));
    let mut rules = RetryRules::default();
    if let Some(v) = o.number(Field::MaxRetryAfter)? {
        rules = rules
            .with_max_retry_after_ms(v)
            .map_err(|e| config_error("", &e))?;
    }
    if let Some(spec) = o.text(Field::RetryOn)? {
        rules = rules.with_statuses(StatusSet::parse(&spec).map_err(|e| config_error("", &e))?);
    }
    let now_ms = o.f64("nowMs")?.unwrap_or_else(js_sys::Date::now);
    let (retry_after, pushback);
    let outcome = match (o.checked(Field::Status)?, o.text(Field::Error)?) {
        (Some(code), None) => {
            // Checked: a whole number from 100 to 599.
            let status = HttpStatus::new(code as u16).map_err(|e| config_error("", &e))?;
            (retry_after, pushback) = hint_headers(o.raw("headers")?)?;
            Outcome::Response {
                status,
                retry_after: retry_after.as_deref(),
                pushback_ms: pushback.as_deref(),
            }
        }
        (None, Some(e)) => Outcome::Transport(
            e.parse::<TransportError>()
                .map_err(|e| config_error("", &e))?,
        ),
        (Some(_), Some(_)) => {
            // The call's shape, not a value: a TypeError naming the second of the two.
            let error = o.raw("error")?.unwrap_or(JsValue::UNDEFINED);
            return Err(wrong_type(
                "",
                "error",
                "no error when a status is given",
                &error,
            ));
        }
        (None, None) => {
            let v = JsValue::UNDEFINED;
            return Err(wrong_type(
                "",
                "status",
                "a status (100-599) or an error",
                &v,
            ));
        }
    };
    Ok(verdict_object(&rules.classify(request, &outcome, now_ms)).into())
}

/// `parseRetryAfter(value, nowMs = Date.now())`: the delay in ms, or `undefined` when the
/// value is neither delta-seconds nor an HTTP-date.
#[wasm_bindgen(js_name = parseRetryAfter)]
pub fn parse_retry_after(value: JsValue, now_ms: JsValue) -> Result<Option<f64>, JsValue> {
    let value = hint_text(&value, "", "value")?;
    let now = finite_arg(&now_ms, "nowMs")?.unwrap_or_else(js_sys::Date::now);
    Ok(stampede::retry_after::parse_retry_after(&value, now).ok())
}

/// A number header value as JavaScript's `String(n)` writes it (no float formatting in wasm).
fn number_text(v: &JsValue) -> Option<String> {
    v.as_f64()?;
    let n: &js_sys::Number = v.unchecked_ref();
    n.to_string_with_radix(10).ok().map(String::from)
}
