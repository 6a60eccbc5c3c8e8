//! `SimOptions` into the core's `SimSettings`: every option read once, its JavaScript type
//! checked here (`TypeError`), its value left to the core to judge (`RangeError` naming the
//! field, thrown by `Simulation::new`). Missing options take the core's defaults.

use stampede::Field;
use stampede::sim::{
    Balance, BudgetScope, LatencyDist, QueueOrder, RetryAt, Scenario, ServiceDist, SimSettings,
    Slowdown,
};
use wasm_bindgen::prelude::*;

use stampede::nets::BudgetKind;

use crate::call_settings::policy_settings;
use crate::errors::config_error;
use crate::fields::{Group, prefix_of};
use crate::nets::{breaker, budget_kind, hedging, nested, throttle};
use crate::opts::Opts;

/// Reads `SimOptions` into core settings (validated by the core in `Simulation::new`);
/// missing fields take the core's defaults (`SimSettings::default()`).
pub(crate) fn sim_settings(opts: &Opts) -> Result<SimSettings, JsValue> {
    let mut s = SimSettings::default();
    if let Some(v) = opts.choice(Field::Scenario, &Scenario::NAMES, &Scenario::ALL)? {
        s.scenario = v;
    }
    if let Some(v) = opts.whole(Field::Clients)? {
        s.clients = v;
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
    let fields: [(Field, &mut f64); 17] = [
        (Field::Outage, &mut s.outage_ms),
        (Field::OutageStart, &mut s.outage_start_ms),
        (Field::CapacityRps, &mut s.capacity_rps),
        (Field::RejectCost, &mut s.reject_cost),
        (Field::Latency, &mut s.latency_ms),
        (Field::Rate, &mut s.rate_per_client),
        (Field::Duration, &mut s.duration_ms),
        (Field::BurstWindow, &mut s.burst_window_ms),
        (Field::Slot, &mut s.slot_ms),
        (Field::Service, &mut s.service_ms),
        (Field::ServiceSpread, &mut s.service_spread),
        (Field::ServiceSlope, &mut s.service_slope_ms),
        (Field::FailRate, &mut s.fail_rate),
        (Field::SpikeStart, &mut s.spike_start_ms),
        (Field::SpikeLength, &mut s.spike_length_ms),
        (Field::SpikeFactor, &mut s.spike_factor),
        (Field::Think, &mut s.think_ms),
    ];
    for (field, slot) in fields {
        if let Some(v) = opts.number(field)? {
            *slot = v;
        }
    }
    // Optional numbers: absent or null is the core's "none".
    s.latency_sd_ms = opts.number(Field::LatencySd)?;
    s.retry_after_ms = opts.number(Field::RetryAfter)?;
    s.queue_timeout_ms = opts.number(Field::QueueTimeout)?;
    s.timeout_ms = opts.number(Field::Timeout)?;
    // Counts are u32 in the core: checked against their range (whole numbers) before the cast.
    s.workers = opts.whole(Field::Workers)?;
    s.queue = opts.whole(Field::Queue)?;
    s.outage_servers = opts.whole(Field::OutageServers)?;
    if let Some(v) = opts.whole(Field::Servers)? {
        s.servers = v;
    }
    if let Some(v) = opts.whole(Field::LogClients)? {
        s.log_clients = v;
    }
    if let Some(v) = opts.choice(Field::Balance, Balance::NAMES, Balance::ALL)? {
        s.balance = v;
    }
    if let Some(v) = opts.choice(Field::QueueOrder, QueueOrder::NAMES, QueueOrder::ALL)? {
        s.queue_order = v;
    }
    if let Some(v) = opts.choice(Field::ServiceDist, ServiceDist::NAMES, ServiceDist::ALL)? {
        s.service_dist = v;
    }
    if let Some(v) = opts.choice(Field::LatencyDist, LatencyDist::NAMES, LatencyDist::ALL)? {
        s.latency_dist = v;
    }
    // Where to retry: a chain of `layers` services, retrying at every one or the top.
    if let Some(v) = opts.whole(Field::Layers)? {
        s.layers = v;
    }
    if let Some(v) = opts.choice(Field::RetryAt, RetryAt::NAMES, RetryAt::ALL)? {
        s.retry_at = v;
    }
    // The core keeps no public list of scopes to pick from: its own parser.
    if let Some(v) = opts.text(Field::BudgetScope)? {
        s.budget_scope = v.parse::<BudgetScope>().map_err(|e| config_error("", &e))?;
    }
    // Safety nets: `budget.kind` picks the school (a bucket when absent, as before).
    if let Some(b) = opts.raw("budget")? {
        let budget = Opts::new(&b, "budget", prefix_of(Group::Budget))?;
        match budget_kind(&budget)? {
            BudgetKind::Bucket(bucket) => s.budget = Some(bucket),
            other => s.nets.budget = Some(other),
        }
    }
    if let Some(b) = opts.raw("breaker")? {
        s.nets.breaker = Some(breaker(&Opts::new(
            &b,
            "breaker",
            prefix_of(Group::Breaker),
        )?)?);
    }
    if let Some(t) = opts.raw("throttle")? {
        s.nets.throttle = Some(throttle(&Opts::new(
            &t,
            "throttle",
            prefix_of(Group::Throttle),
        )?)?);
    }
    if let Some(v) = opts.raw("slowdown")? {
        s.slowdown = Some(slowdown(&Opts::new(
            &v,
            "slowdown",
            prefix_of(Group::Slowdown),
        )?)?);
    }
    s.hedging = nested(opts, "hedging", Group::Hedging, hedging)?;
    Ok(s)
}

/// `{ startMs, lengthMs, factor }`: all three are needed (the core has no default window),
/// so a missing one is a `TypeError` naming it (`slowdown.factor`). Values are the core's
/// to judge.
fn slowdown(opts: &Opts) -> Result<Slowdown, JsValue> {
    Ok(Slowdown {
        start_ms: opts.required(Field::SlowdownStart)?,
        length_ms: opts.required(Field::SlowdownLength)?,
        factor: opts.required(Field::SlowdownFactor)?,
    })
}
