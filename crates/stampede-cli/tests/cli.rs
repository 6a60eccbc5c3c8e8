//! The command-line contract: names, JSON fields, exit codes. Tests outside this
//! repository rely on these.

use std::process::{Command, Output};

use serde_json::Value;

fn stampede(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(args)
        .output()
        .expect("the binary runs")
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
    // The golden seed, the same numbers the core and the wasm build pin.
    let first: Vec<f64> = numbers(&seqs[0])
        .iter()
        .map(|x| (x * 1000.0).round() / 1000.0)
        .collect();
    assert_eq!(first, stampede::golden::FULL_200_30000_SEED_42);
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
fn classify_json_contract() {
    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        "Retry-After: 120",
        "--now-ms",
        "1445412480000",
        "--max-retry-after",
        "5m",
        "--json",
    ]);
    assert_eq!(v["retryable"], true);
    assert_eq!(v["retry_after_ms"], 120000);
    assert!(v["reason"].as_str().unwrap().contains("503"));

    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        "Retry-After: 120",
        "--json",
    ]);
    assert_eq!(
        v["retryable"], false,
        "120 s is past the default 60 s maximum"
    );
    assert_eq!(v["retry_after_ms"], 120000);

    let v = json(&[
        "classify",
        "--status",
        "429",
        "--header",
        "retry-after: Wed, 21 Oct 2015 07:28:00 GMT",
        "--now-ms",
        "1445412470000",
        "--json",
    ]);
    assert_eq!(
        (v["retryable"].clone(), v["retry_after_ms"].clone()),
        (Value::Bool(true), Value::from(10000))
    );

    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        "grpc-retry-pushback-ms: 250",
        "--json",
    ]);
    assert_eq!(v["retry_after_ms"], 250);
    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        "grpc-retry-pushback-ms: -1",
        "--json",
    ]);
    assert_eq!(v["retryable"], false);

    for (args, retryable) in [
        (&["--status", "404"][..], false),
        (&["--status", "410"], false),
        (&["--status", "408"], true),
        (&["--status", "200"], false),
        (&["--status", "503", "--method", "POST"], false),
        (
            &["--status", "503", "--method", "POST", "--idempotent"],
            true,
        ),
        (&["--status", "501", "--retry-on", "500,502-504"], false),
        (&["--error", "timeout"], true),
        (&["--error", "connect"], true),
        (&["--error", "reset"], true),
        (&["--error", "dns"], false),
        (&["--error", "abort"], false),
    ] {
        let v = json(&[&["classify"][..], args, &["--json"]].concat());
        assert_eq!(v["retryable"], retryable, "{args:?}: {}", v["reason"]);
        assert!(v["retry_after_ms"].is_null());
        assert!(!v["reason"].as_str().unwrap().is_empty());
    }
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
        (&["delays", "--seed", "-1"], "--seed"),
        (&["classify", "--status", "700"], "--status"),
        (&["classify", "--status", "99"], "--status"),
        (&["classify", "--status", "abc"], "--status"),
        (&["classify", "--error", "pigeon"], "--error"),
        (
            &["classify", "--status", "503", "--header", "no colon"],
            "--header",
        ),
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
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}
