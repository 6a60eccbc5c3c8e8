//! The published stories the queueing model must reproduce (issue 11), each against the
//! retry rule that changes its ending. Goodput, throughput and wasted work are measured on
//! the series over a window after the trigger is gone.

mod support;

use stampede::budget::BudgetSettings;
use stampede::sim::{
    BudgetScope, LatencyDist, QueueOrder, Scenario, ServiceDist, SimSettings, Simulation,
};
use support::{Window, assert_conserved, full_jitter, immediate, simulate};

/// Runs `s` and measures `[from_ms, to_ms)`.
fn window(s: &SimSettings, from_ms: f64, to_ms: f64) -> (Simulation, Window) {
    let sim = simulate(s);
    assert_conserved("story", &sim.metrics());
    let w = Window::of(&sim.series(), from_ms, to_ms);
    (sim, w)
}

// ---------------------------------------------------------------------------------------
// 1. Timeouts turn a spike into a collapse (Brooker's `simple_collapse_sim`).

/// 40 requests per second (1000 clients × 0.04), doubled from t = 20 s for 5 s, for 80 s;
/// unlimited workers, each request served in 1 s + 10 ms per request already in service;
/// network delay exponential with mean 100 ms each way; timeout 3 s; 3 attempts.
fn brooker() -> SimSettings {
    SimSettings {
        scenario: Scenario::Spike,
        clients: 1000,
        rate_per_client: 0.04,
        spike_start_ms: 20_000.0,
        spike_length_ms: 5_000.0,
        spike_factor: 2.0,
        duration_ms: 80_000.0,
        outage_ms: 0.0,
        workers: Some(0),
        service_ms: 1000.0,
        service_dist: ServiceDist::Constant,
        service_slope_ms: 10.0,
        latency_ms: 200.0,
        latency_dist: LatencyDist::Exponential,
        timeout_ms: Some(3000.0),
        policy: immediate(3),
        slot_ms: 1000.0,
        log_clients: 0,
        seed: 1,
        ..SimSettings::default()
    }
}

#[test]
fn a_spike_with_timeouts_collapses_and_stays_down() {
    // Before the spike, the server keeps up: ~40 in service, 1.4 s each, under the timeout.
    let (sim, before) = window(&brooker(), 5_000.0, 20_000.0);
    assert!(before.goodput > 35.0, "before the spike: {before}");
    // After it (from 40 s, 15 s past its end, to the end of arrivals) the load is back to
    // 40/s, yet the server stays busy with attempts whose clients gave up: it completes
    // work at more than the offered rate while less than a quarter of it is goodput.
    let after = Window::of(&sim.series(), 40_000.0, 80_000.0);
    assert!(after.goodput < 10.0, "after the spike: {after}");
    assert!(after.throughput > 40.0, "the server stays busy: {after}");
    assert!(after.wasted > 0.75 * after.throughput, "the work is wasted: {after}");
    assert!(sim.metrics().timeouts > sim.metrics().requests, "{:?}", sim.metrics());
}

#[test]
fn full_jitter_recovers_from_the_spike() {
    let immediate = window(&brooker(), 40_000.0, 80_000.0).1;
    let jittered = SimSettings {
        policy: full_jitter(3, 20_000.0, 60_000.0),
        ..brooker()
    };
    let (_, with) = window(&jittered, 40_000.0, 80_000.0);
    assert!(
        with.goodput > 30.0 && with.goodput > 3.0 * immediate.goodput,
        "full jitter {with} vs immediate retries {immediate}"
    );
    assert!(with.wasted < 0.5 * immediate.wasted, "{with} vs {immediate}");
}

// ---------------------------------------------------------------------------------------
// 2. A short crash of one server of two keeps the fleet down.

/// 70 requests per second for 60 s; 2 servers × 5 workers, exponential service of 100 ms
/// (100/s in all: 70% busy); queues of 1000; timeout 1 s; 4 attempts without waiting;
/// server 0 fails fast for 5 s from t = 10 s.
fn crash() -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 1000,
        rate_per_client: 0.07,
        duration_ms: 60_000.0,
        outage_start_ms: 10_000.0,
        outage_ms: 5_000.0,
        servers: 2,
        outage_servers: Some(1),
        workers: Some(5),
        queue: Some(1000),
        service_ms: 100.0,
        service_dist: ServiceDist::Exponential,
        latency_ms: 10.0,
        timeout_ms: Some(1000.0),
        policy: immediate(4),
        slot_ms: 1000.0,
        log_clients: 0,
        seed: 1,
        ..SimSettings::default()
    }
}

/// The last 20 s of arrivals: long after the crash is over.
const LATE: (f64, f64) = (40_000.0, 60_000.0);

#[test]
fn one_crashed_server_of_two_keeps_the_fleet_down() {
    let (sim, before) = window(&crash(), 2_000.0, 10_000.0);
    assert!(before.goodput > 63.0, "before the crash: {before}");
    let late = Window::of(&sim.series(), LATE.0, LATE.1);
    assert!(late.goodput < 7.0, "35 s after a 5 s crash: {late}");
    assert!(late.throughput > 90.0, "both servers busy: {late}");
    assert!(late.wasted > 0.9 * late.throughput, "{late}");
}

#[test]
fn without_retries_the_fleet_recovers_at_once() {
    let once = SimSettings {
        policy: immediate(1),
        ..crash()
    };
    let (_, after) = window(&once, 16_000.0, 60_000.0);
    assert!(after.goodput > 63.0, "one attempt, after the crash: {after}");
}

#[test]
fn jitter_and_a_budget_bring_the_fleet_back() {
    let careful = SimSettings {
        policy: full_jitter(4, 100.0, 10_000.0),
        budget: Some(BudgetSettings::new(10.0, 5.0)),
        budget_scope: BudgetScope::Shared,
        ..crash()
    };
    let (_, late) = window(&careful, LATE.0, LATE.1);
    assert!(late.goodput > 63.0, "jitter and budget, late: {late}");
}

// ---------------------------------------------------------------------------------------
// 3. LIFO or a queue timeout keeps goodput up under story 2's overload.

#[test]
fn lifo_and_a_queue_timeout_keep_goodput_up() {
    let fifo = window(&crash(), LATE.0, LATE.1).1;
    let lifo = SimSettings {
        queue_order: QueueOrder::Lifo,
        ..crash()
    };
    let dropping = SimSettings {
        queue_timeout_ms: Some(500.0),
        ..crash()
    };
    for (name, s) in [("lifo", lifo), ("queue timeout 500 ms", dropping)] {
        let (_, w) = window(&s, LATE.0, LATE.1);
        assert!(
            w.goodput > 35.0 && w.goodput > 5.0 * fifo.goodput,
            "{name}: {w} vs fifo {fifo}"
        );
    }
}
