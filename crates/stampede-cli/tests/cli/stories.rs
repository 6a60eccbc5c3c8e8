//! The stories, spelled as flags: each runs exactly as the core's settings for it
//! (`stampede::sim::stories`), and tells what it should.

use stampede::sim::SimSettings;

use super::model::{n, run};

/// The stories, spelled as flags, run exactly as the core's settings for them
/// (`stampede::sim::stories`): the command line reaches every setting they use.
#[test]
fn the_stories_run_from_the_command_line() {
    use stampede::sim::stories;
    let collapse = [
        "--scenario",
        "spike",
        "--clients",
        "1000",
        "--rate",
        "0.04",
        "--duration",
        "80s",
        "--spike-start",
        "20s",
        "--spike-length",
        "5s",
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
    ];
    let crash = [
        "--scenario",
        "steady",
        "--clients",
        "1000",
        "--rate",
        "0.07",
        "--duration",
        "60s",
        "--servers",
        "2",
        "--workers",
        "5",
        "--service",
        "100ms",
        "--service-dist",
        "exponential",
        "--queue",
        "1000",
        "--timeout",
        "1s",
        "--outage-start",
        "10s",
        "--outage",
        "5s",
        "--outage-servers",
        "1",
    ];
    let immediate: &[&str] = &["--strategy", "none", "--attempts", "4"];
    let cases: &[(&[&str], &[&str], SimSettings)] = &[
        (&collapse, &["--strategy", "none"], stories::collapse()),
        (
            &collapse,
            &["--strategy", "full", "--base", "20s", "--cap", "60s"],
            stories::collapse_jittered(),
        ),
        (&crash, immediate, stories::crash()),
        (
            &crash,
            &["--strategy", "none", "--attempts", "1"],
            stories::crash_without_retries(),
        ),
        (
            &crash,
            &[
                "--strategy",
                "full",
                "--base",
                "100ms",
                "--cap",
                "5s",
                "--attempts",
                "4",
                "--budget",
                "1:0.04",
            ],
            stories::crash_with_jitter_and_budget(),
        ),
        (
            &crash,
            &[immediate, &["--queue-order", "lifo"]].concat(),
            stories::crash_lifo(),
        ),
        (
            &crash,
            &[immediate, &["--queue-timeout", "300ms"]].concat(),
            stories::crash_queue_timeout(),
        ),
    ];
    let mut goodput = Vec::new();
    for (story, policy, settings) in cases {
        let v = run(story, policy);
        // The stories draw their series in 1 s slots; the CLI keeps 10 ms ones.
        let core = stampede::sim::run(&SimSettings {
            slot_ms: SimSettings::default().slot_ms,
            ..settings.clone()
        })
        .unwrap();
        for (k, want) in [
            ("requests", core.requests),
            ("total_attempts", core.total_attempts),
            ("successes", core.successes),
            ("timeouts", core.timeouts),
            ("wasted", core.wasted),
            ("max_queue", core.max_queue),
            ("completion_ms", core.completion_ms),
        ] {
            assert_eq!(n(&v, k), want, "{k} of {policy:?}: {v}");
        }
        goodput.push(n(&v, "successes") / n(&v, "requests"));
    }
    // What the stories tell: immediate retries keep the fleet down, each remedy keeps most
    // requests served.
    let [
        collapse,
        jittered,
        crash,
        no_retries,
        advised,
        lifo,
        queue_timeout,
    ] = goodput[..]
    else {
        unreachable!()
    };
    assert!(jittered > collapse, "{goodput:?}");
    for remedy in [no_retries, advised, lifo, queue_timeout] {
        assert!(remedy > 2.0 * crash, "{goodput:?}");
    }
}
