//! The open load is Poisson: counts per second have mean λ and variance λ (an index of
//! dispersion of 1, where a regular stream would have 0 and a bursty one more), and a
//! spike multiplies the rate by its factor over its window, and only there.

use stampede::sim::{Scenario, ServiceDist, SimSettings};

use crate::support::{assert_near, server_alone, simulate, sum_over};

const LAMBDA: f64 = 200.0;

/// One attempt each, unlimited workers, no network: every request reaches the server the
/// moment it is sent, so `offered` counts arrivals. 1 s slots.
fn open(scenario: Scenario, seconds: f64) -> SimSettings {
    SimSettings {
        scenario,
        service_dist: ServiceDist::Constant,
        slot_ms: 1000.0,
        ..server_alone(LAMBDA, 0, 1.0, LAMBDA * seconds)
    }
}

#[test]
fn steady_arrivals_are_poisson() {
    let sim = simulate(&open(Scenario::Steady, 400.0));
    let counts: Vec<f64> = sim.series().offered[..400]
        .iter()
        .map(|&c| f64::from(c))
        .collect();
    let k = counts.len() as f64;
    let mean = counts.iter().sum::<f64>() / k;
    let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (k - 1.0);
    // The mean of 400 Poisson(200) counts: standard error √(200/400) = 0.71.
    assert_near(
        "arrivals per second",
        mean,
        LAMBDA,
        4.0 * (LAMBDA / k).sqrt(),
    );
    // The sample variance over the mean: for Poisson counts its standard error is
    // √(2/(k − 1)) = 0.071 (the variance of a sample variance, 2σ⁴/(k − 1), plus a
    // negligible 1/λ term).
    assert_near(
        "index of dispersion",
        var / mean,
        1.0,
        4.0 * (2.0 / (k - 1.0)).sqrt(),
    );
}

#[test]
fn a_spike_multiplies_the_rate_over_its_window() {
    let s = SimSettings {
        spike_start_ms: 20_000.0,
        spike_length_ms: 10_000.0,
        spike_factor: 3.0,
        ..open(Scenario::Spike, 60.0)
    };
    let sim = simulate(&s);
    let offered = sim.series().offered;
    let rate = |from: f64, to: f64| sum_over(offered, 1000.0, from, to) * 1000.0 / (to - from);
    // Poisson counts over W seconds at rate λ: standard error √(λ/W) per second.
    let se = |lambda: f64, seconds: f64| (lambda / seconds).sqrt();
    assert_near(
        "before the spike",
        rate(0.0, 20_000.0),
        LAMBDA,
        4.0 * se(LAMBDA, 20.0),
    );
    assert_near(
        "during the spike",
        rate(20_000.0, 30_000.0),
        3.0 * LAMBDA,
        4.0 * se(3.0 * LAMBDA, 10.0),
    );
    assert_near(
        "after the spike",
        rate(30_000.0, 60_000.0),
        LAMBDA,
        4.0 * se(LAMBDA, 30.0),
    );
}
