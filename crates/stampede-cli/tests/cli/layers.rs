//! Where to retry on the command line (issue #12's CLI contract): `--layers L` and
//! `--retry-at every|top` on `simulate` and `sweep`, the JSON field and CSV column
//! `bottom_attempts`, the published products from the command line, and every bad value
//! exiting 2 with one line naming the flag.

use super::model::n;
use super::{json, stampede, stdout_of, usage_line};

/// `simulate` of 1000 clients whose server always fails, with no wait between tries.
fn always_failing(extra: &[&str]) -> serde_json::Value {
    let base = [
        "simulate",
        "--clients",
        "1000",
        "--fail-rate",
        "1",
        "--strategy",
        "none",
        "--json",
    ];
    json(&[&base[..], extra].concat())
}

#[test]
fn the_sre_books_64_and_the_builders_librarys_243_from_the_command_line() {
    for (attempts, layers, every, top) in [("4", "3", 64.0, 4.0), ("3", "5", 243.0, 3.0)] {
        let flags = ["--attempts", attempts, "--layers", layers];
        let v = always_failing(&flags);
        assert_eq!(n(&v, "requests"), 1000.0, "{v}");
        assert_eq!(n(&v, "bottom_attempts") / 1000.0, every, "{v}");
        // The clients' attempts at layer 1 are the same either way.
        assert_eq!(n(&v, "amplification"), attempts.parse::<f64>().unwrap());
        assert_eq!(n(&v, "total_attempts"), n(&v, "calls"));
        let v = always_failing(&[&flags[..], &["--retry-at", "top"]].concat());
        assert_eq!(n(&v, "bottom_attempts") / 1000.0, top, "{v}");
        assert_eq!(n(&v, "bottom_attempts"), n(&v, "total_attempts"));
        assert_eq!(n(&v, "successes"), 0.0);
    }
    // One layer, the default: the bottom is the first layer.
    let v = always_failing(&["--attempts", "4"]);
    assert_eq!(n(&v, "bottom_attempts"), n(&v, "total_attempts"));
    assert_eq!(n(&v, "bottom_attempts"), 4000.0);
    // `every` is the default.
    let given = always_failing(&["--attempts", "4", "--layers", "3", "--retry-at", "every"]);
    let default = always_failing(&["--attempts", "4", "--layers", "3"]);
    assert_eq!(given, default);
}

#[test]
fn sweep_ends_with_bottom_attempts_and_takes_the_flags() {
    let text = stdout_of(&[
        "sweep",
        "--strategy",
        "none",
        "--clients",
        "100,200",
        "--fail-rate",
        "1",
        "--attempts",
        "4",
        "--layers",
        "3",
    ]);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // Appended after the queueing model's columns: earlier columns keep their places.
    let at_col = |k: &str| header.iter().position(|h| *h == k);
    assert!(at_col("bottom_attempts") > at_col("mean_ms"), "{header:?}");
    let at = |row: &str, k: &str| -> f64 {
        let i = header.iter().position(|h| *h == k).unwrap();
        row.split(',').nth(i).unwrap().parse().unwrap()
    };
    for (row, clients) in lines.zip([100.0, 200.0]) {
        assert_eq!(at(row, "bottom_attempts"), 64.0 * clients, "{row}");
        assert_eq!(at(row, "total_attempts"), 4.0 * clients, "{row}");
    }
}

#[test]
fn bad_values_and_aws_occ_exit_2_naming_the_flag() {
    for cmd in ["simulate", "sweep"] {
        for (flag, value, want) in [
            ("--layers", "0", "expected a whole number from 1 to 10"),
            ("--layers", "11", "expected a whole number from 1 to 10"),
            ("--layers", "2.5", "expected a whole number from 1 to 10"),
            ("--layers", "-1", "expected a whole number from 1 to 10"),
            ("--retry-at", "each", "expected one of every, top"),
            ("--retry-at", "", "expected one of every, top"),
        ] {
            let line = usage_line(&[cmd, flag, value]);
            assert!(line.contains(flag) && line.ends_with(want), "{line}");
        }
        for (flag, value) in [("--layers", "2"), ("--retry-at", "top")] {
            let line = usage_line(&[cmd, "--scenario", "aws-occ", flag, value]);
            assert_eq!(
                line,
                format!(
                    "stampede: {flag}: not used by --scenario aws-occ, which models contending \
                     writes, not a chain of services; drop {flag} or pick burst, steady, spike \
                     or closed"
                )
            );
        }
    }
    // Too much work: a million clients with 4 attempts at 3 layers is 84 million attempts;
    // the line names --attempts with the most that fit (1: 3 million of the 5 million a
    // chain of layers may make).
    let line = usage_line(&[
        "simulate",
        "--clients",
        "1000000",
        "--attempts",
        "4",
        "--layers",
        "3",
    ]);
    assert!(
        line.starts_with(
            "stampede: --attempts: expected at most 1 attempt per request at each layer"
        ),
        "{line}"
    );
    assert!(line.ends_with("got 4"), "{line}");
    // With a timeout not even one attempt at 10 layers fits: --layers is named.
    let line = usage_line(&[
        "simulate",
        "--clients",
        "200000",
        "--layers",
        "10",
        "--timeout",
        "1s",
    ]);
    assert!(
        line.starts_with("stampede: --layers: expected at most 8 layers"),
        "{line}"
    );
}

#[test]
fn help_and_text_show_the_chain() {
    for cmd in ["simulate", "sweep"] {
        let out = stampede(&[cmd, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.contains("--layers <L>"), "{help}");
        assert!(help.contains("[default: 1]"), "{help}");
        assert!(help.contains("--retry-at <WHERE>"), "{help}");
        assert!(help.contains("[default: every]"), "{help}");
    }
    let out = stampede(&["simulate", "--layers", "3", "--retry-at", "top"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("3 layers, only the clients retrying"),
        "{text}"
    );
    assert!(text.contains("bottom_attempts"), "{text}");
    let out = stampede(&["simulate"]);
    assert!(!String::from_utf8(out.stdout).unwrap().contains("layers,"));
}
