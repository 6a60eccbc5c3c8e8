//! No net: amplification `1 + p + p² + p³`, success `1 − p⁴`.

use stampede::nets::GuardSettings;
use stampede::sim::BudgetScope;

use crate::support::assert_four_attempts_at;
use crate::{RATES, SEEDS, Z, run};

#[test]
fn four_attempts_amplify_as_the_geometric_series() {
    for p in RATES {
        for seed in SEEDS {
            let m = run(p, GuardSettings::default(), BudgetScope::Client, seed);
            // About 10,000 requests (Poisson).
            assert_four_attempts_at(&format!("p = {p}, seed {seed}"), &m, p, Z);
            assert_eq!(m.budget_rejected + m.breaker_rejected + m.throttled, 0.0);
        }
    }
}
