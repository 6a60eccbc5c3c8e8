//! Parsers for the command line's values, shared by every subcommand.
//!
//! Each parser's error is a short phrase; clap puts it after the flag's name
//! (`invalid value '-1s' for '--base <DURATION>': …`), so every message names the flag.
//! Every range comes from the core ([`Field::limit`]) and every phrase from its
//! [`Expected`](stampede::Expected): nothing here repeats a bound.

use stampede::backoff::Strategy;
use stampede::{ConfigError, Field, Got, Unit};

/// A value parser for a duration setting: a non-negative decimal number with an optional
/// unit, `ms` (the default), `s`, `m` or `h` (`200ms`, `1.5s`, `2m`, `1h`, `250`), in
/// `field`'s range. Returns milliseconds.
pub fn duration(field: Field) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s| {
        let bad = |expected: String| format!("expected {expected}, such as {}", examples(field));
        // An exponent (`1e3ms`) is refused by name: "a duration from 0 ms to …" alone read
        // as if 1000 ms were out of range.
        let form = || {
            if s.contains(['e', 'E']) && s.contains(|c: char| c.is_ascii_digit()) {
                "a duration as a plain decimal (no exponent)".to_owned()
            } else {
                expected(field)
            }
        };
        let ms = duration_ms(s).ok_or_else(|| bad(form()))?;
        // `-0` is 0 (`-0.0 + 0.0` is `+0.0`): it was echoed as "-0 ms".
        field
            .check(ms)
            .map(|ms| ms + 0.0)
            .map_err(|e| bad(e.expected.to_string()))
    }
}

/// Examples of durations for `field`'s errors: those of `200ms`, `1.5s`, `2m` and `1h` the
/// field takes (`--latency`, at most a minute, took "2m or 1h" as examples).
fn examples(field: Field) -> String {
    let all = [
        ("200ms", 200.0),
        ("1.5s", 1500.0),
        ("2m", 120_000.0),
        ("1h", 3_600_000.0),
    ];
    let fits: Vec<&str> = all
        .iter()
        .filter(|(_, ms)| field.check(*ms).is_ok())
        .map(|(text, _)| *text)
        .collect();
    match fits.as_slice() {
        [] => "250 (ms)".to_owned(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A default duration as `--help` shows it and [`duration_ms`] reads it back exactly: whole
/// seconds as `2s`, anything else as `10ms` (a bare `2000` read as if it were seconds was
/// the easy mistake: `--outage 2` is 2 ms). Made once per flag when the parser is built, so
/// the few bytes are leaked rather than owned by a `Command` that needs `&'static str`.
pub fn duration_text(ms: f64) -> &'static str {
    duration_string(ms).leak()
}

/// A duration as the CLI writes it: whole seconds as `2s`, anything else as `10ms`.
pub fn duration_string(ms: f64) -> String {
    if ms != 0.0 && ms % 1000.0 == 0.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

/// A duration's milliseconds, or `None` when `s` is not one (any range: the caller checks).
pub fn duration_ms(s: &str) -> Option<f64> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        (t, 1.0)
    };
    let num = num.trim();
    // f64's parser accepts "inf" and "NaN"; a duration is digits and at most one point.
    let well_formed = !num.is_empty()
        && num
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-' || b == b'+')
        && num.bytes().any(|b| b.is_ascii_digit());
    match num.parse::<f64>() {
        Ok(v) if well_formed => Some(v * scale),
        _ => None,
    }
}

/// A value parser for a number setting in `field`'s range.
pub fn number(field: Field) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s| match s.trim().parse::<f64>() {
        Ok(v) => field
            .check(v)
            .map(|v| v + 0.0)
            .map_err(|e| format!("expected {}", e.expected)),
        Err(_) => Err(format!("expected {}", expected(field))),
    }
}

/// A value parser for a whole-number setting in `field`'s range.
pub fn whole(field: Field) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync {
    move |s| whole_in(s, field)
}

/// `s` as a whole number in `field`'s range.
pub fn whole_in(s: &str, field: Field) -> Result<u32, String> {
    let bad = || format!("expected {}", expected(field));
    let v = s.trim().parse::<u32>().map_err(|_| bad())?;
    field.check(f64::from(v)).map_err(|_| bad())?;
    Ok(v)
}

/// A flag's help with `field`'s range, as the core words it (`Identical servers (a whole
/// number from 1 to 10000)`): the range is read from the core, never written in a help.
pub fn ranged(text: &str, field: Field) -> String {
    format!("{text} ({})", expected(field))
}

/// What `field` accepts, as the core words it.
fn expected(field: Field) -> String {
    match field.limit() {
        // In the words of the field's own check: "more than 0 ms" where 0 is refused.
        Some(l) if field.min_exclusive() => stampede::Expected::Above {
            min: l.min,
            max: l.max,
            unit: l.unit,
        }
        .to_string(),
        Some(l) => stampede::Expected::Range(l).to_string(),
        None => "a value".to_owned(),
    }
}

/// Parses a seed: a whole number from 0 to 2^64 - 1. (The core's seeds are `u64`; the
/// narrower [`Field::Seed`] range is for front ends that carry seeds in an `f64`.)
pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| "expected a whole number from 0 to 18446744073709551615".to_owned())
}

/// The command-line flag that sets a core field, for error messages. Fields no command
/// takes as a flag keep the core's name.
pub fn flag_for(field: Field) -> &'static str {
    match field {
        Field::Strategy => "--strategy",
        Field::Base => "--base",
        Field::Cap => "--cap",
        Field::Multiplier => "--multiplier",
        Field::MaxAttempts => "--attempts",
        Field::MaxRetryAfter => "--max-retry-after",
        Field::Samples => "--samples",
        Field::Seed => "--seed",
        Field::Method => "--method",
        Field::Status => "--status",
        Field::Error => "--error",
        Field::RetryOn => "--retry-on",
        Field::Capacity | Field::RefillPerSec | Field::RetryCost | Field::SuccessRefund => {
            "--budget"
        }
        Field::Scenario => "--scenario",
        Field::Clients => "--clients",
        Field::Outage => "--outage",
        Field::OutageStart => "--outage-start",
        Field::CapacityRps => "--capacity",
        Field::RejectCost => "--reject-cost",
        Field::Latency => "--latency",
        Field::LatencySd => "--latency-sd",
        Field::Rate => "--rate",
        Field::Duration => "--duration",
        Field::BurstWindow => "--window",
        Field::RetryAfter => "--retry-after",
        Field::BudgetScope => "--budget-scope",
        Field::Runs => "--runs",
        Field::Servers => "--servers",
        Field::Balance => "--balance",
        Field::Workers => "--workers",
        Field::Queue => "--queue",
        Field::QueueOrder => "--queue-order",
        Field::QueueTimeout => "--queue-timeout",
        Field::Service => "--service",
        Field::ServiceDist => "--service-dist",
        Field::ServiceSpread => "--service-spread",
        Field::ServiceSlope => "--service-slope",
        Field::FailRate => "--fail-rate",
        Field::OutageServers => "--outage-servers",
        // One flag, START:LENGTH:FACTOR, sets all three.
        Field::SlowdownStart | Field::SlowdownLength | Field::SlowdownFactor => "--slowdown",
        Field::Timeout => "--timeout",
        Field::LatencyDist => "--latency-dist",
        Field::SpikeStart => "--spike-start",
        Field::SpikeLength => "--spike-length",
        Field::SpikeFactor => "--spike-factor",
        Field::Think => "--think",
        Field::Ratio | Field::RatioCap | Field::MinPerSec | Field::Window => "--retry-ratio",
        Field::MaxTokens | Field::TokenRatio => "--grpc-throttle",
        Field::Tokens | Field::TimeoutCost => "--aws-quota",
        Field::FailureRatio | Field::Sampling | Field::MinThroughput | Field::BreakDuration => {
            "--breaker"
        }
        Field::BreakerMode => "--breaker-mode",
        Field::K | Field::ThrottleWindow => "--adaptive-throttle",
        Field::BudgetKind => "--budget",
        // One flag, DELAY[:MAX], sets both.
        Field::HedgeDelay | Field::HedgeMaxAttempts => "--hedge",
        Field::Layers => "--layers",
        Field::RetryAt => "--retry-at",
        // Not flags of any command.
        Field::MaxElapsed
        | Field::CallSite
        | Field::Slot
        | Field::LogClients
        | Field::Deadline
        | Field::AttemptTimeout => field.name(),
    }
}

/// A core settings error, as one line naming the flag.
pub fn config_error(e: &ConfigError) -> String {
    // A duration the flag took as `1s` is quoted in the unit of the range (`got 1000 ms`,
    // not a bare `got 1000`).
    let unit = match (&e.got, e.expected.unit()) {
        (Got::Number(_), Some(Unit::Ms)) => " ms",
        (Got::Number(_), Some(Unit::PerSecond)) => " per second",
        _ => "",
    };
    format!(
        "{}: expected {}, got {}{unit}",
        flag_for(e.field),
        e.expected,
        e.got
    )
}

/// A note for each backoff flag given (`--base`, `--cap`, `--multiplier`, as `(given,
/// field)`) that none of `strategies` reads (see `Strategy::reads`), naming those that do.
pub fn unread_backoff(given: &[(bool, Field)], strategies: &[Strategy]) -> Vec<String> {
    let names: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
    given
        .iter()
        .filter(|&&(g, f)| g && !strategies.iter().any(|s| s.reads(f)))
        .map(|&(_, f)| {
            let readers: Vec<&str> = Strategy::ALL
                .iter()
                .filter(|s| s.reads(f))
                .map(|s| s.name())
                .collect();
            unread_note(f, "--strategy", &names.join(","), &readers)
        })
        .collect()
}

/// The note for `field`'s flag, which `option` (`--strategy`, `--scenario`) set to `value`
/// does not read: only `readers` do.
pub fn unread_note(field: Field, option: &str, value: &str, readers: &[&str]) -> String {
    format!(
        "note: {} is not read by {option} {value} (only by {}): it changes nothing",
        flag_for(field),
        or_list(readers)
    )
}

/// `a, b or c`.
pub fn or_list(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `value` quoted for an error message (control characters escaped, so the message stays on
/// one line), cut to its first 40 characters if longer.
pub fn shown(value: &str) -> String {
    const MAX_CHARS: usize = 40;
    match value.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{:?}…", &value[..cut]),
        None => format!("{value:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_durations_show_their_unit_and_read_back_exactly() {
        for (ms, text) in [
            (2000.0, "2s"),
            (60_000.0, "60s"),
            (200.0, "200ms"),
            (10.0, "10ms"),
            (0.0, "0ms"),
            (0.5, "0.5ms"),
            (1500.0, "1500ms"),
            (86_400_000.0, "86400s"),
        ] {
            assert_eq!(duration_text(ms), text);
            assert_eq!(duration_ms(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn durations() {
        let base = duration(Field::Base);
        for (s, ms) in [
            ("200ms", 200.0),
            ("1.5s", 1500.0),
            ("2m", 120_000.0),
            ("250", 250.0),
            ("0", 0.0),
            (" 30s ", 30_000.0),
            (".5s", 500.0),
            ("1440m", 86_400_000.0),
            ("1h", 3_600_000.0),
            ("1.5h", 5_400_000.0),
            ("24h", 86_400_000.0),
        ] {
            assert_eq!(base(s), Ok(ms), "{s}");
        }
        for s in [
            "", "-1s", "NaNms", "nan", "inf", "infs", "1e400s", "abc", "1d", "s", "ms", "h",
            "1441m", "24.001h", "1hs", "1mh", "1.2.3s", "--1",
        ] {
            assert!(base(s).is_err(), "{s:?} should be rejected");
        }
        // An exponent is named.
        assert_eq!(
            base("1e3ms"),
            Err("expected a duration as a plain decimal (no exponent), such as 200ms, 1.5s, 2m or 1h".to_owned())
        );
        // -0 is 0, not a "-0 ms" to echo.
        for s in ["-0", "-0ms", "-0.0s"] {
            assert!(base(s).unwrap().is_sign_positive(), "{s}");
        }
        assert!(number(Field::FailRate)("-0").unwrap().is_sign_positive());
        // The range is the field's: a duration of 0 is no steady run.
        assert!(duration(Field::Duration)("0s").is_err());
        assert_eq!(
            base("1441m").unwrap_err(),
            "expected a duration from 0 ms to 86400000 ms, such as 200ms, 1.5s, 2m or 1h"
        );
        // The examples are ones the field takes: --latency is at most a minute.
        assert_eq!(
            duration(Field::Latency)("2h").unwrap_err(),
            "expected a duration from 0 ms to 60000 ms, such as 200ms or 1.5s"
        );
        // A field that refuses 0 says so for text that is no duration too, as for 0 itself
        // (it said "from 0 ms" for "1d", then "more than 0 ms" for "0").
        let service = duration(Field::Service);
        assert_eq!(service("1d").unwrap_err(), service("0").unwrap_err());
        assert!(
            service("1d")
                .unwrap_err()
                .starts_with("expected more than 0 ms")
        );
    }

    #[test]
    fn numbers_take_the_core_range() {
        let reject = number(Field::RejectCost);
        assert_eq!(reject("0.1"), Ok(0.1));
        assert!(reject("NaN").is_err());
        assert_eq!(reject("2").unwrap_err(), "expected a fraction from 0 to 1");
        assert_eq!(whole_in("100", Field::MaxAttempts), Ok(100));
        assert!(whole_in("101", Field::MaxAttempts).is_err());
        // The core's bound on runs, not a CLI copy of it (which had drifted to 10,000).
        let max_runs = stampede::sim::MAX_RUNS;
        assert_eq!(whole_in(&max_runs.to_string(), Field::Runs), Ok(max_runs));
        assert!(whole_in(&(max_runs + 1).to_string(), Field::Runs).is_err());
    }

    #[test]
    fn every_flag_starts_with_dashes_or_is_a_core_name() {
        for &f in Field::ALL {
            let flag = flag_for(f);
            assert!(flag.starts_with("--") || flag == f.name(), "{f:?}");
        }
        // One flag sets a slowdown's three parts, so each part's error names it.
        for f in [
            Field::SlowdownStart,
            Field::SlowdownLength,
            Field::SlowdownFactor,
        ] {
            assert_eq!(flag_for(f), "--slowdown");
        }
        let e = Field::MaxAttempts.check(0.0).unwrap_err();
        assert_eq!(
            config_error(&e),
            "--attempts: expected a whole number from 1 to 100, got 0"
        );
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = "é".repeat(100);
        let cut = shown(&long);
        assert!(cut.chars().count() < 50, "{cut}");
        assert_eq!(shown("x"), r#""x""#);
        assert_eq!(shown("a\nb"), r#""a\nb""#);
    }
}
