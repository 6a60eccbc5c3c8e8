//! `--hedge DELAY[:MAX]` (issue #12's CLI contract): it reaches the run, its count comes out
//! as JSON `hedges` and as the sweep's last column, bad values exit 2 naming the flag, and
//! `aws-occ` refuses it.

use super::model::{n, run};
use super::{json, stampede, usage_line};

/// No queueing, no network, a wide log-normal service time: latency is service.
const TAIL: [&str; 18] = [
    "--scenario",
    "steady",
    "--clients",
    "100",
    "--rate",
    "20",
    "--duration",
    "5s",
    "--outage",
    "0",
    "--workers",
    "0",
    "--latency",
    "0",
    "--service-dist",
    "lognormal",
    "--service-spread",
    "1.5",
];

#[test]
fn hedges_reach_the_run_and_the_json() {
    let plain = run(&TAIL, &[]);
    assert_eq!(n(&plain, "hedges"), 0.0, "{plain}");
    // After the service time's p95 (38.3 ms at σ = 1.5, mean 10 ms): about 5% hedged.
    let hedged = run(&TAIL, &["--hedge", "38.3ms"]);
    let (requests, hedges) = (n(&hedged, "requests"), n(&hedged, "hedges"));
    assert!(
        hedges > 0.03 * requests && hedges < 0.07 * requests,
        "{hedged}"
    );
    assert_eq!(n(&hedged, "total_attempts"), requests + hedges, "{hedged}");
    assert!(n(&hedged, "p99_ms") < 0.6 * n(&plain, "p99_ms"));
    // MAX is the attempts in all: three allow a second hedge.
    let three = run(&TAIL, &["--hedge", "5ms:3"]);
    assert!(n(&three, "hedges") > n(&run(&TAIL, &["--hedge", "5ms:2"]), "hedges"));
    // The text output says the run was hedged, and shows the count.
    let out = stampede(&[&["simulate"][..], &TAIL, &["--hedge", "5ms:3"]].concat());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("hedged: another attempt after 5 ms without an answer, 3 in all"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("hedges ")),
        "{text}"
    );
}

#[test]
fn the_sweep_ends_with_the_hedges_column() {
    let out = stampede(
        &[
            &["sweep", "--strategy", "full", "--clients", "100"][..],
            &TAIL[4..],
            &["--scenario", "steady", "--hedge", "20ms"],
        ]
        .concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // Appended after the queueing model's columns: earlier columns keep their places.
    let at_col = |k: &str| header.iter().position(|h| *h == k);
    assert!(at_col("hedges") > at_col("mean_ms"), "{header:?}");
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let v = json(
        &[
            &["simulate"][..],
            &TAIL,
            &["--strategy", "full", "--hedge", "20ms", "--json"],
        ]
        .concat(),
    );
    let cell = at_col("hedges").map(|i| row[i]);
    assert_eq!(cell, Some(v["hedges"].to_string().as_str()));
}

#[test]
fn bad_hedges_exit_2_naming_the_flag() {
    for cmd in ["simulate", "sweep"] {
        for bad in [
            "", "-1ms", "NaN", "50ms:1", "50ms:6", "50ms:2.5", "50ms:", ":2", "1d", "50ms:2:3",
        ] {
            let args = [cmd, "--clients", "10", "--hedge", bad];
            let line = usage_line(&args);
            assert!(line.contains("--hedge"), "{args:?}: {line}");
            assert!(!line.contains("panicked"), "{line}");
        }
    }
    let line = usage_line(&["simulate", "--hedge", "50ms:6"]);
    assert!(
        line.ends_with("MAX: expected a whole number from 2 to 5"),
        "{line}"
    );
    // Too much work with hedging names the hedging's attempts.
    let line = usage_line(&[
        "simulate",
        "--scenario",
        "steady",
        "--clients",
        "100000",
        "--rate",
        "1",
        "--duration",
        "10s",
        "--hedge",
        "10ms:4",
    ]);
    assert!(
        line.starts_with("stampede: --hedge: expected at most 3 attempts"),
        "{line}"
    );
}

#[test]
fn attempts_beside_hedge_is_refused_not_ignored() {
    for cmd in ["simulate", "sweep"] {
        let args = [cmd, "--clients", "10", "--attempts", "3", "--hedge", "10ms"];
        assert_eq!(
            usage_line(&args),
            "stampede: --attempts: not used with --hedge, whose MAX is a hedged request's \
             attempts in all; drop --attempts or --hedge"
        );
    }
}

#[test]
fn aws_occ_refuses_hedging() {
    for cmd in ["simulate", "sweep"] {
        let args = [
            cmd,
            "--scenario",
            "aws-occ",
            "--clients",
            "10",
            "--hedge",
            "10ms",
        ];
        assert_eq!(
            usage_line(&args),
            "stampede: --hedge: not used by --scenario aws-occ, whose clients retry until their \
             write wins; drop --hedge or pick burst, steady, spike or closed"
        );
    }
}

#[test]
fn help_lists_the_flag() {
    for cmd in ["simulate", "sweep"] {
        let out = stampede(&[cmd, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.contains("--hedge <DELAY[:MAX]>"), "{cmd}: {help}");
        assert!(help.contains("[default MAX: 2]"), "{cmd}");
    }
}
