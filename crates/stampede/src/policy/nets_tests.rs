//! The policy with a call site's [`Guard`]: outcomes reach every net, retries pass each.

use super::*;
use crate::backoff::Strategy;
use crate::budget::BudgetSettings;
use crate::classify::{HttpStatus, Method};
use crate::nets::{
    AwsSettings, BreakerMode, BreakerSettings, BudgetKind, GrpcSettings, GuardSettings,
    ThrottleSettings,
};
use crate::seeded;

const GET: Request = Request::new(Method::Get);

fn policy(attempts: u32) -> Policy {
    PolicySettings::new(
        BackoffSettings::new(Strategy::Constant, 10.0, 10.0),
        attempts,
    )
    .build()
    .unwrap()
}

fn verdict(code: u16) -> Verdict {
    let o = Outcome::response(HttpStatus::new(code).unwrap());
    RetryRules::default().classify(GET, &o, 0.0)
}

fn timeout() -> Verdict {
    RetryRules::default().classify(GET, &Outcome::Transport(TransportError::Timeout), 0.0)
}

/// A guard holding only a bucket decides exactly as the bucket alone, in every case.
#[test]
fn a_guard_of_a_bucket_is_the_bucket() {
    let p = policy(4);
    let settings = BudgetSettings::new(3.0, 2.0).with_success_refund(0.5);
    let mut bucket = settings.build(0.0).unwrap();
    let mut guard = GuardSettings {
        budget: Some(BudgetKind::Bucket(settings)),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let (mut r1, mut r2) = (seeded(3), seeded(3));
    let codes = [503, 503, 200, 503, 404, 503, 503, 503, 503, 503, 200, 503];
    let mut t = 0.0;
    for round in 0..40 {
        t += 37.0;
        assert_eq!(
            p.admit(Some(&mut bucket), t).is_ok(),
            p.admit_guarded(Some(&mut guard), t, &mut r2).is_ok()
        );
        let (mut a1, mut a2) = (p.start(t), p.start(t));
        for i in 0..4 {
            let v = verdict(codes[(round + i) % codes.len()]);
            let d1 = p.decide_verdict(&mut a1, &v, t, Some(&mut bucket), &mut r1);
            let d2 = p.decide_verdict_guarded(&mut a2, &v, t, Some(&mut guard), &mut r2);
            assert_eq!(d1, d2, "round {round} attempt {i}");
            if !d1.is_retry() {
                break;
            }
        }
    }
}

#[test]
fn an_open_breaker_stops_retries_and_is_told_apart() {
    let p = policy(10);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        breaker: Some(BreakerSettings {
            min_throughput: 2,
            mode: BreakerMode::Retries,
            ..BreakerSettings::default()
        }),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let mut a = p.start(0.0);
    let d = p.decide_verdict_guarded(&mut a, &verdict(503), 1.0, Some(&mut g), &mut rng);
    assert!(d.is_retry());
    let d = p.decide_verdict_guarded(&mut a, &verdict(503), 2.0, Some(&mut g), &mut rng);
    assert!(
        matches!(d, Decision::Stop(StopReason::CircuitOpen(_))),
        "{d:?}"
    );
    assert_eq!(
        d.to_string(),
        "stop: circuit open: failing fast for 5000 ms instead of calling downstream"
    );
    // Mode `retries`: first attempts still go.
    assert!(p.admit_guarded(Some(&mut g), 3.0, &mut rng).is_ok());
}

#[test]
fn a_throttled_retry_is_told_apart() {
    let p = policy(100);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        throttle: Some(ThrottleSettings::default()),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let mut a = p.start(0.0);
    // Every attempt fails: the rejection probability climbs towards 1, so a retry is
    // throttled within a few dozen (the chance that 99 all pass is negligible).
    let mut stopped = None;
    for i in 0..99 {
        match p.decide_verdict_guarded(&mut a, &verdict(503), f64::from(i), Some(&mut g), &mut rng)
        {
            Decision::Retry { .. } => {}
            Decision::Stop(r) => {
                stopped = Some(r);
                break;
            }
        }
    }
    assert!(
        matches!(stopped, Some(StopReason::Throttled(_))),
        "{stopped:?}"
    );
}

#[test]
fn grpc_throttling_stops_retries_at_half_its_tokens() {
    let p = policy(100);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        budget: Some(BudgetKind::Grpc(GrpcSettings::default())),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let mut a = p.start(0.0);
    // 10 tokens: failures take them to 9, 8, 7, 6 (retries allowed), then 5 (not above 5).
    for _ in 0..4 {
        assert!(
            p.decide_verdict_guarded(&mut a, &verdict(503), 0.0, Some(&mut g), &mut rng)
                .is_retry()
        );
    }
    let d = p.decide_verdict_guarded(&mut a, &verdict(503), 0.0, Some(&mut g), &mut rng);
    assert!(
        matches!(d, Decision::Stop(StopReason::BudgetExhausted(_))),
        "{d:?}"
    );
}

#[test]
fn the_aws_quota_refunds_what_the_last_retry_cost() {
    let p = policy(5);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        budget: Some(BudgetKind::Aws(AwsSettings {
            tokens: 30.0,
            ..AwsSettings::default()
        })),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let avail = |g: &mut Guard| match g.budget() {
        Some(crate::nets::Budget::Aws(q)) => q.available(),
        _ => unreachable!(),
    };
    let mut a = p.start(0.0);
    assert!(
        p.decide_verdict_guarded(&mut a, &verdict(503), 0.0, Some(&mut g), &mut rng)
            .is_retry()
    );
    assert_eq!(avail(&mut g), 25.0);
    assert!(
        p.decide_verdict_guarded(&mut a, &timeout(), 0.0, Some(&mut g), &mut rng)
            .is_retry()
    );
    assert_eq!(avail(&mut g), 15.0);
    let d = p.decide_verdict_guarded(&mut a, &verdict(200), 0.0, Some(&mut g), &mut rng);
    assert!(matches!(d, Decision::Stop(StopReason::Succeeded(_))));
    assert_eq!(avail(&mut g), 25.0, "the timeout retry's 10 come back");
    let mut b = p.start(0.0);
    p.decide_verdict_guarded(&mut b, &verdict(200), 0.0, Some(&mut g), &mut rng);
    assert_eq!(avail(&mut g), 26.0, "a first-try success puts 1 back");
}

#[test]
fn an_attempt_stays_32_bytes() {
    assert_eq!(size_of::<Attempt>(), 32);
}

/// What the nets count is the dependency failing, not whether this request may retry: a
/// POST's 503, a 503 whose `Retry-After` is past the maximum and a negative pushback are
/// each the service failing, though none is retried; a 404 is the service up; an abort
/// says nothing.
#[test]
fn the_nets_count_failures_this_request_may_not_retry() {
    let rules = RetryRules::default();
    let post = Request::new(Method::Post);
    let o503 = Outcome::response(HttpStatus::new(503).unwrap());
    let long = Outcome::Response {
        status: HttpStatus::new(503).unwrap(),
        retry_after: Some("3600"),
        pushback_ms: None,
    };
    let stop = Outcome::Response {
        status: HttpStatus::new(503).unwrap(),
        retry_after: None,
        pushback_ms: Some("-1"),
    };
    let dns = Outcome::Transport(TransportError::Dns);
    let abort = Outcome::Transport(TransportError::Abort);
    let failing = [
        rules.classify(post, &o503, 0.0),
        rules.classify(GET, &long, 0.0),
        rules.classify(GET, &stop, 0.0),
        rules.classify(GET, &dns, 0.0),
        verdict(501),
        verdict(429),
    ];
    // A POST's 503 and a host that does not resolve: never retried by these rules; a hint
    // to stop (too long, negative pushback) on a status they retry: gRFC A6's "pushback".
    let settled = [
        Settled::FailedUnretried,
        Settled::Failed,
        Settled::Failed,
        Settled::FailedUnretried,
        Settled::Failed,
        Settled::Failed,
    ];
    for (v, s) in failing.iter().zip(settled) {
        assert!(v.dependency_failed, "{v:?}");
        assert_eq!(Settled::of(v, false, false), s, "{v:?}");
    }
    assert!(failing[..4].iter().all(|v| !v.is_retryable()));
    for (v, settled) in [
        (verdict(404), Settled::Other),
        (verdict(410), Settled::Other),
        (rules.classify(GET, &abort, 0.0), Settled::Abandoned),
        (verdict(200), Settled::FirstTry),
    ] {
        assert!(!v.dependency_failed, "{v:?}");
        assert_eq!(Settled::of(&v, false, false), settled, "{v:?}");
    }

    // A breaker opens on a POST endpoint's 503s as on a GET's.
    let p = policy(1);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        breaker: Some(BreakerSettings {
            failure_ratio: 0.5,
            min_throughput: 2,
            break_ms: 1000.0,
            ..BreakerSettings::default()
        }),
        throttle: Some(ThrottleSettings::default()),
        budget: Some(BudgetKind::Grpc(GrpcSettings::default())),
    }
    .build(0.0)
    .unwrap();
    for t in [1.0, 2.0] {
        let mut a = p.start(t);
        let d = p.decide_verdict_guarded(&mut a, &failing[0], t, Some(&mut g), &mut rng);
        assert!(matches!(d, Decision::Stop(StopReason::NotRetryable(_))));
    }
    assert!(matches!(
        g.breaker().unwrap().state(),
        crate::nets::BreakerState::Open { .. }
    ));
    // The throttle saw two requests, none accepted: with four more failures it holds six,
    // one past its protection of five: (6 − 0 − 5) / 7 (without the two, 0).
    for _ in 0..4 {
        g.throttle().unwrap().record(2.0, false);
    }
    assert!((g.throttle().unwrap().probability(2.0) - 1.0 / 7.0).abs() < 1e-12);
    // gRPC's bucket counts only what the rules retry (grpc-go): a POST's 503 takes no
    // token (10 left), a negative pushback on a GET's 503 takes one (9).
    let grpc_tokens = |g: &mut Guard| match g.budget() {
        Some(crate::nets::Budget::Grpc(b)) => b.tokens(),
        other => panic!("{other:?}"),
    };
    assert_eq!(grpc_tokens(&mut g), 10.0);
    let mut a = p.start(3.0);
    p.decide_verdict_guarded(&mut a, &failing[2], 3.0, Some(&mut g), &mut rng);
    assert_eq!(grpc_tokens(&mut g), 9.0);
}

/// A half-open breaker's probe that its caller aborted does not close the circuit (it
/// did, and let `minThroughput` calls through to a service still down): it is a probe that
/// never reported, so the next goes a break later, and its failure opens the circuit again.
#[test]
fn an_aborted_probe_neither_closes_the_circuit_nor_counts() {
    let p = policy(1);
    let mut rng = seeded(0);
    let mut g = GuardSettings {
        breaker: Some(BreakerSettings {
            failure_ratio: 0.5,
            min_throughput: 1,
            break_ms: 100.0,
            ..BreakerSettings::default()
        }),
        ..GuardSettings::default()
    }
    .build(0.0)
    .unwrap();
    let abort =
        RetryRules::default().classify(GET, &Outcome::Transport(TransportError::Abort), 0.0);
    let mut a = p.start(0.0);
    p.decide_verdict_guarded(&mut a, &verdict(503), 0.0, Some(&mut g), &mut rng);
    assert!(
        p.admit_guarded(Some(&mut g), 50.0, &mut rng).is_err(),
        "open"
    );
    // The break is over: a probe goes, and its caller aborts it.
    assert!(p.admit_guarded(Some(&mut g), 150.0, &mut rng).is_ok());
    assert!(
        p.admit_guarded(Some(&mut g), 151.0, &mut rng).is_err(),
        "one probe at a time"
    );
    let mut probe = p.start(150.0);
    p.decide_verdict_guarded(&mut probe, &abort, 160.0, Some(&mut g), &mut rng);
    assert!(matches!(
        g.breaker().unwrap().state(),
        crate::nets::BreakerState::HalfOpen { .. }
    ));
    assert!(
        p.admit_guarded(Some(&mut g), 161.0, &mut rng).is_err(),
        "still shut"
    );
    // A break after the probe went, the next probes; the service still fails.
    assert!(p.admit_guarded(Some(&mut g), 250.0, &mut rng).is_ok());
    let mut next = p.start(250.0);
    p.decide_verdict_guarded(&mut next, &verdict(503), 260.0, Some(&mut g), &mut rng);
    assert!(
        p.admit_guarded(Some(&mut g), 261.0, &mut rng).is_err(),
        "open again"
    );
}
