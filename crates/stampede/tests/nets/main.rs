//! The safety nets held to their sources' arithmetic, in the scenario: 100 clients
//! at 10 requests per second each for 10 s, a network delay exponential with mean 10 ms
//! each way, attempts failing independently at `fail_rate` p, immediate retries, 4
//! attempts. Without a net, amplification is `1 + p + p² + p³` and success `1 − p⁴`; each
//! net must then hold amplification where its rule says.
//!
//! Each statistical check states its tolerance and where it comes from.

#[path = "../support/mod.rs"]
mod support;

mod breaker;
mod budgets;
mod plain;
mod throttle;

use stampede::nets::GuardSettings;
use stampede::sim::{BudgetScope, LatencyDist, Metrics, Scenario, ServiceDist, SimSettings};

use support::{assert_conserved, immediate, simulate};

/// The failure rates of the issue.
pub const RATES: [f64; 6] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5];
/// Seeds for each statistical claim.
pub const SEEDS: [u64; 3] = [1, 2, 3];
/// Standard errors allowed either way (as the queueing tests: a false alarm about 1 in
/// 16,000 per check).
pub const Z: f64 = 4.0;

/// The scenario at fail rate `p`, with `nets` shared by `scope`.
pub fn scenario(p: f64, nets: GuardSettings, scope: BudgetScope, seed: u64) -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 100,
        rate_per_client: 10.0,
        duration_ms: 10_000.0,
        outage_ms: 0.0,
        // The round trip's mean; each way is exponential with mean 10 ms.
        latency_ms: 20.0,
        latency_dist: LatencyDist::Exponential,
        fail_rate: p,
        policy: immediate(4),
        // Unlimited workers and a constant 1 ms service: no queue, no overload; only the
        // fail rate fails an attempt.
        servers: 1,
        workers: Some(0),
        service_ms: 1.0,
        service_dist: ServiceDist::Constant,
        timeout_ms: None,
        nets,
        budget_scope: scope,
        log_clients: 0,
        seed,
        ..SimSettings::default()
    }
}

/// Runs the scenario and checks that every request ended once.
pub fn run(p: f64, nets: GuardSettings, scope: BudgetScope, seed: u64) -> Metrics {
    let m = simulate(&scenario(p, nets, scope, seed)).metrics();
    assert_conserved(&format!("p = {p}, seed {seed}"), &m);
    m
}
