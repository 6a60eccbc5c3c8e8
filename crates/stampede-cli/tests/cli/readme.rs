//! The figures the README quotes beside a command are that command's output: each is
//! recomputed here and looked for in the README. (The hedging panel's and the chain of
//! layers' went stale when arrivals moved to their own random stream, and nothing noticed.)

use super::json;

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    std::fs::read_to_string(path)
        .expect("the README")
        // The README wraps its lines and comments its shell blocks.
        .replace("\n#  ", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn quoted(readme: &str, figure: &str) {
    assert!(readme.contains(figure), "the README should say {figure:?}");
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn the_hedging_panel_s_figures_are_the_command_s() {
    let text = readme();
    let run = |seed: &str, hedge: bool| {
        let mut args = vec![
            "simulate",
            "--scenario",
            "steady",
            "--clients",
            "100",
            "--rate",
            "10",
            "--duration",
            "10s",
            "--outage",
            "0",
            "--workers",
            "0",
            "--service",
            "10ms",
            "--service-dist",
            "lognormal",
            "--service-spread",
            "1.2",
            "--latency",
            "2ms",
            "--seed",
            seed,
            "--json",
        ];
        args.extend(if hedge {
            ["--hedge", "20ms"]
        } else {
            ["--strategy", "none"]
        });
        json(&args)
    };
    for (i, seed) in ["1", "2", "3", "42"].into_iter().enumerate() {
        let (plain, hedged) = (run(seed, false), run(seed, true));
        // The page's extra load: hedges per request.
        let extra = 100.0 * f(&hedged, "hedges") / f(&hedged, "requests");
        let (a, b) = (f(&plain, "p99_ms"), f(&hedged, "p99_ms"));
        quoted(
            &text,
            &if i == 0 {
                format!("p99 falls from {a:.1} ms to {b:.1} ms for {extra:.1}% more requests")
            } else {
                format!("{a:.1} → {b:.1}")
            },
        );
        quoted(&text, &format!("{extra:.1}%"));
    }
}

#[test]
fn the_chain_of_layers_figures_are_the_command_s() {
    let text = readme();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "--scenario",
            "steady",
            "--clients",
            "500",
            "--rate",
            "1",
            "--duration",
            "60s",
            "--capacity",
            "625",
            "--outage",
            "10s",
            "--outage-start",
            "10s",
            "--strategy",
            "full",
            "--base",
            "100ms",
            "--cap",
            "5s",
            "--attempts",
            "4",
            "--json",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let n = |v: &serde_json::Value, k: &str| f(v, k) as u64;
    let every = run(&["--layers", "3"]);
    quoted(
        &text,
        &format!(
            "{:.0} bottom attempts per request, a recovery peak of {}/s, recovery_ms {} and {} of {} requests served",
            f(&every, "bottom_attempts") / f(&every, "requests"),
            n(&every, "peak_recovery_rps"),
            n(&every, "recovery_ms"),
            n(&every, "successes"),
            n(&every, "requests"),
        ),
    );
    let top = run(&["--layers", "3", "--retry-at", "top"]);
    let one = run(&[]);
    quoted(
        &text,
        &format!(
            "{:.1} per request, recovery_ms {}, {} of {} — as one layer ({} ms, {} of {})",
            f(&top, "bottom_attempts") / f(&top, "requests"),
            n(&top, "recovery_ms"),
            n(&top, "successes"),
            n(&top, "requests"),
            n(&one, "recovery_ms"),
            n(&one, "successes"),
            n(&one, "requests"),
        ),
    );
}
