//! The closed loop is the machine-repairman queue (M/M/1//N): N clients each think for
//! an exponential time of mean Z, then send one request and wait for it; one worker
//! serves them with exponential service of mean S. With r = S/Z, the worker is idle with
//! probability p₀ = 1 / Σ_{k=0..N} N!/(N − k)! · r^k, so the throughput is X = (1 − p₀)/S
//! and, by the response-time law N = X·(R + Z), the mean response time is R = N/X − Z.

use stampede::sim::{Scenario, SimSettings};

use crate::support::{assert_near, server_alone, simulate};

const CLIENTS: u32 = 16;
const THINK_MS: f64 = 150.0;
const SERVICE_MS: f64 = 10.0;
const DURATION_MS: f64 = 300_000.0;
const SEEDS: u64 = 8;

/// (X per second, R in ms) of the machine-repairman queue.
fn machine_repairman(n: u32, think: f64, service: f64) -> (f64, f64) {
    let r = service / think;
    let mut term = 1.0; // N!/(N − k)! · r^k
    let mut sum = 1.0;
    for k in 0..n {
        term *= f64::from(n - k) * r;
        sum += term;
    }
    let x = (1.0 - 1.0 / sum) / service; // per ms
    (x * 1000.0, f64::from(n) / x - think)
}

/// Mean and standard error over the seeds.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

#[test]
fn a_closed_loop_is_the_machine_repairman_queue() {
    // 16 clients at the knee: 16 × 10/150 ≈ 1.07 times the worker's capacity if nobody
    // waited. Theory: X = 85.54/s, R = 37.05 ms (a single-customer response is 10 ms).
    let (x, r) = machine_repairman(CLIENTS, THINK_MS, SERVICE_MS);
    assert!((x - 85.539_79).abs() < 1e-4 && (r - 37.047_46).abs() < 1e-4);
    let (mut xs, mut rs) = (vec![], vec![]);
    for seed in 0..SEEDS {
        let s = SimSettings {
            scenario: Scenario::Closed,
            clients: CLIENTS,
            think_ms: THINK_MS,
            duration_ms: DURATION_MS,
            seed: 200 + seed,
            // One exponential worker, no network, no timeout; the open-loop rate is unused.
            ..server_alone(1.0, 1, SERVICE_MS, 1.0)
        };
        let m = simulate(&s).metrics();
        assert_eq!(m.successes, m.requests);
        xs.push(m.requests * 1000.0 / DURATION_MS);
        rs.push(m.mean_ms.expect("successes"));
    }
    // The seeds' spread gives each standard error; 4 of them is a two-sided p of 0.005
    // for Student's t with 7 degrees of freedom. The runs start with every client
    // thinking, a transient of well under a second in 300 s.
    for (what, got, want) in [
        ("throughput (/s)", mean_se(&xs), x),
        ("response (ms)", mean_se(&rs), r),
    ] {
        let (mean, se) = got;
        assert_near(&format!("closed loop: {what}"), mean, want, 4.0 * se);
        assert!(
            se < 0.01 * want,
            "{what}: the seeds must pin it to 1% ({se})"
        );
    }
}
