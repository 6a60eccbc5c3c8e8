//! `RetryPolicy`, `classify`, `parseRetryAfter`: the core's rules, reshaped for JavaScript.

use js_sys::{Float64Array, Object};
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::classify::{
    Action, HttpStatus, Method, Outcome, Request, RetryRules, StatusSet, TransportError, Verdict,
};
use stampede::policy::{Policy, PolicySettings};
use stampede::{SeededRng, seeded};
use wasm_bindgen::prelude::*;

use crate::opts::{Opts, config_error, range_error, set, type_error};

/// Reads `PolicyOptions` into validated core settings.
pub(crate) fn policy_settings(opts: &Opts<'_>) -> Result<PolicySettings, JsValue> {
    let p = opts.prefix();
    let mut backoff = BackoffSettings::default();
    if let Some(s) = opts.string("strategy")? {
        backoff.strategy = s.parse::<Strategy>().map_err(|e| config_error(p, &e))?;
    }
    if let Some(v) = opts.f64("baseMs")? {
        backoff.base_ms = v;
    }
    if let Some(v) = opts.f64("capMs")? {
        backoff.cap_ms = v;
    }
    if let Some(v) = opts.f64("multiplier")? {
        backoff.multiplier = v;
    }
    let max_attempts = opts
        .whole(
            "maxAttempts",
            1.0,
            f64::from(stampede::policy::MAX_ATTEMPTS),
        )?
        .unwrap_or(6.0) as u32;
    let mut rules = RetryRules::default();
    if let Some(v) = opts.f64("maxRetryAfterMs")? {
        rules = rules
            .with_max_retry_after_ms(v)
            .map_err(|e| config_error(p, &e))?;
    }
    if let Some(spec) = opts.string("retryOn")? {
        rules = rules.with_statuses(StatusSet::parse(&spec).map_err(|e| config_error(p, &e))?);
    }
    let settings = PolicySettings::new(backoff, max_attempts)
        .with_max_elapsed_ms(opts.f64("maxElapsedMs")?)
        .with_rules(rules);
    settings.build().map_err(|e| config_error(p, &e))?;
    Ok(settings)
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

    /// `n` sequences of `maxAttempts - 1` delays, flattened row by row (n ≤ 1,000,000).
    pub fn sample(&mut self, n: f64) -> Result<Float64Array, JsValue> {
        if !(n.fract() == 0.0 && (0.0..=1_000_000.0).contains(&n)) {
            return Err(range_error(format!(
                "n: expected a whole number from 0 to 1000000, got {}",
                stampede::format_number(n)
            )));
        }
        let per = self.retries();
        let backoff = *self.policy.backoff();
        let mut out = Vec::with_capacity(n as usize * per);
        for _ in 0..n as usize {
            out.extend(backoff.delays_ms(&mut self.rng).take(per));
        }
        Ok(Float64Array::from(&out[..]))
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

pub(crate) fn action_name(a: Action) -> &'static str {
    match a {
        Action::Success => "success",
        Action::Retry => "retry",
        Action::DoNotRetry => "do-not-retry",
    }
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

/// Reads a headers argument: a plain object, or anything with a `get(name)` method (a
/// `Headers`). Returns the raw `Retry-After` and `grpc-retry-pushback-ms` values.
#[inline(never)]
pub(crate) fn hint_headers(
    headers: Option<JsValue>,
) -> Result<(Option<String>, Option<String>), JsValue> {
    let Some(h) = headers else {
        return Ok((None, None));
    };
    if !h.is_object() {
        return Err(type_error(
            "headers: expected an object or a Headers".to_owned(),
        ));
    }
    let get = js_sys::Reflect::get(&h, &JsValue::from_str("get"))?;
    if let Some(f) = get.dyn_ref::<js_sys::Function>() {
        let read = |name: &str| {
            f.call1(&h, &JsValue::from_str(name))
                .ok()
                .and_then(|v| v.as_string())
        };
        return Ok((read("retry-after"), read("grpc-retry-pushback-ms")));
    }
    let obj: &Object = h.unchecked_ref();
    let mut retry_after = None;
    let mut pushback = None;
    for entry in Object::entries(obj).iter() {
        let pair: js_sys::Array = entry.unchecked_into();
        let (Some(name), value) = (pair.get(0).as_string(), pair.get(1)) else {
            continue;
        };
        let Some(value) = value
            .as_string()
            .or_else(|| value.as_f64().map(|n| n.to_string()))
        else {
            return Err(type_error(format!("headers.{name}: expected a string")));
        };
        if retry_after.is_none() && name.eq_ignore_ascii_case("retry-after") {
            retry_after = Some(value);
        } else if pushback.is_none() && name.eq_ignore_ascii_case("grpc-retry-pushback-ms") {
            pushback = Some(value);
        }
    }
    Ok((retry_after, pushback))
}

/// `classify({ status, method, headers, nowMs, error, idempotent, maxRetryAfterMs, retryOn })`
/// → `{ retryable, action, reason, retryAfterMs, ignoredHint? }`.
#[wasm_bindgen]
pub fn classify(input: JsValue) -> Result<JsValue, JsValue> {
    let o = Opts::new(&input, "classify input", "")?;
    let method = match o.string("method")? {
        Some(m) => m.parse::<Method>().map_err(|e| config_error("", &e))?,
        None => Method::Get,
    };
    let request = Request::new(method).idempotent(o.bool("idempotent")?.unwrap_or(false));
    let mut rules = RetryRules::default();
    if let Some(v) = o.f64("maxRetryAfterMs")? {
        rules = rules
            .with_max_retry_after_ms(v)
            .map_err(|e| config_error("", &e))?;
    }
    if let Some(spec) = o.string("retryOn")? {
        rules = rules.with_statuses(StatusSet::parse(&spec).map_err(|e| config_error("", &e))?);
    }
    let now_ms = o.f64("nowMs")?.unwrap_or_else(js_sys::Date::now);
    let (retry_after, pushback);
    let outcome = match (o.whole("status", 0.0, 65535.0)?, o.string("error")?) {
        (Some(code), None) => {
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
            return Err(type_error(
                "classify: give either status or error, not both".to_owned(),
            ));
        }
        (None, None) => {
            return Err(type_error(
                "classify: expected a status (100-599) or an error".to_owned(),
            ));
        }
    };
    Ok(verdict_object(&rules.classify(request, &outcome, now_ms)).into())
}

/// `parseRetryAfter(value, nowMs = Date.now())`: the delay in ms, or `undefined` when the
/// value is neither delta-seconds nor an HTTP-date.
#[wasm_bindgen(js_name = parseRetryAfter)]
pub fn parse_retry_after(value: JsValue, now_ms: JsValue) -> Result<Option<f64>, JsValue> {
    let Some(value) = value.as_string() else {
        return Err(type_error("value: expected a string".to_owned()));
    };
    let now = match now_ms.as_f64() {
        Some(n) if n.is_finite() => n,
        Some(n) => {
            return Err(range_error(format!(
                "nowMs: expected a finite number, got {}",
                stampede::format_number(n)
            )));
        }
        None if now_ms.is_undefined() || now_ms.is_null() => js_sys::Date::now(),
        None => return Err(type_error("nowMs: expected a number".to_owned())),
    };
    Ok(stampede::retry_after::parse_retry_after(&value, now).ok())
}
