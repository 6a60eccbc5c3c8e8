//! What `simulate`'s text says beyond the metrics: a note on stderr for each flag that
//! changes nothing (the run goes ahead, its output the same), the header of a hedged run,
//! and figures rounded for people.

use crate::{stampede, stdout_of};

/// The run's stdout and stderr, which must succeed.
pub(crate) fn run(args: &[&str]) -> (String, String) {
    let out = stampede(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?}: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

#[test]
fn a_flag_the_scenario_does_not_read_changes_nothing_and_a_note_says_so() {
    let cases = [
        ("burst", "--rate", "3", "steady or spike"),
        ("burst", "--duration", "2s", "steady, spike or closed"),
        ("steady", "--window", "1s", "burst"),
        ("closed", "--spike-factor", "3", "spike"),
        ("spike", "--think", "1s", "closed"),
        (
            "aws-occ",
            "--outage",
            "1s",
            "burst, steady, spike or closed",
        ),
        (
            "aws-occ",
            "--capacity",
            "40",
            "burst, steady, spike or closed",
        ),
    ];
    for (scenario, flag, value, readers) in cases {
        for cmd in ["simulate", "sweep"] {
            let mut args = vec![cmd, "--scenario", scenario, "--clients", "20"];
            if cmd == "simulate" {
                args.push("--json");
            } else {
                args.extend(["--strategy", "full"]);
            }
            let (without, quiet) = run(&args);
            assert_eq!(quiet, "", "{args:?}");
            args.extend([flag, value]);
            let (with, note) = run(&args);
            assert_eq!(with, without, "{args:?}: the flag changed the run");
            assert_eq!(
                note,
                format!(
                    "stampede: note: {flag} is not read by --scenario {scenario} (only by \
                     {readers}): it changes nothing\n"
                ),
                "{args:?}"
            );
        }
    }
    // A flag the scenario reads: no note, and the run changes.
    let args = [
        "simulate",
        "--scenario",
        "steady",
        "--clients",
        "20",
        "--json",
    ];
    let (before, _) = run(&args);
    let (after, quiet) = run(&[&args[..], &["--rate", "3"]].concat());
    assert_eq!(quiet, "");
    assert_ne!(after, before);
}

#[test]
fn a_hedged_run_says_so_in_its_header_and_notes_the_backoff_flags() {
    let args = ["simulate", "--clients", "10", "--hedge", "20ms:3"];
    let (text, quiet) = run(&args);
    assert_eq!(quiet, "");
    let header = text.lines().next().unwrap();
    assert_eq!(
        header,
        "burst · 10 clients · hedged, no backoff · 1 run, seed 1"
    );
    assert!(text.contains("hedged: another attempt after 20 ms without an answer, 3 in all"));
    let (same, notes) = run(&[&args[..], &["--strategy", "full", "--base", "1s"]].concat());
    assert_eq!(same, text);
    let lines: Vec<&str> = notes.lines().collect();
    assert_eq!(lines.len(), 2, "{notes}");
    for (line, flag) in lines.iter().zip(["--strategy", "--base"]) {
        assert_eq!(
            *line,
            format!(
                "stampede: note: {flag} is not read with --hedge, whose attempts go out on its \
                 delay, not after a backoff: it changes nothing"
            )
        );
    }
}

#[test]
fn the_text_rounds_derived_figures_and_names_the_missing_ones() {
    let text = stdout_of(&[
        "simulate",
        "--clients",
        "10",
        "--servers",
        "3",
        "--capacity",
        "100",
    ]);
    assert_eq!(
        text.lines().nth(1),
        Some("3 servers × 1 worker of 30 ms, 4 waiting at most each · 100 requests/s")
    );
    let text = stdout_of(&["simulate", "--clients", "10", "--capacity", "7"]);
    assert!(text.contains("1 worker of 142.857 ms"), "{text}");
    // Unlimited workers keep no queue: none is shown (it said "5 waiting at most each"
    // beside the note that --queue is not read).
    let text = stdout_of(&[
        "simulate",
        "--clients",
        "10",
        "--workers",
        "0",
        "--queue",
        "5",
    ]);
    assert_eq!(
        text.lines().nth(1),
        Some("1 server × unlimited workers of 10 ms · no capacity limit")
    );
    // No request succeeds: no latency to give (null in JSON, an empty CSV cell).
    let text = stdout_of(&[
        "simulate",
        "--clients",
        "10",
        "--fail-rate",
        "1",
        "--strategy",
        "none",
        "--attempts",
        "2",
    ]);
    for k in ["p50_ms", "p99_ms", "mean_ms"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(k))
            .unwrap();
        assert!(line.ends_with(" n/a"), "{line}");
    }
}

#[test]
fn a_backoff_flag_no_strategy_reads_gets_a_note() {
    for strategy in ["none", "constant", "decorrelated", "decorrelated-v2"] {
        let args = ["delays", "--strategy", strategy, "--samples", "3", "--json"];
        let (plain, quiet) = run(&args);
        assert_eq!(quiet, "");
        let (with, note) = run(&[&args[..], &["--multiplier", "5"]].concat());
        // The same delays (the JSON echoes the multiplier given).
        let delays =
            |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["sequences"].clone();
        assert_eq!(delays(&with), delays(&plain), "{strategy}");
        assert_eq!(
            note,
            format!(
                "stampede: note: --multiplier is not read by --strategy {strategy} (only by \
                 exponential, full or equal): it changes nothing\n"
            )
        );
    }
    // The base and the cap likewise: none reads neither, constant only the base.
    let args = ["delays", "--strategy", "none", "--samples", "2", "--json"];
    let (plain, _) = run(&args);
    let (with, notes) = run(&[&args[..], &["--base", "1s", "--cap", "5s"]].concat());
    let delays =
        |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["sequences"].clone();
    assert_eq!(delays(&with), delays(&plain));
    assert_eq!(
        notes.lines().collect::<Vec<_>>(),
        [
            "stampede: note: --base is not read by --strategy none (only by constant, \
             exponential, full, equal, decorrelated or decorrelated-v2): it changes nothing",
            "stampede: note: --cap is not read by --strategy none (only by exponential, full, \
             equal, decorrelated or decorrelated-v2): it changes nothing",
        ]
    );
    let (_, note) = run(&["delays", "--strategy", "constant", "--cap", "50s"]);
    assert!(
        note.contains("--cap is not read by --strategy constant"),
        "{note}"
    );
    let (_, quiet) = run(&["delays", "--strategy", "constant", "--base", "1s"]);
    assert_eq!(quiet, "", "constant reads its base");
    // One that grows by it: no note (and other delays).
    let (_, quiet) = run(&["delays", "--strategy", "full", "--multiplier", "5"]);
    assert_eq!(quiet, "");
    let (_, note) = run(&[
        "simulate",
        "--clients",
        "5",
        "--strategy",
        "constant",
        "--multiplier",
        "3",
    ]);
    assert!(
        note.contains("--multiplier is not read by --strategy constant"),
        "{note}"
    );
    let (_, quiet) = run(&[
        "sweep",
        "--clients",
        "5",
        "--strategy",
        "full,constant",
        "--multiplier",
        "3",
    ]);
    assert_eq!(quiet, "", "full grows by it");
}

#[test]
fn bad_input_beside_a_noted_flag_is_still_one_line() {
    // The notes come once the settings have passed: a refusal is the only line.
    for args in [
        &[
            "simulate",
            "--scenario",
            "burst",
            "--rate",
            "3",
            "--base",
            "2s",
            "--cap",
            "1s",
        ][..],
        &[
            "simulate",
            "--clients",
            "10",
            "--hedge",
            "50ms",
            "--base",
            "2s",
            "--cap",
            "1s",
        ][..],
        &[
            "sweep",
            "--clients",
            "10",
            "--rate",
            "3",
            "--base",
            "2s",
            "--cap",
            "1s",
        ][..],
    ] {
        let out = stampede(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("stampede: --cap: expected"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_hedged_sweep_over_several_strategies_says_its_rows_repeat() {
    let args = [
        "sweep",
        "--clients",
        "10,20",
        "--strategy",
        "none,full",
        "--hedge",
        "50ms",
    ];
    let (csv, note) = run(&args);
    assert_eq!(
        note,
        "stampede: note: --hedge replaces the backoff, so the rows of the 2 strategies repeat \
         the same runs\n"
    );
    // And so they do: each strategy's rows are the other's but for the strategy's name.
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 4);
    for (none, full) in rows[..2].iter().zip(&rows[2..]) {
        assert_eq!((none[1], full[1]), ("none", "full"));
        assert_eq!(none[2..], full[2..]);
    }
    // One strategy: nothing to repeat, no note.
    let (_, quiet) = run(&[
        "sweep",
        "--clients",
        "10",
        "--strategy",
        "full",
        "--hedge",
        "50ms",
    ]);
    assert_eq!(quiet, "");
}

#[test]
fn flags_their_help_says_are_not_read_get_a_note() {
    let args = ["simulate", "--clients", "50", "--workers", "3", "--json"];
    let (plain, _) = run(&args);
    let (with, note) = run(&[&args[..], &["--capacity", "900"]].concat());
    assert_eq!(with, plain);
    assert_eq!(
        note,
        "stampede: note: --capacity is not read beside --workers, with which capacity follows \
         from --workers and --service: it changes nothing\n"
    );
    let args = ["simulate", "--clients", "50", "--json"];
    let (plain, _) = run(&args);
    let (with, note) = run(&[&args[..], &["--budget-scope", "shared"]].concat());
    assert_eq!(with, plain);
    assert_eq!(
        note,
        "stampede: note: --budget-scope shares a budget or a safety net, and none is given: it \
         changes nothing\n"
    );
    let (with, note) = run(&[&args[..], &["--service-spread", "2"]].concat());
    assert_eq!(with, plain);
    assert_eq!(
        note,
        "stampede: note: --service-spread is read only with --service-dist lognormal: it \
         changes nothing\n"
    );
    let (_, quiet) = run(&[
        &args[..],
        &["--service-spread", "2", "--service-dist", "lognormal"],
    ]
    .concat());
    assert_eq!(quiet, "");
    // With something to share, it is read: no note.
    let (_, quiet) = run(&[&args[..], &["--budget-scope", "shared", "--budget", "10:1"]].concat());
    assert_eq!(quiet, "");
}

/// A flag another one makes moot changes nothing and says so, as the others do: the output
/// is the same without it, and the same flag where it is read gets no note.
/// `simulate --clients 50 --json` with `base` prints the same with `moot` added, and says
/// so on stderr: `note`, one note a flag in `moot`.
pub(crate) fn moot_changes_nothing(base: &[&str], moot: &[&str], note: &str) {
    let args = [&["simulate", "--clients", "50", "--json"][..], base].concat();
    let (plain, _) = run(&args);
    let (with, said) = run(&[&args[..], moot].concat());
    assert_eq!(with, plain, "{moot:?}");
    assert!(
        said.starts_with(&format!("stampede: note: {note}"))
            && said.ends_with(": it changes nothing\n"),
        "{moot:?}: {said}"
    );
    let flags = moot.iter().filter(|a| a.starts_with("--")).count();
    assert_eq!(said.lines().count(), flags, "{said}");
}

#[test]
fn a_flag_another_makes_moot_gets_a_note() {
    let cases: [(&[&str], &[&str], &str); 10] = [
        (
            &[],
            &["--retry-at", "top"],
            "--retry-at is not read with one layer",
        ),
        (
            &["--workers", "0"],
            &["--queue", "5"],
            "--queue is not read with --workers 0",
        ),
        (
            &["--workers", "0"],
            &["--queue-timeout", "1s"],
            "--queue-timeout is not read with --workers 0",
        ),
        (
            &[],
            &["--balance", "random"],
            "--balance is not read with one server",
        ),
        (
            &["--outage", "0"],
            &["--outage-servers", "1"],
            "--outage-servers is not read with --outage 0",
        ),
        (
            &["--outage", "0"],
            &["--outage-start", "50ms"],
            "--outage-start is not read without an outage",
        ),
        (
            &["--servers", "3", "--outage-servers", "0"],
            &["--retry-after", "5s"],
            "--retry-after is not read without an outage",
        ),
        (
            &["--attempts", "1"],
            &["--strategy", "constant", "--base", "1s", "--cap", "3s"],
            "--strategy is not read with --attempts 1",
        ),
        (
            &[],
            &["--slowdown", "0:5s:1"],
            "--slowdown of length 0 or factor 1 slows nothing",
        ),
        (
            &["--scenario", "spike", "--duration", "10s", "--rate", "20"],
            &["--spike-factor", "3"],
            "--spike-factor is not read when the spike starts (20000 ms) after new requests \
             stop (--duration 10000 ms)",
        ),
    ];
    for (base, moot, note) in cases {
        moot_changes_nothing(base, moot, note);
    }
    // Where they are read: no note.
    for args in [
        &["--layers", "3", "--retry-at", "top"][..],
        &["--workers", "2", "--queue", "5"],
        &["--servers", "3", "--balance", "random"],
        &["--servers", "3", "--outage-servers", "1"],
        &["--attempts", "2", "--base", "1s"],
        &["--slowdown", "0:5s:2"],
        &[
            "--scenario",
            "spike",
            "--duration",
            "30s",
            "--spike-factor",
            "3",
        ],
    ] {
        let (_, quiet) = run(&[&["simulate", "--clients", "50", "--json"][..], args].concat());
        assert_eq!(quiet, "", "{args:?}");
    }
}

/// Without an outage, recovery counts from the run's start, whichever way there is none
/// (`--outage 0`, or no server down): the same run then reports the same figures. (It
/// counted from `--outage-start`, so a flag its note said changes nothing changed
/// `peak_recovery_rps`, and two ways of saying "no outage" reported 0 and the peak.)
#[test]
fn a_run_without_an_outage_reports_the_same_whichever_way_it_has_none() {
    let args = ["simulate", "--clients", "50", "--servers", "3", "--json"];
    let (none_long, _) = run(&[&args[..], &["--outage", "0"]].concat());
    let (none_down, _) = run(&[&args[..], &["--outage-servers", "0"]].concat());
    let (later, _) = run(&[&args[..], &["--outage", "0", "--outage-start", "1s"]].concat());
    assert_eq!(none_long, none_down);
    assert_eq!(none_long, later);
    let v: serde_json::Value = serde_json::from_str(&none_long).unwrap();
    assert_eq!(v["peak_recovery_rps"], v["peak_rps"], "{v}");
}

/// A Retry-After longer than the clients honour (60 s; sent in whole seconds, so 60.5 s goes
/// out as 61) ends every request at the outage's first answer: a note says why.
#[test]
fn a_retry_after_past_what_clients_honour_gets_a_note() {
    let args = ["simulate", "--clients", "50", "--json"];
    for (value, sent) in [("61s", "61"), ("60.5s", "61")] {
        let (out, said) = run(&[&args[..], &["--retry-after", value]].concat());
        assert!(
            said.starts_with("stampede: note: --retry-after ")
                && said.contains(&format!("goes out as {sent} s, longer than the longest"))
                && said.contains("(60000 ms)"),
            "{said}"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["successes"], 0, "{v}");
    }
    let (out, quiet) = run(&[&args[..], &["--retry-after", "60s"]].concat());
    assert_eq!(quiet, "");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["successes"], 50, "{v}");
}

/// The service time the core's sizing runs, when far from the one asked, is said: sized from
/// the capacity, workers are whole and at least one a server, so 10,000 servers at 500
/// requests/s ran one worker of 20,000 ms each, seen only in the text's fleet line. Given the
/// workers, or near the time asked, nothing is said.
#[test]
fn a_service_time_the_sizing_moved_far_gets_a_note() {
    for (args, said_whole) in [
        (
            &["--servers", "10000"][..],
            "stampede: note: the servers take 20000 ms a request, not the 10 ms asked: 10000 \
             servers share 500 requests/s in whole workers, at least one each, up to 100000 \
             (give --workers to keep the service time)\n",
        ),
        (
            &["--capacity", "1e9"],
            "stampede: note: the server takes 0.1 ms a request, not the 10 ms asked: it serves \
             1000000000 requests/s in its whole workers, up to 100000 (give --workers to keep \
             the service time)\n",
        ),
        (
            &["--service", "0.0000001ms"],
            "stampede: note: the server takes 2 ms a request, not the 1e-7 ms asked: it serves \
             500 requests/s in its whole workers, up to 100000 (give --workers to keep the \
             service time)\n",
        ),
    ] {
        let (_, said) = run(&[&["simulate", "--clients", "10", "--json"][..], args].concat());
        assert_eq!(said, said_whole, "{args:?}");
    }
    for args in [
        &["--servers", "3"][..],
        &["--servers", "10000", "--workers", "1"],
        &["--service", "12ms"],
    ] {
        let (_, quiet) = run(&[&["simulate", "--clients", "10", "--json"][..], args].concat());
        assert_eq!(quiet, "", "{args:?}");
    }
}

#[test]
fn a_budget_smaller_than_a_retry_refuses_everything_and_a_note_says_so() {
    for budget in ["0:5", "0.5:0"] {
        let args = [
            "simulate",
            "--clients",
            "20",
            "--outage",
            "0",
            "--budget",
            budget,
            "--json",
        ];
        let (out, note) = run(&args);
        let m: serde_json::Value = serde_json::from_str(&out).unwrap();
        // What the note warns of: nothing sent, every request refused.
        assert_eq!(
            (m["total_attempts"].as_f64(), m["budget_rejected"].as_f64()),
            (Some(0.0), Some(20.0)),
            "{budget}"
        );
        assert_eq!(
            note,
            format!(
                "stampede: note: --budget {budget} holds fewer tokens than a retry takes (1): \
                 its circuit is open from the start and never closes, so it refuses every \
                 request, first attempts too\n"
            ),
            "{budget}"
        );
    }
    // A bucket of one retry is quiet.
    let (_, quiet) = run(&["simulate", "--clients", "20", "--budget", "1:0", "--json"]);
    assert_eq!(quiet, "");
}

#[test]
fn the_header_counts_in_english() {
    let (out, _) = run(&["simulate", "--clients", "1", "--attempts", "1"]);
    assert!(
        out.starts_with(
            "burst · 1 client · exponential base 2000 ms, cap 30000 ms, 1 attempt · 1 run, seed 1\n"
        ),
        "{out}"
    );
    let (out, _) = run(&["simulate", "--clients", "2", "--runs", "2"]);
    assert!(out.starts_with("burst · 2 clients · exponential base 2000 ms, cap 30000 ms, 6 attempts · 2 runs, seed 1\n"), "{out}");
    let (out, _) = run(&["delays", "--attempts", "2", "--samples", "1"]);
    assert!(out.contains(", 2 attempts (1 retry), seed"), "{out}");
}

#[test]
fn a_latency_spread_cut_at_zero_gets_a_note() {
    let at = |sd: &str| {
        run(&[
            "simulate",
            "--clients",
            "50",
            "--outage",
            "0",
            "--workers",
            "0",
            "--latency",
            "100ms",
            "--latency-sd",
            sd,
            "--json",
        ])
    };
    let mean = |out: &str| {
        let m: serde_json::Value = serde_json::from_str(out).unwrap();
        m["mean_ms"].as_f64().unwrap()
    };
    // Each leg is 50 ms give or take sqrt(3) · sd/sqrt(2): past 40.8 ms of sd it goes below 0.
    let (kept, quiet) = at("40ms");
    assert_eq!(quiet, "");
    let (cut, note) = at("200ms");
    assert_eq!(
        note,
        "stampede: note: --latency-sd 200 ms spreads each leg of the 100 ms round trip below 0 \
         ms, where it is cut: the mean round trip is longer than --latency (at most 40.825 ms of \
         spread keeps it)\n"
    );
    // What it warns of: a mean round trip well above the 100 ms asked (184 ms here, 106 ms
    // within the bound: no outage and no queue are in the way, and 50 clients' mean of a
    // leg's spread of 141 ms is good to ~30 ms).
    assert!((mean(&kept) - 100.0).abs() < 20.0, "{}", mean(&kept));
    assert!(mean(&cut) > 140.0, "{}", mean(&cut));
    // The exponential law has no such cut.
    let (_, quiet) = run(&[
        "simulate",
        "--clients",
        "50",
        "--latency-dist",
        "exponential",
        "--json",
    ]);
    assert_eq!(quiet, "");
}
