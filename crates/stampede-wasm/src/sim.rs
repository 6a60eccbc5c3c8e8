//! `Simulation`: the core simulator behind one handle; series are views into wasm memory.

use stampede::Field;
use stampede::sim::{BudgetScope, Metrics, Scenario, SimSettings, Simulation as CoreSim};
use wasm_bindgen::prelude::*;

use crate::budget::budget_settings;
use crate::errors::{config_error, out_of_range, wrong_type};
use crate::fields::{Group, group, prefix_of};
use crate::opts::{Opts, number_arg, set};
use crate::policy::policy_settings;

/// Reads `SimOptions` into core settings (validated by the core in `Simulation::new`);
/// missing fields take the core's defaults (`SimSettings::default()`).
pub(crate) fn sim_settings(opts: &Opts<'_>) -> Result<SimSettings, JsValue> {
    let mut s = SimSettings::default();
    if let Some(v) = opts.text(Field::Scenario)? {
        s.scenario = v.parse::<Scenario>().map_err(|e| config_error("", &e))?;
    }
    if let Some(v) = opts.checked(Field::Clients)? {
        s.clients = v as u32;
    }
    let policy_value = opts.raw("policy")?.unwrap_or(JsValue::UNDEFINED);
    let policy_opts = Opts::new(&policy_value, "policy", prefix_of(Group::Policy))?;
    s.policy = policy_settings(&policy_opts)?;
    // The seed may sit at the top or in the policy; a run is always seeded.
    s.seed = match (opts.raw("seed")?, policy_opts.raw("seed")?) {
        (Some(_), _) => opts.seed()?,
        (None, Some(_)) => policy_opts.seed()?,
        (None, None) => s.seed,
    };
    let fields: [(Field, &mut f64); 9] = [
        (Field::Outage, &mut s.outage_ms),
        (Field::OutageStart, &mut s.outage_start_ms),
        (Field::CapacityRps, &mut s.capacity_rps),
        (Field::RejectCost, &mut s.reject_cost),
        (Field::Latency, &mut s.latency_ms),
        (Field::Rate, &mut s.rate_per_client),
        (Field::Duration, &mut s.duration_ms),
        (Field::BurstWindow, &mut s.burst_window_ms),
        (Field::Slot, &mut s.slot_ms),
    ];
    for (field, slot) in fields {
        if let Some(v) = opts.number(field)? {
            *slot = v;
        }
    }
    s.latency_sd_ms = opts.number(Field::LatencySd)?;
    s.retry_after_ms = opts.number(Field::RetryAfter)?;
    if let Some(v) = opts.checked(Field::LogClients)? {
        s.log_clients = v as u32;
    }
    if let Some(b) = opts.raw("budget")? {
        let budget = Opts::new(&b, "budget", prefix_of(Group::Budget))?;
        s.budget = Some(budget_settings(&budget)?);
    }
    if let Some(v) = opts.text(Field::BudgetScope)? {
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
        let sim =
            CoreSim::new(&settings).map_err(|e| config_error(prefix_of(group(e.field)), &e))?;
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
            Some(_) => Err(out_of_range("", "tMs", "a time in ms", &t_ms)),
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
