use proptest::prelude::{ProptestConfig, prop_assert, prop_assert_eq, proptest};

use super::record::outcome;
use super::*;
use crate::backoff::{BackoffSettings, Strategy};
use crate::budget::BudgetSettings;
use crate::error::{Code, Expected, Got, WorkBound};
use crate::policy::PolicySettings;

fn burst(strategy: Strategy, base_ms: f64, clients: u32) -> SimSettings {
    SimSettings {
        clients,
        policy: PolicySettings::new(BackoffSettings::new(strategy, base_ms, 30_000.0), 6),
        ..SimSettings::default()
    }
}

/// The article's storm: 1000 clients at 1 request/s each, a server with 25% headroom,
/// and a 30 s outage from t = 10 s.
fn storm(budget: Option<BudgetSettings>, scope: BudgetScope) -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 1000,
        rate_per_client: 1.0,
        duration_ms: 120_000.0,
        outage_start_ms: 10_000.0,
        outage_ms: 30_000.0,
        capacity_rps: 1250.0,
        policy: PolicySettings::new(
            BackoffSettings::new(Strategy::Exponential, 1000.0, 30_000.0),
            6,
        ),
        budget,
        budget_scope: scope,
        ..SimSettings::default()
    }
}

fn entries(sim: &Simulation) -> impl Iterator<Item = (f64, u32, u32, u8)> + '_ {
    sim.attempt_log()
        .chunks_exact(4)
        .map(|e| (f64::from(e[0]), e[1] as u32, e[2] as u32, e[3] as u8))
}

fn conserved(m: &Metrics) -> bool {
    m.successes + m.gave_up + m.budget_rejected == m.requests
}

#[test]
fn same_seed_same_everything_other_seed_different() {
    for s in [
        burst(Strategy::Full, 200.0, 2000),
        storm(Some(BudgetSettings::new(5.0, 1.0)), BudgetScope::Client),
    ] {
        let mut a = Simulation::new(&s).unwrap();
        let mut b = Simulation::new(&s).unwrap();
        a.run();
        b.run();
        assert_eq!(a.metrics(), b.metrics());
        assert_eq!(a.attempt_log(), b.attempt_log());
        let (sa, sb) = (a.series(), b.series());
        assert_eq!(
            (sa.offered, sa.served, sa.rejected, sa.failed, sa.blocked),
            (sb.offered, sb.served, sb.rejected, sb.failed, sb.blocked)
        );
        let mut c = Simulation::new(&SimSettings {
            seed: 2,
            ..s.clone()
        })
        .unwrap();
        c.run();
        assert_ne!(a.metrics(), c.metrics());
        assert_ne!(a.attempt_log(), c.attempt_log());
    }
}

#[test]
fn the_herd_retries_in_one_window_and_full_jitter_spreads_it() {
    // Exponential backoff without jitter, base 2 s: the first retry of all 1000 clients.
    let mut herd = Simulation::new(&burst(Strategy::Exponential, 2000.0, 1000)).unwrap();
    herd.run();
    let first_retries: Vec<f64> = entries(&herd).filter(|e| e.2 == 2).map(|e| e.0).collect();
    assert_eq!(first_retries.len(), 1000);
    let lo = first_retries.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = first_retries.iter().copied().fold(0.0, f64::max);
    // The log holds when each attempt was answered: the herd arrives within 100 ms (the
    // peak below), and the server's queue (100 ms of work) answers the last of it later.
    let queue_wait = SimSettings::default().fleet().queue as f64 * 10.0 / 5.0;
    assert!(
        hi - lo < 100.0 + queue_wait + 10.0,
        "the herd spans {lo}..{hi} ms"
    );
    assert!(
        lo >= 2000.0,
        "they come back just after the 2 s outage: {lo}"
    );
    let m = herd.metrics();
    assert_eq!(m.peak_recovery_rps, 10_000.0, "all 1000 within 100 ms");

    let mut jittered = Simulation::new(&burst(Strategy::Full, 2000.0, 1000)).unwrap();
    jittered.run();
    let j = jittered.metrics();
    assert!(
        j.peak_recovery_rps * 5.0 < m.peak_recovery_rps,
        "full jitter {} vs exponential {}",
        j.peak_recovery_rps,
        m.peak_recovery_rps
    );
    // And the herd's work is wasted: the jittered fleet all succeed, the herd does not.
    assert_eq!(j.successes, 1000.0);
    assert!(m.successes < 500.0, "{}", m.successes);
}

#[test]
fn a_storm_outlives_the_outage_and_a_budget_ends_it() {
    let m = run(&storm(None, BudgetScope::Client)).unwrap();
    assert!(conserved(&m));
    // Without a budget the storm keeps the recovered server down far longer than the 30 s
    // outage that started it.
    assert!(m.recovery_ms > 30_000.0, "recovery {} ms", m.recovery_ms);
    for (b, scope) in [
        (BudgetSettings::new(100.0, 100.0), BudgetScope::Shared),
        (BudgetSettings::new(3.0, 0.1), BudgetScope::Client),
    ] {
        let with = run(&storm(Some(b), scope)).unwrap();
        assert!(conserved(&with));
        assert!(
            with.recovery_ms <= 2_000.0,
            "{scope:?} budget: recovery {} ms",
            with.recovery_ms
        );
        assert!(with.budget_rejected > 0.0);
        assert!(with.total_attempts < m.total_attempts);
    }
}

#[test]
fn retry_after_is_honoured() {
    let s = SimSettings {
        retry_after_ms: Some(3000.0),
        outage_ms: 10_000.0,
        ..burst(Strategy::Full, 100.0, 500)
    };
    let mut sim = Simulation::new(&s).unwrap();
    sim.run();
    let mut last: Vec<Option<(f64, u8)>> = vec![None; 500];
    let mut checked = 0;
    for (t, client, _, code) in entries(&sim) {
        if let Some((prev, prev_code)) = last[client as usize] {
            if prev_code == outcome::OUTAGE {
                assert!(
                    t - prev >= 3000.0,
                    "client {client} retried {} ms after a Retry-After: 3",
                    t - prev
                );
                checked += 1;
            }
        }
        last[client as usize] = Some((t, code));
    }
    assert!(checked >= 1000, "{checked}");
    // Without the hint, full jitter from 100 ms retries much sooner.
    let mut eager = Simulation::new(&SimSettings {
        retry_after_ms: None,
        ..s
    })
    .unwrap();
    eager.run();
    let gaps = entries(&eager)
        .filter(|e| e.2 == 2)
        .filter(|e| e.0 < 200.0)
        .count();
    assert!(gaps > 100, "{gaps}");
}

#[test]
fn a_retry_after_beyond_the_maximum_gives_up() {
    let s = SimSettings {
        retry_after_ms: Some(120_000.0),
        ..burst(Strategy::Full, 100.0, 100)
    };
    let m = run(&s).unwrap();
    assert_eq!(m.gave_up, 100.0);
    assert_eq!(m.total_attempts, 100.0);
}

#[test]
fn aws_occ_reproduces_the_published_ordering() {
    // The blog's findings hold across its range of clients, not only at 100: checked at
    // 50, 100 and 150, each a mean over 20 seeded runs.
    for clients in [50, 100, 150] {
        let n = f64::from(clients);
        let at = |strategy| {
            let s = SimSettings {
                scenario: Scenario::AwsOcc,
                clients,
                policy: PolicySettings::new(BackoffSettings::new(strategy, 5.0, 2000.0), 6),
                ..SimSettings::default()
            };
            run_many(&s, 20).unwrap()
        };
        let exp = at(Strategy::Exponential);
        let full = at(Strategy::Full);
        let equal = at(Strategy::Equal);
        let decorr = at(Strategy::Decorrelated);
        for m in [&exp, &full, &equal, &decorr] {
            assert_eq!(m.successes, n);
            assert_eq!(m.calls, m.total_attempts);
            assert!(m.calls >= n);
        }
        // No jitter is the clear loser in work and in time.
        for m in [&full, &equal, &decorr] {
            assert!(
                exp.calls > m.calls && exp.completion_ms > m.completion_ms,
                "{clients}: exponential {exp:?} vs {m:?}"
            );
        }
        // Full jitter cuts calls by more than half from 100 clients on (the blog's figure
        // is at 100; at 50 the saving is smaller).
        assert!(
            clients < 100 || full.calls < exp.calls / 2.0,
            "{clients}: full {} exp {}",
            full.calls,
            exp.calls
        );
        // Equal jitter does slightly more work than full, and takes longer.
        assert!(
            equal.calls > full.calls && equal.calls < full.calls * 1.2,
            "{clients}: equal {} full {}",
            equal.calls,
            full.calls
        );
        assert!(equal.completion_ms > full.completion_ms, "{clients}");
        // Decorrelated: more work than full jitter, but less time up to 100 clients. At
        // 150 the two take about as long: over 1,000 runs (seed 1000), decorrelated's
        // completion is 2.5% above full jitter's, in this engine (6,551 against 6,390 ms)
        // as in the one before it (6,544 against 6,379 ms); at 100 it is 6% below, at 50
        // 24% below.
        assert!(
            decorr.calls > full.calls
                && (clients > 100 || decorr.completion_ms < full.completion_ms),
            "{clients}: decorrelated {decorr:?} full {full:?}"
        );
    }
}

/// `run` keeps no attempt log and (in `aws-occ`) no series, and that changes nothing it
/// returns: the metrics are those of a run that records everything, to the bit.
#[test]
fn run_records_nothing_but_changes_no_metric() {
    let occ = |strategy| SimSettings {
        scenario: Scenario::AwsOcc,
        clients: 80,
        policy: PolicySettings::new(BackoffSettings::new(strategy, 5.0, 2000.0), 6),
        ..SimSettings::default()
    };
    let cases = [
        occ(Strategy::None),
        occ(Strategy::Decorrelated),
        burst(Strategy::Full, 100.0, 2000),
        SimSettings {
            scenario: Scenario::Steady,
            clients: 200,
            ..SimSettings::default()
        },
    ];
    for s in cases {
        let mut sim = Simulation::new(&s).unwrap();
        sim.run();
        assert!(!sim.attempt_log().is_empty());
        assert_eq!(run(&s).unwrap(), sim.metrics(), "{s:?}");
    }
}

#[test]
fn aws_occ_steps_like_it_runs() {
    let s = SimSettings {
        scenario: Scenario::AwsOcc,
        clients: 60,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 5.0, 2000.0), 6),
        ..SimSettings::default()
    };
    let mut whole = Simulation::new(&s).unwrap();
    whole.run();
    let mut sim = Simulation::new(&s).unwrap();
    let mut t = 0.0;
    while !sim.is_done() {
        t += 20.0;
        sim.advance_to(t);
        assert!(sim.now_ms() < t, "{} vs {t}", sim.now_ms());
    }
    assert_eq!(sim.metrics(), whole.metrics());
    assert_eq!(sim.attempt_log(), whole.attempt_log());
    // Its rates are those of its wins: every client wins once by the last event.
    let m = whole.metrics();
    assert_eq!(m.goodput_rps, 60.0 * 1000.0 / m.completion_ms);
    assert_eq!(m.throughput_rps, m.goodput_rps);
    // The series hold them too: a goodput of one answer per client (it was left empty).
    let series = whole.series();
    assert_eq!(series.goodput.iter().sum::<u32>(), 60);
    assert_eq!(series.served.iter().sum::<u32>(), 60);
    assert!(
        m.mean_ms
            .is_some_and(|mean| mean > 0.0 && mean <= m.completion_ms)
    );
}

#[test]
fn stepping_gives_the_same_run() {
    let s = storm(Some(BudgetSettings::new(5.0, 1.0)), BudgetScope::Client);
    let s = SimSettings {
        duration_ms: 20_000.0,
        ..s
    };
    let whole = run(&s).unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    let mut t = 0.0;
    let mut steps = 0;
    while !sim.is_done() {
        t += 250.0;
        sim.advance_to(t);
        assert!(sim.now_ms() <= t + 1.0);
        steps += 1;
    }
    assert!(steps > 40);
    assert_eq!(sim.metrics(), whole);
    sim.advance_to(0.0);
    assert_eq!(sim.metrics(), whole, "time does not go back");
}

#[test]
fn series_add_up() {
    let mut sim = Simulation::new(&storm(
        Some(BudgetSettings::new(5.0, 1.0)),
        BudgetScope::Client,
    ))
    .unwrap();
    sim.run();
    let m = sim.metrics();
    let s = sim.series();
    let sum = |v: &[u32]| v.iter().map(|&x| f64::from(x)).sum::<f64>();
    assert_eq!(sum(s.offered), m.total_attempts);
    assert_eq!(
        sum(s.served) + sum(s.rejected) + sum(s.failed),
        m.total_attempts
    );
    assert_eq!(sum(s.blocked), m.budget_rejected);
    assert_eq!(sum(s.served), m.successes);
    // The outage fails attempts only inside its window.
    let slot = s.slot_ms;
    for (i, &f) in s.failed.iter().enumerate() {
        if f > 0 {
            assert!(
                (i as f64 + 1.0) * slot > 10_000.0 && (i as f64) * slot < 40_000.0,
                "slot {i}"
            );
        }
    }
}

#[test]
fn the_log_samples_clients_when_there_are_many() {
    let s = SimSettings {
        log_clients: 100,
        ..burst(Strategy::Full, 200.0, 1000)
    };
    let mut sim = Simulation::new(&s).unwrap();
    sim.run();
    assert_eq!(sim.log_stride(), 10);
    let clients: std::collections::BTreeSet<u32> = entries(&sim).map(|e| e.1).collect();
    assert_eq!(clients.len(), 100);
    assert!(clients.iter().all(|c| c % 10 == 0));
}

#[test]
fn a_round_trip_has_the_latency_and_its_spread() {
    // No outage, ample capacity: every request succeeds at once, so its latency is one
    // round trip: two one-way trips of latency/2 plus uniform jitter, sd 20 ms in all.
    let s = SimSettings {
        clients: 20_000,
        outage_ms: 0.0,
        capacity_rps: 1e9,
        latency_ms: 100.0,
        latency_sd_ms: Some(20.0),
        ..SimSettings::default()
    };
    let m = run(&s).unwrap();
    assert_eq!((m.successes, m.total_attempts), (20_000.0, 20_000.0));
    // The sum of two uniforms of half-width sqrt(1.5)·20 = 24.5 ms is triangular on
    // 100 ± 49 ms: median 100, 99th percentile 100 + 49·(1 − sqrt(0.02)) = 142.1 ms.
    // With 20,000 samples, the nearest-rank estimates are within ±1 ms (f32 latencies).
    let (p50, p99) = (m.p50_ms.unwrap(), m.p99_ms.unwrap());
    assert!((p50 - 100.0).abs() < 1.0, "p50 {p50}");
    assert!((p99 - 142.1).abs() < 1.0, "p99 {p99}");
}

#[test]
fn work_is_bounded_up_front_with_what_to_lower() {
    let burst_of = |clients: u32, attempts: u32| SimSettings {
        clients,
        policy: PolicySettings::new(
            BackoffSettings::new(Strategy::Full, 1000.0, 30_000.0),
            attempts,
        ),
        ..SimSettings::default()
    };
    // The million-client burst with 6 attempts, and exactly the bound, are accepted.
    assert!(burst_of(MAX_CLIENTS, 6).validate().is_ok());
    assert!(burst_of(200_000, 100).validate().is_ok());
    // One client more is not; the error says what to lower.
    let e = burst_of(200_001, 100).validate().unwrap_err();
    assert_eq!((e.field, e.code()), (Field::MaxAttempts, Code::TooMuchWork));
    // 99 attempts is the most that fits with 200,001 clients.
    assert_eq!(
        e.to_string(),
        "max_attempts: expected at most 99 attempts per request for this many requests (a run \
         makes at most 20000000 attempts, requests × attempts; a third of that with a client \
         timeout, a sixth with hedging, an eighth with both, half or a fifth of that with \
         safety nets (a token bucket alone: half, and only once one per client no longer fits \
         in cache), a third again with events over 600000 ms ahead, half again when a \
         request's whole life fits in 1 ms; fewer requests also help), got 100"
    );
    // With a client timeout a third as many: an attempt then makes a third event, and many
    // stay pending at once (an unlimited fleet still serving what timed out).
    let timed = SimSettings {
        timeout_ms: Some(1000.0),
        ..burst_of(200_000, 100)
    };
    let e = timed.validate().unwrap_err();
    assert_eq!(e.field, Field::MaxAttempts);
    assert!(
        matches!(e.expected, Expected::Work { max, .. } if max == 33.0),
        "{e:?}"
    );
    // The case: a steady run of 2,000,000 requests (a tenth of the old request
    // limit) with a day-long outage and 100 attempts, 200 million attempts, 49 s natively.
    let steady = SimSettings {
        scenario: Scenario::Steady,
        clients: 10_000,
        rate_per_client: 1.0,
        duration_ms: 200_000.0,
        outage_ms: 86_400_000.0,
        ..burst_of(10_000, 100)
    };
    let e = steady.validate().unwrap_err();
    assert_eq!((e.field, e.code()), (Field::MaxAttempts, Code::TooMuchWork));
    assert_eq!(
        e.expected,
        Expected::Work {
            max: 10.0,
            bound: WorkBound::RunAttempts
        },
        "{e}"
    );
    assert_eq!(e.got, Got::Number(100.0));
    assert!(Simulation::new(&steady).is_err());
    // The same run with 10 attempts: 20 million, accepted.
    let ten = SimSettings {
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 1000.0, 30_000.0), 10),
        ..steady.clone()
    };
    assert!(ten.validate().is_ok());
    // Past the request limit, the setting changed is named, whatever the attempts: here
    // the duration (the rate is its default; see `steady_refusal`).
    let many = SimSettings {
        duration_ms: 600_000.0,
        ..burst_of(10_000, 1)
    };
    let many = SimSettings {
        scenario: Scenario::Steady,
        ..many
    };
    assert_eq!(many.validate().unwrap_err().field, "duration");
    // aws-occ has no attempt limit; its clients are bounded instead.
    let occ = SimSettings {
        scenario: Scenario::AwsOcc,
        clients: MAX_OCC_CLIENTS,
        ..burst_of(1, 100)
    };
    assert!(occ.validate().is_ok());
}

// The golden runs (burst, steady, aws-occ), pinned to the bit, are in tests/golden.rs, whose
// values the wasm build checks too.

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn conservation_holds(
        clients in 1u32..300,
        steady in proptest::bool::ANY,
        s in 0usize..7,
        attempts in 1u32..8,
        outage in 0.0..5_000.0f64,
        capacity in 1.0..2_000.0f64,
        budget in proptest::option::of((0.0..20.0f64, 0.0..20.0f64)),
        shared in proptest::bool::ANY,
        retry_after in proptest::option::of(0.0..4_000.0f64),
        seed in 0u64..1000,
    ) {
        let settings = SimSettings {
            scenario: if steady { Scenario::Steady } else { Scenario::Burst },
            clients,
            policy: PolicySettings::new(BackoffSettings::new(Strategy::ALL[s], 50.0, 2_000.0), attempts),
            outage_ms: outage,
            outage_start_ms: if steady { 1_000.0 } else { 0.0 },
            capacity_rps: capacity,
            duration_ms: 5_000.0,
            retry_after_ms: retry_after,
            budget: budget.map(|(c, r)| BudgetSettings::new(c, r)),
            budget_scope: if shared { BudgetScope::Shared } else { BudgetScope::Client },
            seed,
            ..SimSettings::default()
        };
        let mut sim = Simulation::new(&settings).unwrap();
        sim.run();
        let m = sim.metrics();
        prop_assert!(conserved(&m), "{m:?}");
        prop_assert!(m.total_attempts <= m.requests * f64::from(attempts));
        prop_assert!(m.peak_recovery_rps <= m.peak_rps);
        if !steady {
            prop_assert_eq!(m.requests, f64::from(clients));
        }
    }
}

/// The arrivals draw from a stream of their own: on one seed, every policy meets the same
/// requests (on the run's one stream, 100 clients' 10 s at 10 rps made 9,940 requests with
/// one attempt and 10,055 with four, so two policies "side by side" differed by 1% of load
/// before either retried).
#[test]
fn one_seed_offers_every_policy_the_same_requests() {
    let open = |scenario: Scenario| SimSettings {
        scenario,
        clients: 100,
        rate_per_client: 10.0,
        duration_ms: 10_000.0,
        spike_start_ms: 3000.0,
        spike_length_ms: 2000.0,
        spike_factor: 3.0,
        outage_ms: 0.0,
        fail_rate: 0.3,
        workers: Some(0),
        seed: 9,
        ..SimSettings::default()
    };
    for scenario in [Scenario::Steady, Scenario::Spike] {
        let base = open(scenario);
        let policies = [
            PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 1),
            PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 4),
            PolicySettings::new(BackoffSettings::new(Strategy::Full, 100.0, 2000.0), 6),
        ];
        let runs: Vec<Metrics> = policies
            .into_iter()
            .map(|policy| SimSettings {
                policy,
                ..base.clone()
            })
            .chain([
                SimSettings {
                    budget: Some(BudgetSettings::new(5.0, 1.0)),
                    ..base.clone()
                },
                SimSettings {
                    timeout_ms: Some(5.0),
                    latency_ms: 10.0,
                    ..base.clone()
                },
                SimSettings {
                    hedging: Some(crate::hedge::HedgingSettings::new(5.0, 2)),
                    ..base.clone()
                },
            ])
            .map(|s| run(&s).unwrap())
            .collect();
        let requests: Vec<f64> = runs.iter().map(|m| m.requests).collect();
        assert!(
            requests.iter().all(|&r| r == requests[0]),
            "{scenario:?}: {requests:?}"
        );
        // And the policies did differ: the attempts they made.
        assert!(
            runs[0].total_attempts < runs[1].total_attempts,
            "{scenario:?}"
        );
    }
}
