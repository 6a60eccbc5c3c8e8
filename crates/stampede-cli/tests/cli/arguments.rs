//! Odd arguments: bytes that are not UTF-8, empty list items, and flags a scenario does not
//! use. Each exits 2 with one line on stderr naming the flag (or, for a stray argument, its
//! position), and writes nothing to stdout. And one that is not odd at all: a base past the
//! default cap, which a default must not refuse.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Output};

use super::{BIN, json, numbers, stampede};

fn stampede_bytes(args: &[&[u8]]) -> Output {
    Command::new(BIN)
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .output()
        .expect("the binary runs")
}

/// Exit 2, nothing on stdout, and stderr exactly `want` and a newline.
fn rejected(out: &Output, want: &str, args: &dyn std::fmt::Debug) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err, format!("{want}\n"), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn a_value_that_is_not_utf8_is_named_by_its_flag() {
    let cases: &[(&[&[u8]], &str)] = &[
        (
            &[b"delays", b"--base", b"2\xffs"],
            r#"stampede: --base: expected UTF-8 text, got "2\xffs""#,
        ),
        (
            &[b"delays", b"--json", b"--cap=\xff"],
            r#"stampede: --cap: expected UTF-8 text, got "\xff""#,
        ),
        (
            &[
                b"classify",
                b"--status",
                b"503",
                b"--header",
                b"Retry-After: \xe9t\xe9",
            ],
            r#"stampede: --header: expected UTF-8 text, got "Retry-After: \xe9t\xe9""#,
        ),
        (
            &[b"simulate", b"--scenario", b"aws-\xff"],
            r#"stampede: --scenario: expected UTF-8 text, got "aws-\xff""#,
        ),
        (
            &[b"sweep", b"--strategy", b"full,\xff"],
            r#"stampede: --strategy: expected UTF-8 text, got "full,\xff""#,
        ),
        (
            &[b"serve", b"--addr", b"127.0.0.1:\xff"],
            r#"stampede: --addr: expected UTF-8 text, got "127.0.0.1:\xff""#,
        ),
        // Not a value: clap names it itself, lossily.
        (
            &[b"\xffdelays"],
            "stampede: unrecognized subcommand '\u{fffd}delays'",
        ),
    ];
    for (args, want) in cases {
        rejected(&stampede_bytes(args), want, args);
    }
}

#[test]
fn a_path_may_be_any_bytes() {
    let dir = std::env::temp_dir();
    let mut path = dir.as_os_str().as_bytes().to_vec();
    path.extend_from_slice(b"/stampede-\xff-");
    path.extend_from_slice(format!("{}.csv", std::process::id()).as_bytes());
    let path = OsStr::from_bytes(&path);
    let out = stampede_bytes(&[
        b"simulate",
        b"--clients",
        b"50",
        b"--series",
        path.as_bytes(),
        b"--json",
    ]);
    let written = std::fs::read_to_string(path);
    let _ = std::fs::remove_file(path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        written
            .expect("the series file")
            .starts_with("t_ms,offered,")
    );
    // --static too: a directory whose name is not UTF-8 is looked for, and a missing one
    // named by its flag (clap refused it unnamed before).
    let mut missing = dir.as_os_str().as_bytes().to_vec();
    missing.extend_from_slice(b"/stampede-\xff-");
    missing.extend_from_slice(format!("{}-none", std::process::id()).as_bytes());
    let out = stampede_bytes(&[b"serve", b"--static", &missing, b"--addr", b"127.0.0.1:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("stampede: invalid value '")
            && err.contains("for '--static <DIR>': no such directory"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn an_empty_list_item_is_named_not_skipped() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["sweep", "--strategy", "full,,none"],
            "stampede: invalid value 'full,,none' for '--strategy <STRATEGY>': item 2 of 3 is \
             empty: expected a comma-separated list such as none,full",
        ),
        (
            &["sweep", "--strategy", "full,"],
            "stampede: invalid value 'full,' for '--strategy <STRATEGY>': item 2 of 2 is \
             empty: expected a comma-separated list such as none,full",
        ),
        (
            &["sweep", "--strategy", "none,full,none"],
            "stampede: invalid value 'none,full,none' for '--strategy <STRATEGY>': none is \
             listed twice; list each strategy once",
        ),
        (
            &["sweep", "--clients", "10,,20"],
            "stampede: invalid value '10,,20' for '--clients <CLIENTS>': item 2 of 3 is \
             empty: expected a comma-separated list such as 100,200 or 10..190:10",
        ),
        // A count repeated, as a list or through a range: its rows would only come twice.
        (
            &["sweep", "--clients", "100,100"],
            "stampede: invalid value '100,100' for '--clients <CLIENTS>': 100 is listed \
             twice; list each client count once",
        ),
        (
            &["sweep", "--clients", "10..50:10,30"],
            "stampede: invalid value '10..50:10,30' for '--clients <CLIENTS>': 30 is listed \
             twice; list each client count once",
        ),
        // The bound is on client counts (the grid's points are these times the strategies).
        (
            &["sweep", "--clients", "1..1001"],
            "stampede: invalid value '1..1001' for '--clients <CLIENTS>': expected at most \
             1000 client counts",
        ),
    ];
    for (args, want) in cases {
        rejected(&stampede(args), want, args);
    }
}

#[test]
fn aws_occ_rejects_the_flags_it_would_ignore() {
    for cmd in ["simulate", "sweep"] {
        for (flag, value) in [("--attempts", "3"), ("--budget", "10:1")] {
            let args = [cmd, "--scenario", "aws-occ", "--clients", "10", flag, value];
            let want = format!(
                "stampede: {flag}: not used by --scenario aws-occ, whose clients retry until \
                 their write wins; drop {flag} or pick burst, steady, spike or closed"
            );
            rejected(&stampede(&args), &want, &args);
            // The other scenarios use them.
            let args = [cmd, "--scenario", "burst", "--clients", "10", flag, value];
            let out = stampede(&args);
            assert!(out.status.success(), "{args:?}: {:?}", out.stderr);
        }
    }
    let help = String::from_utf8(stampede(&["simulate", "--help"]).stdout).unwrap();
    assert!(
        help.contains("so it rejects --attempts and --budget"),
        "{help}"
    );
}

#[test]
fn a_load_too_big_names_the_flag_given() {
    // A day at the default rate named --rate, which the user never gave; a steep spike
    // named --clients.
    for (scenario, extra, flag) in [
        (
            "steady",
            &["--duration", "24h"][..],
            "--duration: expected at most 3333333 ms of new requests",
        ),
        (
            "steady",
            &["--duration", "24h", "--rate", "2"][..],
            "--rate: expected at most 0.038 per client",
        ),
        (
            "steady",
            &["--clients", "1000000"][..],
            "--clients: expected at most 55555 clients",
        ),
        (
            "burst",
            &["--layers", "10"][..],
            "--layers: expected at most 4 layers for this many requests at these attempts",
        ),
        (
            "spike",
            &["--spike-factor", "1000"][..],
            "--spike-factor: expected at most 655.666 times the rate in the spike",
        ),
    ] {
        let mut args = vec!["simulate", "--scenario", scenario];
        args.extend_from_slice(extra);
        let out = stampede(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("stampede: {flag}")),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn simulate_refuses_runs_that_together_pass_a_runs_work() {
    // 1,000,000 clients × 6 attempts a run: three runs make 18 M attempts, four 24 M, more
    // than the largest single run may (20 M). Before the bound, `--runs 100000` with
    // 100,000 clients ran for about an hour.
    let want = |max: u32, got: u32| {
        format!(
            "stampede: --runs: expected at most {max} runs of these settings (the runs of one \
             call together make at most the attempts of the largest single run, 20000000, less \
             with a timeout, hedging, nets, layers or long waits, a run's setup counted as 110 \
             attempts and 0.2 a server; for aws-occ at most 100000000 writes, clients × (clients + 1) / 2 a run; \
             fewer clients, servers or attempts also help), got {got}"
        )
    };
    let args = ["simulate", "--clients", "1000000", "--runs", "4"];
    rejected(&stampede(&args), &want(3, 4), &args);
    // A sweep is a batch job, as long as its grid (and split with --shard), but each of
    // its points is bounded as `simulate --runs` is: before, one point of a million clients
    // run 100,000 times was accepted and would have taken hours.
    let args = ["sweep", "--clients", "10", "--runs", "1000"];
    let out = stampede(&args);
    assert!(out.status.success(), "{args:?}: {:?}", out.stderr);
    let args = ["sweep", "--clients", "10,1000000", "--runs", "4"];
    rejected(&stampede(&args), &want(3, 4), &args);
    // The AWS experiment's grid keeps its 100 runs a point.
    let args = [
        "sweep",
        "--scenario",
        "aws-occ",
        "--clients",
        "10..190:60",
        "--runs",
        "100",
    ];
    let out = stampede(&args);
    assert!(out.status.success(), "{args:?}: {:?}", out.stderr);
}

#[test]
fn samples_out_of_range_at_either_end_get_the_same_range() {
    for v in ["0", "1000001", "99999999999999999999", "-1"] {
        let args = ["delays", "--samples", v];
        let want = format!(
            "stampede: invalid value '{v}' for '--samples <SAMPLES>': expected a whole number \
             from 1 to 1000000"
        );
        rejected(&stampede(&args), &want, &args);
    }
}

#[test]
fn a_value_like_a_negative_number_is_named_by_its_flag() {
    // Flags whose values are names or lists took "-1" for an unknown flag: "unexpected
    // argument '-1' found", naming none.
    for (args, flag) in [
        (
            &["serve", "--max-connections", "-1"][..],
            "--max-connections <N>",
        ),
        (
            &["serve", "--header-timeout", "-1"],
            "--header-timeout <DURATION>",
        ),
        (&["sweep", "--clients", "-1"], "--clients <CLIENTS>"),
        (&["sweep", "--strategy", "-1"], "--strategy <STRATEGY>"),
        (&["delays", "--strategy", "-1"], "--strategy <STRATEGY>"),
        (&["classify", "--error", "-1"], "--error <ERROR>"),
        (
            &["classify", "--status", "503", "--retry-on", "-1"],
            "--retry-on <RETRY_ON>",
        ),
        (&["simulate", "--scenario", "-1"], "--scenario <SCENARIO>"),
        (&["simulate", "--balance", "-1"], "--balance <NAME>"),
        (
            &["simulate", "--latency-dist", "-1"],
            "--latency-dist <DIST>",
        ),
        (
            &["simulate", "--budget-scope", "-1"],
            "--budget-scope <BUDGET_SCOPE>",
        ),
    ] {
        let out = stampede(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("stampede: invalid value '-1' for '{flag}'")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn series_errors_are_one_line_and_a_failed_write_exits_1() {
    // A path that cannot be opened is the flag's: exit 2, the path quoted, so that a
    // newline in it stays on the line.
    let out = stampede(&[
        "simulate",
        "--clients",
        "50",
        "--series",
        "/nonexistent-dir/a\nb",
    ]);
    rejected(
        &out,
        r#"stampede: --series "/nonexistent-dir/a\nb": No such file or directory (os error 2)"#,
        &"a missing directory",
    );
    // "-" is no file to make in the working directory (it made one), nor standard output
    // unasked, where the summary goes.
    let out = stampede(&["simulate", "--clients", "50", "--series", "-"]);
    rejected(
        &out,
        r#"stampede: --series "-": give a file; /dev/stdout puts the series before the summary on standard output"#,
        &"a dash",
    );
    // Settings refused up front leave an existing file as it was.
    let kept =
        std::env::temp_dir().join(format!("stampede-series-kept-{}.csv", std::process::id()));
    std::fs::write(&kept, "precious\n").unwrap();
    let out = stampede(&[
        "simulate",
        "--clients",
        "1000000",
        "--attempts",
        "100",
        "--series",
        kept.to_str().unwrap(),
    ]);
    let left = std::fs::read_to_string(&kept);
    let _ = std::fs::remove_file(&kept);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(left.unwrap(), "precious\n");
    // So do settings refused midway, at the bound on pending events (it truncated the file
    // before the run); a file the call made for them is removed.
    let fresh =
        std::env::temp_dir().join(format!("stampede-series-fresh-{}.csv", std::process::id()));
    let _ = std::fs::remove_file(&fresh);
    std::fs::write(&kept, "precious\n").unwrap();
    for path in [&kept, &fresh] {
        let out = stampede(&[
            "simulate",
            "--clients",
            "1000000",
            "--timeout",
            "1ms",
            "--latency",
            "60s",
            "--service",
            "1440m",
            "--attempts",
            "4",
            "--series",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{path:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .starts_with("stampede: --clients: expected at most"),
            "{path:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let left = std::fs::read_to_string(&kept);
    let _ = std::fs::remove_file(&kept);
    assert_eq!(left.unwrap(), "precious\n");
    assert!(!fresh.exists(), "{fresh:?} left behind");
    // A write that fails (a full disk) is an output error: exit 1, one line, as for stdout.
    if std::path::Path::new("/dev/full").exists() {
        let out = stampede(&[
            "simulate",
            "--clients",
            "50",
            "--series",
            "/dev/full",
            "--json",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(
            err,
            "stampede: cannot write output: --series \"/dev/full\": No space left on device (os error 28)\n"
        );
    }
    // With several runs, the metrics are those without --series: its run is the first of
    // them, not one more.
    let path =
        std::env::temp_dir().join(format!("stampede-series-runs-{}.csv", std::process::id()));
    let args = [
        "simulate",
        "--clients",
        "300",
        "--timeout",
        "300ms",
        "--runs",
        "3",
        "--json",
    ];
    let plain = stampede(&args);
    let mut with = args.to_vec();
    with.extend(["--series", path.to_str().unwrap()]);
    let series = stampede(&with);
    let csv = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    assert!(plain.status.success() && series.status.success());
    assert_eq!(plain.stdout, series.stdout);
    assert!(csv.expect("the series").lines().count() > 10);
}

#[test]
fn latency_sd_beside_an_exponential_latency_is_refused_not_ignored() {
    for cmd in ["simulate", "sweep"] {
        let out = stampede(&[cmd, "--latency-dist", "exponential", "--latency-sd", "5ms"]);
        rejected(
            &out,
            "stampede: --latency-sd: not used with --latency-dist exponential, whose legs' \
             standard deviation is their mean; drop --latency-sd or use --latency-dist normal",
            &cmd,
        );
    }
    // With the normal law it is read as before.
    assert!(
        stampede(&[
            "simulate",
            "--clients",
            "20",
            "--latency-sd",
            "5ms",
            "--json"
        ])
        .status
        .success()
    );
}

#[test]
fn a_refused_duration_is_quoted_in_its_unit() {
    // The flag took `1s`; the message quotes it as the range is written, in ms.
    for cmd in ["simulate", "delays"] {
        let args = [cmd, "--base", "2s", "--cap", "1s"];
        rejected(
            &stampede(&args),
            "stampede: --cap: expected a duration at least base (2000 ms) and at most 86400000 \
             ms, got 1000 ms",
            &args,
        );
    }
}

/// A base longer than the default cap, with no --cap: the cap follows the base (it was
/// refused naming --cap, a flag not given, which `constant` then said it does not read).
#[test]
fn a_base_past_the_default_cap_takes_the_cap_with_it() {
    for strategy in ["constant", "exponential"] {
        let args = [
            "delays",
            "--strategy",
            strategy,
            "--base",
            "40s",
            "--attempts",
            "3",
            "--json",
        ];
        assert_eq!(
            numbers(&json(&args)["sequences"][0]),
            [40000.0, 40000.0],
            "{strategy}"
        );
    }
    let out = stampede(&[
        "simulate",
        "--strategy",
        "constant",
        "--base",
        "31s",
        "--clients",
        "100",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("base 31000 ms, cap 31000 ms"));
    // A cap given below the base is still refused, naming it.
    let out = stampede(&["simulate", "--base", "40s", "--cap", "30s"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("stampede: --cap: "));
}

/// A cap shorter than the default base, with no --base: the base follows the cap (the
/// default 2 s refused a 1 s cap, even for strategies that read neither, and beside
/// `--hedge`, which reads no backoff at all). A cap below a base given is refused only by
/// the strategies that read the cap; the others run and say the cap changes nothing.
#[test]
fn a_cap_below_the_default_base_takes_the_base_with_it() {
    let args = [
        "delays",
        "--strategy",
        "exponential",
        "--cap",
        "100ms",
        "--attempts",
        "3",
        "--json",
    ];
    // (delays' default base is 200 ms.)
    assert_eq!(numbers(&json(&args)["sequences"][0]), [100.0, 100.0]);
    let ran = |args: &[&str]| {
        let out = stampede(args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        err
    };
    let common = ["--clients", "50", "--cap", "1s"];
    for extra in [
        &["--strategy", "none"][..],
        &["--strategy", "constant"],
        &["--strategy", "constant", "--base", "2s"],
        &["--hedge", "10ms"],
    ] {
        let args: Vec<&str> = ["simulate"]
            .iter()
            .chain(&common)
            .chain(extra)
            .copied()
            .collect();
        let err = ran(&args);
        assert!(
            err.contains("--cap") && err.contains("changes nothing"),
            "{args:?}: {err}"
        );
    }
    ran(&[
        "sweep",
        "--strategy",
        "none,constant",
        "--clients",
        "50",
        "--cap",
        "1s",
    ]);
    // A cap the strategy does not read changes nothing, its delays included: `constant`
    // keeps its 2 s base beside a 1 s cap (the base followed the cap, and waited 1 s).
    for cmd in [
        &[
            "simulate",
            "--clients",
            "50",
            "--strategy",
            "constant",
            "--json",
        ][..],
        &[
            "delays",
            "--strategy",
            "constant",
            "--base",
            "500ms",
            "--json",
        ],
        &["delays", "--strategy", "constant", "--json"],
    ] {
        let without_cap = |v: serde_json::Value| {
            let mut v = v;
            v.as_object_mut().unwrap().remove("cap_ms");
            v
        };
        let plain = without_cap(json(cmd));
        let capped = without_cap(json(&[cmd, &["--cap", "100ms"]].concat()));
        assert_eq!(capped, plain, "{cmd:?}");
    }
    // A strategy that reads the cap still refuses one below a base given.
    let out = stampede(&[
        "simulate",
        "--strategy",
        "full",
        "--base",
        "2s",
        "--cap",
        "1s",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("stampede: --cap: "));
}

#[test]
fn a_budget_of_three_parts_is_refused_as_a_form() {
    let out = stampede(&["simulate", "--budget", "1:1:1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with(
            "expected C:R, tokens and tokens per second, such as 10:1; two parts, not 3\n"
        ),
        "{err}"
    );
}

#[test]
fn sweep_refusing_its_runs_names_the_most_that_fit_every_point() {
    // The default grid's largest point (190 clients) allows the fewest runs; the first
    // point refused named its own (86880), and that was refused again.
    let max_runs = |args: &[&str]| {
        let out = stampede(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let tail = err
            .strip_prefix("stampede: --runs: expected at most ")
            .unwrap_or_else(|| panic!("{err}"));
        tail.split(' ').next().unwrap().parse::<u32>().unwrap()
    };
    let sweep = max_runs(&["sweep", "--runs", "100000"]);
    let largest = max_runs(&["simulate", "--clients", "190", "--runs", "100000"]);
    assert_eq!(sweep, largest);
    // A smaller point refused alone names more: the grid's answer is not the first one's.
    let smaller = max_runs(&["simulate", "--clients", "30", "--runs", "100000"]);
    assert!(smaller > sweep, "{smaller} against {sweep}");
}
