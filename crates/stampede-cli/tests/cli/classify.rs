//! `classify`'s contract: its JSON fields and verdicts, and a server's hint reported as
//! given however large.

use serde_json::Value;

use super::{json, stampede};

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
    // The server's hint is reported even when the request is not retried.
    let v = json(&[
        "classify",
        "--status",
        "503",
        "--method",
        "POST",
        "--header",
        "Retry-After: 5",
        "--json",
    ]);
    assert_eq!(
        (v["retryable"].clone(), v["retry_after_ms"].clone()),
        (Value::Bool(false), Value::from(5000))
    );
}

#[test]
fn classify_now_ms_reaches_the_end_of_the_year_9999() {
    // A date in the year 9999, a second before its end, is 1 s away from its last ms.
    let at = |now: &str| {
        json(&[
            "classify",
            "--status",
            "503",
            "--header",
            "Retry-After: Fri, 31 Dec 9999 23:59:59 GMT",
            "--now-ms",
            now,
            "--json",
        ])
    };
    assert_eq!(at("253402300798000")["retry_after_ms"], 1000);
    // Its last millisecond is accepted (the date is then past: no wait); one more is not.
    assert_eq!(at("253402300799999")["retryable"], true);
    let out = stampede(&["classify", "--status", "503", "--now-ms", "253402300800000"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--now-ms") && err.contains("253402300799999 (the end of the year 9999)"),
        "{err}"
    );
}

#[test]
fn classify_reports_a_huge_retry_after_as_given_and_short() {
    // 1e20 s: past a 64-bit integer, once reported as the saturated 1.845e19 s.
    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        "Retry-After: 100000000000000000000",
        "--json",
    ]);
    assert_eq!(v["retry_after_ms"].as_f64(), Some(1e23));
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("wait 1e20 s"), "{reason}");
    // Thousands of digits: one short line each, not 309 digits of the largest float.
    let digits = "9".repeat(4000);
    let out = stampede(&[
        "classify",
        "--status",
        "503",
        "--header",
        &format!("Retry-After: {digits}"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().all(|l| l.len() < 160), "{text}");
    assert!(
        text.contains("server hint: 1.7976931348623157e308 ms"),
        "{text}"
    );
}

#[test]
fn classify_header_takes_http_whitespace_around_name_and_value() {
    // Spaces and tabs around the name and the value are trimmed, as HTTP's optional
    // whitespace; the hint is read.
    let v = json(&[
        "classify",
        "--status",
        "503",
        "--header",
        " Retry-After :\t7 ",
        "--json",
    ]);
    assert_eq!(v["retry_after_ms"], 7000);
}

#[test]
fn classify_retry_on_empty_retries_no_status() {
    // "" is the empty set: no status is retried, transport errors still are.
    let v = json(&["classify", "--status", "503", "--retry-on", "", "--json"]);
    assert_eq!(v["retryable"], false);
    let v = json(&["classify", "--error", "timeout", "--retry-on", "", "--json"]);
    assert_eq!(v["retryable"], true);
}

#[test]
fn classify_header_errors_name_the_culprit_cut_short() {
    let long = format!("{} x: 5", "R".repeat(5000));
    let out = stampede(&["classify", "--status", "503", "--header", &long]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    // The culprit is quoted to its first 40 characters, then an ellipsis.
    assert!(
        err.contains(&format!("got \"{}\"…", "R".repeat(40))),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
    // So is clap's own echo of the refused value: the whole error is one short line.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..300]);
    assert!(err.contains("'--header <NAME: VALUE>'"), "{err}");
    let out = stampede(&["classify", "--status", "503", "--header", " : 5"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("the name is empty"), "{err}");
}
