//! M/M/c: the mean wait in queue is Erlang C over the spare capacity, C(c, a)/(cμ − λ).
//! The engine reports the time in system; the wait is that less the mean service time.

use crate::support::{assert_near, server_alone, simulate};
use crate::theory::{MMC_SPREAD, Z, mmc_wait};

/// Mean service time (ms): μ = 100 per second per worker.
const SERVICE_MS: f64 = 10.0;

/// Runs M/M/`c` at load `rho` per worker for about `requests` requests and checks the
/// mean wait against Erlang C within [`Z`] standard deviations of its estimator (the
/// spreads in [`MMC_SPREAD`], which include the noise of the sampled service times).
fn check(c: u32, rho: f64, requests: f64) {
    let lambda = rho * f64::from(c) * 1000.0 / SERVICE_MS;
    let mut sim = simulate(&server_alone(lambda, c, SERVICE_MS, requests));
    let m = sim.metrics();
    assert_eq!(m.successes, m.requests);
    assert_eq!(m.total_attempts, m.requests);
    let n = m.requests;
    let (_, spread) = MMC_SPREAD
        .iter()
        .find(|(k, _)| *k == (c, rho))
        .expect("a spread");
    let wait = m.mean_ms.expect("successes") / SERVICE_MS - 1.0;
    assert_near(
        &format!("M/M/{c} at ρ = {rho}: mean wait / service time"),
        wait,
        mmc_wait(c, rho),
        Z * spread / n.sqrt(),
    );
}

#[test]
fn mm4_waits_as_erlang_c_says() {
    // C(4, 3.2) = 0.596, mean wait 0.746 service times; ±0.073 (±9.9%) at 400,000.
    check(4, 0.8, 400_000.0);
}

#[test]
fn mm16_waits_as_erlang_c_says() {
    // C(16, 14.4) = 0.591, mean wait 0.370 service times; ±0.075 (±20%) at 400,000. Still
    // sharp where it matters: 15 workers would wait 1.4, and 16 separate M/M/1 queues
    // (random dispatch instead of one shared queue) 9 service times.
    check(16, 0.9, 400_000.0);
}
