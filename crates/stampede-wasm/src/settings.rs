//! `defaults()`, `limits()`, `strategies()`, `scenarios()`, `choices()`: the core's
//! settings, for a page to build its controls from instead of copying numbers and names.

use js_sys::Object;
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::classify::{DEFAULT_RETRY_ON, RetryRules};
use stampede::hedge::HedgingSettings;
use stampede::policy::PolicySettings;
use stampede::sim::{
    Balance, BudgetScope, LatencyDist, QueueOrder, RetryAt, Scenario, ServiceDist, SimSettings,
};
use stampede::{Field, Limit};
use wasm_bindgen::prelude::*;

use crate::errors::names_array;
use crate::fields::{Group, group, js_name, prefix_of};
use crate::opts::set;

/// `{ policy, budget, simulation, nets, hedging }`: the core's defaults under the options' JavaScript
/// names (`null` for an option whose default is none), and `simulation.scenarioBackoff[scenario] = { baseMs, capMs }`, the backoff a
/// scenario's own experiment uses.
#[wasm_bindgen]
pub fn defaults() -> Object {
    let out = Object::new();
    set(&out, "policy", policy_defaults(&PolicySettings::default()));
    set(&out, "budget", budget_defaults(&BudgetSettings::default()));
    set(&out, "simulation", sim_defaults(&SimSettings::default()));
    set(
        &out,
        "hedging",
        hedging_defaults(&HedgingSettings::default()),
    );
    set(&out, "nets", nets_defaults());
    out
}

/// `{ ratio, grpc, aws, breaker, throttle }`: each safety net's defaults (its source's
/// numbers), budgets with their `kind`, as the options take them.
fn nets_defaults() -> Object {
    use stampede::nets::{
        AwsSettings, BreakerSettings, GrpcSettings, RatioSettings, ThrottleSettings,
    };
    let out = Object::new();
    let r = RatioSettings::default();
    let ratio = Object::new();
    set(&ratio, js_name(Field::BudgetKind), "ratio");
    set(&ratio, js_name(Field::Ratio), r.ratio);
    set(&ratio, js_name(Field::RatioCap), opt(r.cap));
    set(&ratio, js_name(Field::MinPerSec), r.min_per_sec);
    set(&ratio, js_name(Field::Window), r.window_ms);
    set(&out, "ratio", ratio);
    let g = GrpcSettings::default();
    let grpc = Object::new();
    set(&grpc, js_name(Field::BudgetKind), "grpc");
    set(&grpc, js_name(Field::MaxTokens), g.max_tokens);
    set(&grpc, js_name(Field::TokenRatio), g.token_ratio);
    set(&out, "grpc", grpc);
    let a = AwsSettings::default();
    let aws = Object::new();
    set(&aws, js_name(Field::BudgetKind), "aws");
    set(&aws, js_name(Field::Tokens), a.tokens);
    set(&aws, js_name(Field::RetryCost), a.retry_cost);
    set(&aws, js_name(Field::TimeoutCost), a.timeout_cost);
    set(&out, "aws", aws);
    let b = BreakerSettings::default();
    let breaker = Object::new();
    set(&breaker, js_name(Field::FailureRatio), b.failure_ratio);
    set(&breaker, js_name(Field::Sampling), b.sampling_ms);
    set(&breaker, js_name(Field::MinThroughput), b.min_throughput);
    set(&breaker, js_name(Field::BreakDuration), b.break_ms);
    set(&breaker, js_name(Field::BreakerMode), b.mode.name());
    set(&out, "breaker", breaker);
    let t = ThrottleSettings::default();
    let throttle = Object::new();
    set(&throttle, js_name(Field::K), t.k);
    set(&throttle, js_name(Field::ThrottleWindow), t.window_ms);
    set(&out, "throttle", throttle);
    out
}

fn policy_defaults(p: &PolicySettings) -> Object {
    let o = Object::new();
    set(&o, "strategy", p.backoff.strategy.name());
    backoff_defaults(&o, &p.backoff);
    set(&o, js_name(Field::Multiplier), p.backoff.multiplier);
    set(&o, js_name(Field::MaxAttempts), p.max_attempts);
    set(&o, js_name(Field::MaxElapsed), opt(p.max_elapsed_ms));
    let rules = RetryRules::default();
    set(
        &o,
        js_name(Field::MaxRetryAfter),
        rules.max_retry_after_ms(),
    );
    set(&o, js_name(Field::RetryOn), DEFAULT_RETRY_ON);
    o
}

/// A number, or `null` for none.
fn opt(v: Option<f64>) -> JsValue {
    v.map_or(JsValue::NULL, JsValue::from)
}

fn backoff_defaults(o: &Object, b: &BackoffSettings) {
    set(o, js_name(Field::Base), b.base_ms);
    set(o, js_name(Field::Cap), b.cap_ms);
}

fn budget_defaults(b: &BudgetSettings) -> Object {
    let o = Object::new();
    set(&o, js_name(Field::Capacity), b.capacity);
    set(&o, js_name(Field::RefillPerSec), b.refill_per_sec);
    set(&o, js_name(Field::RetryCost), b.retry_cost);
    set(&o, js_name(Field::SuccessRefund), b.success_refund);
    o
}

fn hedging_defaults(h: &HedgingSettings) -> Object {
    let o = Object::new();
    set(&o, js_name(Field::HedgeDelay), h.delay_ms);
    set(&o, js_name(Field::HedgeMaxAttempts), h.max_attempts);
    o
}

fn sim_defaults(s: &SimSettings) -> Object {
    let o = Object::new();
    set(&o, js_name(Field::Scenario), s.scenario.name());
    set(&o, js_name(Field::Clients), s.clients);
    let numbers = [
        (Field::Outage, s.outage_ms),
        (Field::OutageStart, s.outage_start_ms),
        (Field::CapacityRps, s.capacity_rps),
        (Field::RejectCost, s.reject_cost),
        (Field::Latency, s.latency_ms),
        (Field::Rate, s.rate_per_client),
        (Field::Duration, s.duration_ms),
        (Field::BurstWindow, s.burst_window_ms),
        (Field::Slot, s.slot_ms),
        (Field::Service, s.service_ms),
        (Field::ServiceSpread, s.service_spread),
        (Field::ServiceSlope, s.service_slope_ms),
        (Field::FailRate, s.fail_rate),
        (Field::SpikeStart, s.spike_start_ms),
        (Field::SpikeLength, s.spike_length_ms),
        (Field::SpikeFactor, s.spike_factor),
        (Field::Think, s.think_ms),
    ];
    for (field, v) in numbers {
        set(&o, js_name(field), v);
    }
    set(&o, js_name(Field::Servers), s.servers);
    // `null`: derived (workers from capacityRps, the queue from DEFAULT_QUEUE_S of a
    // server's capacity), all (outageServers), or none (the timeouts, the slowdown).
    let count = |v: Option<u32>| v.map_or(JsValue::NULL, JsValue::from);
    set(&o, js_name(Field::Workers), count(s.workers));
    set(&o, js_name(Field::Queue), count(s.queue));
    set(&o, js_name(Field::OutageServers), count(s.outage_servers));
    set(&o, js_name(Field::QueueTimeout), opt(s.queue_timeout_ms));
    set(&o, js_name(Field::Timeout), opt(s.timeout_ms));
    let slowdown = s.slowdown.map_or(JsValue::NULL, |w| {
        let sd = Object::new();
        set(&sd, js_name(Field::SlowdownStart), w.start_ms);
        set(&sd, js_name(Field::SlowdownLength), w.length_ms);
        set(&sd, js_name(Field::SlowdownFactor), w.factor);
        sd.into()
    });
    set(&o, "slowdown", slowdown);
    // `null`: no hedging (an object takes `defaults().hedging` for its missing fields).
    let hedging = s
        .hedging
        .map_or(JsValue::NULL, |h| hedging_defaults(&h).into());
    set(&o, "hedging", hedging);
    set(&o, js_name(Field::Balance), s.balance.name());
    set(&o, js_name(Field::QueueOrder), s.queue_order.name());
    set(&o, js_name(Field::ServiceDist), s.service_dist.name());
    set(&o, js_name(Field::LatencyDist), s.latency_dist.name());
    // `null`: none (no Retry-After), or derived (the latency's sd is latencyMs / 5).
    set(&o, js_name(Field::LatencySd), opt(s.latency_sd_ms));
    set(&o, js_name(Field::RetryAfter), opt(s.retry_after_ms));
    set(&o, js_name(Field::BudgetScope), s.budget_scope.name());
    // Seeds are u64 in the core; the default (1) is exact as a JavaScript number.
    set(&o, js_name(Field::Seed), s.seed as f64);
    set(&o, js_name(Field::LogClients), s.log_clients);
    set(&o, js_name(Field::Layers), s.layers);
    set(&o, js_name(Field::RetryAt), s.retry_at.name());
    let per_scenario = Object::new();
    for scenario in Scenario::ALL {
        let b = Object::new();
        backoff_defaults(&b, &scenario.default_backoff());
        set(&per_scenario, scenario.name(), b);
    }
    set(&o, "scenarioBackoff", per_scenario);
    o
}

/// A record from every numeric option's JavaScript name (prefixed when nested:
/// `policy.baseMs`, `budget.capacity`, `slowdown.factor`) to `{ min, max, unit, whole }`
/// (`unit` absent for a plain number; `minExclusive: true` where `min` itself is refused).
#[wasm_bindgen]
pub fn limits() -> Object {
    let out = Object::new();
    for &field in Field::ALL {
        let Some(limit) = field.limit() else { continue };
        let entry = limit_object(field, &limit);
        let name = js_name(field);
        // Policy and budget options are listed twice: alone (`new RetryPolicy`,
        // `Budget.forCallSite`) and under their prefix; a seed may sit in `policy` too. A
        // slowdown's parts exist only inside `slowdown`, hedging's inside `hedging`.
        let (alone, nested) = match group(field) {
            Group::Policy | Group::Budget => (true, prefix_of(group(field))),
            Group::Slowdown | Group::Breaker | Group::Throttle | Group::Hedging => {
                (false, prefix_of(group(field)))
            }
            Group::Top if field == Field::Seed => (true, prefix_of(Group::Policy)),
            Group::Top => (true, ""),
            Group::None => continue,
        };
        if alone {
            set(&out, name, &entry);
        }
        if !nested.is_empty() {
            let mut key = String::with_capacity(nested.len() + name.len());
            key.push_str(nested);
            key.push_str(name);
            set(&out, &key, &entry);
        }
    }
    out
}

fn limit_object(field: Field, l: &Limit) -> Object {
    let o = Object::new();
    set(&o, "min", l.min);
    set(&o, "max", l.max);
    if let Some(unit) = l.unit.name() {
        set(&o, "unit", unit);
    }
    set(&o, "whole", l.whole);
    if field.min_exclusive() {
        set(&o, "minExclusive", true);
    }
    o
}

/// The backoff strategies' names, in the core's order.
#[wasm_bindgen]
pub fn strategies() -> js_sys::Array {
    names_array(&Strategy::NAMES)
}

/// The simulation scenarios' names, in the core's order.
#[wasm_bindgen]
pub fn scenarios() -> js_sys::Array {
    names_array(&Scenario::NAMES)
}

/// Every option that takes a name, keyed by the option's JavaScript name, with the names
/// it accepts in the core's order: `{ strategy, scenario, budgetScope, balance,
/// queueOrder, serviceDist, latencyDist, retryAt }`.
#[wasm_bindgen]
pub fn choices() -> Object {
    let out = Object::new();
    let lists: [(Field, &[&str]); 8] = [
        (Field::Strategy, &Strategy::NAMES),
        (Field::Scenario, &Scenario::NAMES),
        (Field::BudgetScope, &BudgetScope::NAMES),
        (Field::Balance, Balance::NAMES),
        (Field::QueueOrder, QueueOrder::NAMES),
        (Field::ServiceDist, ServiceDist::NAMES),
        (Field::LatencyDist, LatencyDist::NAMES),
        (Field::RetryAt, RetryAt::NAMES),
    ];
    for (field, names) in lists {
        set(&out, js_name(field), names_array(names));
    }
    out
}
