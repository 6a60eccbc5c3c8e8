//! A fail rate with immediate retries and 4 attempts: each attempt fails independently
//! with probability p, so a request makes min(G, 4) attempts, G geometric: on average
//! 1 + p + p² + p³, and succeeds with probability 1 − p⁴.

use stampede::sim::{ServiceDist, SimSettings};

use crate::support::{
    assert_conserved, assert_four_attempts_at, immediate, server_alone, simulate,
};
use crate::theory::Z;

const ATTEMPTS: u32 = 4;

/// Unlimited workers and constant service: no queue forms, so nothing but the fail rate
/// decides an attempt. 4 attempts, no wait between them.
fn settings(p: f64, requests: f64) -> SimSettings {
    SimSettings {
        fail_rate: p,
        policy: immediate(ATTEMPTS),
        service_dist: ServiceDist::Constant,
        ..server_alone(100.0, 0, 10.0, requests)
    }
}

#[test]
fn amplification_and_success_follow_the_geometric_series() {
    const REQUESTS: f64 = 50_000.0;
    for p in [0.05, 0.2, 0.5, 0.8] {
        let m = simulate(&settings(p, REQUESTS)).metrics();
        assert_conserved(&format!("p = {p}"), &m);
        assert_eq!(m.timeouts, 0.0);
        let n = m.requests;
        assert_four_attempts_at(&format!("p = {p}"), &m, p, Z);
        assert_eq!(m.gave_up, n - m.successes, "p = {p}: the rest gave up");
    }
}

#[test]
fn certain_success_and_certain_failure_are_exact() {
    let never = simulate(&settings(0.0, 2_000.0)).metrics();
    assert_eq!(
        (never.amplification, never.successes),
        (1.0, never.requests)
    );
    let always = simulate(&settings(1.0, 2_000.0)).metrics();
    assert_eq!((always.amplification, always.successes), (4.0, 0.0));
    assert_eq!(always.gave_up, always.requests);
}
