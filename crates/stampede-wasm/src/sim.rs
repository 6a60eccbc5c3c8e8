//! `Simulation`: the core simulator behind one handle; series are views into wasm memory.

use stampede::sim::{BudgetScope, Metrics, Scenario, SimSettings, Simulation as CoreSim};
use wasm_bindgen::prelude::*;

use crate::budget::budget_settings;
use crate::opts::{Opts, config_error, number_arg, out_of_range, set, wrong_type};
use crate::policy::policy_settings;

/// Reads `SimOptions` into core settings (validated by the core in `Simulation::new`).
pub(crate) fn sim_settings(opts: &Opts<'_>) -> Result<SimSettings, JsValue> {
    let mut s = SimSettings::default();
    if let Some(v) = opts.string("scenario")? {
        s.scenario = v.parse::<Scenario>().map_err(|e| config_error("", &e))?;
    }
    if let Some(v) = opts.whole("clients", 1.0, f64::from(stampede::sim::MAX_CLIENTS))? {
        s.clients = v as u32;
    }
    let policy_value = opts.raw("policy")?.unwrap_or(JsValue::UNDEFINED);
    s.policy = policy_settings(&Opts::new(&policy_value, "policy", "policy.")?)?;
    let policy_opts = Opts::new(&policy_value, "policy", "policy.")?;
    // The seed may sit at the top or in the policy; a run is always seeded.
    s.seed = match (opts.raw("seed")?, policy_opts.raw("seed")?) {
        (Some(_), _) => opts.seed()?,
        (None, Some(_)) => policy_opts.seed()?,
        (None, None) => 1,
    };
    let fields: [(&str, &mut f64); 9] = [
        ("outageMs", &mut s.outage_ms),
        ("outageStartMs", &mut s.outage_start_ms),
        ("capacityRps", &mut s.capacity_rps),
        ("rejectCost", &mut s.reject_cost),
        ("latencyMs", &mut s.latency_ms),
        ("ratePerClient", &mut s.rate_per_client),
        ("durationMs", &mut s.duration_ms),
        ("burstWindowMs", &mut s.burst_window_ms),
        ("slotMs", &mut s.slot_ms),
    ];
    for (key, slot) in fields {
        if let Some(v) = opts.f64(key)? {
            *slot = v;
        }
    }
    s.latency_sd_ms = opts.f64("latencySdMs")?;
    s.retry_after_ms = opts.f64("retryAfterMs")?;
    if let Some(v) = opts.whole("logClients", 0.0, f64::from(stampede::sim::MAX_CLIENTS))? {
        s.log_clients = v as u32;
    }
    if let Some(b) = opts.raw("budget")? {
        s.budget = Some(budget_settings(&Opts::new(&b, "budget", "budget.")?)?);
    }
    if let Some(v) = opts.string("budgetScope")? {
        s.budget_scope = v.parse::<BudgetScope>().map_err(|e| config_error("", &e))?;
    }
    Ok(s)
}

/// Metrics as a plain object with the CLI's names in camelCase.
pub(crate) fn metrics_object(m: &Metrics) -> js_sys::Object {
    let o = js_sys::Object::new();
    let opt = |v: Option<f64>| v.map_or(JsValue::NULL, JsValue::from);
    set(&o, "requests", m.requests);
    set(&o, "totalAttempts", m.total_attempts);
    set(&o, "successes", m.successes);
    set(&o, "gaveUp", m.gave_up);
    set(&o, "budgetRejected", m.budget_rejected);
    set(&o, "amplification", m.amplification);
    set(&o, "peakRps", m.peak_rps);
    set(&o, "peakRecoveryRps", m.peak_recovery_rps);
    set(&o, "completionMs", m.completion_ms);
    set(&o, "recoveryMs", m.recovery_ms);
    set(&o, "p50Ms", opt(m.p50_ms));
    set(&o, "p99Ms", opt(m.p99_ms));
    set(&o, "calls", m.calls);
    o
}

/// A seeded simulation of many clients against a failing, recovering server.
///
/// Series and the attempt log come back as typed-array *views* into wasm memory, not
/// copies. Read them at once. Any call into the module may allocate, and an allocation
/// that grows memory detaches every view taken before (it then reads as empty): take views
/// again after *any* call — `run`, `advanceTo`, `metrics`, `sample`, `new RetryPolicy`,
/// `new Simulation`, `classify`, `retryFetch`, anything — and never use one after `free()`,
/// when its memory is reused.
#[wasm_bindgen]
pub struct Simulation {
    sim: CoreSim,
}

#[wasm_bindgen]
impl Simulation {
    /// `new Simulation({ scenario, clients, policy, outageMs, capacityRps, budget, seed, … })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Simulation, JsValue> {
        let opts = Opts::new(&options, "Simulation options", "")?;
        let settings = sim_settings(&opts)?;
        let sim = CoreSim::new(&settings).map_err(|e| {
            let prefix = if matches!(
                e.field,
                "capacity" | "refill_per_sec" | "retry_cost" | "success_refund"
            ) {
                "budget."
            } else if matches!(
                e.field,
                "base" | "cap" | "multiplier" | "max_attempts" | "max_elapsed" | "max_retry_after"
            ) {
                "policy."
            } else {
                ""
            };
            config_error(prefix, &e)
        })?;
        Ok(Simulation { sim })
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.sim.run();
    }

    /// Processes every event before `tMs` (whole ms), for animation. `Infinity` runs to
    /// the end; an earlier time than reached does nothing. `TypeError` for a non-number,
    /// `RangeError` for `NaN`.
    #[wasm_bindgen(js_name = advanceTo)]
    pub fn advance_to(&mut self, t_ms: JsValue) -> Result<(), JsValue> {
        match number_arg(&t_ms, "tMs")? {
            Some(t) if !t.is_nan() => {
                self.sim.advance_to(t);
                Ok(())
            }
            Some(n) => Err(out_of_range("", "tMs", "a time in ms", &JsValue::from(n))),
            None => Err(wrong_type("", "tMs", "a number", &t_ms)),
        }
    }

    /// Whether every request has finished.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.sim.is_done()
    }

    /// Simulated time reached (ms).
    #[wasm_bindgen(js_name = nowMs)]
    pub fn now_ms(&self) -> f64 {
        self.sim.now_ms()
    }

    /// The metrics so far.
    pub fn metrics(&mut self) -> js_sys::Object {
        metrics_object(&self.sim.metrics())
    }

    /// Width of a series slot (ms).
    #[wasm_bindgen(js_name = slotMs)]
    pub fn slot_ms(&self) -> f64 {
        self.sim.series().slot_ms
    }

    /// Logged clients are `0, stride, 2·stride, …`; a client's row is `client / stride`.
    #[wasm_bindgen(js_name = logStride)]
    pub fn log_stride(&self) -> u32 {
        self.sim.log_stride()
    }

    /// How many clients the log keeps.
    #[wasm_bindgen(js_name = logRows)]
    pub fn log_rows(&self) -> u32 {
        self.sim.log_rows()
    }

    /// Attempts that reached the server, per slot (a view).
    pub fn offered(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().offered)
    }

    /// Attempts served, per slot (a view).
    pub fn served(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().served)
    }

    /// Attempts rejected for overload (aws-occ: conflicting writes), per slot (a view).
    pub fn rejected(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().rejected)
    }

    /// Attempts failed by the outage, per slot (a view).
    pub fn failed(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().failed)
    }

    /// Requests and retries blocked by the budget, per slot (a view).
    pub fn blocked(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().blocked)
    }

    /// `[tMs, client, attempt, outcome]` per logged attempt, flat (a view). Outcomes: 0
    /// served, 1 failed by the outage, 2 rejected for overload, 3 blocked by the budget,
    /// 4 an aws-occ write conflict.
    #[wasm_bindgen(js_name = attemptLog)]
    pub fn attempt_log(&self) -> js_sys::Float32Array {
        let log = self.sim.attempt_log();
        // SAFETY: the view aliases `log`, which lives as long as `self` and is not touched
        // until the next `&mut self` call; the docs tell callers to re-take views after one.
        unsafe { js_sys::Float32Array::view(log) }
    }
}

fn view_u32(s: &[u32]) -> js_sys::Uint32Array {
    // SAFETY: as in `attempt_log`: the slice belongs to the simulation, which only changes
    // it in `&mut self` methods, after which callers re-take their views.
    unsafe { js_sys::Uint32Array::view(s) }
}
