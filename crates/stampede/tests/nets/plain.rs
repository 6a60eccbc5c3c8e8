//! No net: amplification `1 + p + p² + p³`, success `1 − p⁴`.

use stampede::nets::GuardSettings;
use stampede::sim::BudgetScope;

use crate::support::assert_near;
use crate::{RATES, SEEDS, Z, run};

/// P(a request makes exactly k attempts), k = 1..=4.
fn attempts_pmf(p: f64) -> [f64; 4] {
    [1.0 - p, p * (1.0 - p), p * p * (1.0 - p), p * p * p]
}

#[test]
fn four_attempts_amplify_as_the_geometric_series() {
    for p in RATES {
        for seed in SEEDS {
            let m = run(p, GuardSettings::default(), BudgetScope::Client, seed);
            let n = m.requests;
            // About 10,000 requests (Poisson): the mean of n draws of min(G, 4) is off by
            // at most Z standard errors, sd from the distribution of min(G, 4).
            let pmf = attempts_pmf(p);
            let mean: f64 = (1..=4).map(|k| k as f64 * pmf[k - 1]).sum();
            let square: f64 = (1..=4).map(|k| (k * k) as f64 * pmf[k - 1]).sum();
            assert!((mean - (1.0 + p + p * p + p * p * p)).abs() < 1e-12);
            let sd = (square - mean * mean).sqrt();
            let what = format!("p = {p}, seed {seed}");
            assert_near(
                &format!("{what}: amplification"),
                m.amplification,
                mean,
                Z * sd / n.sqrt(),
            );
            // Successes: binomial(n, 1 − p⁴).
            let q = 1.0 - p.powi(4);
            assert_near(
                &format!("{what}: success"),
                m.successes / n,
                q,
                Z * (q * (1.0 - q) / n).sqrt(),
            );
            assert_eq!(m.budget_rejected + m.breaker_rejected + m.throttled, 0.0);
        }
    }
}
