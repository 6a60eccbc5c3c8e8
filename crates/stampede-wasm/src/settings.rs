//! `defaults()`, `limits()`, `strategies()`, `scenarios()`: the core's settings, for a page
//! to build its controls from instead of copying numbers and names.

use js_sys::Object;
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::classify::{DEFAULT_RETRY_ON, RetryRules};
use stampede::policy::PolicySettings;
use stampede::sim::{Scenario, SimSettings};
use stampede::{Field, Limit};
use wasm_bindgen::prelude::*;

use crate::errors::names_array;
use crate::fields::{Group, group, js_name, prefix_of};
use crate::opts::set;

/// `{ policy, budget, simulation }`: the core's defaults under the options' JavaScript
/// names (`null` for an option whose default is none), and `simulation.scenarioBackoff[scenario] = { baseMs, capMs }`, the backoff a
/// scenario's own experiment uses.
#[wasm_bindgen]
pub fn defaults() -> Object {
    let out = Object::new();
    set(&out, "policy", policy_defaults(&PolicySettings::default()));
    set(&out, "budget", budget_defaults(&BudgetSettings::default()));
    set(&out, "simulation", sim_defaults(&SimSettings::default()));
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
    ];
    for (field, v) in numbers {
        set(&o, js_name(field), v);
    }
    // `null`: none (no Retry-After), or derived (the latency's sd is latencyMs / 5).
    set(&o, js_name(Field::LatencySd), opt(s.latency_sd_ms));
    set(&o, js_name(Field::RetryAfter), opt(s.retry_after_ms));
    set(&o, js_name(Field::BudgetScope), s.budget_scope.name());
    // Seeds are u64 in the core; the default (1) is exact as a JavaScript number.
    set(&o, js_name(Field::Seed), s.seed as f64);
    set(&o, js_name(Field::LogClients), s.log_clients);
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
/// `policy.baseMs`, `budget.capacity`) to `{ min, max, unit, whole }` (`unit` absent for
/// a plain number; `minExclusive: true` where `min` itself is refused).
#[wasm_bindgen]
pub fn limits() -> Object {
    let out = Object::new();
    for &field in Field::ALL {
        let Some(limit) = field.limit() else { continue };
        let entry = limit_object(field, &limit);
        let name = js_name(field);
        // Nested options are listed twice: alone (`new RetryPolicy`, `Budget.forCallSite`)
        // and under their prefix; a seed may sit in `policy` too.
        let nested = match group(field) {
            Group::Policy | Group::Budget => prefix_of(group(field)),
            Group::Top if field == Field::Seed => prefix_of(Group::Policy),
            Group::Top => "",
            Group::None => continue,
        };
        set(&out, name, &entry);
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
