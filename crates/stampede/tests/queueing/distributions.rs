//! Service times and network delays have the distributions asked for. With unlimited
//! workers nothing waits, so a request's time in system is its service time plus its two
//! network legs, and successive requests are independent: each estimate has the textbook
//! standard error (the mean's σ/√n; a p-quantile's √(p(1 − p)/n)/f(q), f the density),
//! and each check allows [`Z`] of them.

use core::f64::consts::PI;

use stampede::sim::{LatencyDist, ServiceDist, SimSettings};

use crate::support::{assert_near, server_alone, simulate};
use crate::theory::Z;

const REQUESTS: f64 = 50_000.0;
const SERVICE_MS: f64 = 10.0;
/// The standard normal's 99th percentile.
const Z99: f64 = 2.326_347_874_040_840_8;

/// Unlimited workers, no network: time in system = service time.
fn alone(dist: ServiceDist) -> SimSettings {
    SimSettings {
        service_dist: dist,
        ..server_alone(1000.0, 0, SERVICE_MS, REQUESTS)
    }
}

/// Runs `s` and checks the successes' mean, p50 and p99 against `want`, each within Z
/// standard errors `se` (for n = 1; divided by √n here).
fn check(what: &str, s: &SimSettings, want: [f64; 3], se: [f64; 3]) {
    let mut sim = simulate(s);
    let m = sim.metrics();
    assert_eq!(m.successes, m.requests, "{what}");
    assert_eq!(m.max_queue, 0.0, "{what}: nothing waits");
    let n = m.successes;
    let got = [m.mean_ms, m.p50_ms, m.p99_ms].map(|x| x.expect("successes"));
    for (k, stat) in ["mean", "p50", "p99"].into_iter().enumerate() {
        let tol = Z * se[k] / n.sqrt();
        assert_near(&format!("{what}: {stat} (ms)"), got[k], want[k], tol);
    }
}

/// √(p(1 − p)) / f(q_p): the standard error of a p-quantile for n = 1.
fn quantile_se(p: f64, density: f64) -> f64 {
    (p * (1.0 - p)).sqrt() / density
}

#[test]
fn exponential_service_is_exponential() {
    let s = SERVICE_MS;
    let q = |p: f64| -s * (1.0 - p).ln();
    let f = |p: f64| (1.0 - p) / s;
    check(
        "exponential service",
        &alone(ServiceDist::Exponential),
        [s, q(0.5), q(0.99)],
        [s, quantile_se(0.5, f(0.5)), quantile_se(0.99, f(0.99))],
    );
}

#[test]
fn lognormal_service_keeps_its_mean_and_has_its_spread() {
    for sigma in [0.5, 1.5] {
        let s = SimSettings {
            service_spread: sigma,
            ..alone(ServiceDist::Lognormal)
        };
        // ln(service) ~ Normal(μ, σ) with μ = ln(mean) − σ²/2, so that the mean stays.
        let mu = SERVICE_MS.ln() - sigma * sigma / 2.0;
        let q = |z: f64| (mu + z * sigma).exp();
        let f = |z: f64| (-z * z / 2.0).exp() / (2.0 * PI).sqrt() / (q(z) * sigma);
        let sd = SERVICE_MS * ((sigma * sigma).exp() - 1.0).sqrt();
        check(
            &format!("lognormal service, σ = {sigma}"),
            &s,
            [SERVICE_MS, q(0.0), q(Z99)],
            [sd, quantile_se(0.5, f(0.0)), quantile_se(0.99, f(Z99))],
        );
    }
}

#[test]
fn constant_service_is_constant() {
    let mut sim = simulate(&alone(ServiceDist::Constant));
    let m = sim.metrics();
    // Latencies are kept as f32: equal to 10 ms to its precision.
    for x in [m.mean_ms, m.p50_ms, m.p99_ms] {
        assert!((x.expect("successes") - SERVICE_MS).abs() < 1e-5, "{m:?}");
    }
}

#[test]
fn exponential_network_legs_add_to_a_gamma() {
    // Constant 10 ms service, exponential legs of mean 25 ms each (a 50 ms mean round
    // trip): time in system = 10 ms + Gamma(2, 25 ms).
    let theta = 25.0;
    let s = SimSettings {
        latency_ms: 2.0 * theta,
        latency_dist: LatencyDist::Exponential,
        ..alone(ServiceDist::Constant)
    };
    // Gamma(2, θ): CDF 1 − e^(−x)(1 + x) in units of θ, density x·e^(−x)/θ.
    let quantile = |p: f64| {
        let (mut lo, mut hi) = (0.0_f64, 50.0_f64);
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            if 1.0 - (-mid).exp() * (1.0 + mid) < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    };
    let (x50, x99) = (quantile(0.5), quantile(0.99));
    assert!((x50 - 1.678_347).abs() < 1e-5 && (x99 - 6.638_352).abs() < 1e-5);
    let f = |x: f64| x * (-x).exp() / theta;
    check(
        "exponential network",
        &s,
        [
            SERVICE_MS + 2.0 * theta,
            SERVICE_MS + x50 * theta,
            SERVICE_MS + x99 * theta,
        ],
        [
            theta * 2f64.sqrt(),
            quantile_se(0.5, f(x50)),
            quantile_se(0.99, f(x99)),
        ],
    );
}
