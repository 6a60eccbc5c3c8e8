//! The formulas the engine is held to, and the spread of the estimators that sets each
//! tolerance.
//!
//! # Why the tolerances come from a reference simulation
//!
//! Successive sojourn times in a queue are correlated (a customer who finds a long queue
//! is followed by one who finds a long queue too), so the mean of `n` of them varies far
//! more than `σ/√n`: at ρ = 0.9 as much as the mean of `n/390` independent ones. The
//! standard deviation of each estimator (mean, p50, p99 of the time in system; the mean
//! wait) is therefore measured on an independent reference: the Kiefer–Wolfowitz
//! recursion for a FIFO M/M/c queue that starts empty (for c = 1, Lindley's recursion),
//! nothing of the engine's. Each spread is stated below as `sd × √n`, which the central
//! limit theorem for these stationary, geometrically mixing sequences makes independent of
//! `n` for large `n`; a test of `n` requests divides it by `√n` and allows [`Z`] of those
//! standard deviations. Each figure was measured twice, with 1000 replications of 100,000
//! customers and two different generators (this file's `spreads` and a first standalone
//! version); the two agreed within 4%, and the larger is kept. Reproduce them with (about
//! 40 s in release)
//! `cargo test --release -p stampede --test queueing -- --ignored --nocapture spreads`.

use rand::{RngExt, SeedableRng};
use stampede::SeededRng;

/// How many standard deviations of its estimator a measurement may miss theory by. The
/// runs are seeded, so each check passes or fails for good; 4σ makes a false alarm (a
/// correct engine on an unlucky seed) a 1-in-16,000 event per check.
pub const Z: f64 = 4.0;

/// M/M/1 at load ρ, time in system in units of the mean service time: its mean, median
/// and 99th percentile, `1/(1 − ρ)` times 1, ln 2 and ln 100 (the time in system is
/// exponential with rate μ − λ).
pub fn mm1_sojourn(rho: f64) -> [f64; 3] {
    let mean = 1.0 / (1.0 - rho);
    [mean, mean * core::f64::consts::LN_2, mean * 100f64.ln()]
}

/// `sd × √n` of the M/M/1 estimators (mean, p50, p99 of the time in system), relative to
/// the value estimated, for ρ = 0.5, 0.8 and 0.9, measured on the reference.
pub const MM1_SPREAD: [(f64, [f64; 3]); 3] = [
    (0.5, [2.97, 2.69, 6.26]),
    (0.8, [9.20, 7.46, 19.7]),
    (0.9, [19.75, 15.73, 46.6]),
];

/// `sd × √n` of the mean time in system of M/M/c (units of the mean service time), for
/// (c, ρ), measured on the reference. The mean wait is that mean less the mean service,
/// a constant, so it has the same spread.
pub const MMC_SPREAD: [((u32, f64), f64); 2] = [((4, 0.8), 11.62), ((16, 0.9), 11.86)];

/// Erlang C: the probability that an arrival to an M/M/c queue with offered load `a =
/// λ/μ` (< c) waits. Summed as a running term `a^k/k!`, so it neither overflows nor
/// loses precision for large c.
pub fn erlang_c(c: u32, a: f64) -> f64 {
    assert!(a < f64::from(c), "unstable: a = {a} ≥ c = {c}");
    let mut term = 1.0; // a^k / k!
    let mut below = 0.0; // Σ_{k<c} a^k / k!
    for k in 0..c {
        below += term;
        term *= a / f64::from(k + 1);
    }
    let top = term * f64::from(c) / (f64::from(c) - a);
    top / (below + top)
}

/// The mean wait in queue of M/M/c, in units of the mean service time: C(c, a)/(c − a).
pub fn mmc_wait(c: u32, rho: f64) -> f64 {
    let a = rho * f64::from(c);
    erlang_c(c, a) / (f64::from(c) - a)
}

/// The reference: times in system of the first `n` customers of a FIFO M/M/c queue that
/// starts empty, service rate 1 (Kiefer–Wolfowitz: each arrival goes to the worker that
/// frees up first).
pub fn reference_sojourns(rng: &mut SeededRng, c: usize, rho: f64, n: usize) -> Vec<f64> {
    let lambda = rho * c as f64;
    let mut exp = |rate: f64| -(1.0 - rng.random::<f64>()).ln() / rate;
    let mut free = vec![0.0_f64; c];
    let mut t = 0.0;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        t += exp(lambda);
        let (w, &at) = free
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("c ≥ 1");
        let done = at.max(t) + exp(1.0);
        free[w] = done;
        out.push(done - t);
    }
    out
}

/// The nearest-rank percentile, as the engine reports it.
pub fn percentile(xs: &mut [f64], p: f64) -> f64 {
    let k = ((p * xs.len() as f64).ceil() as usize).clamp(1, xs.len()) - 1;
    *xs.select_nth_unstable_by(k, f64::total_cmp).1
}

#[test]
fn erlang_c_matches_known_values() {
    // Closed forms: C(1, a) = a (an M/M/1 arrival waits with probability ρ), and
    // C(2, a) = a²/(2 + a).
    assert!((erlang_c(1, 0.7) - 0.7).abs() < 1e-12);
    assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
    // By hand: 2 erlangs on 3 workers: (8/6 · 3/1) / (1 + 2 + 2 + 4) = 4/9.
    assert!((erlang_c(3, 2.0) - 4.0 / 9.0).abs() < 1e-12);
    // The formula as printed, with factorials, for the loads the tests use and a
    // tabulated one (C(10, 8) = 0.40918).
    let printed = |c: u32, a: f64| {
        let fact = |k: u32| (1..=k).map(f64::from).product::<f64>();
        let top = a.powi(c as i32) / fact(c) * f64::from(c) / (f64::from(c) - a);
        let below: f64 = (0..c).map(|k| a.powi(k as i32) / fact(k)).sum();
        top / (below + top)
    };
    for (c, a) in [(4, 3.2), (16, 14.4), (10, 8.0)] {
        assert!(
            (erlang_c(c, a) - printed(c, a)).abs() < 1e-12,
            "C({c}, {a})"
        );
    }
    assert!((erlang_c(10, 8.0) - 0.409_18).abs() < 1e-5);
    // The mean wait of M/M/1 is ρ/(1 − ρ) service times.
    assert!((mmc_wait(1, 0.8) - 4.0).abs() < 1e-12);
}

#[test]
#[ignore = "derives the tolerances' spreads; run in release (about 40 s)"]
fn spreads() {
    const N: usize = 100_000;
    const REPS: usize = 1000;
    let sd = |xs: &[f64]| {
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
    };
    let mut rng = SeededRng::seed_from_u64(12345);
    let configs = MM1_SPREAD
        .iter()
        .map(|&(rho, _)| (1, rho))
        .chain(MMC_SPREAD.iter().map(|&(c, _)| c));
    for (c, rho) in configs {
        let (mut means, mut p50s, mut p99s) = (vec![], vec![], vec![]);
        for _ in 0..REPS {
            let mut t = reference_sojourns(&mut rng, c as usize, rho, N);
            means.push(t.iter().sum::<f64>() / N as f64);
            p50s.push(percentile(&mut t, 0.50));
            p99s.push(percentile(&mut t, 0.99));
        }
        let root_n = (N as f64).sqrt();
        let want = mm1_sojourn(rho);
        println!(
            "c = {c}, ρ = {rho}: sd × √n of the mean {:.2} service times; \
             relative to M/M/1's values: mean {:.2}, p50 {:.2}, p99 {:.2}",
            sd(&means) * root_n,
            sd(&means) * root_n / want[0],
            sd(&p50s) * root_n / want[1],
            sd(&p99s) * root_n / want[2]
        );
    }
}
