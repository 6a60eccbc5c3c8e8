//! M/M/1: the time in system is exponential with mean 1/(μ − λ), so its mean, median and
//! 99th percentile are 1, ln 2 and ln 100 times that.

use crate::support::{assert_near, server_alone, simulate};
use crate::theory::{MM1_SPREAD, Z, mm1_sojourn};

/// Mean service time (ms): μ = 100 per second.
const SERVICE_MS: f64 = 10.0;

/// Runs M/M/1 at load `rho` for about `requests` requests and checks the time in system's
/// mean, p50 and p99 against theory, each within [`Z`] standard deviations of its
/// estimator at this sample size (the spreads in [`MM1_SPREAD`]).
fn check(rho: f64, requests: f64) {
    let lambda = rho * 1000.0 / SERVICE_MS;
    let mut sim = simulate(&server_alone(lambda, 1, SERVICE_MS, requests));
    let m = sim.metrics();
    // Nothing is lost, retried or timed out: every request is one served attempt.
    assert_eq!(m.successes, m.requests);
    assert_eq!(m.total_attempts, m.requests);
    assert_eq!(m.timeouts, 0.0);
    let n = m.requests;
    assert!((n / requests - 1.0).abs() < 0.02, "{n} requests");

    let (_, spread) = MM1_SPREAD
        .iter()
        .find(|(r, _)| *r == rho)
        .expect("a spread");
    let want = mm1_sojourn(rho);
    let got = [
        m.mean_ms.expect("successes"),
        m.p50_ms.expect("successes"),
        m.p99_ms.expect("successes"),
    ];
    for (k, what) in ["mean", "p50", "p99"].into_iter().enumerate() {
        let tol = Z * spread[k] / n.sqrt() * want[k];
        assert_near(
            &format!("M/M/1 at ρ = {rho}: {what} time in system / service time"),
            got[k] / SERVICE_MS,
            want[k],
            tol,
        );
    }
}

// Sample sizes (a debug run costs about 3 µs of CPU per request): ρ = 0.5 is where the
// checks are tightest; at 0.8 and 0.9 the correlation between successive customers makes
// the same precision cost about 10 and 45 times the requests, so those runs check the
// heavy-traffic behaviour (the 1/(1 − ρ) growth, the exponential tail) with wider bounds
// that still separate it from any other load: the tolerances are in the comments.

#[test]
fn mm1_at_half_load() {
    // Mean 2 service times ± 2.7%, p50 ± 2.4%, p99 ± 5.6%.
    check(0.5, 200_000.0);
}

#[test]
fn mm1_at_0_8() {
    // Mean 5 service times ± 5.8%, p50 ± 4.7%, p99 ± 12.5%.
    check(0.8, 400_000.0);
}

#[test]
fn mm1_at_0_9() {
    // Mean 10 service times ± 10.2%, p50 ± 8.1%, p99 ± 24%: a server 5% slower than it
    // should be (ρ = 0.945) would average 19 of them, and a FIFO queue served LIFO keeps
    // the mean but misses the p50 and p99 by far more.
    check(0.9, 600_000.0);
}
