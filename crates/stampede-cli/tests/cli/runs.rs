//! `simulate --runs N` and `sweep` run on every core, yet give what one run after another
//! gives: the mean of the single runs on seeds `seed, seed+1, …`, the same output on one
//! thread as on all, and the first failing run's error.

use std::process::Command;

use serde_json::Value;

use super::{BIN, json};

/// The output of `args` with rayon held to `threads` threads.
fn on_threads(threads: u32, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let out = Command::new(BIN)
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .expect("the binary runs");
    (out.stdout, out.stderr, out.status.code())
}

#[test]
fn simulate_runs_are_the_mean_of_single_runs_on_any_number_of_threads() {
    let base = [
        "simulate",
        "--clients",
        "3000",
        "--strategy",
        "full",
        "--json",
    ];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let many = json(&with(&base, &["--seed", "7", "--runs", "5"]));
    let singles: Vec<Value> = (7..12)
        .map(|s| json(&with(&base, &["--seed", &s.to_string()])))
        .collect();
    // `Metrics::mean`: each metric summed in run order, then divided.
    for k in [
        "requests",
        "total_attempts",
        "successes",
        "gave_up",
        "completion_ms",
        "peak_rps",
    ] {
        let sum: f64 = singles.iter().map(|v| v[k].as_f64().unwrap()).sum();
        assert_eq!(many[k].as_f64().unwrap(), sum / 5.0, "{k}");
    }
    for args in [
        with(&base, &["--runs", "9"]),
        // A closed loop keeps to one run after another (its runs are bounded together).
        vec![
            "simulate",
            "--scenario",
            "closed",
            "--clients",
            "200",
            "--runs",
            "4",
            "--json",
        ],
        vec![
            "sweep",
            "--clients",
            "100..400:100",
            "--strategy",
            "full,none",
            "--runs",
            "7",
        ],
    ] {
        let one = on_threads(1, &args);
        assert_eq!(
            one.2,
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&one.1)
        );
        assert_eq!(one, on_threads(2, &args), "{args:?}");
        assert_eq!(one, on_threads(4, &args), "{args:?}");
    }
    // Refused up front, the same way on any number of threads.
    let refused = ["simulate", "--clients", "1000000", "--runs", "50"];
    let one = on_threads(1, &refused);
    assert_eq!(one.2, Some(2));
    assert!(String::from_utf8_lossy(&one.1).contains("--runs"));
    assert_eq!(one, on_threads(2, &refused));
}
