//! Hedging in the simulator, held to theory, then to the engine's accounting.
//!
//! # Theory
//!
//! With unlimited workers and no network nothing waits, so a request's attempts are
//! independent draws S₁, S₂, … of the service time, the k-th sent at k·d (d the hedging
//! delay) if nothing has answered by then. The request's latency is
//! `L = min_k (k·d + S_k)` over its `max` attempts, so
//!
//! `P(L > x) = Π_{k < max, k·d < x} P(S > x − k·d)`,
//!
//! and its p99 solves `P(L > x) = 0.01`. The k-th hedge (k ≥ 1) is sent iff `L > k·d`,
//! so the hedges per request have mean `Σ_{k=1}^{max−1} P(L > k·d)`. Each check allows
//! [`Z`] standard errors: for the p99, the empirical quantile of n independent latencies
//! lies between the true quantiles at `0.99 ∓ Z·√(0.99·0.01/n)`; for the hedges, the mean of
//! n independent counts is within `Z·sd/√n` of its mean.

#[path = "support/mod.rs"]
mod support;

use stampede::budget::BudgetSettings;
use stampede::hedge::HedgingSettings;
use stampede::nets::{BreakerMode, BreakerSettings, GuardSettings, ThrottleSettings};
use stampede::sim::record::outcome;
use stampede::sim::{
    BudgetScope, Metrics, Scenario, ServiceDist, SimSettings, Simulation, run_many,
};

use support::{assert_conserved, assert_near, overloaded_fleet, server_alone, simulate};

/// Standard errors a seeded measurement may miss theory by (as in the queueing tests:
/// a false alarm on an unlucky seed is a 1-in-16,000 event per check).
const Z: f64 = 4.0;
const REQUESTS: f64 = 50_000.0;
const MEAN_MS: f64 = 10.0;
/// A wide log-normal tail: the p99 is 10.6 times the mean, the p95 3.8 times.
const SIGMA: f64 = 1.5;
/// The standard normal's 75th, 90th, 95th and 99th percentiles.
const Z75: f64 = 0.674_489_750_196_081_7;
const Z90: f64 = 1.281_551_565_544_600_4;
const Z95: f64 = 1.644_853_626_951_472_2;
const Z99: f64 = 2.326_347_874_040_840_8;

/// ln(service) ~ Normal(μ, σ) with the mean kept at `MEAN_MS` (as the engine draws it).
fn mu() -> f64 {
    MEAN_MS.ln() - SIGMA * SIGMA / 2.0
}

/// The service time's quantile at standard-normal score `z`.
fn service_quantile(z: f64) -> f64 {
    (mu() + z * SIGMA).exp()
}

/// P(S > x).
fn survival(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    0.5 * libm::erfc((x.ln() - mu()) / (SIGMA * core::f64::consts::SQRT_2))
}

/// P(L > x) for a request hedged every `d` ms, `max` attempts in all.
fn latency_survival(x: f64, d: f64, max: u32) -> f64 {
    (0..max)
        .map(|k| f64::from(k) * d)
        .filter(|&sent| sent < x)
        .map(|sent| survival(x - sent))
        .product()
}

/// The latency's p-quantile, by bisection on the (decreasing) survival function.
fn latency_quantile(p: f64, d: f64, max: u32) -> f64 {
    let (mut lo, mut hi) = (0.0, 1e6);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if latency_survival(mid, d, max) > 1.0 - p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The hedges per request: mean and standard deviation (for one request).
fn hedges_per_request(d: f64, max: u32) -> (f64, f64) {
    // P(at least k hedges) = P(L > k·d); E[X] = Σ P(X ≥ k), E[X²] = Σ (2k − 1)·P(X ≥ k).
    let tail = |k: u32| latency_survival(f64::from(k) * d, d, max);
    let mean: f64 = (1..max).map(tail).sum();
    let square: f64 = (1..max).map(|k| f64::from(2 * k - 1) * tail(k)).sum();
    (mean, (square - mean * mean).sqrt())
}

/// Unlimited workers, log-normal service, no network, no failures: latency is service.
fn tail(hedging: Option<HedgingSettings>) -> SimSettings {
    SimSettings {
        service_dist: ServiceDist::Lognormal,
        service_spread: SIGMA,
        hedging,
        ..server_alone(1000.0, 0, MEAN_MS, REQUESTS)
    }
}

fn run(s: &SimSettings) -> Metrics {
    let m = simulate(s).metrics();
    assert_conserved("hedged run", &m);
    m
}

/// The run's p99 lies within its sampling spread of the theoretical quantile.
#[track_caller]
fn assert_p99(what: &str, m: &Metrics, d: f64, max: u32) {
    let got = m.p99_ms.expect("successes");
    let delta = Z * (0.99 * 0.01 / m.successes).sqrt();
    let (lo, hi) = (
        latency_quantile(0.99 - delta, d, max),
        latency_quantile(0.99 + delta, d, max),
    );
    let want = latency_quantile(0.99, d, max);
    assert!(
        (lo..=hi).contains(&got),
        "{what}: p99 {got:.3} ms, want {want:.3} ms within [{lo:.3}, {hi:.3}]"
    );
}

#[test]
fn the_theory_without_hedging_is_the_service_time() {
    // A check of the check: with one attempt the formula is the log-normal's own p99.
    let q = latency_quantile(0.99, 1e9, 1);
    assert!((q - service_quantile(Z99)).abs() < 1e-6, "{q}");
    let m = run(&tail(None));
    assert_eq!(m.hedges, 0.0);
    assert_p99("no hedging", &m, 1e9, 1);
}

#[test]
fn a_hedge_at_the_p95_cuts_the_p99_as_theory_says_for_the_load_it_predicts() {
    // After the p95, one hedge (theory: p99 46.6 ms). After the p75 (8.9 ms), two: the
    // second, at 17.9 ms, is what brings the p99 from 27.0 to 21.1 ms.
    for (z, max) in [(Z95, 2), (Z75, 3)] {
        let d = service_quantile(z);
        let m = run(&tail(Some(HedgingSettings::new(d, max))));
        let what = format!("hedge after {d:.2} ms, {max} attempts");
        assert_p99(&what, &m, d, max);
        let (mean, sd) = hedges_per_request(d, max);
        if max == 2 {
            // One hedge is sent exactly when the first attempt is slower than the p95.
            assert!((mean - 0.05).abs() < 1e-12, "{mean}");
        }
        let n = m.requests;
        assert_near(
            &format!("{what}: hedges per request"),
            m.hedges / n,
            mean,
            Z * sd / n.sqrt(),
        );
        assert_eq!(
            m.total_attempts,
            n + m.hedges,
            "{what}: every hedge arrived"
        );
        assert_eq!(m.gave_up + m.budget_rejected, 0.0, "{what}: nothing fails");
    }
}

/// "The Tail at Scale": as the delay shrinks, the p99 falls and the load rises, and the
/// first few percent of extra load buy most of the cut.
#[test]
fn the_tail_at_scale_shape() {
    let p99 = service_quantile(Z99);
    let none = run(&tail(None));
    let p99_none = none.p99_ms.expect("successes");
    // Delays at the service time's p99, p95, p90 and median: one hedge each.
    let delays = [Z99, Z95, Z90, 0.0].map(service_quantile);
    let runs: Vec<Metrics> = delays
        .iter()
        .map(|&d| run(&tail(Some(HedgingSettings::new(d, 2)))))
        .collect();
    let load = |m: &Metrics| m.hedges / m.requests;
    let cut = |m: &Metrics| m.p99_ms.expect("successes");
    for w in runs.windows(2) {
        assert!(cut(&w[1]) < cut(&w[0]), "a shorter delay cuts the p99 more");
        assert!(load(&w[1]) > load(&w[0]), "and costs more load");
    }
    // At the p95: 5% more attempts, and the p99 less than half (theory: 46.6 ms against
    // 106.4 ms).
    let at_p95 = &runs[1];
    assert!(load(at_p95) < 0.06, "{}", load(at_p95));
    assert!(
        cut(at_p95) < 0.5 * p99_none,
        "{} vs {p99_none}",
        cut(at_p95)
    );
    // Diminishing returns: the first 5% of extra load buys far more p99 per unit of load
    // than the next 45% (hedging at the median). Theory: 106.4 → 46.6 ms for 5%, then
    // → 23.9 ms for 45% more: 1195 ms against 50 ms per unit of load.
    let at_p50 = &runs[3];
    let first = (p99_none - cut(at_p95)) / load(at_p95);
    let next = (cut(at_p95) - cut(at_p50)) / (load(at_p50) - load(at_p95));
    assert!(
        first > 10.0 * next,
        "{first:.1} vs {next:.1} ms per unit of load"
    );
    // Hedging after the p99 leaves the p99 about where it was.
    assert!((cut(&runs[0]) - p99).abs() < 0.1 * p99);
}

/// Failures independent of load: with every attempt sent at once (delay 0), a request
/// fails only if all fail; with a delay longer than any answer, a failure sends the next
/// attempt at once — two immediate attempts.
#[test]
fn with_a_fail_rate_a_failure_sends_the_next_hedge_at_once() {
    for p in [0.1, 0.3] {
        for (delay, hedges_per_request) in [(0.0, 1.0), (86_400_000.0, p)] {
            let s = SimSettings {
                fail_rate: p,
                service_dist: ServiceDist::Constant,
                hedging: Some(HedgingSettings::new(delay, 2)),
                ..server_alone(1000.0, 0, MEAN_MS, REQUESTS)
            };
            let m = run(&s);
            let n = m.requests;
            let what = format!("p = {p}, delay {delay}");
            let q = 1.0 - p * p;
            assert_near(
                &format!("{what}: successes"),
                m.successes / n,
                q,
                Z * (q * (1.0 - q) / n).sqrt(),
            );
            let h = hedges_per_request;
            let sd = (h * (1.0 - h)).sqrt();
            assert_near(
                &format!("{what}: hedges"),
                m.hedges / n,
                h,
                Z * sd / n.sqrt() + 1e-12,
            );
            assert_eq!(m.gave_up, n - m.successes, "{what}: the rest gave up");
            // With delay 0 the second attempt still runs when the first wins: its work is
            // wasted (the servers are not told of the cancellation).
            if delay == 0.0 {
                assert!(m.wasted > 0.0 && m.wasted <= m.hedges, "{what}: {m:?}");
            }
        }
    }
}

/// The queueing tests' small overloaded fleet (an outage, timeouts), hedged.
fn overloaded() -> SimSettings {
    SimSettings {
        hedging: Some(HedgingSettings::new(40.0, 3)),
        ..overloaded_fleet()
    }
}

fn cases() -> Vec<(&'static str, SimSettings)> {
    vec![
        ("timeouts and an outage", overloaded()),
        (
            "a shared budget",
            SimSettings {
                // Enough refill (40 a second, half the offered load) that the fleet stays
                // overloaded and timeouts happen; 2 a second turned most requests away.
                budget: Some(BudgetSettings::new(5.0, 40.0)),
                budget_scope: BudgetScope::Shared,
                ..overloaded()
            },
        ),
        (
            "a budget per client",
            SimSettings {
                budget: Some(BudgetSettings::new(2.0, 0.5)),
                ..overloaded()
            },
        ),
        (
            "a burst, every attempt at once",
            SimSettings {
                scenario: Scenario::Burst,
                clients: 500,
                hedging: Some(HedgingSettings::new(0.0, 5)),
                ..overloaded()
            },
        ),
        (
            "a closed loop",
            SimSettings {
                scenario: Scenario::Closed,
                think_ms: 300.0,
                ..overloaded()
            },
        ),
        (
            "a shared breaker",
            SimSettings {
                nets: GuardSettings {
                    breaker: Some(BreakerSettings {
                        failure_ratio: 0.5,
                        min_throughput: 10,
                        mode: BreakerMode::Retries,
                        ..BreakerSettings::default()
                    }),
                    ..GuardSettings::default()
                },
                budget_scope: BudgetScope::Shared,
                ..overloaded()
            },
        ),
        (
            "adaptive throttling",
            SimSettings {
                nets: GuardSettings {
                    throttle: Some(ThrottleSettings::default()),
                    ..GuardSettings::default()
                },
                budget_scope: BudgetScope::Shared,
                ..overloaded()
            },
        ),
    ]
}

fn total(xs: &[u32]) -> f64 {
    xs.iter().map(|&x| f64::from(x)).sum()
}

#[test]
fn every_hedged_request_ends_once_and_every_attempt_is_answered_once() {
    for (name, s) in cases() {
        let mut sim = simulate(&s);
        let m = sim.metrics();
        assert_conserved(name, &m);
        assert!(m.hedges > 0.0 && m.timeouts > 0.0, "{name}: hedged: {m:?}");
        let series = sim.series();
        assert_eq!(total(series.offered), m.total_attempts, "{name}: offered");
        assert_eq!(total(series.goodput), m.successes, "{name}: goodput");
        // What each net refused is counted apart, by net, as for unhedged requests (the
        // breaker's and throttling's refusals of a hedge were once counted as given up).
        assert_eq!(
            total(series.blocked),
            m.budget_rejected + m.breaker_rejected + m.throttled,
            "{name}: blocked"
        );
        if s.nets.breaker.is_some() {
            assert!(
                m.breaker_rejected > m.gave_up,
                "{name}: the breaker bit: {m:?}"
            );
        }
        if s.nets.throttle.is_some() {
            assert!(m.throttled > m.gave_up, "{name}: throttling bit: {m:?}");
        }
        // Each net refused hedges, not only first attempts, and logged them as its own (a
        // refused hedge was once counted as given up and left out of the log; the
        // throttling counts above would hide that, first attempts being most of them).
        for (net, code) in [
            (s.nets.breaker.is_some(), outcome::BREAKER_BLOCKED),
            (s.nets.throttle.is_some(), outcome::THROTTLED),
        ] {
            if net {
                let logged = simulate(&SimSettings {
                    log_clients: s.clients,
                    ..s.clone()
                });
                let hedges_refused = logged
                    .attempt_log()
                    .chunks(4)
                    .filter(|e| e[2] >= 2.0 && e[3] == f32::from(code))
                    .count();
                assert!(hedges_refused > 0, "{name}: no hedge refused and logged");
            }
        }
        assert_eq!(
            total(series.served) + total(series.failed) + total(series.rejected),
            m.total_attempts,
            "{name}: every attempt a server received is answered once"
        );
        assert_eq!(
            total(series.served),
            m.successes + m.wasted,
            "{name}: served = successes + wasted"
        );
        // Wasted work is a timed-out attempt's or a cancelled loser's; losers are hedges.
        assert!(m.wasted <= m.timeouts + m.hedges, "{name}: {m:?}");
        // Each request sends its first attempt (unless the budget refused it) and its
        // hedges, at most 2 (4 in the burst) each.
        let most = if s.scenario == Scenario::Burst {
            4.0
        } else {
            2.0
        };
        assert!(m.hedges <= most * m.requests, "{name}");
        if s.budget.is_none() && s.nets.is_empty() {
            assert_eq!(m.total_attempts, m.requests + m.hedges, "{name}");
        } else if s.budget.is_none() {
            assert!(m.total_attempts <= m.requests + m.hedges, "{name}");
        } else {
            assert!(m.budget_rejected > 0.0, "{name}: the budget bit");
            assert!(m.total_attempts <= m.requests + m.hedges, "{name}");
        }
        assert!(!sim.truncated(), "{name}");
    }
}

#[test]
fn hedged_runs_are_deterministic_stepped_or_not() {
    for (name, s) in cases() {
        let fingerprint = |sim: &mut Simulation| {
            let m = sim.metrics();
            let log: Vec<u32> = sim.attempt_log().iter().map(|x| x.to_bits()).collect();
            format!("{} {m:?} {:?} {log:?}", sim.events(), sim.series().offered)
        };
        let bits = fingerprint(&mut simulate(&s));
        assert_eq!(bits, fingerprint(&mut simulate(&s)), "{name}: same seed");
        for step in [1.0, 777.0] {
            let mut stepped = Simulation::new(&s).unwrap();
            let mut t = 0.0;
            while !stepped.is_done() {
                t += step;
                stepped.advance_to(t);
            }
            assert_eq!(
                bits,
                fingerprint(&mut stepped),
                "{name}: in steps of {step} ms"
            );
        }
        let other = simulate(&SimSettings {
            seed: s.seed + 1,
            ..s.clone()
        })
        .metrics();
        assert_ne!(simulate(&s).metrics(), other, "{name}: another seed");
    }
}

#[test]
fn the_log_numbers_hedges_as_attempts_of_their_request() {
    let s = SimSettings {
        log_clients: 40,
        ..overloaded()
    };
    let sim = simulate(&s);
    let numbers: Vec<f32> = sim.attempt_log().chunks(4).map(|e| e[2]).collect();
    assert!(
        numbers.contains(&2.0) && numbers.contains(&3.0),
        "hedges are logged"
    );
    // Attempts 1 to 3, and a 4th only as a request blocked by a budget (there is none).
    assert!(numbers.iter().all(|&k| (1.0..=3.0).contains(&k)));
}

#[test]
fn hedging_settings_are_checked_and_bound_the_work() {
    let bad = SimSettings {
        hedging: Some(HedgingSettings::new(10.0, 6)),
        ..SimSettings::default()
    };
    let e = bad.validate().unwrap_err();
    assert_eq!(e.field, stampede::Field::HedgeMaxAttempts);
    let bad = SimSettings {
        hedging: Some(HedgingSettings::new(-1.0, 2)),
        ..SimSettings::default()
    };
    assert_eq!(
        bad.validate().unwrap_err().field,
        stampede::Field::HedgeDelay
    );
    // With hedging, a request makes at most the hedging's attempts (not the policy's), and
    // the bound is a sixth of the usual (a hedge timer per attempt, a slot per request):
    // 1,000,000 requests × 4 attempts pass 20,000,000 / 6; × 3 fit.
    let big = SimSettings {
        scenario: Scenario::Steady,
        clients: 100_000,
        rate_per_client: 1.0,
        duration_ms: 10_000.0,
        hedging: Some(HedgingSettings::new(10.0, 4)),
        ..SimSettings::default()
    };
    let e = big.validate().unwrap_err();
    assert_eq!(e.field, stampede::Field::HedgeMaxAttempts);
    assert!(
        matches!(e.expected, stampede::Expected::Work { max, .. } if max == 3.0),
        "{e}"
    );
    let fits = SimSettings {
        hedging: Some(HedgingSettings::new(10.0, 3)),
        ..big
    };
    assert_eq!(fits.validate(), Ok(()));
    // Means over runs carry the hedges.
    let m = run_many(&tail(Some(HedgingSettings::new(20.0, 2))), 2).unwrap();
    assert!(m.hedges > 0.0);
}

/// A hedge that loses keeps its server busy after the last client has its answer; over a
/// short run, a few such losers end long after it. Goodput and throughput share one span
/// (to the servers' last finish), so the servers' rate is never reported below the useful
/// one: with goodput over the clients' time alone, this run's throughput (1,518/s) came out
/// below its goodput (1,995/s) though the servers finished 10,554 requests for 10,046
/// successes.
#[test]
fn losers_finishing_after_the_last_answer_keep_throughput_above_goodput() {
    let s = SimSettings {
        service_dist: ServiceDist::Lognormal,
        service_spread: SIGMA,
        hedging: Some(HedgingSettings::new(38.0, 2)),
        ..server_alone(2000.0, 0, MEAN_MS, 10_000.0)
    };
    let mut sim = simulate(&s);
    let m = sim.metrics();
    assert_conserved("short hedged run", &m);
    let served = total(sim.series().served);
    assert_eq!(served, m.successes + m.wasted);
    assert!(m.wasted > 0.0, "some hedges lost: {m:?}");
    // The case this test is for: the servers finished losers after the last answer, so
    // the span of both rates outlasts completion_ms.
    let span_ms = served / m.throughput_rps * 1000.0;
    assert!(span_ms > m.completion_ms, "{span_ms} ms vs {m:?}");
    // Both rates over one span: their ratio is the share of the servers' work that was useful.
    assert_near(
        "goodput / throughput = successes / served",
        m.goodput_rps / m.throughput_rps,
        m.successes / served,
        1e-12,
    );
}
