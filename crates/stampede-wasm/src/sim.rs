//! `Simulation`: the core simulator behind one handle; series are views into wasm memory.

use stampede::sim::{Fleet, Metrics, Simulation as CoreSim};
use wasm_bindgen::prelude::*;

use crate::errors::{config_error, out_of_range, wrong_type};
use crate::fields::{group, prefix_of};
use crate::opts::{Opts, number_arg, set};

mod options;

use options::sim_settings;

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
    set(&o, "meanMs", opt(m.mean_ms));
    set(&o, "calls", m.calls);
    set(&o, "timeouts", m.timeouts);
    set(&o, "wasted", m.wasted);
    set(&o, "goodputRps", m.goodput_rps);
    set(&o, "throughputRps", m.throughput_rps);
    set(&o, "maxQueue", m.max_queue);
    set(&o, "bottomAttempts", m.bottom_attempts);
    // Safety nets (issue #12).
    set(&o, "breakerRejected", m.breaker_rejected);
    set(&o, "throttled", m.throttled);
    set(&o, "hedges", m.hedges);
    o
}

/// The servers as sized (`{ servers, workers, serviceMs, queue, capacityRps }`); workers 0
/// is unlimited, and its capacity `Infinity`.
fn fleet_object(f: &Fleet) -> js_sys::Object {
    let o = js_sys::Object::new();
    set(&o, "servers", f.servers);
    set(&o, "workers", f.workers);
    set(&o, "serviceMs", f.service_ms);
    set(&o, "queue", f.queue);
    set(&o, "capacityRps", f.capacity_rps);
    o
}

/// How far (simulated ms) `run` first goes in one call into the engine; later calls go a
/// sixteenth of the time reached, so a run of any length is a few hundred calls at most.
///
/// Why slices: V8 runs a wasm function in baseline code (Liftoff) until it is hot, then
/// compiles it optimised (TurboFan) in the background, and a call already running keeps
/// the code it entered with (wasm has no on-stack replacement). The engine's event loop
/// (the core's `advance`) is one function: run in one call, the first run after the module
/// loaded (a page opened on a link to a million clients, a script's first simulation) ran
/// wholly in baseline code, about twice as slow as every run after it. Called in slices,
/// the loop switches to the optimised code at the next slice after it lands. Each call costs
/// next to nothing beside its events, and the events, in time order however they are
/// called for, are the same.
const SLICE_MS: f64 = 100.0;

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
    /// The servers as the core sized them from the settings.
    fleet: Fleet,
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
        Ok(Simulation {
            sim,
            fleet: settings.fleet(),
        })
    }

    /// Runs to the end. `RangeError` (`too_much_work`, naming `durationMs`) when a closed
    /// loop stopped early at a run's most attempts: its requests ended far faster than its
    /// settings foretold (see the core's `Simulation::check_work`).
    pub fn run(&mut self) -> Result<(), JsValue> {
        // In slices of simulated time, not one call: see `SLICE_MS`.
        let mut t = SLICE_MS;
        loop {
            self.sim.advance_to(t);
            if self.sim.is_done() || t == f64::INFINITY {
                break;
            }
            t += f64::max(SLICE_MS, t / 16.0);
        }
        self.check_work()
    }

    /// Processes every event before `tMs` (whole ms), for animation. `Infinity` runs to
    /// the end; an earlier time than reached does nothing. `TypeError` for a non-number,
    /// `RangeError` for `NaN`.
    #[wasm_bindgen(js_name = advanceTo)]
    pub fn advance_to(&mut self, t_ms: JsValue) -> Result<(), JsValue> {
        match number_arg(&t_ms, "tMs")? {
            Some(t) if !t.is_nan() => {
                self.sim.advance_to(t);
                self.check_work()
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

    /// The model's events so far (see the core's `Simulation::events`), the unit the
    /// simulator's speed is given in: a number (exact up to 2^53).
    pub fn events(&self) -> f64 {
        self.sim.events() as f64
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

    /// Requests and retries blocked by a net (the budget, the breaker, the throttle), per
    /// slot (a view).
    pub fn blocked(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().blocked)
    }

    /// Successful requests, counted when the answer reached the client, per slot (a view).
    pub fn goodput(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().goodput)
    }

    /// Attempts the client gave up on at its timeout, counted when it did, per slot (a view).
    #[wasm_bindgen(js_name = timedOut)]
    pub fn timed_out(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().timed_out)
    }

    /// Requests a server finished after their client had given up on them, per slot (a view).
    pub fn wasted(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().wasted)
    }

    /// Requests waiting in queues at the slot's end, all servers together (a view).
    pub fn queued(&self) -> js_sys::Uint32Array {
        view_u32(self.sim.series().queued)
    }

    /// The servers as sized from the settings: `{ servers, workers, serviceMs, queue,
    /// capacityRps }` (given workers and service time, capacity follows from them;
    /// otherwise the workers follow from `capacityRps`).
    pub fn fleet(&self) -> js_sys::Object {
        fleet_object(&self.fleet)
    }

    /// `[tMs, client, attempt, outcome]` per logged attempt, flat (a view). Outcomes: 0
    /// served, 1 failed by the outage, 2 rejected for overload, 3 blocked by the budget,
    /// 4 an aws-occ write conflict, 5 failed by the fail rate (500), 6 timed out, 7 blocked
    /// by the circuit breaker, 8 throttled.
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

impl Simulation {
    /// The core's refusal of a run that stopped early at its work bound, as the package's
    /// `RangeError`.
    fn check_work(&self) -> Result<(), JsValue> {
        self.sim
            .check_work()
            .map_err(|e| config_error(prefix_of(group(e.field)), &e))
    }
}
