//! Property tests over random outcome sequences: no budget exceeds its allowance, the
//! breaker's transitions follow its rules, the throttle's probability is the formula.
//!
//! Times are whole milliseconds and windows multiples of 10 ms, so slot `k` holds
//! `[k·w/10, (k+1)·w/10)` exactly and the brute-force models below count the same slots.

use proptest::collection::vec;
use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

use super::*;
use crate::seeded;

/// The live slots at `t`: those whose index is above `slot(t) − 10`.
fn live(t: u64, at: u64, slot: u64) -> bool {
    at / slot + 10 > t / slot
}

proptest! {
    #[test]
    fn ratio_budget_never_exceeds_its_allowance(
        ratio in 0.0..1.0f64,
        cap in proptest::option::of(1.0..10.0f64),
        min_per_sec in 0.0..5.0f64,
        window10 in 1u64..200,
        ops in vec((0u64..300, proptest::bool::ANY), 1..400),
    ) {
        let window = window10 * 10;
        let s = RatioSettings { ratio, cap, min_per_sec, window_ms: window as f64 };
        let reserve = s.reserve();
        let mut b = RatioBudget::new(s.validate().unwrap(), 0.0);
        let slot = window / 10;
        let mut t = 0u64;
        let mut deposits: Vec<u64> = Vec::new();
        let mut withdrawals: Vec<u64> = Vec::new();
        for (dt, deposit) in ops {
            t += dt;
            let now = t as f64;
            if deposit {
                b.deposit(now);
                deposits.push(t);
            } else {
                let count = |v: &[u64]| v.iter().filter(|&&a| live(t, a, slot)).count() as f64;
                let allowance = reserve + ratio * count(&deposits) - count(&withdrawals);
                match b.try_withdraw(now) {
                    Ok(()) => {
                        withdrawals.push(t);
                        // Within the live window, retries ≤ floor + ratio × requests.
                        prop_assert!(allowance >= 1.0 - 1e-6, "allowance {allowance}");
                    }
                    Err(e) => {
                        prop_assert!(e.tokens < 1.0);
                        if cap.is_none() {
                            prop_assert!(allowance < 1.0 + 1e-6, "refused with {allowance}");
                        }
                    }
                }
            }
            if let Some(c) = cap {
                prop_assert!(b.balance(now) <= c + 1e-9);
            }
        }
    }

    #[test]
    fn grpc_retries_stay_under_half_the_tokens_plus_what_successes_earned(
        max_tokens in 1.0..100.0f64,
        token_ratio in 0.01..2.0f64,
        outcomes in vec(proptest::bool::ANY, 1..500),
    ) {
        let mut g = GrpcThrottle::new(GrpcSettings { max_tokens, token_ratio }.validate().unwrap());
        let (mut successes, mut allowed) = (0.0, 0.0);
        for ok in outcomes {
            if ok {
                g.on_success();
                successes += 1.0;
            } else {
                g.on_failure();
                if g.check().is_ok() {
                    allowed += 1.0;
                }
            }
            prop_assert!((0.0..=max_tokens).contains(&g.tokens()));
            // Each allowed retry's failure took a token, and tokens must stay above half.
            prop_assert!(allowed < max_tokens / 2.0 + token_ratio * successes + 1e-9);
        }
    }

    #[test]
    fn aws_quota_spends_no_more_than_it_holds_and_earns(
        tokens in 0.0..100.0f64,
        outcomes in vec(0u8..4, 1..500),
    ) {
        let s = AwsSettings { tokens, ..AwsSettings::default() }.validate().unwrap();
        let mut q = AwsQuota::new(s);
        let (mut spent, mut earned) = (0.0, 0.0);
        let mut last: Option<f64> = None;
        for o in outcomes {
            match o {
                0 | 1 => {
                    if let Ok(cost) = q.try_acquire(o == 1) {
                        spent += cost;
                        last = Some(cost);
                    }
                }
                _ => {
                    let before = q.available();
                    q.on_success(last.take());
                    earned += q.available() - before;
                }
            }
            prop_assert!(q.available() >= 0.0 && q.available() <= tokens);
            prop_assert!(spent <= tokens + earned + 1e-9);
        }
    }

    #[test]
    fn breaker_transitions_follow_the_rules(
        ratio in 0.0..1.0f64,
        min_throughput in 1u32..20,
        sampling10 in 1u64..100,
        break_ms in 1u64..500,
        retries_mode in proptest::bool::ANY,
        ops in vec((0u64..100, 0u8..4), 1..400),
    ) {
        let sampling = sampling10 * 10;
        let mode = if retries_mode { BreakerMode::Retries } else { BreakerMode::All };
        let s = BreakerSettings {
            failure_ratio: ratio,
            sampling_ms: sampling as f64,
            min_throughput,
            break_ms: break_ms as f64,
            mode,
        };
        let mut b = Breaker::new(s.validate().unwrap(), 0.0);
        let slot = sampling / 10;
        // Outcomes recorded while closed since the last open or close: (time, failed).
        let mut sample: Vec<(u64, bool)> = Vec::new();
        let mut t = 0u64;
        for (dt, op) in ops {
            t += dt;
            let now = t as f64;
            let before = b.state();
            match op {
                0 | 1 => {
                    let retry = op == 1;
                    let r = b.allow(now, retry);
                    let after = b.state();
                    if mode == BreakerMode::Retries && !retry {
                        prop_assert!(r.is_ok());
                        prop_assert_eq!(after, before);
                        continue;
                    }
                    match before {
                        BreakerState::Closed => {
                            prop_assert!(r.is_ok());
                            prop_assert_eq!(after, before);
                        }
                        BreakerState::Open { until_ms: u } | BreakerState::HalfOpen { blocked_until_ms: u } => {
                            if now >= u {
                                prop_assert!(r.is_ok());
                                prop_assert_eq!(after, BreakerState::HalfOpen { blocked_until_ms: now + s.break_ms });
                            } else {
                                prop_assert_eq!(r, Err(CircuitOpen { retry_in_ms: u - now }));
                                prop_assert_eq!(after, before);
                            }
                        }
                    }
                }
                _ => {
                    let failed = op == 3;
                    b.record(now, failed);
                    let after = b.state();
                    match before {
                        BreakerState::Open { .. } => prop_assert_eq!(after, before),
                        BreakerState::HalfOpen { .. } => {
                            sample.clear();
                            if failed {
                                prop_assert_eq!(after, BreakerState::Open { until_ms: now + s.break_ms });
                            } else {
                                prop_assert_eq!(after, BreakerState::Closed);
                            }
                        }
                        BreakerState::Closed => {
                            sample.push((t, failed));
                            let seen: Vec<_> = sample.iter().filter(|(a, _)| live(t, *a, slot)).collect();
                            let n = seen.len() as f64;
                            let f = seen.iter().filter(|(_, x)| *x).count() as f64;
                            // Only a failure opens it (Polly's `OnActionFailure`).
                            let trips = failed && n >= f64::from(min_throughput) && f >= ratio * n;
                            if trips {
                                prop_assert_eq!(after, BreakerState::Open { until_ms: now + s.break_ms });
                                sample.clear();
                            } else {
                                prop_assert_eq!(after, BreakerState::Closed);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn throttle_rejects_with_the_formula_s_probability(
        k in 1.0..4.0f64,
        window10 in 1u64..1000,
        seed in proptest::num::u64::ANY,
        ops in vec((0u64..200, proptest::bool::ANY), 1..400),
    ) {
        let window = window10 * 10;
        let s = ThrottleSettings { k, window_ms: window as f64 };
        let mut th = Throttle::new(s.validate().unwrap(), 0.0);
        let mut rng = seeded(seed);
        let slot = window / 10;
        let (mut requests, mut accepts): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        let mut t = 0u64;
        for (dt, accepted) in ops {
            t += dt;
            let now = t as f64;
            let count = |v: &[u64]| v.iter().filter(|&&a| live(t, a, slot)).count() as f64;
            let p = throttle::reject_probability(count(&requests), count(&accepts), k);
            prop_assert!((th.probability(now) - p).abs() < 1e-12);
            let r = th.allow(now, &mut rng);
            requests.push(t);
            match r {
                Ok(()) => {
                    prop_assert!(p < 1.0);
                    th.record(now, accepted);
                    if accepted {
                        accepts.push(t);
                    }
                }
                Err(e) => {
                    prop_assert!(p > 0.0);
                    prop_assert!((e.probability - p).abs() < 1e-12);
                }
            }
        }
    }
}
