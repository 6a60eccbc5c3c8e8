//! The circuit breaker in the scenario, in Brooker's `retries` mode.

use stampede::nets::{BreakerMode, BreakerSettings, GuardSettings};
use stampede::sim::BudgetScope;

use crate::{SEEDS, run};

fn retries_breaker(min_throughput: u32) -> GuardSettings {
    GuardSettings {
        breaker: Some(BreakerSettings {
            failure_ratio: 0.1,
            min_throughput,
            mode: BreakerMode::Retries,
            ..BreakerSettings::default()
        }),
        ..GuardSettings::default()
    }
}

/// A shared breaker at 10% (Polly's defaults otherwise: 30 s window, 100 calls, 5 s
/// break) in mode `retries`: once p passes 10% it opens within the first 100 outcomes
/// (0.1 s at 1,000 attempts a second) and stays open but for its probes. Each 5 s break
/// ends with one probe; when the probe succeeds the window starts empty and the breaker
/// needs 100 outcomes (0.1 s) to open again, during which about 100·p retries go: per
/// 5,000 requests at most p/50 extra attempts per request, 0.01 at p = 0.5. So
/// amplification stays within 0.02 of 1.0 (first attempts still all go).
#[test]
fn a_shared_retries_breaker_holds_amplification_near_1_once_p_passes_10_percent() {
    for seed in SEEDS {
        for p in [0.2, 0.3, 0.4, 0.5] {
            let m = run(p, retries_breaker(100), BudgetScope::Shared, seed);
            let what = format!("p = {p}, seed {seed}");
            assert!(m.amplification < 1.02, "{what}: {}", m.amplification);
            assert!(m.amplification >= 1.0, "{what}: first attempts all go");
            assert!(m.breaker_rejected > 0.0, "{what}");
        }
        // At half the threshold the window's ratio (over hundreds of outcomes) never
        // reaches 10%: nothing is blocked.
        let m = run(0.05, retries_breaker(100), BudgetScope::Shared, seed);
        assert_eq!(m.breaker_rejected, 0.0, "seed {seed}");
    }
}

/// Brooker: a per-client breaker trips on small samples. With a minimum of 10 calls,
/// one failure in a client's first 10 outcomes already makes 10%; at p = 5% that happens
/// to a client with probability 1 − 0.95¹⁰ ≈ 40%, and again after every break, so
/// per-client breakers block retries though the dependency is well below the threshold
/// (a shared breaker with Polly's minimum of 100 never does: the test above). And with
/// that minimum of 100, a client sees enough outcomes only late in the 10 s run, so
/// per-client breakers barely help at p = 0.5 (amplification near 1.47 where the shared
/// one gives 1.0).
#[test]
fn per_client_breakers_trip_on_small_samples() {
    for seed in SEEDS {
        let client = run(0.05, retries_breaker(10), BudgetScope::Client, seed);
        assert!(
            client.breaker_rejected > 50.0,
            "seed {seed}: {}",
            client.breaker_rejected
        );
        let client = run(0.5, retries_breaker(100), BudgetScope::Client, seed);
        let shared = run(0.5, retries_breaker(100), BudgetScope::Shared, seed);
        assert!(
            client.amplification > 1.3,
            "seed {seed}: {}",
            client.amplification
        );
        assert!(
            shared.amplification < 1.02,
            "seed {seed}: {}",
            shared.amplification
        );
    }
}

/// Mode `all` blocks first attempts too: once open, requests fail fast as
/// `breaker_rejected` before any attempt, and amplification (attempts per request) falls
/// below 1.
#[test]
fn mode_all_blocks_first_attempts() {
    let all = GuardSettings {
        breaker: Some(BreakerSettings {
            failure_ratio: 0.1,
            mode: BreakerMode::All,
            ..BreakerSettings::default()
        }),
        ..GuardSettings::default()
    };
    let m = run(0.5, all, BudgetScope::Shared, 1);
    assert!(m.amplification < 0.1, "{}", m.amplification);
    assert!(
        m.breaker_rejected > 0.9 * m.requests,
        "{}",
        m.breaker_rejected
    );
}
