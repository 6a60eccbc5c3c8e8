//! Budgets of every school in the scenario.

use stampede::nets::{BudgetKind, GrpcSettings, GuardSettings, RatioSettings};
use stampede::sim::BudgetScope;

use crate::support::assert_near;
use crate::{RATES, SEEDS, Z, run};

fn with(budget: BudgetKind) -> GuardSettings {
    GuardSettings {
        budget: Some(budget),
        ..GuardSettings::default()
    }
}

fn unlimited(p: f64) -> f64 {
    1.0 + p + p * p + p * p * p
}

/// Brooker's adaptive client (0.1 per call, at most 5, a retry costs 1, no floor) holds
/// amplification at 1.1 once retries want more than a tenth of the calls.
///
/// The bound is exact: the budget starts empty, its deposits outlive the 10 s run, and a
/// request deposits 0.1 whether or not it succeeds, so retries ≤ 0.1 × requests and
/// amplification ≤ 1.1 whatever p. The floor matters: Finagle's default of 10 retries per
/// second per client, with clients that send 10 requests per second, would allow a retry
/// for every request, so it is set to 0, as in Brooker's client.
///
/// Near 1.1, from below: when retries want more than the deposits (p + p² + p³ > 0.1, so
/// from p = 0.1 on), a client's balance stays under one token most of the time, and what a
/// client leaves unspent at the end is at most about one token (at most the cap, 5, in
/// theory): 100 clients × 1 token over 10,000 requests is 0.01, the per-client slack; one
/// shared budget leaves one token in all. At p = 0.1 the demand (0.111) barely exceeds
/// the supply, so randomness leaves more unspent.
#[test]
fn brookers_ratio_budget_holds_amplification_at_1_1() {
    let brooker = with(BudgetKind::Ratio(RatioSettings::BROOKER));
    for scope in [BudgetScope::Client, BudgetScope::Shared] {
        for p in RATES {
            for seed in SEEDS {
                let m = run(p, brooker, scope, seed);
                let what = format!("{scope:?}, p = {p}, seed {seed}");
                assert!(m.amplification <= 1.1 + 1e-9, "{what}: {}", m.amplification);
                let slack = match (scope, p) {
                    (_, p) if p < 0.1 => continue,
                    (BudgetScope::Client, p) if p < 0.2 => 0.04,
                    (BudgetScope::Client, _) => 0.015,
                    (BudgetScope::Shared, p) if p < 0.2 => 0.02,
                    (_, _) => 0.001,
                };
                assert!(
                    m.amplification >= 1.1 - slack,
                    "{what}: {}",
                    m.amplification
                );
                assert!(m.budget_rejected > 0.0, "{what}");
            }
        }
    }
    // Below the budget (p + p² + p³ < 0.1) nothing is refused but the odd early retry: the
    // budget starts empty, so a client's first failures wait for deposits.
    let m = run(0.05, brooker, BudgetScope::Shared, 1);
    assert!(m.budget_rejected < 20.0, "{}", m.budget_rejected);
}

/// gRPC throttling with (10, 0.1): tokens move by `0.1·(1 − f) − f` per attempt when a
/// fraction `f` of attempts fail, which is negative once `f > 0.1/1.1 ≈ 9.1%`. With
/// failures independent of load `f = p`, so below 9% the tokens stay near 10 and retries
/// flow as without a net; above it they sink to 5 and retries stop.
///
/// One throttle shared by all clients (gRPC keeps one per channel; here the 100 clients
/// are one process's calls) sees 1,000 attempts a second, so the change is sharp: at 5%
/// amplification is the geometric series' (within the plain test's tolerance), at 12%
/// and above it is within 1% of 1. Per client, each spends its own first five tokens
/// (failures take 10 → 6 with retries allowed, the fifth leaves 5, not above half): about
/// 4 retries per 100 requests, so amplification near 1.04, not 1.
#[test]
fn grpc_throttling_stops_retries_once_failures_pass_9_percent() {
    let grpc = with(BudgetKind::Grpc(GrpcSettings::default()));
    for seed in SEEDS {
        let m = run(0.05, grpc, BudgetScope::Shared, seed);
        let p: f64 = 0.05;
        // sd of min(G, 4) at p = 0.05 is below 0.25.
        assert_near(
            &format!("p = 0.05, seed {seed}"),
            m.amplification,
            unlimited(p),
            Z * 0.25 / m.requests.sqrt(),
        );
        for p in [0.12, 0.2, 0.3, 0.4, 0.5] {
            let shared = run(p, grpc, BudgetScope::Shared, seed);
            let what = format!("p = {p}, seed {seed}");
            assert!(
                shared.amplification < 1.01,
                "{what}: {}",
                shared.amplification
            );
            let client = run(p, grpc, BudgetScope::Client, seed);
            if p >= 0.2 {
                // Each client's own first tokens: 3 to 8 retries per 100 requests.
                assert!(
                    (1.03..1.08).contains(&client.amplification),
                    "{what}: per client {}",
                    client.amplification
                );
            }
            assert!(client.amplification < unlimited(p), "{what}");
        }
    }
}
