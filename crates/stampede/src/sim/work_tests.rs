//! The work bounds: runs refused up front. (The bounds checked as a run goes, a closed loop
//! past its attempts and a run holding too much pending: `work_run_tests.rs`.)

use super::*;
use crate::backoff::{BackoffSettings, Strategy};
use crate::policy::PolicySettings;
use crate::sim::run_many;

#[path = "work_steady_tests.rs"]
mod steady;

fn burst(clients: u32, attempts: u32) -> SimSettings {
    SimSettings {
        clients,
        policy: PolicySettings::new(
            BackoffSettings::new(Strategy::Full, 100.0, 30_000.0),
            attempts,
        ),
        ..SimSettings::default()
    }
}

fn refused_runs(s: &SimSettings, runs: u32) -> Option<f64> {
    match super::super::check_runs(s, runs) {
        Ok(()) => None,
        Err(e) => {
            assert_eq!(
                (e.field, e.got),
                (Field::Runs, Got::Number(f64::from(runs)))
            );
            match e.expected {
                Expected::Work {
                    max,
                    bound: WorkBound::Runs,
                } => Some(max),
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn runs_together_make_at_most_one_largest_run() {
    // 1,000,000 clients × 6 attempts = 6 M a run: three fit in 20 M, four do not.
    let million = burst(1_000_000, 6);
    assert_eq!(refused_runs(&million, 3), None);
    assert_eq!(refused_runs(&million, 4), Some(3.0));
    // The case that ran for an hour: 100,000 clients 100,000 times (600,000 a run).
    assert_eq!(refused_runs(&burst(100_000, 6), 100_000), Some(33.0));
    // With a client timeout, a third: 6,666,666 / 600,000 = 11.
    let timed = SimSettings {
        timeout_ms: Some(1000.0),
        ..burst(100_000, 6)
    };
    assert_eq!(refused_runs(&timed, 12), Some(11.0));
    assert_eq!(refused_runs(&timed, 11), None);
    // A run at its own bound still runs once: the most that fit is never 0.
    assert_eq!(refused_runs(&burst(1_000_000, 20), 1), None);
    assert_eq!(refused_runs(&burst(1_000_000, 20), 2), Some(1.0));
    // A run's setup counts however few attempts it makes: 100,000 runs of two clients
    // and 10,000 servers set up 10,000 servers 100,000 times (21 s natively).
    let fleet = SimSettings {
        servers: 10_000,
        ..burst(2, 6)
    };
    assert_eq!(
        refused_runs(&fleet, 100_000),
        Some((20_000_000.0_f64 / (12.0 + 110.0 + 2_000.0)).floor())
    );
    assert_eq!(refused_runs(&burst(1, 1), 100_000), None);
    // run_many refuses before it runs anything, with the same error.
    let e = run_many(&million, 4).unwrap_err();
    assert_eq!(
        (e.field, e.code()),
        (Field::Runs, crate::error::Code::TooMuchWork)
    );
    // Settings that are bad on their own are named as before, not as runs.
    let bad = SimSettings {
        clients: 0,
        ..burst(10, 6)
    };
    assert_eq!(
        super::super::check_runs(&bad, 1).unwrap_err().field,
        Field::Clients
    );
}

/// A closed loop whose cycle is almost nothing (no think, no latency, a nanosecond of
/// service): not even the shortest duration fits, so the error names `think`, with the
/// least that fits there; that think (at the shortest duration) runs, a ms less does not.
#[test]
fn a_closed_loop_no_duration_fits_names_think_at_least() {
    let s = SimSettings {
        scenario: Scenario::Closed,
        clients: 1_000_000,
        think_ms: 0.0,
        latency_ms: 0.0,
        workers: Some(1),
        service_ms: 1e-6,
        ..SimSettings::default()
    };
    let e = s.check().map(|_| ()).unwrap_err();
    assert_eq!(e.field, Field::Think, "{e}");
    assert_eq!(e.code(), crate::error::Code::TooMuchWork);
    let Expected::WorkAtLeast { min, bound } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::ClosedThink);
    // 20,000,000 attempts / 6 per request = 3,333,333 requests: a million clients in 1 ms
    // need a cycle of 0.3 ms, so a think of 1 ms (whole ms, rounded up).
    assert_eq!(min, 1.0);
    assert!(
        e.to_string()
            .starts_with("think: expected at least 1 ms of think with these clients"),
        "{e}"
    );
    let shortest = |think_ms| SimSettings {
        think_ms,
        duration_ms: 1.0,
        ..s.clone()
    };
    assert!(shortest(min).check().is_ok());
    // With more attempts, a timeout or layers, fewer requests fit. A million clients then
    // send too many first requests alone, at any duration or think: the attempts (or
    // layers) are named, and the most named fits (the run is then refused, if at all, for
    // its think). Fewer clients: the least think passes every check, a ms less does not.
    let policy = |attempts| {
        PolicySettings::new(
            BackoffSettings::new(Strategy::Full, 100.0, 30_000.0),
            attempts,
        )
    };
    for clients in [1_000_000, 10_000] {
        for (timeout_ms, layers, attempts) in [
            (None, 1, 100),
            (Some(10.0), 1, 100),
            (None, 3, 6),
            (Some(10.0), 2, 10),
        ] {
            let case = format!(
                "{clients} clients, timeout {timeout_ms:?}, {layers} layers, {attempts} attempts"
            );
            let with = |think_ms, attempts, layers| SimSettings {
                clients,
                think_ms,
                duration_ms: 1.0,
                timeout_ms,
                layers,
                policy: policy(attempts),
                ..s.clone()
            };
            let e = with(0.0, attempts, layers).check().map(|_| ()).unwrap_err();
            match e.expected {
                Expected::WorkAtLeast { min, .. } => {
                    assert!(clients < 1_000_000, "{case}: {e}");
                    assert!(with(min, attempts, layers).check().is_ok(), "{case}: {min}");
                    assert!(with(min - 1.0, attempts, layers).check().is_err(), "{case}");
                }
                Expected::Work { max, .. } => {
                    assert_eq!(clients, 1_000_000, "{case}: {e}");
                    let fixed = match e.field {
                        Field::MaxAttempts => with(1.0, max as u32, layers),
                        Field::Layers => with(1.0, attempts.min(1), max as u32),
                        _ => panic!("{case}: {e}"),
                    };
                    assert!(fixed.check().is_ok(), "{case}: {e}");
                }
                _ => panic!("{case}: {e}"),
            }
        }
    }
    // One request's attempts alone past the bound (100 attempts at each of 10 layers): the
    // layers are named, not a think that no value of would fix.
    let e = SimSettings {
        layers: 10,
        policy: policy(100),
        ..s.clone()
    }
    .check()
    .map(|_| ())
    .unwrap_err();
    assert!(matches!(e.field, Field::Layers | Field::MaxAttempts), "{e}");
    // What it names fits the clients' first requests (a million of them, not one): at that
    // value, a refusal, if any, is for the duration or think.
    let Expected::Work { max, .. } = e.expected else {
        panic!("{e}")
    };
    let (layers, attempts) = match e.field {
        Field::Layers => (max as u32, 1),
        _ => (10, max as u32),
    };
    let next = SimSettings {
        layers,
        policy: policy(attempts),
        ..s.clone()
    }
    .check()
    .map(|_| ())
    .err();
    assert!(
        next.as_ref()
            .is_none_or(|n| !matches!(n.field, Field::Layers | Field::MaxAttempts)),
        "{e} -> {next:?}"
    );
    // Every client sends a first request, however short the run: a million clients with a
    // timeout and 20 attempts are 20,000,000 attempts at any duration (the estimate of
    // clients × duration / cycle said 300,000 requests at 6 ms, and let a 7 s run through).
    // The attempts are named, with the most that fit a million requests.
    let e = SimSettings {
        duration_ms: 6.0,
        timeout_ms: Some(1.0),
        policy: policy(20),
        ..s.clone()
    }
    .check()
    .map(|_| ())
    .unwrap_err();
    assert_eq!(e.field, Field::MaxAttempts, "{e}");
    let Expected::Work { max, .. } = e.expected else {
        panic!("{e}")
    };
    assert_eq!(max, 6.0, "{e}");
    // Where a duration fits, the duration is still the one named.
    let e = SimSettings { think_ms: 1.0, ..s }
        .check()
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.field, Field::Duration, "{e}");
}

/// A closed loop whose requests fail at once (an outage during the run) cycles without its
/// service time: with no think and no latency, in no time at all. The page's hostile link
/// (a 10-minute outage, no backoff, 20 attempts) was accepted at 100,000 ms and cut at its
/// bound after seconds of work; now it is refused up front, naming the least think, and
/// with that think the longest duration, which fits.
#[test]
fn a_closed_loop_in_an_outage_is_bounded_without_its_service_time() {
    let s = SimSettings {
        scenario: Scenario::Closed,
        clients: 100,
        think_ms: 0.0,
        latency_ms: 0.0,
        outage_start_ms: 10_000.0,
        outage_ms: 600_000.0,
        duration_ms: 120_000.0,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 20),
        ..SimSettings::default()
    };
    let e = s.check().map(|_| ()).unwrap_err();
    assert_eq!(e.field, Field::Think, "{e}");
    assert!(
        matches!(e.expected, Expected::WorkAtLeast { min, .. } if min == 1.0),
        "{e}"
    );
    let thinking = SimSettings {
        think_ms: 1.0,
        ..s.clone()
    };
    let e = thinking.check().map(|_| ()).unwrap_err();
    let Expected::Work { max, bound } = e.expected else {
        panic!("{e}")
    };
    assert_eq!(
        (e.field, bound),
        (Field::Duration, WorkBound::ClosedRequests)
    );
    // 20,000,000 attempts halved (a request's life within a millisecond), 20 a request:
    // 500,000 requests of 100 clients, one a ms each: 5,000 ms.
    assert_eq!(max, 5_000.0);
    let fits = SimSettings {
        duration_ms: max,
        ..thinking
    };
    assert!(fits.check().is_ok());
    // Without the outage, the service time counts: twenty times that duration fits (with a
    // trip of 1 ms, so that a request's life is not within one millisecond either).
    let healthy = SimSettings {
        outage_ms: 0.0,
        latency_ms: 1.0,
        ..s
    };
    let most = match healthy.check() {
        Ok(_) => healthy.duration_ms,
        Err(e) => match e.expected {
            Expected::Work { max, .. } => max,
            _ => panic!("{e}"),
        },
    };
    assert!(most >= 20.0 * 5_000.0, "{most}");
}

#[test]
fn aws_occ_runs_are_bounded_by_writes() {
    let occ = |clients| SimSettings {
        scenario: Scenario::AwsOcc,
        ..burst(clients, 6)
    };
    // The AWS experiment's largest point, 190 clients (18,145 writes at most a run),
    // keeps its 100 runs with room to spare: 5,511 fit.
    assert_eq!(refused_runs(&occ(190), 100), None);
    assert_eq!(refused_runs(&occ(190), 6000), Some(5511.0));
    // 5,000 clients: 12,502,500 a run, 7 fit.
    assert_eq!(refused_runs(&occ(5000), 7), None);
    assert_eq!(refused_runs(&occ(5000), 8), Some(7.0));
}

/// The bound's error for `s`: its field and the most it takes.
fn refusal(s: &SimSettings) -> (Field, f64, WorkBound) {
    let e = s.validate().unwrap_err();
    match e.expected {
        Expected::Work { max, bound } => (e.field, max, bound),
        other => panic!("{other:?}"),
    }
}

#[test]
fn requests_too_many_at_the_fewest_attempts_name_the_clients_or_the_rate() {
    use crate::hedge::HedgingSettings;
    use crate::nets::{BreakerSettings, GuardSettings};
    let breaker = GuardSettings {
        breaker: Some(BreakerSettings::default()),
        ..GuardSettings::default()
    };
    // A million hedged clients with a breaker: 20 M / (6 × 2) attempts, fewer than 2 a
    // client. This named the hedged attempts with "at most 1", which they cannot be.
    let hedged = |clients| SimSettings {
        hedging: Some(HedgingSettings::new(10.0, 2)),
        nets: breaker,
        budget_scope: crate::sim::BudgetScope::Shared,
        ..burst(clients, 6)
    };
    let (field, max, bound) = refusal(&hedged(1_000_000));
    assert_eq!((field, bound), (Field::Clients, WorkBound::RunClients));
    // The most that fit do fit, and one more does not.
    assert_eq!(max, (20_000_000.0_f64 / 12.0 / 2.0).floor());
    assert!(hedged(max as u32).validate().is_ok());
    assert_eq!(refusal(&hedged(max as u32 + 1)).0, Field::Clients);
    // A steady load that passes the bound at one attempt a request (5 M requests against
    // 4 M with a breaker) names the rate, with the largest that fits: "--attempts: at most
    // 0" before.
    let steady = |rate| SimSettings {
        scenario: Scenario::Steady,
        rate_per_client: rate,
        duration_ms: 1000.0,
        nets: breaker,
        ..burst(100_000, 1)
    };
    let (field, max, bound) = refusal(&steady(50.0));
    assert_eq!((field, bound), (Field::Rate, WorkBound::SteadyRequests));
    assert!(max < 50.0 && max > 0.0, "{max}");
    assert!(
        steady(max).validate().is_ok(),
        "the largest rate named fits"
    );
    assert_eq!(refusal(&steady(max * 1.01)).0, Field::Rate);
    // Written to the thousandth toward the side that fits: 150,000 clients' largest rate is
    // 26.6666…, written 26.667 when rounded, which was then refused.
    let wide = |rate| SimSettings {
        clients: 150_000,
        ..steady(rate)
    };
    let e = wide(30.0).validate().unwrap_err();
    assert!(
        e.to_string()
            .starts_with("rate: expected at most 26.666 per client"),
        "{e}"
    );
    assert!(wide(26.666).validate().is_ok());
    // With room for some attempts, the attempts are named as before.
    let (field, max, bound) = refusal(&SimSettings {
        nets: breaker,
        budget_scope: crate::sim::BudgetScope::Shared,
        ..burst(1_000_000, 20)
    });
    assert_eq!(
        (field, max, bound),
        (Field::MaxAttempts, 10.0, WorkBound::RunAttempts)
    );
}

#[test]
fn waits_of_more_than_ten_minutes_take_a_third_of_the_bound() {
    let run = |strategy, base: f64, cap: f64, attempts| SimSettings {
        policy: PolicySettings::new(BackoffSettings::new(strategy, base, cap), attempts),
        ..burst(1_000_000, attempts)
    };
    // The hostile pass's case: a million clients, 20 attempts, waits of up to a day (11 s
    // in wasm). A third of 20 M is 6,666,666 attempts: 6 a client.
    let (field, max, bound) = refusal(&run(Strategy::Full, 86_400_000.0, 86_400_000.0, 20));
    assert_eq!(
        (field, max, bound),
        (Field::MaxAttempts, 6.0, WorkBound::RunAttempts)
    );
    assert!(
        run(Strategy::Full, 86_400_000.0, 86_400_000.0, 6)
            .validate()
            .is_ok()
    );
    // Capped at 30 s, within the wheel: the whole bound.
    assert!(run(Strategy::Full, 1000.0, 30_000.0, 20).validate().is_ok());
    // What counts is the longest wait the policy can make, not the cap: from 200 ms,
    // doubling, the fifth retry waits at most 3.2 s however far the cap is...
    assert!(
        run(Strategy::Exponential, 200.0, 86_400_000.0, 6)
            .validate()
            .is_ok()
    );
    // ...and the decorrelated strategies can reach theirs.
    assert_eq!(
        refusal(&run(Strategy::Decorrelated, 200.0, 86_400_000.0, 20)).1,
        6.0
    );
    // Up to 10 minutes, no: capped at 2 minutes the run takes as long as at 30 s.
    assert!(
        run(Strategy::Full, 1000.0, 120_000.0, 20)
            .validate()
            .is_ok()
    );
    assert!(
        run(Strategy::Full, 1000.0, 600_000.0, 20)
            .validate()
            .is_ok()
    );
    assert_eq!(refusal(&run(Strategy::Full, 1000.0, 600_001.0, 20)).1, 6.0);
    // A long Retry-After counts too, when the policy waits that long (by default it stops
    // past 60 s instead)...
    let retry_after = |max_retry_after| {
        let mut s = SimSettings {
            retry_after_ms: Some(900_000.0),
            ..run(Strategy::Full, 1000.0, 30_000.0, 20)
        };
        s.policy = s.policy.with_rules(
            crate::classify::RetryRules::default()
                .with_max_retry_after_ms(max_retry_after)
                .unwrap(),
        );
        s
    };
    assert_eq!(refusal(&retry_after(3_600_000.0)).1, 6.0);
    assert!(retry_after(60_000.0).validate().is_ok());
    // ...and so does a long hedge delay, which then alone counts (hedging replaces the
    // backoff: a constant 15 minutes beside it waits nowhere).
    let hedged = |delay| SimSettings {
        hedging: Some(crate::hedge::HedgingSettings::new(delay, 3)),
        ..burst(1_000_000, 6)
    };
    assert!(hedged(10.0).validate().is_ok());
    assert!(hedged(600_000.0).validate().is_ok());
    let far_backoff = SimSettings {
        policy: PolicySettings::new(
            BackoffSettings::new(Strategy::Constant, 900_000.0, 900_000.0),
            6,
        ),
        ..hedged(10.0)
    };
    assert!(far_backoff.validate().is_ok());
    assert_eq!(refusal(&hedged(900_000.0)).0, Field::Clients);
}

/// Any event more than 10 minutes ahead counts, not only a retry's wait: a timeout's timer,
/// a service time, the burst's window (each 20 attempts of a million clients: a
/// third of the bound, 6 each).
#[test]
fn any_event_ten_minutes_ahead_takes_a_third_of_the_bound() {
    let plain = || {
        let mut s = burst(1_000_000, 20);
        s.policy = PolicySettings::new(BackoffSettings::new(Strategy::Full, 100.0, 1000.0), 20);
        s
    };
    assert!(plain().validate().is_ok());
    let far = 600_001.0;
    let cases = [
        SimSettings {
            timeout_ms: Some(far),
            ..burst(200_000, 20)
        },
        SimSettings {
            service_ms: far,
            workers: Some(0),
            ..plain()
        },
        SimSettings {
            burst_window_ms: far,
            ..plain()
        },
    ];
    // The timeout's case: 200,000 clients, a third for the timeout, a third again: 2,222,222
    // attempts, 11 each; the others: 6,666,666, 6 each.
    let most = [11.0, 6.0, 6.0];
    for (s, most) in cases.iter().zip(most) {
        let (field, max, _) = refusal(s);
        assert_eq!((field, max), (Field::MaxAttempts, most), "{s:?}");
    }
    // At 10 minutes, the whole bound.
    for s in [
        SimSettings {
            service_ms: 600_000.0,
            workers: Some(0),
            ..plain()
        },
        SimSettings {
            burst_window_ms: 600_000.0,
            ..plain()
        },
    ] {
        assert!(s.validate().is_ok(), "{s:?}");
    }
}

/// A request whose whole life fits within a millisecond (a trip under 1 ms, no wait before
/// its retries) takes half the bound: 200,000 clients retrying 100 times with no delay over
/// 0.01 ms trips (4.6–5.0 s for 20,000,000 attempts) may make 50 each. A trip of 1 ms, or a
/// first wait of 1 ms, and the whole bound is theirs again; the attempts named fit.
#[test]
fn a_request_within_one_millisecond_takes_half_the_bound() {
    let crowd = |latency_ms, base, attempts| SimSettings {
        clients: 200_000,
        latency_ms,
        policy: PolicySettings::new(
            BackoffSettings::new(Strategy::Constant, base, base),
            attempts,
        ),
        ..SimSettings::default()
    };
    let (field, max, bound) = refusal(&crowd(0.01, 0.0, 100));
    assert_eq!(
        (field, max, bound),
        (Field::MaxAttempts, 50.0, WorkBound::RunAttempts)
    );
    assert!(crowd(0.01, 0.0, 50).validate().is_ok());
    assert!(crowd(1.0, 0.0, 100).validate().is_ok());
    assert!(crowd(0.01, 1.0, 100).validate().is_ok());
    // No retries at all: still half (each attempt's events crowd its millisecond too).
    let once = SimSettings {
        clients: 1_000_000,
        ..crowd(0.0, 0.0, 1)
    };
    assert!(
        once.validate().is_ok(),
        "a million single attempts fit half the bound"
    );
}

#[test]
fn the_first_run_seen_whole_gives_the_same_mean() {
    // A closed loop with a timeout and a steady load with a spike: the mean of three runs
    // is run_many's to the bit, and `first` sees one whole run, the first seed's (the same
    // events as a Simulation of the settings), with its series.
    for s in [
        SimSettings {
            scenario: Scenario::Closed,
            clients: 300,
            duration_ms: 5_000.0,
            timeout_ms: Some(200.0),
            ..SimSettings::default()
        },
        SimSettings {
            scenario: Scenario::Spike,
            clients: 200,
            duration_ms: 4_000.0,
            ..SimSettings::default()
        },
    ] {
        let mut seen = vec![];
        let m = crate::sim::run_many_seeing_first(&s, 3, &mut |sim| {
            seen.push((sim.events(), sim.series().offered.iter().sum::<u32>()));
        })
        .unwrap();
        assert_eq!(m, run_many(&s, 3).unwrap());
        assert_eq!(seen.len(), 1);
        let mut alone = crate::sim::Simulation::new(&s).unwrap();
        alone.run();
        assert_eq!(
            seen[0].0,
            alone.events(),
            "the first run is the first seed's"
        );
        assert!(seen[0].1 > 0, "with its series");
    }
}

/// Too many layers at the default attempts name the layers, with the most that fit at
/// those attempts (`--layers 10` named `--attempts`, never set): that many are taken, one
/// more is refused the same way; with the attempts set too, the attempts are named.
#[test]
fn too_many_layers_name_the_layers_when_the_attempts_are_their_default() {
    let layered = |scenario, layers| SimSettings {
        scenario,
        layers,
        ..SimSettings::default()
    };
    for scenario in [Scenario::Burst, Scenario::Steady] {
        let (field, max, bound) = refusal(&layered(scenario, 10));
        assert_eq!(
            (field, bound),
            (Field::Layers, WorkBound::LayersAtAttempts),
            "{scenario:?}"
        );
        assert!((2.0..10.0).contains(&max), "{max}");
        assert!(
            layered(scenario, max as u32).validate().is_ok(),
            "{max} fits"
        );
        assert_eq!(
            refusal(&layered(scenario, max as u32 + 1)),
            (Field::Layers, max, WorkBound::LayersAtAttempts)
        );
    }
    let set = SimSettings {
        policy: PolicySettings::new(BackoffSettings::default(), 5),
        ..layered(Scenario::Burst, 10)
    };
    assert_eq!(refusal(&set).0, Field::MaxAttempts);
}
