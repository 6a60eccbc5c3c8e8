use super::*;
use crate::backoff::Strategy;
use crate::budget::BudgetSettings;
use crate::classify::{HttpStatus, Method, TransportError};
use crate::seeded;

fn policy(strategy: Strategy, attempts: u32) -> Policy {
    PolicySettings::new(BackoffSettings::new(strategy, 100.0, 10_000.0), attempts)
        .build()
        .unwrap()
}

fn unavailable() -> Outcome<'static> {
    Outcome::response(HttpStatus::new(503).unwrap())
}

const GET: Request = Request::new(Method::Get);

#[test]
fn retries_with_backoff_until_attempts_run_out() {
    let p = policy(Strategy::Exponential, 4);
    let mut rng = seeded(0);
    let mut a = p.start(0.0);
    let mut delays = vec![];
    let mut now = 0.0;
    loop {
        match p.decide(
            &mut a,
            GET,
            &unavailable(),
            Now::simulated(now),
            None,
            &mut rng,
        ) {
            Decision::Retry {
                delay_ms,
                from_server,
                ..
            } => {
                assert!(!from_server);
                delays.push(delay_ms);
                now += delay_ms;
            }
            Decision::Stop(r) => {
                assert!(
                    matches!(r, StopReason::AttemptsExhausted { made: 4, .. }),
                    "{r:?}"
                );
                break;
            }
        }
    }
    assert_eq!(delays, [100.0, 200.0, 400.0]);
    assert_eq!(a.made(), 4);
}

#[test]
fn one_attempt_means_no_retry() {
    let p = policy(Strategy::Full, 1);
    let mut a = p.start(0.0);
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(0.0),
        None,
        &mut seeded(0),
    );
    assert!(matches!(
        d,
        Decision::Stop(StopReason::AttemptsExhausted { made: 1, .. })
    ));
}

#[test]
fn success_and_non_retryable_stop_at_once() {
    let p = policy(Strategy::Full, 6);
    let mut rng = seeded(0);
    let mut a = p.start(0.0);
    let ok = Outcome::response(HttpStatus::new(200).unwrap());
    assert!(matches!(
        p.decide(&mut a, GET, &ok, Now::simulated(0.0), None, &mut rng),
        Decision::Stop(StopReason::Succeeded(_))
    ));
    let mut a = p.start(0.0);
    let gone = Outcome::response(HttpStatus::new(410).unwrap());
    let d = p.decide(&mut a, GET, &gone, Now::simulated(0.0), None, &mut rng);
    assert_eq!(
        d.to_string(),
        "stop: 410 Gone: the resource is permanently gone"
    );
    let mut a = p.start(0.0);
    let d = p.decide(
        &mut a,
        Request::new(Method::Post),
        &unavailable(),
        Now::simulated(0.0),
        None,
        &mut rng,
    );
    assert!(matches!(
        d,
        Decision::Stop(StopReason::NotRetryable(Reason::NotIdempotent(
            Method::Post
        )))
    ));
}

#[test]
fn never_sooner_than_retry_after() {
    let p = policy(Strategy::Full, 6);
    let mut rng = seeded(9);
    let hinted = Outcome::with_headers(HttpStatus::new(503).unwrap(), [("Retry-After", "2")]);
    for _ in 0..200 {
        let mut a = p.start(0.0);
        for _ in 0..5 {
            match p.decide(&mut a, GET, &hinted, Now::simulated(0.0), None, &mut rng) {
                Decision::Retry { delay_ms, .. } => assert!(delay_ms >= 2000.0, "{delay_ms}"),
                Decision::Stop(r) => assert!(matches!(r, StopReason::AttemptsExhausted { .. })),
            }
        }
    }
    // When the backoff is already longer than the hint, the backoff wins.
    let slow = PolicySettings::new(BackoffSettings::new(Strategy::Constant, 5000.0, 5000.0), 3)
        .build()
        .unwrap();
    let mut a = slow.start(0.0);
    let d = slow.decide(&mut a, GET, &hinted, Now::simulated(0.0), None, &mut rng);
    assert!(
        matches!(
            d,
            Decision::Retry {
                delay_ms: 5000.0,
                from_server: false,
                ..
            }
        ),
        "{d:?}"
    );
}

#[test]
fn pushback_sets_the_delay_and_resets_the_backoff() {
    let p = policy(Strategy::Exponential, 10);
    let mut rng = seeded(0);
    let mut a = p.start(0.0);
    let pushed = Outcome::with_headers(
        HttpStatus::new(503).unwrap(),
        [("grpc-retry-pushback-ms", "50")],
    );
    let delays: Vec<f64> = [
        unavailable(),
        unavailable(),
        pushed,
        unavailable(),
        unavailable(),
    ]
    .iter()
    .map(
        |o| match p.decide(&mut a, GET, o, Now::simulated(0.0), None, &mut rng) {
            Decision::Retry { delay_ms, .. } => delay_ms,
            d => panic!("{d:?}"),
        },
    )
    .collect();
    assert_eq!(delays, [100.0, 200.0, 50.0, 100.0, 200.0]);
}

#[test]
fn max_elapsed_time_stops_a_retry_that_would_start_too_late() {
    let p = PolicySettings::new(
        BackoffSettings::new(Strategy::Exponential, 1000.0, 60_000.0),
        10,
    )
    .with_max_elapsed_ms(Some(5000.0))
    .build()
    .unwrap();
    let mut rng = seeded(0);
    let mut a = p.start(0.0);
    // 0 → retry at 1000; 1000 → retry at 3000; 3000 → would be 7000 > 5000.
    assert!(
        p.decide(
            &mut a,
            GET,
            &unavailable(),
            Now::simulated(0.0),
            None,
            &mut rng
        )
        .is_retry()
    );
    assert!(
        p.decide(
            &mut a,
            GET,
            &unavailable(),
            Now::simulated(1000.0),
            None,
            &mut rng
        )
        .is_retry()
    );
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(3000.0),
        None,
        &mut rng,
    );
    assert_eq!(
        d,
        Decision::Stop(StopReason::DeadlineExceeded {
            at_ms: 7000.0,
            max_elapsed_ms: 5000.0
        })
    );
}

#[test]
fn budget_is_charged_when_the_retry_is_decided() {
    let p = policy(Strategy::Constant, 100);
    let mut rng = seeded(0);
    let mut bucket = BudgetSettings::new(3.0, 0.0).build(0.0).unwrap();
    let mut a = p.start(0.0);
    // Three retries are decided at t = 0 and wait in backoff: all three are charged now.
    for _ in 0..3 {
        assert!(
            p.decide(
                &mut a,
                GET,
                &unavailable(),
                Now::simulated(0.0),
                Some(&mut bucket),
                &mut rng
            )
            .is_retry()
        );
    }
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(0.0),
        Some(&mut bucket),
        &mut rng,
    );
    assert!(
        matches!(d, Decision::Stop(StopReason::BudgetExhausted(_))),
        "{d:?}"
    );
    // The circuit is open: new requests fail fast.
    assert!(p.admit(Some(&mut bucket), 1.0).is_err());
    assert!(p.admit(None, 1.0).is_ok());
}

#[test]
fn a_request_that_cannot_be_retried_costs_no_token() {
    let p = policy(Strategy::Constant, 2);
    let mut rng = seeded(0);
    let mut bucket = BudgetSettings::new(1.0, 0.0).build(0.0).unwrap();
    // A failure the classifier does not retry is never charged.
    let mut a = p.start(0.0);
    let dns = Outcome::Transport(TransportError::Dns);
    let d = p.decide(
        &mut a,
        GET,
        &dns,
        Now::simulated(0.0),
        Some(&mut bucket),
        &mut rng,
    );
    assert!(
        matches!(d, Decision::Stop(StopReason::NotRetryable(_))),
        "{d:?}"
    );
    assert_eq!(bucket.tokens(0.0), 1.0);
    // Nor is a failure after the last allowed attempt: attempts are checked first.
    let mut a = p.start(0.0);
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(0.0),
        None,
        &mut rng,
    );
    assert!(d.is_retry(), "{d:?}");
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(0.0),
        Some(&mut bucket),
        &mut rng,
    );
    assert!(
        matches!(
            d,
            Decision::Stop(StopReason::AttemptsExhausted { made: 2, .. })
        ),
        "{d:?}"
    );
    assert_eq!(bucket.tokens(0.0), 1.0);
    // A retry that is really made costs the one token.
    let mut a = p.start(0.0);
    let d = p.decide(
        &mut a,
        GET,
        &unavailable(),
        Now::simulated(0.0),
        Some(&mut bucket),
        &mut rng,
    );
    assert!(d.is_retry(), "{d:?}");
    assert_eq!(bucket.tokens(0.0), 0.0);
}

#[test]
fn settings_are_validated() {
    let b = BackoffSettings::default();
    for (s, field) in [
        (PolicySettings::new(b, 0), "max_attempts"),
        (PolicySettings::new(b, 101), "max_attempts"),
        (
            PolicySettings::new(b, 3).with_max_elapsed_ms(Some(-1.0)),
            "max_elapsed",
        ),
        (
            PolicySettings::new(BackoffSettings::new(Strategy::Full, 10.0, 1.0), 3),
            "cap",
        ),
    ] {
        assert_eq!(s.build().unwrap_err().field, field);
    }
}

// ---- two clocks ----

/// 08:45:00 UTC on Thursday 3 December 2026, ms since the Unix epoch.
const WALL: f64 = 1_796_287_500_000.0;

#[test]
fn a_dated_retry_after_is_read_on_the_wall_clock() {
    let p = policy(Strategy::Full, 6);
    let mut rng = seeded(0);
    let dated = Outcome::with_headers(
        HttpStatus::new(503).unwrap(),
        [("Retry-After", "Thu, 03 Dec 2026 08:45:03 GMT")],
    );
    // 12.5 s into the program's monotonic clock, at 08:45:00 on the wall clock: the server
    // asked for three seconds, and gets them.
    let mut a = p.start(12_000.0);
    let d = p.decide(
        &mut a,
        GET,
        &dated,
        Now::new(12_500.0, WALL),
        None,
        &mut rng,
    );
    assert!(
        matches!(
            d,
            Decision::Retry {
                delay_ms: 3000.0,
                from_server: true,
                ..
            }
        ),
        "{d:?}"
    );
    // The trap the two clocks close: read against the monotonic clock, the same date is
    // 56 years away, past any max_retry_after, and the policy gives up.
    let mut a = p.start(12_000.0);
    let d = p.decide(
        &mut a,
        GET,
        &dated,
        Now::simulated(12_500.0),
        None,
        &mut rng,
    );
    assert!(
        matches!(
            d,
            Decision::Stop(StopReason::NotRetryable(Reason::HintTooLong { .. }))
        ),
        "{d:?}"
    );
}

/// Attempts ending one monotonic second apart while the wall clock jumps by `jumps[i]`
/// (ms); returns each decision and the bucket's tokens after it.
fn run_with_wall_jumps(p: &Policy, jumps: &[f64]) -> Vec<(Decision, f64)> {
    let mut rng = seeded(0);
    let mut bucket = BudgetSettings::new(3.0, 0.5).build(0.0).unwrap();
    let mut a = p.start(0.0);
    let mut wall = WALL;
    let mut out = vec![];
    for (i, jump) in jumps.iter().enumerate() {
        let mono = 1000.0 * i as f64;
        wall += 1000.0 + jump;
        let now = Now::new(mono, wall);
        let d = p.decide(
            &mut a,
            GET,
            &unavailable(),
            now,
            Some(&mut bucket),
            &mut rng,
        );
        out.push((d, bucket.tokens(mono)));
        if !d.is_retry() {
            break;
        }
    }
    out
}

#[test]
fn wall_clock_jumps_neither_refill_nor_drain_the_budget() {
    // 3 tokens, one back every 2 s, one spent per retry each second: 2, 1.5, 1, 0.5, 0,
    // then exhausted, one second short of a token. A day forward would refill the bucket
    // if it ran on the wall clock; a year back would freeze it.
    let p = policy(Strategy::Constant, 100);
    const DAY: f64 = 86_400_000.0;
    let jumps = [
        0.0,
        DAY,
        -2.0 * DAY,
        365.0 * DAY,
        -365.0 * DAY,
        -3_600_000.0,
    ];
    let got = run_with_wall_jumps(&p, &jumps);
    assert_eq!(got, run_with_wall_jumps(&p, &[0.0; 6]));
    let tokens: Vec<f64> = got.iter().map(|(_, t)| *t).collect();
    assert_eq!(tokens, [2.0, 1.5, 1.0, 0.5, 0.0, 0.5]);
    assert_eq!(
        got[5].0,
        Decision::Stop(StopReason::BudgetExhausted(
            crate::budget::BudgetExhausted {
                tokens: 0.5,
                retry_in_ms: 1000.0
            }
        ))
    );
}

#[test]
fn wall_clock_jumps_do_not_move_the_deadline() {
    // Retries 1 s apart, a 2.5 s deadline: the third would start at 3 s, too late, however
    // the wall clock jumps (a day back would extend the deadline on the wall clock, a day
    // forward would end it at once).
    let p = PolicySettings::new(
        BackoffSettings::new(Strategy::Constant, 1000.0, 1000.0),
        100,
    )
    .with_max_elapsed_ms(Some(2500.0))
    .build()
    .unwrap();
    for jumps in [[-86_400_000.0; 3], [86_400_000.0; 3], [0.0; 3]] {
        let got = run_with_wall_jumps(&p, &jumps);
        let decisions: Vec<Decision> = got.iter().map(|(d, _)| *d).collect();
        assert_eq!(decisions.len(), 3, "{jumps:?}: {decisions:?}");
        assert!(decisions[0].is_retry() && decisions[1].is_retry());
        assert_eq!(
            decisions[2],
            Decision::Stop(StopReason::DeadlineExceeded {
                at_ms: 3000.0,
                max_elapsed_ms: 2500.0
            }),
            "{jumps:?}"
        );
    }
}
