//! Every rule of the module docs, one test each, with exact times (nothing here is random).

use super::*;
use crate::SeededRng;
use crate::budget::{BudgetSettings, TokenBucket};
use crate::classify::{HttpStatus, Method, Outcome, TransportError};
use crate::policy::PolicySettings;
use crate::{Code, Got};
use rand::SeedableRng;

const GET: Request = Request::new(Method::Get);

/// The rules driven with a bucket (or nothing) for the call site's limits. A bucket draws
/// nothing from the RNG, so every time here stays exact.
trait Drive {
    fn due(&mut self, now: f64, bucket: Option<&mut TokenBucket>) -> HedgeStep;
    fn outcome(&mut self, v: &Verdict, now: f64, bucket: Option<&mut TokenBucket>) -> HedgeStep;
}

impl Drive for Hedge {
    fn due(&mut self, now: f64, bucket: Option<&mut TokenBucket>) -> HedgeStep {
        self.on_due(now, bucket, &mut SeededRng::seed_from_u64(0))
    }
    fn outcome(&mut self, v: &Verdict, now: f64, bucket: Option<&mut TokenBucket>) -> HedgeStep {
        self.on_outcome(v, now, bucket, &mut SeededRng::seed_from_u64(0))
    }
}

fn policy() -> Policy {
    PolicySettings::default().build().unwrap()
}

fn verdict(outcome: &Outcome<'_>) -> Verdict {
    policy().rules().classify(GET, outcome, 0.0)
}

fn status(code: u16) -> Verdict {
    verdict(&Outcome::response(HttpStatus::new(code).unwrap()))
}

fn pushback(ms: &str) -> Verdict {
    verdict(&Outcome::Response {
        status: HttpStatus::SERVICE_UNAVAILABLE,
        retry_after: None,
        pushback_ms: Some(ms),
    })
}

fn start(delay: f64, max: u32) -> Hedge {
    HedgingSettings::new(delay, max)
        .build()
        .unwrap()
        .start(&policy(), GET, 0.0)
}

fn is_success(step: HedgeStep) -> bool {
    matches!(step, HedgeStep::Done(StopReason::Succeeded(_)))
}

#[test]
fn defaults_are_pollys_and_ranges_are_grpcs() {
    let d = HedgingSettings::default();
    assert_eq!((d.delay_ms, d.max_attempts), (2000.0, 2));
    assert!(d.build().is_ok());
    for ok in [2, 5] {
        assert!(HedgingSettings::new(0.0, ok).validate().is_ok(), "{ok}");
    }
    for bad in [0, 1, 6, 100] {
        let e = HedgingSettings::new(10.0, bad).validate().unwrap_err();
        assert_eq!(
            (e.field, e.code()),
            (Field::HedgeMaxAttempts, Code::OutOfRange)
        );
    }
    for bad in [-1.0, f64::NAN, f64::INFINITY, 86_400_001.0] {
        let e = HedgingSettings::new(bad, 2).validate().unwrap_err();
        assert_eq!(e.field, Field::HedgeDelay);
        assert!(matches!(e.got, Got::Number(n) if n.to_bits() == bad.to_bits()));
    }
    assert_eq!(
        HedgingSettings::new(10.0, 6)
            .validate()
            .unwrap_err()
            .to_string(),
        "hedge_max_attempts: expected a whole number from 2 to 5, got 6"
    );
}

#[test]
fn a_hedge_goes_out_each_delay_without_an_answer_up_to_max() {
    let mut h = start(100.0, 3);
    assert_eq!((h.sent(), h.in_flight(), h.hedges()), (1, 1, 0));
    assert_eq!(h.next_due_ms(), Some(100.0));
    // A timer that fires early (stale) does nothing.
    assert_eq!(h.due(99.0, None), HedgeStep::Wait);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    // The delay counts from the last attempt sent.
    assert_eq!(h.next_due_ms(), Some(200.0));
    assert_eq!(h.due(200.0, None), HedgeStep::Send);
    assert_eq!((h.sent(), h.in_flight(), h.hedges()), (3, 3, 2));
    assert_eq!(h.next_due_ms(), None, "all three sent");
    assert_eq!(h.due(300.0, None), HedgeStep::Wait);
}

#[test]
fn a_delay_of_zero_sends_every_attempt_at_once() {
    let mut h = start(0.0, 4);
    let mut sent = 0;
    while let Some(t) = h.next_due_ms() {
        assert_eq!(t, 0.0);
        assert_eq!(h.due(t, None), HedgeStep::Send);
        sent += 1;
    }
    assert_eq!((sent, h.sent(), h.in_flight()), (3, 4, 4));
}

#[test]
fn the_first_success_wins_and_later_answers_change_nothing() {
    let mut h = start(100.0, 3);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    let step = h.outcome(&status(200), 150.0, None);
    assert!(is_success(step), "{step:?}");
    assert!(h.is_done());
    assert_eq!(h.next_due_ms(), None, "no hedge after the win");
    // The loser's answer (the caller should have cancelled it) is ignored.
    assert_eq!(h.outcome(&status(503), 160.0, None), HedgeStep::Wait);
    assert_eq!(h.due(200.0, None), HedgeStep::Wait);
    assert_eq!(h.sent(), 2);
}

#[test]
fn a_fatal_failure_ends_the_request_at_once() {
    let mut h = start(100.0, 3);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    // 404 is not retried: fatal, though an attempt is still in flight.
    let step = h.outcome(&status(404), 120.0, None);
    assert!(
        matches!(
            step,
            HedgeStep::Done(StopReason::NotRetryable(Reason::ClientError(_)))
        ),
        "{step:?}"
    );
    assert!(h.is_done());
    let mut h = start(100.0, 3);
    let aborted = verdict(&Outcome::Transport(TransportError::Abort));
    assert!(matches!(
        h.outcome(&aborted, 1.0, None),
        HedgeStep::Done(StopReason::NotRetryable(Reason::Aborted))
    ));
}

#[test]
fn a_non_fatal_failure_sends_the_next_hedge_at_once() {
    let mut h = start(100.0, 3);
    // 503 at 30 ms, long before the delay: the hedge goes now.
    assert_eq!(h.outcome(&status(503), 30.0, None), HedgeStep::Send);
    assert_eq!((h.sent(), h.in_flight()), (2, 1));
    // The delay restarts from that hedge.
    assert_eq!(h.next_due_ms(), Some(130.0));
    // A timeout is non-fatal too.
    let timeout = verdict(&Outcome::Transport(TransportError::Timeout));
    assert_eq!(h.outcome(&timeout, 40.0, None), HedgeStep::Send);
    assert_eq!((h.sent(), h.in_flight(), h.next_due_ms()), (3, 1, None));
}

#[test]
fn it_gives_up_when_every_attempt_was_sent_and_failed() {
    let mut h = start(100.0, 2);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    // One of two fails: the other is still in flight.
    assert_eq!(h.outcome(&status(503), 110.0, None), HedgeStep::Wait);
    let step = h.outcome(&status(500), 120.0, None);
    let HedgeStep::Done(StopReason::AttemptsExhausted { made, last }) = step else {
        panic!("{step:?}")
    };
    assert_eq!(made, 2);
    assert_eq!(
        last,
        Reason::RetryableStatus(HttpStatus::INTERNAL_SERVER_ERROR)
    );
    assert!(h.is_done());
}

#[test]
fn pushback_delays_the_next_hedge() {
    let mut h = start(100.0, 3);
    // A pushback of 250 ms: the next hedge is due then, not at once.
    assert_eq!(h.outcome(&pushback("250"), 10.0, None), HedgeStep::Wait);
    assert_eq!(h.next_due_ms(), Some(260.0));
    assert_eq!(h.due(259.0, None), HedgeStep::Wait);
    assert_eq!(h.due(260.0, None), HedgeStep::Send);
    // A pushback of 0 is "now".
    assert_eq!(h.outcome(&pushback("0"), 270.0, None), HedgeStep::Send);
    assert_eq!(h.sent(), 3);
    // Retry-After, the HTTP counterpart, delays it too: never sooner than asked.
    let mut h = start(100.0, 2);
    let after = verdict(&Outcome::Response {
        status: HttpStatus::SERVICE_UNAVAILABLE,
        retry_after: Some("2"),
        pushback_ms: None,
    });
    assert_eq!(h.outcome(&after, 10.0, None), HedgeStep::Wait);
    assert_eq!(h.next_due_ms(), Some(2010.0));
}

#[test]
fn a_pushback_that_says_stop_ends_hedging_but_not_the_attempts_in_flight() {
    for stop in ["-1", "soon"] {
        let mut h = start(100.0, 4);
        assert_eq!(h.due(100.0, None), HedgeStep::Send);
        assert_eq!(h.outcome(&pushback(stop), 110.0, None), HedgeStep::Wait);
        assert!(!h.is_done(), "{stop}: the second attempt goes on");
        assert_eq!(h.next_due_ms(), None, "{stop}: no more hedges");
        assert_eq!(h.due(200.0, None), HedgeStep::Wait);
        // It may still win…
        let mut won = h;
        assert!(is_success(won.outcome(&status(200), 150.0, None)));
        // …or fail, and then the request stops for the server's reason.
        let step = h.outcome(&status(503), 150.0, None);
        assert!(
            matches!(
                step,
                HedgeStep::Done(StopReason::NotRetryable(
                    Reason::PushbackStop | Reason::PushbackMalformed
                ))
            ),
            "{stop}: {step:?}"
        );
        assert_eq!(h.sent(), 2);
    }
    // With nothing else in flight, it stops at once.
    let mut h = start(100.0, 4);
    assert!(matches!(
        h.outcome(&pushback("-5"), 10.0, None),
        HedgeStep::Done(StopReason::NotRetryable(Reason::PushbackStop))
    ));
}

#[test]
fn a_request_that_may_not_be_repeated_is_never_hedged() {
    let hedging = HedgingSettings::new(10.0, 5).build().unwrap();
    let post = Request::new(Method::Post);
    let mut h = hedging.start(&policy(), post, 0.0);
    assert_eq!(h.next_due_ms(), None);
    assert_eq!(h.due(10.0, None), HedgeStep::Wait);
    let failed = policy().rules().classify(
        post,
        &Outcome::response(HttpStatus::SERVICE_UNAVAILABLE),
        0.0,
    );
    assert!(matches!(
        h.outcome(&failed, 20.0, None),
        HedgeStep::Done(StopReason::NotRetryable(Reason::NotIdempotent(
            Method::Post
        )))
    ));
    assert_eq!(h.sent(), 1);
    // Marked idempotent (an idempotency key), it is.
    let h = hedging.start(&policy(), post.idempotent(true), 0.0);
    assert_eq!(h.next_due_ms(), Some(10.0));
}

#[test]
fn hedges_are_charged_to_the_budget_when_decided() {
    // Two tokens, no refill, a success refunds one.
    let settings = BudgetSettings::new(2.0, 0.0).with_success_refund(1.0);
    let mut bucket = settings.build(0.0).unwrap();
    let mut h = start(100.0, 5);
    assert_eq!(h.due(100.0, Some(&mut bucket)), HedgeStep::Send);
    assert_eq!(h.due(200.0, Some(&mut bucket)), HedgeStep::Send);
    assert_eq!(
        bucket.tokens(200.0),
        0.0,
        "each hedge cost a token as it went"
    );
    // The third is refused; the three in flight go on, and no timer is left.
    assert_eq!(h.due(300.0, Some(&mut bucket)), HedgeStep::Wait);
    assert_eq!((h.sent(), h.in_flight(), h.next_due_ms()), (3, 3, None));
    // A failure asks the budget again: still empty, others still in flight.
    assert_eq!(
        h.outcome(&status(503), 310.0, Some(&mut bucket)),
        HedgeStep::Wait
    );
    assert_eq!(
        h.outcome(&status(503), 320.0, Some(&mut bucket)),
        HedgeStep::Wait
    );
    // The last one fails with nothing left in flight: the budget's error.
    let step = h.outcome(&status(503), 330.0, Some(&mut bucket));
    assert!(
        matches!(step, HedgeStep::Done(StopReason::BudgetExhausted(_))),
        "{step:?}"
    );
    // A success puts the refund back, as after a retry.
    let mut h = start(100.0, 2);
    assert!(is_success(h.outcome(&status(200), 50.0, Some(&mut bucket))));
    assert_eq!(bucket.tokens(50.0), 1.0);
}

#[test]
fn no_hedge_starts_past_the_deadline() {
    let p = PolicySettings::default()
        .with_max_elapsed_ms(Some(150.0))
        .build()
        .unwrap();
    let hedging = HedgingSettings::new(100.0, 4).build().unwrap();
    let mut h = hedging.start(&p, GET, 1000.0);
    assert_eq!(h.due(1100.0, None), HedgeStep::Send);
    // Due at 1200, 200 ms after the start: past 150 ms. One attempt is still out.
    assert_eq!(h.due(1200.0, None), HedgeStep::Wait);
    assert_eq!(h.next_due_ms(), None);
    assert_eq!(h.outcome(&status(503), 1210.0, None), HedgeStep::Wait);
    let step = h.outcome(&status(503), 1220.0, None);
    assert!(
        matches!(
            step,
            HedgeStep::Done(StopReason::DeadlineExceeded { at_ms, max_elapsed_ms })
                if at_ms == 200.0 && max_elapsed_ms == 150.0
        ),
        "{step:?}"
    );
    // A server's hint that puts the next hedge past the deadline, nothing in flight: it
    // stops at once, not when the hint runs out (a Retry-After of a minute would otherwise
    // hold a 150 ms deadline's call for a minute).
    let mut h = hedging.start(&p, GET, 0.0);
    let step = h.outcome(&pushback("400"), 10.0, None);
    assert!(
        matches!(
            step,
            HedgeStep::Done(StopReason::DeadlineExceeded { at_ms, max_elapsed_ms })
                if at_ms == 410.0 && max_elapsed_ms == 150.0
        ),
        "{step:?}"
    );
    // With an attempt in flight: no more hedges, and the last answer ends it.
    let mut h = hedging.start(&p, GET, 0.0);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    assert_eq!(h.outcome(&pushback("140"), 110.0, None), HedgeStep::Wait);
    assert_eq!(h.next_due_ms(), None, "no hedge will be sent");
    assert!(matches!(
        h.outcome(&status(503), 120.0, None),
        HedgeStep::Done(StopReason::DeadlineExceeded { at_ms, .. }) if at_ms == 250.0
    ));
    // A hint that ends before the deadline still delays the next hedge.
    let mut h = hedging.start(&p, GET, 0.0);
    assert_eq!(h.outcome(&pushback("100"), 10.0, None), HedgeStep::Wait);
    assert_eq!(h.next_due_ms(), Some(110.0));
}

/// Whatever the order of events, a hedged request sends at most `max` attempts, never
/// reports more in flight than sent, and ends exactly once.
#[test]
fn bounds_hold_over_random_sequences() {
    use rand::RngExt;
    let mut rng = crate::seeded(12);
    let answers = [
        status(200),
        status(503),
        status(404),
        pushback("-1"),
        pushback("30"),
    ];
    for _ in 0..2000 {
        let max = rng.random_range(2..=5);
        let mut h = start(rng.random_range(0.0..50.0), max);
        let mut bucket = BudgetSettings::new(3.0, 1.0).build(0.0).unwrap();
        let (mut now, mut ends) = (0.0, 0);
        for _ in 0..40 {
            now += rng.random_range(0.0..40.0);
            let step = if h.in_flight() > 0 && rng.random::<bool>() {
                let v = &answers[rng.random_range(0..answers.len())];
                h.outcome(v, now, Some(&mut bucket))
            } else {
                h.due(now, Some(&mut bucket))
            };
            assert!(h.sent() <= max && h.in_flight() <= h.sent());
            if matches!(step, HedgeStep::Done(_)) {
                ends += 1;
            }
            if h.in_flight() == 0 && !h.is_done() {
                assert!(h.next_due_ms().is_some(), "idle with nothing to wait for");
            }
        }
        assert!(ends <= 1);
        assert_eq!(ends == 1, h.is_done());
    }
}

// ---- A call site's Guard as the gate (retryFetch's case) ----

fn guard(settings: crate::nets::GuardSettings) -> crate::nets::Guard {
    settings.build(0.0).unwrap()
}

#[test]
fn a_guard_charges_hedges_and_hears_every_answer() {
    use crate::nets::{BudgetKind, GrpcSettings, GuardSettings};
    // gRPC throttling (4, 1): a failure takes a token; hedges only while tokens > 2.
    let grpc = GrpcSettings {
        max_tokens: 4.0,
        token_ratio: 1.0,
    };
    let mut g = guard(GuardSettings {
        budget: Some(BudgetKind::Grpc(grpc)),
        ..GuardSettings::default()
    });
    let mut rng = crate::seeded(1);
    let mut h = start(1000.0, 5);
    // 4 → 3 (> 2): the next hedge at once.
    assert_eq!(
        h.on_outcome(&status(503), 1.0, Some(&mut g), &mut rng),
        HedgeStep::Send
    );
    // 3 → 2: refused, and with nothing in flight the request stops with the budget's error.
    assert!(matches!(
        h.on_outcome(&status(503), 2.0, Some(&mut g), &mut rng),
        HedgeStep::Done(StopReason::BudgetExhausted(_))
    ));
    let Some(crate::nets::Budget::Grpc(t)) = g.budget() else {
        panic!("a gRPC budget")
    };
    assert_eq!(t.tokens(), 2.0);
}

#[test]
fn an_open_breaker_refuses_a_hedge_with_its_own_reason() {
    use crate::nets::{BreakerMode, BreakerSettings, GuardSettings};
    let mut g = guard(GuardSettings {
        breaker: Some(BreakerSettings {
            failure_ratio: 0.5,
            min_throughput: 1,
            mode: BreakerMode::Retries,
            ..BreakerSettings::default()
        }),
        ..GuardSettings::default()
    });
    let mut rng = crate::seeded(1);
    // The timer's hedge goes while the circuit is closed.
    let mut h = start(10.0, 3);
    assert_eq!(h.on_due(10.0, Some(&mut g), &mut rng), HedgeStep::Send);
    // A failure opens it (1 of 1); the hedge it would trigger is refused, the other
    // attempt goes on.
    assert_eq!(
        h.on_outcome(&status(503), 15.0, Some(&mut g), &mut rng),
        HedgeStep::Wait
    );
    assert!(matches!(
        h.on_outcome(&status(503), 16.0, Some(&mut g), &mut rng),
        HedgeStep::Done(StopReason::CircuitOpen(_))
    ));
    assert_eq!(h.sent(), 2);
}

#[test]
fn with_a_bucket_only_the_guarded_rules_are_the_bucket_rules() {
    use crate::nets::{BudgetKind, GuardSettings};
    let settings = BudgetSettings::new(2.0, 0.0).with_success_refund(0.5);
    let mut bucket = settings.build(0.0).unwrap();
    let mut g = guard(GuardSettings {
        budget: Some(BudgetKind::Bucket(settings)),
        ..GuardSettings::default()
    });
    let mut rng = crate::seeded(1);
    let (mut a, mut b) = (start(10.0, 4), start(10.0, 4));
    let steps = [
        (10.0, None),
        (12.0, Some(503)),
        (20.0, None),
        (25.0, Some(200)),
    ];
    for (t, answer) in steps {
        let (x, y) = match answer {
            None => (
                a.due(t, Some(&mut bucket)),
                b.on_due(t, Some(&mut g), &mut rng),
            ),
            Some(code) => (
                a.outcome(&status(code), t, Some(&mut bucket)),
                b.on_outcome(&status(code), t, Some(&mut g), &mut rng),
            ),
        };
        assert_eq!(x, y, "at {t} ms");
    }
    let Some(crate::nets::Budget::Bucket(gb)) = g.budget() else {
        panic!("a bucket")
    };
    assert_eq!(gb.tokens(30.0), bucket.tokens(30.0));
}

#[test]
fn a_hedge_held_back_past_the_deadline_is_not_sent() {
    let p = PolicySettings::default()
        .with_max_elapsed_ms(Some(150.0))
        .build()
        .unwrap();
    let hedging = HedgingSettings::new(100.0, 4).build().unwrap();
    // A 503 at 30 ms decides the next hedge at once; its caller sends it at 60 ms: it goes.
    let mut h = hedging.start(&p, GET, 0.0);
    assert_eq!(h.outcome(&status(503), 30.0, None), HedgeStep::Send);
    assert_eq!(h.may_send(60.0), HedgeStep::Send);
    assert_eq!((h.sent(), h.in_flight()), (2, 1));
    // Decided at 30 ms, held until the 150 ms deadline (a slow callback): taken back, and
    // with nothing in flight the request stops at the deadline.
    let mut h = hedging.start(&p, GET, 0.0);
    assert_eq!(h.outcome(&status(503), 30.0, None), HedgeStep::Send);
    let step = h.may_send(150.0);
    assert!(
        matches!(
            step,
            HedgeStep::Done(StopReason::DeadlineExceeded { at_ms, max_elapsed_ms })
                if at_ms == 150.0 && max_elapsed_ms == 150.0
        ),
        "{step:?}"
    );
    assert_eq!((h.sent(), h.in_flight(), h.next_due_ms()), (1, 0, None));
    // With another attempt still out, it waits for that one, and sends no more hedges.
    let mut h = hedging.start(&p, GET, 0.0);
    assert_eq!(h.due(100.0, None), HedgeStep::Send);
    assert_eq!(h.outcome(&status(503), 110.0, None), HedgeStep::Send);
    assert_eq!(h.may_send(160.0), HedgeStep::Wait);
    assert_eq!((h.sent(), h.in_flight(), h.next_due_ms()), (2, 1, None));
    assert!(matches!(
        h.outcome(&status(503), 170.0, None),
        HedgeStep::Done(StopReason::DeadlineExceeded { at_ms, .. }) if at_ms == 160.0
    ));
}
