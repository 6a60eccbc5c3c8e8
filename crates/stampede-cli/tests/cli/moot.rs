//! Flags that another flag makes moot, beyond `notes.rs`' cases: the safety nets that act
//! only on retries, beside `--attempts 1`; `--outage` beside `--outage-servers 0`; a spike of
//! no length or of factor 1. Each changes nothing, to the byte, and a note says so.

use crate::notes::{moot_changes_nothing, run};

#[test]
fn a_net_or_spike_flag_another_makes_moot_gets_a_note_and_changes_nothing() {
    // Through an outage, so that a net would have failures to act on.
    let one = &["--attempts", "1", "--outage-start", "2s", "--outage", "3s"][..];
    let flat = &[
        "--scenario",
        "spike",
        "--duration",
        "30s",
        "--spike-length",
        "0ms",
    ][..];
    let factor_one = &[
        "--scenario",
        "spike",
        "--duration",
        "30s",
        "--spike-factor",
        "1",
    ][..];
    let cases: [(&[&str], &[&str], &str); 9] = [
        (
            one,
            &["--retry-ratio", "0.1"],
            "--retry-ratio is not read with --attempts 1",
        ),
        (
            one,
            &["--grpc-throttle", "10:0.1"],
            "--grpc-throttle is not read with --attempts 1",
        ),
        (
            one,
            &["--aws-quota", "5"],
            "--aws-quota is not read with --attempts 1",
        ),
        (
            one,
            &["--budget", "10:1"],
            "--budget is not read with --attempts 1",
        ),
        (
            one,
            &["--breaker", "0.5", "--breaker-mode", "retries"],
            "--breaker is not read with --attempts 1",
        ),
        (
            &["--servers", "3", "--outage-servers", "0"],
            &["--outage", "5s"],
            "--outage is not read with --outage-servers 0",
        ),
        (
            // Two notes, one a flag: the scope's is the second.
            &["--attempts", "1"],
            &["--retry-ratio", "0.1", "--budget-scope", "shared"],
            "--retry-ratio is not read with --attempts 1",
        ),
        (
            flat,
            &["--spike-start", "1s", "--spike-factor", "5"],
            "--spike-start is not read with --spike-length 0",
        ),
        (
            factor_one,
            &["--spike-length", "5s"],
            "--spike-length is not read with --spike-factor 1",
        ),
    ];
    for (base, moot, note) in cases {
        moot_changes_nothing(base, moot, note);
    }
    // Where they act: no note (a breaker on every attempt, adaptive throttling, a budget
    // with retries to spend on, a spike that multiplies the rate).
    for args in [
        &["--attempts", "1", "--breaker", "0.5"][..],
        &["--attempts", "1", "--adaptive-throttle", "2"],
        &["--attempts", "2", "--retry-ratio", "0.1"],
        &[
            "--scenario",
            "spike",
            "--duration",
            "30s",
            "--spike-start",
            "1s",
            "--spike-factor",
            "5",
        ],
    ] {
        let (_, quiet) = run(&[&["simulate", "--clients", "50", "--json"][..], args].concat());
        assert_eq!(quiet, "", "{args:?}");
    }
}
