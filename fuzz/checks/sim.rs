//! The simulator with small arbitrary settings: it finishes, and it conserves requests.
//!
//! Properties, for every scenario, strategy, budget and outage that fit in a few
//! milliseconds of work:
//! - a run finishes (`is_done`) and every request ends exactly once:
//!   `successes + gave_up + budget_rejected = requests` (`burst` and `aws-occ`: one request
//!   per client; `aws-occ`: every client wins in the end);
//! - attempts: at least one per request that was let through, at most `max_attempts` each;
//!   the series add up to the totals (offered = served + rejected + failed = attempts,
//!   served = successes + wasted, goodput = successes, timed out = timeouts, blocked =
//!   budget-rejected, the queues drain, never past `max_queue`) unless they were truncated;
//! - the numbers are finite: completion, latency percentiles (present exactly when
//!   something succeeded, p50 ≤ p99), amplification = attempts / requests;
//! - stepping with `advance_to` through arbitrary times (back, NaN, ±∞ included) never
//!   loses an event: the metrics equal those of one `run`, and no request ends twice on
//!   the way;
//! - all of it with issue #12's nets (a budget of any school, a breaker, a throttle),
//!   hedging and a chain of layers, whose refusals count apart
//!   (`budget_rejected + breaker_rejected + throttled` = the series' `blocked`) and whose
//!   attempts at the last layer are the series' `offered`.

use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::hedge::HedgingSettings;
use stampede::nets::{
    AwsSettings, BreakerMode, BreakerSettings, BudgetKind, GrpcSettings, GuardSettings,
    RatioSettings, ThrottleSettings,
};
use stampede::policy::PolicySettings;
use stampede::sim::{
    Balance, BudgetScope, LatencyDist, Metrics, QueueOrder, RetryAt, Scenario, ServiceDist,
    SimSettings, Simulation, Slowdown,
};

use super::input::Input;

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    let s = settings(&mut input);
    let s = beyond_retries(&mut input, s);
    let mut sim = Simulation::new(&s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    let m = sim.run().metrics();
    assert!(sim.is_done(), "{s:?}: not done after run");
    conserved(&s, &m, &sim);

    let mut stepped = Simulation::new(&s).expect("valid settings");
    for _ in 0..input.choice(8) {
        let t = match input.choice(4) {
            0 => input.f64_any(),
            _ => input.f64_in(0.0, 20_000.0),
        };
        stepped.advance_to(t);
        let p = stepped.metrics();
        assert!(
            p.successes + p.gave_up + p.budget_rejected + p.breaker_rejected + p.throttled
                <= p.requests,
            "{s:?}: more ended than began at {t}: {p:?}"
        );
    }
    assert_eq!(
        stepped.run().metrics(),
        m,
        "{s:?}: stepping changed the run"
    );
}

/// Small settings: tens of clients, a few attempts, seconds of simulated time.
fn settings(input: &mut Input<'_>) -> SimSettings {
    let scenario = Scenario::ALL[usize::from(input.choice(5))];
    let clients = match scenario {
        Scenario::AwsOcc => input.u32_in(1, 12),
        Scenario::Steady | Scenario::Spike | Scenario::Closed => input.u32_in(1, 16),
        Scenario::Burst => input.u32_in(1, 48),
        other => panic!("no small settings for {other:?}: add them to this check"),
    };
    let strategy = Strategy::ALL[usize::from(input.choice(7))];
    let base = input.f64_in(0.0, 2000.0);
    let cap = base + input.f64_in(0.0, 5000.0);
    let backoff = BackoffSettings::new(strategy, base, cap).with_multiplier(input.f64_in(1.0, 4.0));
    let policy = PolicySettings::new(backoff, input.u32_in(1, 8))
        .with_max_elapsed_ms(input.maybe(|i| i.f64_in(0.0, 20_000.0)));
    let budget = input.maybe(|i| {
        BudgetSettings::new(i.f64_in(0.0, 20.0), i.f64_in(0.0, 20.0))
            .with_retry_cost(i.f64_in(0.01, 3.0))
            .with_success_refund(i.f64_in(0.0, 1.0))
    });
    SimSettings {
        scenario,
        clients,
        policy,
        outage_ms: input.f64_in(0.0, 5000.0),
        outage_start_ms: input.f64_in(0.0, 2000.0),
        capacity_rps: input.f64_in(0.001, 2000.0),
        reject_cost: input.f64_in(0.0, 1.0),
        // aws-occ's messages need a delay: with none, every write lands at once.
        latency_ms: input
            .f64_in(0.0, 100.0)
            .max(if scenario == Scenario::AwsOcc {
                0.001
            } else {
                0.0
            }),
        latency_sd_ms: input.maybe(|i| i.f64_in(0.0, 50.0)),
        rate_per_client: input.f64_in(1e-6, 5.0),
        duration_ms: input.f64_in(1.0, 5000.0),
        burst_window_ms: input.f64_in(0.0, 1000.0),
        retry_after_ms: input.maybe(|i| i.f64_in(0.0, 5000.0)),
        budget,
        budget_scope: if input.flag() {
            BudgetScope::Shared
        } else {
            BudgetScope::Client
        },
        seed: input.u64(),
        slot_ms: input.f64_in(1.0, 1000.0),
        log_clients: input.u32_in(0, 64),
        ..servers(input)
    }
}

/// Issue #12's settings on top of `s` (not for `aws-occ`, which models none of them): a
/// budget of another school (when `s` has no bucket), a breaker, a throttle, and either
/// hedging or a chain of up to four layers (hedging is a client's alone).
fn beyond_retries(input: &mut Input<'_>, s: SimSettings) -> SimSettings {
    if s.scenario == Scenario::AwsOcc {
        return s;
    }
    let budget = match (s.budget, input.choice(4)) {
        (None, 1) => Some(BudgetKind::Ratio(RatioSettings {
            ratio: input.f64_in(0.0, 2.0),
            cap: input.maybe(|i| i.f64_in(0.0, 10.0)),
            min_per_sec: input.f64_in(0.0, 20.0),
            window_ms: input.f64_in(1.0, 5000.0),
        })),
        (None, 2) => Some(BudgetKind::Grpc(GrpcSettings {
            max_tokens: input.f64_in(0.5, 20.0),
            token_ratio: input.f64_in(0.01, 2.0),
        })),
        (None, 3) => Some(BudgetKind::Aws(AwsSettings {
            tokens: input.f64_in(0.0, 50.0),
            retry_cost: input.f64_in(0.01, 10.0),
            timeout_cost: input.f64_in(0.01, 20.0),
        })),
        _ => None,
    };
    let breaker = input.maybe(|i| BreakerSettings {
        failure_ratio: i.f64_in(0.0, 1.0),
        sampling_ms: i.f64_in(1.0, 5000.0),
        min_throughput: i.u32_in(1, 20),
        break_ms: i.f64_in(1.0, 3000.0),
        mode: if i.flag() {
            BreakerMode::All
        } else {
            BreakerMode::Retries
        },
    });
    let throttle = input.maybe(|i| ThrottleSettings {
        k: i.f64_in(1.0, 4.0),
        window_ms: i.f64_in(1.0, 5000.0),
    });
    let hedging = input.maybe(|i| HedgingSettings::new(i.f64_in(0.0, 300.0), i.u32_in(2, 5)));
    let layers = if hedging.is_some() {
        1
    } else {
        input.u32_in(1, 4)
    };
    SimSettings {
        nets: GuardSettings {
            budget,
            breaker,
            throttle,
        },
        hedging,
        layers,
        retry_at: if input.flag() {
            RetryAt::Every
        } else {
            RetryAt::Top
        },
        ..s
    }
}

/// The servers and the clients' timeouts: a few servers, short service times.
fn servers(input: &mut Input<'_>) -> SimSettings {
    let servers = input.u32_in(1, 4);
    SimSettings {
        servers,
        balance: Balance::ALL[usize::from(input.choice(3))],
        workers: input.maybe(|i| i.u32_in(0, 4)),
        queue: input.maybe(|i| i.u32_in(0, 8)),
        queue_order: QueueOrder::ALL[usize::from(input.choice(2))],
        queue_timeout_ms: input.maybe(|i| i.f64_in(0.0, 500.0)),
        service_ms: input.f64_in(0.01, 200.0),
        service_dist: ServiceDist::ALL[usize::from(input.choice(3))],
        service_spread: input.f64_in(0.0, 3.0),
        service_slope_ms: input.f64_in(0.0, 20.0),
        fail_rate: input.f64_in(0.0, 1.0),
        outage_servers: input.maybe(|i| i.u32_in(0, servers)),
        slowdown: input.maybe(|i| Slowdown {
            start_ms: i.f64_in(0.0, 3000.0),
            length_ms: i.f64_in(0.0, 3000.0),
            factor: i.f64_in(1.0, 10.0),
        }),
        timeout_ms: input.maybe(|i| i.f64_in(1.0, 1000.0)),
        latency_dist: LatencyDist::ALL[usize::from(input.choice(2))],
        spike_start_ms: input.f64_in(0.0, 3000.0),
        spike_length_ms: input.f64_in(0.0, 3000.0),
        spike_factor: input.f64_in(0.0, 5.0),
        think_ms: input.f64_in(1.0, 2000.0),
        ..SimSettings::default()
    }
}

fn conserved(s: &SimSettings, m: &Metrics, sim: &Simulation) {
    let blocked = m.budget_rejected + m.breaker_rejected + m.throttled;
    let ended = m.successes + m.gave_up + blocked;
    assert_eq!(ended, m.requests, "{s:?}: {m:?}");
    let clients = f64::from(s.clients);
    let attempts = f64::from(s.hedging.map_or(s.policy.max_attempts, |h| h.max_attempts));
    match s.scenario {
        Scenario::Burst => assert_eq!(m.requests, clients, "{s:?}: {m:?}"),
        Scenario::AwsOcc => {
            assert_eq!(m.requests, clients, "{s:?}: {m:?}");
            assert_eq!(m.successes, clients, "{s:?}: a client never won: {m:?}");
            assert!(m.total_attempts >= clients, "{s:?}: {m:?}");
        }
        Scenario::Steady | Scenario::Spike | Scenario::Closed => {}
        other => panic!("no conservation check for {other:?}: add it to this check"),
    }
    if s.scenario != Scenario::AwsOcc {
        assert!(
            m.total_attempts >= m.successes + m.gave_up
                && m.total_attempts <= m.requests * attempts,
            "{s:?}: {m:?}"
        );
    }
    let all_finite = [m.completion_ms, m.recovery_ms, m.peak_rps, m.amplification]
        .into_iter()
        .chain(m.p50_ms)
        .chain(m.p99_ms)
        .all(|v| v.is_finite() && v >= 0.0);
    assert!(all_finite, "{s:?}: {m:?}");
    assert_eq!(m.p50_ms.is_some(), m.successes > 0.0, "{s:?}: {m:?}");
    if let (Some(p50), Some(p99)) = (m.p50_ms, m.p99_ms) {
        assert!(p50 <= p99, "{s:?}: {m:?}");
    }
    if m.requests > 0.0 {
        assert_eq!(m.amplification, m.total_attempts / m.requests, "{s:?}");
    }
    assert_eq!(sim.attempt_log().len() % 4, 0);
    if sim.truncated() || s.scenario == Scenario::AwsOcc {
        return;
    }
    let series = sim.series();
    let sum = |xs: &[u32]| xs.iter().map(|&x| f64::from(x)).sum::<f64>();
    let offered = sum(series.offered);
    assert_eq!(offered, m.bottom_attempts, "{s:?}: series offered");
    assert_eq!(
        sum(series.served) + sum(series.rejected) + sum(series.failed),
        offered,
        "{s:?}: series outcomes"
    );
    assert_eq!(
        sum(series.served),
        m.successes + m.wasted,
        "{s:?}: series served"
    );
    assert_eq!(sum(series.goodput), m.successes, "{s:?}: series goodput");
    assert_eq!(sum(series.timed_out), m.timeouts, "{s:?}: series timed out");
    assert_eq!(sum(series.wasted), m.wasted, "{s:?}: series wasted");
    assert_eq!(
        series.queued.last().copied().unwrap_or(0),
        0,
        "{s:?}: queues drain"
    );
    assert!(
        series.queued.iter().all(|&q| f64::from(q) <= m.max_queue),
        "{s:?}: max queue"
    );
    assert_eq!(sum(series.blocked), blocked, "{s:?}: series blocked");
}
