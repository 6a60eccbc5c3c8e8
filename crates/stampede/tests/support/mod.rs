//! Settings and measurements the model's integration tests share: a server seen alone
//! (Poisson arrivals, no network, no outage, no retries), goodput over a window of the
//! series, and the checks every run must pass.

#![allow(dead_code)] // each test binary uses its own part

use stampede::backoff::{BackoffSettings, Strategy};
use stampede::policy::PolicySettings;
use stampede::sim::{Metrics, Scenario, Series, ServiceDist, SimSettings, Simulation};

/// A policy of `attempts` attempts with no wait between them.
pub fn immediate(attempts: u32) -> PolicySettings {
    PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), attempts)
}

/// A policy of `attempts` attempts with full jitter from `base_ms`, capped at `cap_ms`.
pub fn full_jitter(attempts: u32, base_ms: f64, cap_ms: f64) -> PolicySettings {
    PolicySettings::new(
        BackoffSettings::new(Strategy::Full, base_ms, cap_ms),
        attempts,
    )
}

/// The server alone: `requests` Poisson arrivals (in expectation) at `lambda` per second
/// from 100 clients, `workers` workers with exponential service of mean `service_ms`, a
/// queue that never rejects, no network delay, no outage, no timeout, one attempt each,
/// no attempt log. So the run is an M/M/c queue that starts empty.
pub fn server_alone(lambda: f64, workers: u32, service_ms: f64, requests: f64) -> SimSettings {
    const CLIENTS: u32 = 100;
    SimSettings {
        scenario: Scenario::Steady,
        clients: CLIENTS,
        rate_per_client: lambda / f64::from(CLIENTS),
        duration_ms: requests / lambda * 1000.0,
        outage_ms: 0.0,
        outage_start_ms: 0.0,
        latency_ms: 0.0,
        policy: immediate(1),
        servers: 1,
        workers: Some(workers),
        queue: Some(1_000_000),
        service_ms,
        service_dist: ServiceDist::Exponential,
        timeout_ms: None,
        log_clients: 0,
        slot_ms: 10.0,
        seed: 7,
        ..SimSettings::default()
    }
}

/// Runs `s` to the end.
pub fn simulate(s: &SimSettings) -> Simulation {
    let mut sim = Simulation::new(s).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim
}

/// Asserts `|got − want| ≤ tol`, naming what was measured.
#[track_caller]
pub fn assert_near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:.4}, want {want:.4} ± {tol:.4} (off by {:+.2}%)",
        100.0 * (got / want - 1.0)
    );
}

/// Every request ends exactly once.
#[track_caller]
pub fn assert_conserved(what: &str, m: &Metrics) {
    assert_eq!(
        m.successes + m.gave_up + m.budget_rejected + m.breaker_rejected + m.throttled,
        m.requests,
        "{what}: successes {} + gave up {} + budget rejected {} + breaker rejected {} + \
         throttled {} ≠ requests {}",
        m.successes,
        m.gave_up,
        m.budget_rejected,
        m.breaker_rejected,
        m.throttled,
        m.requests
    );
    // The servers finish every success (and wasted work besides), and both rates are over
    // the same span: throughput is never below goodput.
    assert!(
        m.throughput_rps >= m.goodput_rps,
        "{what}: throughput {} < goodput {}",
        m.throughput_rps,
        m.goodput_rps
    );
}

/// Sum of a series over the slots that start in `[from_ms, to_ms)`.
pub fn sum_over(series: &[u32], slot_ms: f64, from_ms: f64, to_ms: f64) -> f64 {
    series
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            let t = i as f64 * slot_ms;
            t >= from_ms && t < to_ms
        })
        .map(|(_, &v)| f64::from(v))
        .sum()
}

/// Events per second of `series` over `[from_ms, to_ms)` (a multiple of the slot width).
pub fn rate_over(series: &[u32], slot_ms: f64, from_ms: f64, to_ms: f64) -> f64 {
    sum_over(series, slot_ms, from_ms, to_ms) * 1000.0 / (to_ms - from_ms)
}

/// Goodput, throughput and wasted work per second over `[from_ms, to_ms)`.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Successes that reached their client, per second.
    pub goodput: f64,
    /// Requests a server finished, per second.
    pub throughput: f64,
    /// Requests a server finished for a client that had given them up, per second.
    pub wasted: f64,
}

impl Window {
    pub fn of(s: &Series<'_>, from_ms: f64, to_ms: f64) -> Window {
        Window {
            goodput: rate_over(s.goodput, s.slot_ms, from_ms, to_ms),
            throughput: rate_over(s.served, s.slot_ms, from_ms, to_ms),
            wasted: rate_over(s.wasted, s.slot_ms, from_ms, to_ms),
        }
    }
}

impl core::fmt::Display for Window {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "goodput {:.1}/s, throughput {:.1}/s, wasted {:.1}/s",
            self.goodput, self.throughput, self.wasted
        )
    }
}

/// A small overloaded fleet: 40 clients at 2 requests per second each (80/s) for 20 s, one
/// server of 2 workers with exponential 25 ms service (80/s: at capacity, so a queue
/// comes and goes), a queue of 50, a 2 s outage from t = 5 s, timeout 150 ms, 4 attempts
/// with full jitter from 50 ms.
pub fn overloaded_fleet() -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 40,
        rate_per_client: 2.0,
        duration_ms: 20_000.0,
        outage_start_ms: 5_000.0,
        outage_ms: 2_000.0,
        policy: full_jitter(4, 50.0, 2_000.0),
        workers: Some(2),
        queue: Some(50),
        service_ms: 25.0,
        service_dist: ServiceDist::Exponential,
        timeout_ms: Some(150.0),
        latency_ms: 10.0,
        slot_ms: 100.0,
        seed: 11,
        ..SimSettings::default()
    }
}

/// Four attempts, failing independently with probability `p` each: `m`'s amplification is
/// the mean of `min(G, 4)` (`1 + p + p² + p³`) and its success fraction `1 − p⁴`, each
/// within `z` standard errors of `m.requests` draws (sd from the exact distributions).
pub fn assert_four_attempts_at(what: &str, m: &Metrics, p: f64, z: f64) {
    let n = m.requests;
    // P(a request makes exactly k attempts), k = 1..=4.
    let pmf = [1.0 - p, p * (1.0 - p), p * p * (1.0 - p), p * p * p];
    let mean: f64 = (1..=4).map(|k| k as f64 * pmf[k - 1]).sum();
    let square: f64 = (1..=4).map(|k| (k * k) as f64 * pmf[k - 1]).sum();
    assert!((mean - (1.0 + p + p * p + p * p * p)).abs() < 1e-12);
    let sd = (square - mean * mean).sqrt();
    assert_near(
        &format!("{what}: amplification"),
        m.amplification,
        mean,
        z * sd / n.sqrt(),
    );
    // Successes: binomial(n, 1 − p⁴).
    let q = 1.0 - p.powi(4);
    assert_near(
        &format!("{what}: success fraction"),
        m.successes / n,
        q,
        z * (q * (1.0 - q) / n).sqrt(),
    );
}
