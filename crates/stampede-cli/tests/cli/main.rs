//! The command-line contract: names, JSON fields, exit codes. Tests outside this
//! repository rely on these. Newer concerns each have a module beside this file.

use std::process::{Command, Output};

use serde_json::Value;

#[cfg(unix)]
mod arguments;
mod classify;
mod hedge;
mod layers;
mod model;
mod moot;
mod nets;
mod notes;
mod output;
mod readme;
mod runs;
mod shard;
mod stories;

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_stampede");

#[path = "../../../stampede/tests/golden/values.rs"]
mod golden;

fn stampede(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The output of a run that must succeed (its stderr is the failure's message).
fn stdout_of(args: &[&str]) -> String {
    let out = stampede(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = stampede(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn delays_json_contract() {
    let v = json(&[
        "delays",
        "--strategy",
        "full",
        "--base",
        "200ms",
        "--cap",
        "30s",
        "--attempts",
        "6",
        "--seed",
        "42",
        "--samples",
        "1000",
        "--json",
    ]);
    assert_eq!(v["strategy"], "full");
    assert_eq!(v["base_ms"], 200);
    assert_eq!(v["cap_ms"], 30000);
    assert_eq!(v["attempts"], 6);
    assert_eq!(v["seed"], 42);
    let seqs = v["sequences"].as_array().unwrap();
    assert_eq!(seqs.len(), 1000);
    for s in seqs {
        let d = numbers(s);
        assert_eq!(d.len(), 5);
        for (n, x) in d.iter().enumerate() {
            assert!(*x >= 0.0 && *x <= 200.0 * 2f64.powi(n as i32), "{n}: {x}");
        }
    }
    // The golden seed, the same numbers the core and the wasm build pin (to the µs here:
    // JSON parsing is not guaranteed to round-trip the last bit).
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let first: Vec<f64> = numbers(&seqs[0]).into_iter().map(round).collect();
    let pinned = golden::FULL_200_30000_SEED_42.map(|b| round(f64::from_bits(b)));
    assert_eq!(first, pinned);
}

#[test]
fn the_same_seed_prints_the_same_numbers() {
    let args = [
        "delays",
        "--strategy",
        "decorrelated",
        "--samples",
        "50",
        "--json",
        "--seed",
    ];
    let a = stampede(&[&args[..], &["7"]].concat());
    let b = stampede(&[&args[..], &["7"]].concat());
    let c = stampede(&[&args[..], &["8"]].concat());
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
}

#[test]
fn exponential_delays_are_exact() {
    let v = json(&[
        "delays",
        "--strategy",
        "exponential",
        "--base",
        "1.5s",
        "--cap",
        "1m",
        "--attempts",
        "8",
        "--multiplier",
        "3",
        "--json",
    ]);
    assert_eq!(
        numbers(&v["sequences"][0]),
        [1500.0, 4500.0, 13500.0, 40500.0, 60000.0, 60000.0, 60000.0]
    );
    let v = json(&["delays", "--strategy", "none", "--attempts", "1", "--json"]);
    assert_eq!(v["sequences"][0].as_array().unwrap().len(), 0);
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["delays", "--base", "-1s"], "--base"),
        (&["delays", "--base", "abc"], "--base"),
        (&["delays", "--base", "NaN"], "--base"),
        (&["delays", "--base", "infs"], "--base"),
        (&["delays", "--cap", "1e999"], "--cap"),
        (&["delays", "--base", "2s", "--cap", "1s"], "--cap"),
        (&["delays", "--attempts", "0"], "--attempts"),
        (&["delays", "--attempts", "101"], "--attempts"),
        (&["delays", "--attempts", "-3"], "--attempts"),
        (&["delays", "--strategy", "fibonacci"], "--strategy"),
        (&["delays", "--multiplier", "0.5"], "--multiplier"),
        (&["delays", "--samples", "0"], "--samples"),
        (
            &["delays", "--samples", "1000000", "--attempts", "12"],
            "--samples",
        ),
        (&["delays", "--seed", "-1"], "--seed"),
        (&["classify", "--status", "700"], "--status"),
        (&["classify", "--status", "99"], "--status"),
        (&["classify", "--status", "abc"], "--status"),
        (&["classify", "--error", "pigeon"], "--error"),
        (
            &["classify", "--status", "503", "--header", "no colon"],
            "--header",
        ),
        // A name that is not a token, or a value with a control character, is not a header
        // any server could send (it was read as Retry-After, trimmed).
        (
            &[
                "classify",
                "--status",
                "503",
                "--header",
                "Retry-After\n: 5",
            ],
            "--header",
        ),
        (
            &["classify", "--status", "503", "--header", "Retry After: 5"],
            "--header",
        ),
        (
            &[
                "classify",
                "--status",
                "503",
                "--header",
                "Retry-After: 5\r\n6",
            ],
            "--header",
        ),
        (
            &["classify", "--status", "503", "--header", ": 5"],
            "--header",
        ),
        // A carriage return in a refused value is escaped in the message.
        (&["classify", "--status", "50\r3"], "--status"),
        (
            &["classify", "--status", "503", "--max-retry-after", "-5s"],
            "--max-retry-after",
        ),
        (
            &["classify", "--status", "503", "--now-ms", "NaN"],
            "--now-ms",
        ),
        (
            &["classify", "--status", "503", "--retry-on", "6xx"],
            "--retry-on",
        ),
        (&["classify"], "--status"),
    ];
    for (args, flag) in cases {
        let out = stampede(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains('\r'), "{args:?}: {err:?}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

const METRICS: [&str; 15] = [
    "scenario",
    "clients",
    "requests",
    "total_attempts",
    "successes",
    "gave_up",
    "budget_rejected",
    "amplification",
    "peak_rps",
    "peak_recovery_rps",
    "completion_ms",
    "recovery_ms",
    "p50_ms",
    "p99_ms",
    "calls",
];

/// The keys of a flat JSON object, in the order the text gives them.
fn keys_in_order(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = text.trim().trim_start_matches('{');
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let end = after.find('"').expect("a closed key");
        keys.push(after[..end].to_string());
        // Past the value: to the next comma at the top level (values here are numbers,
        // null or strings without commas).
        match after[end..].find(',') {
            Some(comma) => rest = &after[end + comma + 1..],
            None => break,
        }
    }
    keys
}

/// simulate's JSON gives its fields in the README's order, which is sweep's columns' order
/// (serde_json sorted them alphabetically until its `preserve_order` feature was on).
#[test]
fn simulate_json_fields_come_in_the_documented_order() {
    let text = stdout_of(&["simulate", "--clients", "50", "--json"]);
    let header = stdout_of(&["sweep", "--clients", "50", "--runs", "1"]);
    let columns: Vec<&str> = header.lines().next().unwrap().split(',').collect();
    assert_eq!(columns[..4], ["scenario", "strategy", "clients", "runs"]);
    let mut expected = vec!["scenario", "clients"];
    expected.extend(&columns[4..]);
    assert_eq!(keys_in_order(&text), expected);
    assert_eq!(expected.len(), 25);
}

#[test]
fn simulate_json_contract_and_the_herd() {
    let herd = json(&[
        "simulate",
        "--scenario",
        "burst",
        "--clients",
        "1000",
        "--strategy",
        "exponential",
        "--base",
        "2s",
        "--cap",
        "30s",
        "--attempts",
        "6",
        "--multiplier",
        "2",
        "--outage",
        "2s",
        "--outage-start",
        "0s",
        "--capacity",
        "500",
        "--reject-cost",
        "0.1",
        "--latency",
        "10ms",
        "--seed",
        "1",
        "--runs",
        "1",
        "--json",
    ]);
    for k in METRICS {
        assert!(herd.get(k).is_some(), "missing {k}");
    }
    assert_eq!(herd["scenario"], "burst");
    assert_eq!(herd["requests"], 1000);
    let n = |v: &Value, k: &str| v[k].as_f64().unwrap();
    assert_eq!(
        n(&herd, "successes") + n(&herd, "gave_up") + n(&herd, "budget_rejected"),
        1000.0
    );
    assert_eq!(n(&herd, "peak_recovery_rps"), 10_000.0);
    let jitter = json(&[
        "simulate",
        "--clients",
        "1000",
        "--strategy",
        "full",
        "--base",
        "2s",
        "--json",
    ]);
    assert!(n(&jitter, "peak_recovery_rps") * 5.0 < n(&herd, "peak_recovery_rps"));
    // The same seed, the same numbers; --runs averages over derived seeds.
    assert_eq!(json(&["simulate", "--strategy", "full", "--json"]), jitter);
    let avg = json(&["simulate", "--strategy", "full", "--runs", "3", "--json"]);
    assert_ne!(avg, jitter);
}

#[test]
fn simulate_storm_budget_and_series() {
    let storm = [
        "simulate",
        "--scenario",
        "steady",
        "--clients",
        "1000",
        "--rate",
        "1",
        "--duration",
        "120s",
        "--strategy",
        "exponential",
        "--base",
        "1s",
        "--capacity",
        "1250",
        "--outage",
        "30s",
        "--outage-start",
        "10s",
        "--json",
    ];
    let without = json(&storm);
    let with = json(
        &[
            &storm[..],
            &["--budget", "100:100", "--budget-scope", "shared"],
        ]
        .concat(),
    );
    assert!(
        without["recovery_ms"].as_f64().unwrap() > 30_000.0,
        "{without}"
    );
    assert!(with["recovery_ms"].as_f64().unwrap() <= 2_000.0, "{with}");
    assert!(with["budget_rejected"].as_f64().unwrap() > 0.0);

    let dir = std::env::temp_dir().join(format!("stampede-series-{}", std::process::id()));
    let path = dir.with_extension("csv");
    let v = json(&[
        "simulate",
        "--clients",
        "200",
        "--retry-after",
        "3s",
        "--series",
        path.to_str().unwrap(),
        "--json",
    ]);
    let csv = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let mut lines = csv.lines();
    // Today's columns first, in their order; the queueing model's after them.
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("t_ms,offered,served,rejected,failed,blocked,"),
        "{csv}"
    );
    let offered: f64 = lines
        .map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(offered, v["total_attempts"].as_f64().unwrap());
}

#[test]
fn sweep_prints_one_csv_row_per_point() {
    let text = stdout_of(&[
        "sweep",
        "--scenario",
        "aws-occ",
        "--strategy",
        "none,exponential,full,equal,decorrelated",
        "--clients",
        "10..50:20",
        "--runs",
        "5",
        "--base",
        "5ms",
        "--cap",
        "2s",
    ]);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["scenario", "strategy", "clients", "runs"]);
    assert!(header.contains(&"calls") && header.contains(&"completion_ms"));
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    assert_eq!(rows.len(), 5 * 3);
    let clients: Vec<&str> = rows.iter().take(3).map(|r| r[2].as_str()).collect();
    assert_eq!(clients, ["10", "30", "50"]);
    assert!(
        rows.iter()
            .all(|r| r[0] == "aws-occ" && r[3] == "5" && r.len() == header.len())
    );
}

#[test]
fn aws_occ_defaults_to_the_experiments_base_and_cap() {
    let run = |extra: &[&str]| {
        let args = [
            &[
                "simulate",
                "--scenario",
                "aws-occ",
                "--clients",
                "50",
                "--strategy",
                "full",
                "--json",
            ][..],
            extra,
        ]
        .concat();
        json(&args)["calls"].as_f64().unwrap()
    };
    let default = run(&[]);
    assert_eq!(default, run(&["--base", "5ms", "--cap", "2s"]));
    assert_ne!(default, run(&["--base", "2s", "--cap", "30s"]));
    // burst keeps the article's 2 s base: no jitter, so the first retry is 2 s later.
    let v = json(&[
        "simulate",
        "--clients",
        "10",
        "--outage",
        "0s",
        "--capacity",
        "1",
        "--json",
    ]);
    assert!(v["completion_ms"].as_f64().unwrap() > 2000.0, "{v}");
}

#[test]
fn simulate_bad_input_exits_2_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["simulate", "--clients", "0"], "--clients"),
        (&["simulate", "--clients", "1000001"], "--clients"),
        (&["simulate", "--outage", "-1s"], "--outage"),
        (&["simulate", "--outage", "NaN"], "--outage"),
        (&["simulate", "--latency", "inf"], "--latency"),
        (&["simulate", "--latency-sd", "-1ms"], "--latency-sd"),
        (
            &["simulate", "--scenario", "aws-occ", "--clients", "10001"],
            "--clients",
        ),
        (
            &["sweep", "--scenario", "aws-occ", "--clients", "100,20000"],
            "--clients",
        ),
        (&["simulate", "--capacity", "0"], "--capacity"),
        (&["simulate", "--reject-cost", "2"], "--reject-cost"),
        (&["simulate", "--budget", "10"], "--budget"),
        (&["simulate", "--budget", "-1:1"], "--budget"),
        (&["simulate", "--budget", "a:b"], "--budget"),
        (&["simulate", "--scenario", "chaos"], "--scenario"),
        (&["simulate", "--runs", "0"], "--runs"),
        (
            &[
                "simulate",
                "--scenario",
                "steady",
                "--clients",
                "1000000",
                "--rate",
                "1000",
            ],
            "--rate",
        ),
        (&["sweep", "--clients", "5..1"], "--clients"),
        (&["sweep", "--strategy", "full,nope"], "--strategy"),
    ];
    for (args, flag) in cases {
        let out = stampede(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains('\r'), "{args:?}: {err:?}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

/// The one stderr line of a run that must fail with exit status 2.
fn usage_line(args: &[&str]) -> String {
    let out = stampede(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    err.trim_end().to_owned()
}

#[test]
fn errors_name_the_flag_and_the_cores_range() {
    use stampede::Field;
    // Each flag's error carries the range the core holds for its field: no CLI copy of a
    // bound is left to drift (`--runs` once stopped at 10,000 where the core takes 100,000).
    let max = |f: Field| f.limit().unwrap().max.to_string();
    let cases: &[(&[&str], &str, String)] = &[
        (
            &["simulate", "--runs", "100001"],
            "--runs",
            format!("from 1 to {}", max(Field::Runs)),
        ),
        (
            &["delays", "--attempts", "101"],
            "--attempts",
            format!("from 1 to {}", max(Field::MaxAttempts)),
        ),
        (
            &["delays", "--multiplier", "0.5"],
            "--multiplier",
            format!("from 1 to {}", max(Field::Multiplier)),
        ),
        (
            &["simulate", "--latency", "61s"],
            "--latency",
            format!("from 0 ms to {} ms", max(Field::Latency)),
        ),
        (
            &["simulate", "--reject-cost", "2"],
            "--reject-cost",
            "a fraction from 0 to 1".to_owned(),
        ),
        (
            &["classify", "--status", "600"],
            "--status",
            format!("from 100 to {}", max(Field::Status)),
        ),
        (
            &["simulate", "--budget", "1:-1"],
            "--budget",
            format!("from 0 to {}", max(Field::RefillPerSec)),
        ),
        // Errors found by the core after parsing name the flag too.
        (
            &["delays", "--base", "2s", "--cap", "1s"],
            "--cap",
            "at least base (2000 ms)".to_owned(),
        ),
        (
            &["simulate", "--scenario", "aws-occ", "--clients", "5001"],
            "--clients",
            format!(
                "at most {} clients for aws-occ",
                stampede::sim::MAX_OCC_CLIENTS
            ),
        ),
        (
            &["delays", "--samples", "1000000", "--attempts", "12"],
            "--samples",
            "at most 909090 samples".to_owned(),
        ),
        (
            &["simulate", "--strategy", "fibonacci"],
            "--strategy",
            format!("one of {}", stampede::backoff::Strategy::NAMES.join(", ")),
        ),
    ];
    for (args, flag, range) in cases {
        let line = usage_line(args);
        assert!(line.contains(flag), "{args:?}: {line}");
        assert!(
            line.contains(range.as_str()),
            "{args:?}: {line} lacks {range}"
        );
    }
}

#[test]
fn flag_defaults_are_the_cores() {
    use stampede::backoff::BackoffSettings;
    // `delays` with no flags draws from the core's default backoff and attempts.
    let v = json(&["delays", "--json"]);
    let d = BackoffSettings::default();
    assert_eq!(v["strategy"], d.strategy.name());
    assert_eq!(v["base_ms"].as_f64(), Some(d.base_ms));
    assert_eq!(v["cap_ms"].as_f64(), Some(d.cap_ms));
    assert_eq!(v["multiplier"].as_f64(), Some(d.multiplier));
    assert_eq!(
        v["attempts"].as_u64(),
        Some(u64::from(stampede::policy::DEFAULT_MAX_ATTEMPTS))
    );
    // `simulate` with no flags runs the core's default scene: the same metrics as the
    // core's own run of SimSettings::default().
    let v = json(&["simulate", "--json"]);
    let m = stampede::sim::run(&stampede::sim::SimSettings::default()).unwrap();
    assert_eq!(v["clients"].as_u64(), Some(1000));
    assert_eq!(v["total_attempts"].as_f64(), Some(m.total_attempts));
    assert_eq!(v["completion_ms"].as_f64(), Some(m.completion_ms));
}

/// The text output's first line states the run's policy: an attempt limit where there is one,
/// and for aws-occ, whose clients retry until their write wins, none (it said "6 attempts").
#[test]
fn the_text_header_states_the_attempt_limit_only_where_there_is_one() {
    let occ = stdout_of(&[
        "simulate",
        "--scenario",
        "aws-occ",
        "--clients",
        "20",
        "--strategy",
        "full",
    ]);
    let first = occ.lines().next().unwrap_or_default();
    assert!(
        first.contains("cap 2000 ms, retried until the write wins ·")
            && !first.contains("attempts"),
        "{first}"
    );
    let burst = stdout_of(&["simulate", "--clients", "20", "--attempts", "4"]);
    let first = burst.lines().next().unwrap_or_default();
    assert!(first.contains(", 4 attempts ·"), "{first}");
}
