//! A timeout abandons the wait, not the work. With one attempt and no network delay, a
//! client gives up when its request's time in system passes τ, and the server finishes
//! that request anyway: the queue is the same M/M/1 queue as without timeouts. So the
//! share of requests that time out is P(T > τ) = e^(−(μ − λ)τ), every one of them is
//! later wasted work, and the successes' mean time is the exponential's mean below τ,
//! 1/θ − τ·e^(−θτ)/(1 − e^(−θτ)) with θ = μ − λ. (A server that dropped abandoned work
//! would shorten its queue and time out far fewer.)

use stampede::sim::SimSettings;

use crate::support::{assert_near, server_alone, simulate};

const SEEDS: u64 = 12;

/// Mean and standard error over the seeds.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

#[test]
fn timeouts_leave_the_queue_as_it_was() {
    // M/M/1 at ρ = 0.8 (μ = 100/s): T is exponential with mean 50 ms; τ = 100 ms.
    let (lambda, service_ms, tau): (f64, f64, f64) = (80.0, 10.0, 100.0);
    let theta = (1000.0 / service_ms - lambda) / 1000.0; // per ms
    let late = (-theta * tau).exp();
    let kept_mean = 1.0 / theta - tau * late / (1.0 - late);
    let (mut shares, mut means) = (vec![], vec![]);
    for seed in 0..SEEDS {
        let s = SimSettings {
            timeout_ms: Some(tau),
            seed: 300 + seed,
            ..server_alone(lambda, 1, service_ms, 25_000.0)
        };
        let m = simulate(&s).metrics();
        assert_eq!(m.timeouts + m.successes, m.requests, "one attempt each");
        assert_eq!(
            m.wasted, m.timeouts,
            "every abandoned request is still served"
        );
        shares.push(m.timeouts / m.requests);
        means.push(m.mean_ms.expect("successes"));
    }
    // The seeds' spread gives each standard error; 4 of them is a two-sided p of 0.002
    // for Student's t with 11 degrees of freedom. (Eight seeds pinned the share within 5%
    // until the arrivals drew from a stream of their own; their next eight, 5.7%.)
    for (what, got, want) in [
        ("share timed out", mean_se(&shares), late),
        ("mean time of successes (ms)", mean_se(&means), kept_mean),
    ] {
        let (mean, se) = got;
        assert_near(&format!("τ = {tau} ms: {what}"), mean, want, 4.0 * se);
        assert!(se < 0.05 * want, "{what}: the seeds must pin it ({se})");
    }
}

#[test]
fn throughput_counts_the_time_of_work_nobody_waited_for() {
    // One worker at 100 ms a request serves at most 10 a second. A thousand clients that
    // give up after 20 ms all leave long before the queue drains: over the clients' time
    // alone (the last gave up at 20 ms) the work finished after it read 50,000 a second.
    let s = SimSettings {
        scenario: stampede::sim::Scenario::Burst,
        clients: 1000,
        timeout_ms: Some(20.0),
        service_dist: stampede::sim::ServiceDist::Constant,
        ..server_alone(10.0, 1, 100.0, 1000.0)
    };
    let m = simulate(&s).metrics();
    // Every request outlived its client's patience: all the work is wasted.
    assert_eq!(m.wasted, 1000.0);
    assert!(
        m.throughput_rps <= 10.0 + 1e-9,
        "{} requests a second from a worker that serves 10",
        m.throughput_rps
    );
    // The worker never idles while requests wait: it serves at its rate, to the end.
    assert_near("throughput", m.throughput_rps, 10.0, 0.05);
}
