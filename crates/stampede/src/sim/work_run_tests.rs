//! The work bounds checked as a run goes: what a run holds pending (alone, and with the runs
//! alive beside it), and a closed loop past its attempts. (Refusals up front: `work_tests.rs`.)

use super::*;
use crate::backoff::{BackoffSettings, Strategy};
use crate::policy::PolicySettings;
use crate::sim::run_many;

/// Clients in an outage as long as the run, retrying at once: each attempt fails a
/// round trip after it left, far faster than the think + latency + service the check
/// assumed, so the loop makes many more attempts than it foresaw.
fn failing_loop() -> SimSettings {
    SimSettings {
        scenario: Scenario::Closed,
        clients: 10,
        think_ms: 0.0,
        outage_start_ms: 0.0,
        outage_ms: 60_000.0,
        duration_ms: 10_000.0,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 100),
        ..SimSettings::default()
    }
}

/// 2,000 clients whose every attempt is given up on after 1 ms and then served a day
/// later (unlimited workers): all 12,000 attempts are pending at once.
fn piling_up() -> SimSettings {
    SimSettings {
        clients: 2_000,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 6),
        timeout_ms: Some(1.0),
        latency_ms: 60_000.0,
        workers: Some(0),
        service_ms: 86_400_000.0,
        ..SimSettings::default()
    }
}

/// Attempts given up on pile up at a server with unlimited workers and a day's service:
/// a run that holds more than its bound pending stops there and is refused, naming
/// `clients` with a count that fits for sure; that many then run to their end.
#[test]
fn a_run_holding_too_much_pending_stops_and_is_refused() {
    use crate::sim::{Simulation, run};
    let s = piling_up();
    // Within the real bound it runs to its end, every attempt given up on.
    let whole = run(&s).unwrap();
    assert_eq!((whole.total_attempts, whole.wasted), (12_000.0, 12_000.0));
    let mut sim = Simulation::new(&s).unwrap();
    sim.cap_pending(5_000, usize::MAX);
    let e = sim.run().check_work().unwrap_err();
    assert!(sim.is_done(), "it stopped");
    assert_eq!((e.field, e.got), (Field::Clients, Got::Number(2_000.0)));
    let Expected::Work { max, bound } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::Pending);
    // At most 6 attempts and their timers a client, and its tick: 2,000 × 5,000 / 26,000.
    assert_eq!(max, 384.0);
    let fits = SimSettings {
        clients: max as u32,
        ..s
    };
    let mut sim = Simulation::new(&fits).unwrap();
    sim.cap_pending(5_000, usize::MAX);
    assert!(sim.run().check_work().is_ok());
    assert_eq!(sim.metrics().total_attempts, 6.0 * max);
}

/// Calls parked at upper layers are events the run holds: 2,000 clients through five
/// layers, each call served a day later by unlimited workers, hold 2,000 events in the
/// wheel and 8,000 parked calls at once; with a bound of 5,000 the run stops and is refused
/// (it once counted only the wheel and the queues, and ran on).
#[test]
fn parked_calls_count_against_the_bound_on_pending_events() {
    use crate::sim::Simulation;
    let s = SimSettings {
        clients: 2_000,
        layers: 5,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 1),
        latency_ms: 60_000.0,
        workers: Some(0),
        service_ms: 86_400_000.0,
        ..SimSettings::default()
    };
    let mut sim = Simulation::new(&s).unwrap();
    sim.cap_pending(20_000, usize::MAX);
    assert!(
        sim.run().check_work().is_ok(),
        "10,000 fit a bound of 20,000"
    );
    let mut sim = Simulation::new(&s).unwrap();
    sim.cap_pending(5_000, usize::MAX);
    let e = sim.run().check_work().unwrap_err();
    assert!(
        matches!(
            e.expected,
            Expected::Work {
                bound: WorkBound::Pending,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!((e.field, e.got), (Field::Clients, Got::Number(2_000.0)));
}

/// The runs alive on a thread together: a second run that would take their peaks past
/// the bound is refused, saying to free the others, and gives its memory back at once;
/// once the first is dropped, the same run fits.
#[test]
fn runs_alive_together_hold_at_most_their_bound() {
    use crate::sim::Simulation;
    let s = piling_up();
    // Each holds all 12,000 attempts at its peak (checked every 1,024 steps), and its log
    // and series (a day of 10 ms slots) count as the events of as much memory.
    let peak = {
        let mut alone = Simulation::new(&s).unwrap();
        assert!(alone.run().check_work().is_ok());
        alone.pending_peak().0
    };
    assert!(peak > 12_000, "{peak}");
    let alive = peak + peak / 2;
    let mut first = Simulation::new(&s).unwrap();
    first.cap_pending(usize::MAX, alive);
    assert!(first.run().check_work().is_ok());
    assert_eq!(first.pending_peak().0, peak);
    let mut second = Simulation::new(&s).unwrap();
    second.cap_pending(usize::MAX, alive);
    let e = second.run().check_work().unwrap_err();
    assert!(e.to_string().contains("free()"), "{e}");
    assert_eq!((e.field, e.got), (Field::Clients, Got::Number(2_000.0)));
    let Expected::Work { max, bound } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::PendingAlive);
    // What the first leaves of the bound, over the 26,000 events a run could hold and its
    // other memory.
    assert!(
        (1.0..2_000.0 * (peak / 2) as f64 / 26_000.0 + 1.0).contains(&max),
        "{max}"
    );
    // A third, beside the first and the refused second: refused too, so the second
    // holds nothing any more.
    let mut third = Simulation::new(&s).unwrap();
    third.cap_pending(usize::MAX, alive);
    assert!(third.run().check_work().is_err());
    drop(third);
    drop(first);
    let mut again = Simulation::new(&s).unwrap();
    again.cap_pending(usize::MAX, alive);
    assert!(
        again.run().check_work().is_ok(),
        "the first's memory is back"
    );
    assert_eq!(again.metrics().total_attempts, 12_000.0);
    drop(second);
}

/// A burst's first attempts count against the bound on the runs alive as soon as it is
/// built, before their memory is reserved: simulations built and not yet run count too (49
/// million-client bursts alive at once ran a wasm module out of memory in their
/// constructors). One that does not fit is refused when it is run, holding nothing.
#[test]
fn a_burst_counts_its_first_attempts_when_it_is_built() {
    use crate::sim::pending::{MAX_PENDING_ALIVE, preload};
    use crate::sim::{Scenario, Simulation};
    // Room for 10,000 events: a burst's log, latencies and series count too (about 4,000
    // events' worth for 900 clients).
    let _held = preload(MAX_PENDING_ALIVE - 10_000);
    let burst = |clients| SimSettings {
        scenario: Scenario::Burst,
        clients,
        ..SimSettings::default()
    };
    let mut big = Simulation::new(&burst(12_000)).unwrap();
    assert!(big.is_done(), "refused as it was built, before any step");
    let e = big.run().check_work().unwrap_err();
    assert_eq!((e.field, e.got), (Field::Clients, Got::Number(12_000.0)));
    let Expected::Work { bound, .. } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::PendingAlive);
    // Refused, it holds nothing: a burst that fits in what is left runs.
    let mut small = Simulation::new(&burst(900)).unwrap();
    assert!(small.run().check_work().is_ok());
    assert_eq!(small.metrics().requests, 900.0);
    drop(big);
}

#[test]
fn a_closed_loop_past_its_bound_stops_and_is_refused() {
    use crate::sim::{Simulation, run};
    let s = failing_loop();
    // Within its bound it runs to its end: ~10 attempts a client every 10 ms round trip.
    let whole = run(&s).unwrap();
    assert!(whole.total_attempts > 5_000.0, "{}", whole.total_attempts);
    // With a bound of 2,000 attempts it stops issuing a fifth of the way in, and says so,
    // naming the time it had made half of them.
    let mut sim = Simulation::new(&s).unwrap();
    sim.cap_attempts(2_000);
    let e = sim.run().check_work().unwrap_err();
    assert_eq!((e.field, e.got), (Field::Duration, Got::Number(10_000.0)));
    let Expected::Work { max, bound } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::ClosedAttempts);
    let half = 1_000.0 / whole.total_attempts * 10_000.0;
    assert!(
        (0.7 * half..1.3 * half).contains(&max),
        "named {max} ms, expected about {half}"
    );
    // The duration it names fits. Each request here makes its 100 attempts over a second,
    // so a run goes on for a second past its duration, making up to 1,000 attempts more:
    // the time of the cut, named until 2026-12-07, was refused in its turn.
    for seed in 1..=5 {
        let fits = SimSettings {
            duration_ms: max,
            seed,
            ..s
        };
        let mut sim = Simulation::new(&fits).unwrap();
        sim.cap_attempts(2_000);
        assert!(sim.run().check_work().is_ok(), "seed {seed}: {max} ms");
    }
    // What it made stays near the bound: each client finishes the request it has.
    let m = sim.metrics();
    assert!((2_000.0..2_000.0 + 10.0 * 100.0).contains(&m.bottom_attempts));
    // The runs of run_many stop too once they pass one run's attempts together.
    let per_run = whole.bottom_attempts;
    let within = |runs, bound| crate::sim::run_many_within(&s, runs, bound, None);
    assert!(within(3, 3.0 * per_run).is_ok());
    let e = within(3, 1.5 * per_run).unwrap_err();
    assert_eq!((e.field, e.got), (Field::Runs, Got::Number(3.0)));
    assert!(matches!(
        e.expected,
        Expected::Work {
            max: 2.0,
            bound: WorkBound::Runs
        }
    ));
    assert_eq!(
        run_many(&s, 3).unwrap().requests,
        within(3, f64::INFINITY).unwrap().requests
    );
}

/// A closed loop stops at its bound on attempts even while no request has ended: 200
/// clients retrying 100 times each make 20,000 attempts before the first request ends, and
/// a loop checked only then ran ten times past a bound of 2,000 (half a bound again at
/// the real one, 30 million attempts, 7-14 s before its refusal).
#[test]
fn a_closed_loop_stops_at_its_bound_before_any_request_ends() {
    use crate::sim::Simulation;
    use crate::sim::pending::CHECK_EVERY;
    let s = SimSettings {
        clients: 200,
        ..failing_loop()
    };
    let mut sim = Simulation::new(&s).unwrap();
    sim.cap_attempts(2_000);
    let e = sim.run().check_work().unwrap_err();
    assert_eq!((e.field, e.got), (Field::Duration, Got::Number(10_000.0)));
    let made = sim.metrics().bottom_attempts;
    let most = 2_000.0 + CHECK_EVERY as f64;
    assert!((2_000.0..=most).contains(&made), "{made} attempts");
}

/// A loop cut before even the shortest duration ended (no think, no latency, every request
/// failing at once: millions of requests in its first millisecond) names `think`, with the
/// least think that fits, which then runs, whatever the seed: naming the duration asked for
/// what it had ("at most 1 ms, got 1"), which no value of that field could satisfy.
#[test]
fn a_closed_loop_cut_within_its_first_millisecond_names_think_and_the_think_named_fits() {
    use crate::sim::Simulation;
    let s = SimSettings {
        clients: 1,
        duration_ms: 1.0,
        latency_ms: 0.0,
        fail_rate: 1.0,
        outage_ms: 0.0,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 1),
        ..failing_loop()
    };
    let named = |s: &SimSettings| {
        let mut sim = Simulation::new(s).unwrap();
        sim.cap_attempts(5_000);
        let e = sim.run().check_work().unwrap_err();
        assert_eq!((e.field, e.got), (Field::Think, Got::Number(s.think_ms)));
        let Expected::WorkAtLeast { min, bound } = e.expected else {
            panic!("{:?}", e.expected)
        };
        assert_eq!(bound, WorkBound::ClosedCutThink);
        min
    };
    let fits = |s: &SimSettings, think: f64| {
        (0..10).all(|seed| {
            let mut sim = Simulation::new(&SimSettings {
                think_ms: think,
                seed,
                ..s.clone()
            })
            .unwrap();
            sim.cap_attempts(5_000);
            sim.run().check_work().is_ok()
        })
    };
    assert_eq!(named(&s), 1.0);
    assert!(fits(&s, 1.0));
    // Ten thousand clients for 20 ms under a bound of 5,000 attempts: half the bound, 2,500
    // requests, at 10,000 × 20 / 2,500 = 80 ms of think, which fits over ten seeds.
    let many = SimSettings {
        clients: 10_000,
        duration_ms: 20.0,
        ..s
    };
    let least = named(&many);
    assert_eq!(least, 80.0);
    assert!(fits(&many, least));
}

/// A run's other memory counts against the bound on the runs alive: per-client nets hold
/// ~600 bytes a client however few events are pending (uncounted, twenty simulations of
/// 226,000 clients with a breaker, a throttle and a quota each filled a wasm module's 4 GB
/// and the next constructor trapped). Once nothing fits beside the runs alive, the error
/// says 0, not 1.
#[test]
fn nets_and_logs_count_against_the_runs_alive() {
    use crate::nets::{BreakerSettings, GuardSettings, ThrottleSettings};
    use crate::sim::pending::{MAX_PENDING_ALIVE, event_equivalents, preload};
    use crate::sim::{BudgetScope, Simulation};
    let s = SimSettings {
        clients: 5_000,
        nets: GuardSettings {
            breaker: Some(BreakerSettings::default()),
            throttle: Some(ThrottleSettings::default()),
            ..GuardSettings::default()
        },
        budget_scope: BudgetScope::Client,
        ..SimSettings::default()
    };
    let nets = crate::sim::nets::held_bytes(Some(&s.nets), s.budget_scope, s.clients);
    assert!(nets >= 5_000 * 500, "{nets} bytes of nets");
    let peak = {
        let mut alone = Simulation::new(&s).unwrap();
        assert!(alone.run().check_work().is_ok());
        alone.pending_peak().0
    };
    // Its 5,000 first attempts, and at least its nets' worth.
    assert!(peak >= 5_000 + event_equivalents(nets), "{peak}");
    // Two fit where one and a half do not.
    let mut first = Simulation::new(&s).unwrap();
    first.cap_pending(usize::MAX, peak + peak / 2);
    assert!(first.run().check_work().is_ok());
    let mut second = Simulation::new(&s).unwrap();
    second.cap_pending(usize::MAX, peak + peak / 2);
    let e = second.run().check_work().unwrap_err();
    let Expected::Work { bound, max } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::PendingAlive);
    assert!((1.0..5_000.0).contains(&max), "{max}");
    drop((first, second));
    // Nothing left beside the runs alive: 0 fit.
    let _held = preload(MAX_PENDING_ALIVE);
    let mut none = Simulation::new(&s).unwrap();
    let e = none.run().check_work().unwrap_err();
    let Expected::Work { bound, max } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!((bound, max), (WorkBound::PendingAlive, 0.0));
    assert!(e.to_string().contains("at most 0 clients"), "{e}");
}

/// `peak_bytes`, what a sweep budgets each run by, is at least the events a run holds at its
/// peak (64 bytes each) and its nets: an upper estimate, as a budget needs.
#[test]
fn peak_bytes_covers_what_a_run_holds() {
    use crate::sim::{Simulation, peak_bytes};
    let held = |s: &SimSettings| {
        let mut sim = Simulation::new(s).unwrap();
        assert!(sim.run().check_work().is_ok());
        // Its events alone: the run's log and series are not a sweep's.
        let (peak, other) = sim.pending_peak();
        peak - other
    };
    let burst = SimSettings {
        clients: 20_000,
        ..SimSettings::default()
    };
    for s in [piling_up(), burst.clone(), failing_loop()] {
        let events = held(&s);
        assert!(events > 0);
        assert!(peak_bytes(&s).unwrap() >= (events * 64) as f64, "{s:?}");
    }
    // More clients, more memory; a refused setting is the constructor's error.
    let more = SimSettings {
        clients: 40_000,
        ..burst.clone()
    };
    assert!(peak_bytes(&more).unwrap() > peak_bytes(&burst).unwrap());
    let bad = SimSettings {
        clients: 0,
        ..burst
    };
    assert_eq!(
        peak_bytes(&bad).unwrap_err().field,
        Simulation::new(&bad).err().unwrap().field
    );
}
