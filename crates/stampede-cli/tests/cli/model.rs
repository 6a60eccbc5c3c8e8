//! The queueing model's flags, JSON fields and CSV columns (issue #11's CLI contract):
//! every flag is taken and reaches the run, every bad value exits 2 naming the flag, and
//! what is printed adds up (the series' columns sum to the run's totals).

use serde_json::Value;
use stampede::sim::SimSettings;

use super::{json, stampede, stdout_of, usage_line};

/// The new JSON fields, in the order of the sweep's new columns.
const NEW_FIELDS: [&str; 6] = [
    "timeouts",
    "wasted",
    "goodput_rps",
    "throughput_rps",
    "max_queue",
    "mean_ms",
];

/// Every new flag with a value it accepts.
const FLAGS: [(&str, &str); 19] = [
    ("--servers", "2"),
    ("--balance", "least-loaded"),
    ("--workers", "3"),
    ("--queue", "7"),
    ("--queue-order", "lifo"),
    ("--queue-timeout", "50ms"),
    ("--service", "20ms"),
    ("--service-dist", "lognormal"),
    ("--service-spread", "0.5"),
    ("--service-slope", "1ms"),
    ("--fail-rate", "0.1"),
    ("--outage-servers", "1"),
    ("--slowdown", "1s:2s:3"),
    ("--timeout", "1s"),
    ("--latency-dist", "exponential"),
    ("--spike-start", "2s"),
    ("--spike-length", "1s"),
    ("--spike-factor", "3"),
    ("--think", "500ms"),
];

pub(super) fn n(v: &Value, k: &str) -> f64 {
    v[k].as_f64()
        .unwrap_or_else(|| panic!("{k} is not a number in {v}"))
}

/// `simulate … --json` with `base` and then `extra`.
pub(super) fn run(base: &[&str], extra: &[&str]) -> Value {
    json(&[&["simulate"][..], base, extra, &["--json"]].concat())
}

#[test]
fn json_has_the_new_fields_in_every_scenario() {
    for scenario in stampede::sim::Scenario::NAMES {
        let v = json(&[
            "simulate",
            "--scenario",
            scenario,
            "--clients",
            "50",
            "--duration",
            "2s",
            "--json",
        ]);
        for k in NEW_FIELDS {
            assert!(v.get(k).is_some(), "{scenario}: no {k} in {v}");
        }
        assert_eq!(v["scenario"], scenario);
        if scenario == "aws-occ" {
            continue; // its own engine, which reports none of the queueing model
        }
        for k in NEW_FIELDS {
            assert!(v[k].is_number(), "{scenario}: {k} in {v}");
        }
    }
    // No timeout set: no attempt times out and no work is wasted.
    let v = json(&["simulate", "--json"]);
    assert_eq!((n(&v, "timeouts"), n(&v, "wasted")), (0.0, 0.0), "{v}");
    // Goodput and throughput are per second of one span: to the last answer, or to the
    // servers' last finish when they worked on for clients that had left. With no timeout
    // (and no hedging) nothing is finished after the last answer: the span is completion_ms.
    let expected = n(&v, "successes") * 1000.0 / n(&v, "completion_ms");
    assert!(
        (n(&v, "goodput_rps") - expected).abs() <= 1e-9 * expected,
        "{v}"
    );
    let served = n(&v, "successes") + n(&v, "wasted");
    let ratio = n(&v, "goodput_rps") / n(&v, "throughput_rps");
    assert!((ratio - n(&v, "successes") / served).abs() <= 1e-9, "{v}");
}

/// A steady load near capacity with a short outage, so that every server and client
/// setting has something to change.
const SCENE: [&str; 20] = [
    "--clients",
    "100",
    "--rate",
    "4",
    "--duration",
    "6s",
    "--capacity",
    "500",
    "--outage",
    "1s",
    "--outage-start",
    "2s",
    "--strategy",
    "full",
    "--base",
    "100ms",
    "--seed",
    "3",
    "--latency",
    "20ms",
];

#[test]
fn every_flag_reaches_the_run() {
    // (the flag under test, what it needs beside it to matter); `steady` unless it says.
    let cases: &[(&[&str], &[&str])] = &[
        (&["--servers", "2"], &[]),
        (&["--balance", "random"], &["--servers", "3"]),
        (&["--balance", "least-loaded"], &["--servers", "3"]),
        (&["--workers", "0"], &[]),
        (&["--workers", "3"], &[]),
        (&["--queue", "1"], &[]),
        (
            &["--queue-order", "lifo"],
            &["--service-dist", "exponential"],
        ),
        (&["--queue-timeout", "5ms"], &[]),
        (&["--service", "40ms"], &[]),
        (&["--service-dist", "exponential"], &[]),
        (&["--service-spread", "2"], &["--service-dist", "lognormal"]),
        (&["--service-slope", "2ms"], &[]),
        (&["--fail-rate", "0.2"], &[]),
        (&["--outage-servers", "1"], &["--servers", "2"]),
        (&["--slowdown", "3500ms:1s:5"], &[]),
        (&["--timeout", "30ms"], &[]),
        (&["--latency-dist", "exponential"], &[]),
        (&["--spike-start", "1s"], &["--scenario", "spike"]),
        (
            &["--spike-length", "3s"],
            &["--scenario", "spike", "--spike-start", "1s"],
        ),
        (
            &["--spike-factor", "4"],
            &["--scenario", "spike", "--spike-start", "1s"],
        ),
        (&["--think", "100ms"], &["--scenario", "closed"]),
    ];
    for (flag, beside) in cases {
        let scenario: &[&str] = if beside.contains(&"--scenario") {
            &[]
        } else {
            &["--scenario", "steady"]
        };
        let base = [&SCENE[..], scenario, beside].concat();
        let without = run(&base, &[]);
        let with = run(&base, flag);
        assert_ne!(with, without, "{flag:?} beside {beside:?} changed nothing");
    }
    // Every flag of the contract is in that table.
    let tested: Vec<&str> = cases.iter().map(|(f, _)| f[0]).collect();
    for (flag, _) in FLAGS {
        assert!(tested.contains(&flag), "{flag} is not tested");
    }
}

#[test]
fn flags_do_what_they_say() {
    let burst = ["--clients", "1000", "--outage", "0s", "--strategy", "none"];
    // Unlimited workers take the whole burst at once: one attempt each, nothing queued.
    let v = run(&burst, &["--workers", "0"]);
    assert_eq!(n(&v, "total_attempts"), 1000.0, "{v}");
    assert_eq!(n(&v, "max_queue"), 0.0, "{v}");
    // The default fleet (sized from --capacity) cannot, so it queues and rejects.
    let v = run(&burst, &[]);
    assert!(n(&v, "total_attempts") > 1000.0, "{v}");
    assert!(n(&v, "max_queue") > 0.0, "{v}");

    // Given --workers and --service, capacity follows from them and --capacity is unused.
    let fleet = ["--workers", "5", "--service", "10ms"];
    assert_eq!(
        run(&burst, &[&fleet[..], &["--capacity", "1"]].concat()),
        run(&burst, &[&fleet[..], &["--capacity", "500"]].concat())
    );
    // Without --workers, --capacity sizes the fleet.
    assert_ne!(
        run(&burst, &["--capacity", "100"]),
        run(&burst, &["--capacity", "500"])
    );

    // Every attempt outlasts its timeout: it times out, and the server still serves it.
    let slow = [
        "--clients",
        "5",
        "--outage",
        "0s",
        "--attempts",
        "2",
        "--workers",
        "1",
        "--queue",
        "10",
        "--service",
        "100ms",
    ];
    let v = run(&slow, &["--timeout", "50ms"]);
    assert_eq!(n(&v, "timeouts"), 10.0, "{v}");
    assert_eq!(n(&v, "successes"), 0.0, "{v}");
    assert_eq!(n(&v, "gave_up"), 5.0, "{v}");
    // No success, no latency of successes: null, as for the percentiles.
    for k in ["mean_ms", "p50_ms", "p99_ms"] {
        assert!(v[k].is_null(), "{k} in {v}");
    }
    assert!(n(&v, "wasted") > 0.0, "{v}");
    // With a timeout longer than the work, none does.
    let v = run(&slow, &["--timeout", "10s"]);
    assert_eq!((n(&v, "timeouts"), n(&v, "wasted")), (0.0, 0.0), "{v}");
    assert_eq!(n(&v, "successes"), 5.0, "{v}");
}

/// With a fail rate p, no backoff and 4 attempts, a request makes 1 + p + p² + p³
/// attempts on average and succeeds with probability 1 − p⁴.
#[test]
fn the_fail_rate_amplifies_as_theory_says() {
    let p: f64 = 0.5;
    let clients = 20_000.0;
    let v = json(&[
        "simulate",
        "--clients",
        "20000",
        "--workers",
        "0",
        "--outage",
        "0s",
        "--strategy",
        "none",
        "--attempts",
        "4",
        "--fail-rate",
        "0.5",
        "--seed",
        "11",
        "--json",
    ]);
    let amplification = 1.0 + p + p * p + p * p * p;
    let success = 1.0 - p.powi(4);
    // Attempts per request have a standard deviation of about 1.05, so the mean over
    // 20,000 requests one of 0.0075: 0.04 is over 5 of them. The success share's is 0.0017.
    assert!(
        (n(&v, "amplification") - amplification).abs() < 0.04,
        "{v}: expected {amplification}"
    );
    assert!(
        (n(&v, "successes") / clients - success).abs() < 0.01,
        "{v}: expected {success}"
    );
}

#[test]
fn bad_values_exit_2_naming_the_flag() {
    let too_many = (stampede::sim::MAX_SERVERS + 1).to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["--servers", "0"], "--servers"),
        (&["--servers", "-1"], "--servers"),
        (&["--servers", &too_many], "--servers"),
        (&["--servers", "x"], "--servers"),
        (&["--balance", "fastest"], "--balance"),
        (&["--workers", "-1"], "--workers"),
        (&["--workers", "1.5"], "--workers"),
        (&["--workers", "NaN"], "--workers"),
        (&["--queue", "-1"], "--queue"),
        (&["--queue-order", "random"], "--queue-order"),
        (&["--queue-timeout", "-1s"], "--queue-timeout"),
        (&["--queue-timeout", "NaN"], "--queue-timeout"),
        (&["--service", "0"], "--service"),
        (&["--service", "-1ms"], "--service"),
        (&["--service", "NaN"], "--service"),
        (&["--service-dist", "pareto"], "--service-dist"),
        (&["--service-spread", "-1"], "--service-spread"),
        (&["--service-spread", "NaN"], "--service-spread"),
        (&["--service-slope", "-1ms"], "--service-slope"),
        (&["--fail-rate", "1.5"], "--fail-rate"),
        (&["--fail-rate", "-0.1"], "--fail-rate"),
        (&["--fail-rate", "NaN"], "--fail-rate"),
        (&["--outage-servers", "-1"], "--outage-servers"),
        (&["--outage-servers", "2"], "--outage-servers"),
        (
            &["--servers", "2", "--outage-servers", "3"],
            "--outage-servers",
        ),
        (&["--slowdown", "10s"], "--slowdown"),
        (&["--slowdown", "10s:5s"], "--slowdown"),
        (&["--slowdown", "a:b:c"], "--slowdown"),
        (&["--slowdown", "-1s:5s:2"], "--slowdown"),
        (&["--slowdown", "1s:NaN:2"], "--slowdown"),
        (&["--slowdown", "1s:5s:0.5"], "--slowdown"),
        (&["--slowdown", "1s:5s:2:1"], "--slowdown"),
        (&["--timeout", "0"], "--timeout"),
        (&["--timeout", "-1s"], "--timeout"),
        (&["--timeout", "NaN"], "--timeout"),
        (&["--latency-dist", "weibull"], "--latency-dist"),
        (&["--spike-start", "-1s"], "--spike-start"),
        (&["--spike-length", "NaN"], "--spike-length"),
        (&["--spike-factor", "-1"], "--spike-factor"),
        (&["--spike-factor", "NaN"], "--spike-factor"),
        (&["--think", "-1s"], "--think"),
    ];
    for cmd in ["simulate", "sweep"] {
        for (flags, flag) in cases {
            let args = [&[cmd, "--clients", "10"][..], flags].concat();
            let out = stampede(&args);
            assert!(out.stdout.is_empty(), "{args:?}");
            let line = usage_line(&args);
            assert!(line.contains(flag), "{args:?}: {line}");
            assert!(!line.contains("panicked"), "{line}");
        }
    }
    // A check the core makes once every flag is read names the user's flag, with the range
    // the other flags give it.
    assert_eq!(
        usage_line(&["simulate", "--servers", "2", "--outage-servers", "3"]),
        "stampede: --outage-servers: expected a whole number from 0 to 2, got 3"
    );
    let line = usage_line(&["simulate", "--slowdown", "1s:5s:0.5"]);
    assert!(
        line.contains("'--slowdown <START:LENGTH:FACTOR>'"),
        "{line}"
    );
    assert!(
        line.ends_with("FACTOR: expected a number from 1 to 1000"),
        "{line}"
    );
}

#[test]
fn aws_occ_rejects_the_model_flags() {
    for cmd in ["simulate", "sweep"] {
        for (flag, value) in FLAGS {
            let args = [cmd, "--scenario", "aws-occ", "--clients", "10", flag, value];
            let line = usage_line(&args);
            // Each for its own reason: a load flag, the latency's law, the servers'.
            let why = match flag {
                "--spike-start" | "--spike-length" | "--spike-factor" | "--think" => {
                    "whose clients all write at the start, with no arrival process"
                }
                "--latency-dist" => {
                    "whose messages' delays are normal (set by --latency and --latency-sd)"
                }
                _ => "which models contending writes, not servers, queues or timeouts",
            };
            assert_eq!(
                line,
                format!(
                    "stampede: {flag}: not used by --scenario aws-occ, {why}; drop {flag} or \
                     pick burst, steady, spike or closed"
                ),
                "{args:?}"
            );
        }
    }
}

#[test]
fn the_series_has_the_new_columns_and_they_add_up() {
    let path =
        std::env::temp_dir().join(format!("stampede-model-series-{}.csv", std::process::id()));
    // A small collapse: a spike on slow servers whose clients time out and retry at once.
    let v = json(&[
        "simulate",
        "--scenario",
        "spike",
        "--clients",
        "40",
        "--rate",
        "1",
        "--duration",
        "20s",
        "--spike-start",
        "5s",
        "--spike-length",
        "3s",
        "--spike-factor",
        "2",
        "--outage",
        "0s",
        "--workers",
        "0",
        "--service",
        "1s",
        "--service-slope",
        "10ms",
        "--latency",
        "200ms",
        "--latency-dist",
        "exponential",
        "--timeout",
        "3s",
        "--attempts",
        "3",
        "--strategy",
        "none",
        "--series",
        path.to_str().unwrap(),
        "--json",
    ]);
    let csv = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "t_ms",
            "offered",
            "served",
            "rejected",
            "failed",
            "blocked",
            "goodput",
            "timed_out",
            "wasted",
            "queued"
        ]
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert!(rows.iter().all(|r| r.len() == header.len()));
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            r[0],
            i as f64 * 10.0,
            "the first column is the slot's start"
        );
    }
    let sum = |name: &str| {
        let i = header.iter().position(|h| *h == name).unwrap();
        rows.iter().map(|r| r[i]).sum::<f64>()
    };
    assert!(n(&v, "timeouts") > 0.0 && n(&v, "wasted") > 0.0, "{v}");
    assert_eq!(sum("offered"), n(&v, "total_attempts"), "{v}");
    assert_eq!(sum("goodput"), n(&v, "successes"), "{v}");
    assert_eq!(sum("timed_out"), n(&v, "timeouts"), "{v}");
    assert_eq!(sum("wasted"), n(&v, "wasted"), "{v}");
    // Throughput counts wasted work too: the servers finished more than was answered in time.
    assert!(sum("served") >= sum("goodput") + sum("wasted"), "{v}");
    let queued = header.iter().position(|h| *h == "queued").unwrap();
    let most = rows.iter().map(|r| r[queued]).fold(0.0, f64::max);
    assert!(most <= n(&v, "max_queue"), "{most} > {v}");
}

#[test]
fn sweep_adds_the_new_columns_at_the_end_and_agrees_with_simulate() {
    let flags = [
        "--scenario",
        "steady",
        "--rate",
        "2",
        "--duration",
        "3s",
        "--servers",
        "2",
        "--workers",
        "2",
        "--service",
        "30ms",
        "--service-dist",
        "exponential",
        "--timeout",
        "40ms",
        "--seed",
        "5",
    ];
    let text = stdout_of(
        &[
            &["sweep", "--strategy", "full", "--clients", "60"][..],
            &flags,
        ]
        .concat(),
    );
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // The old columns in place and order (tests outside this repository read them), the
    // queueing model's after them.
    let old = [
        "scenario",
        "strategy",
        "clients",
        "runs",
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
    assert_eq!(&header[..old.len()], old);
    assert_eq!(&header[old.len()..old.len() + NEW_FIELDS.len()], NEW_FIELDS);
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(row.len(), header.len());
    // The sweep's point is simulate's run.
    let v = json(
        &[
            &["simulate", "--strategy", "full", "--clients", "60"][..],
            &flags,
            &["--json"],
        ]
        .concat(),
    );
    assert!(n(&v, "timeouts") > 0.0, "{v}");
    for (k, cell) in header.iter().zip(&row).skip(4) {
        let want = match &v[*k] {
            Value::Null => String::new(),
            x => x.to_string(),
        };
        assert_eq!(*cell, want, "{k}");
    }
}

#[test]
fn help_lists_the_new_flags_with_the_cores_defaults() {
    let d = SimSettings::default();
    for cmd in ["simulate", "sweep"] {
        let out = stampede(&[cmd, "--help"]);
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        for (flag, _) in FLAGS {
            assert!(help.contains(&format!("{flag} <")), "{cmd}: {flag} missing");
        }
        // A flag's entry: its line, and the lines after it up to the next flag's (clap
        // starts each entry two spaces in, and indents its continuation lines further).
        let line = |flag: &str| {
            let mut lines = help
                .lines()
                .skip_while(|l| !l.trim_start().starts_with(&format!("{flag} <")));
            let first = lines.next().unwrap_or_default();
            let rest = lines.take_while(|l| !l.starts_with("  -") && !l.is_empty());
            std::iter::once(first)
                .chain(rest)
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (flag, default) in [
            ("--servers", d.servers.to_string()),
            ("--balance", d.balance.to_string()),
            ("--queue-order", d.queue_order.to_string()),
            ("--service-dist", d.service_dist.to_string()),
            ("--latency-dist", d.latency_dist.to_string()),
            ("--fail-rate", d.fail_rate.to_string()),
            ("--spike-factor", d.spike_factor.to_string()),
            ("--service", format!("{}ms", d.service_ms)),
            ("--spike-start", format!("{}s", d.spike_start_ms / 1000.0)),
            ("--think", format!("{}s", d.think_ms / 1000.0)),
            ("--timeout", "never".to_owned()),
            ("--outage-servers", "all".to_owned()),
        ] {
            let text = line(flag);
            assert!(
                text.contains(&format!("[default: {default}]")),
                "{cmd} {flag}: {text}"
            );
        }
        // Each range as the core has it (its limits, not a copy in the help): a user read
        // them only from the errors.
        use stampede::Field;
        for (flag, field) in [
            ("--servers", Field::Servers),
            ("--workers", Field::Workers),
            ("--queue", Field::Queue),
            ("--service-spread", Field::ServiceSpread),
            ("--spike-factor", Field::SpikeFactor),
            ("--capacity", Field::CapacityRps),
            ("--rate", Field::Rate),
            ("--latency", Field::Latency),
            ("--outage", Field::Outage),
            ("--runs", Field::Runs),
            ("--reject-cost", Field::RejectCost),
            ("--fail-rate", Field::FailRate),
            ("--multiplier", Field::Multiplier),
            ("--attempts", Field::MaxAttempts),
        ]
        .into_iter()
        // sweep's --clients is a list of counts, each in this range.
        .chain((cmd == "simulate").then_some(("--clients", Field::Clients)))
        {
            let range = stampede::Expected::Range(field.limit().unwrap()).to_string();
            let text = line(flag);
            assert!(
                text.contains(&format!("({range})")),
                "{cmd} {flag}: {text} (want {range})"
            );
        }
    }
}

#[test]
fn the_text_output_shows_the_sized_fleet() {
    let text = |args: &[&str]| {
        let out = stampede(&[&["simulate"][..], args].concat());
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // The default fleet, sized from --capacity at the default service time.
    let f = SimSettings::default().fleet();
    let want = format!(
        "{} server × {} workers of {} ms",
        f.servers, f.workers, f.service_ms
    );
    assert!(text(&[]).contains(&want), "{want}");
    let t = text(&["--servers", "3", "--workers", "0", "--timeout", "1s"]);
    assert!(t.contains("3 servers × unlimited workers"), "{t}");
    assert!(t.contains("no capacity limit"), "{t}");
    for k in NEW_FIELDS {
        assert!(t.lines().any(|l| l.trim_start().starts_with(k)), "{k}: {t}");
    }
    // aws-occ has no fleet to show.
    assert!(!text(&["--scenario", "aws-occ", "--clients", "10"]).contains(" × "));
}
