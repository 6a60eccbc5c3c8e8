//! Little's law on the recorded series: the mean number of requests waiting equals the
//! arrival rate times the mean wait, L_q = λ·W_q, for any stable queue.
//!
//! Over a whole run that starts and ends empty the law is an identity of the sample path:
//! the area under the queue length, ∫ L_q(t) dt, is the sum of every request's wait. The
//! series samples L_q at each slot's end, so `Σ queued × slot_ms` is that area up to the
//! sampling: a slot's term is off by at most (arrivals + departures in the slot) × the
//! slot, with mean zero, so over N slots the sum is off by about slot_ms × √(N · 2λ·slot_ms
//! / 3): 0.05% of the area in the runs below (measured: −0.02% and +0.04%). Service is
//! constant (M/D/c), so each wait is exactly the time in system less the service time, and
//! the law is checked to 0.3% (the estimate is rough; 6 of it), not to the noise of
//! sampled service times.

use stampede::sim::{Balance, ServiceDist, SimSettings};

use crate::support::{assert_near, server_alone, simulate};

const SERVICE_MS: f64 = 10.0;

/// Checks Little's law on a run of `s` (constant service, no timeouts, nothing rejected).
fn check(what: &str, s: &SimSettings) {
    let mut sim = simulate(s);
    let m = sim.metrics();
    let series = sim.series();
    assert!(!sim.truncated(), "{what}: the series must cover the run");
    assert_eq!(m.successes, m.requests, "{what}: nothing rejected");
    let horizon_ms = series.queued.len() as f64 * series.slot_ms;
    let area: f64 = series.queued.iter().map(|&q| f64::from(q)).sum::<f64>() * series.slot_ms;
    let l_q = area / horizon_ms;
    let lambda = m.requests / horizon_ms; // per ms
    let w_q = m.mean_ms.expect("successes") - SERVICE_MS;
    assert!(
        w_q > 1.0,
        "{what}: requests must wait for the law to say something ({w_q} ms)"
    );
    assert!(l_q > 0.5, "{what}: the queue must form ({l_q})");
    assert_near(
        &format!("{what}: mean queue length (series) vs λ × mean wait"),
        l_q,
        lambda * w_q,
        0.003 * lambda * w_q,
    );
    // The largest sample of the series is one of the queue lengths the metric's maximum
    // covers.
    let peak = series.queued.iter().copied().max().unwrap_or(0);
    assert!(f64::from(peak) <= m.max_queue && m.max_queue > 0.0);
}

/// M/D/c at 80% load per worker on `servers` servers of `workers` each, slots of 1 ms.
fn md(servers: u32, workers: u32, requests: f64) -> SimSettings {
    let lambda = 0.8 * f64::from(servers * workers) * 1000.0 / SERVICE_MS;
    SimSettings {
        servers,
        service_dist: ServiceDist::Constant,
        slot_ms: 1.0,
        ..server_alone(lambda, workers, SERVICE_MS, requests)
    }
}

#[test]
fn littles_law_holds_on_one_server() {
    check("M/D/4", &md(1, 4, 50_000.0));
}

#[test]
fn littles_law_holds_across_servers() {
    // `queued` counts every server's queue; the law holds for the fleet as one system.
    let s = SimSettings {
        balance: Balance::Random,
        ..md(3, 2, 50_000.0)
    };
    check("3 servers × M/D/2, random balance", &s);
}
