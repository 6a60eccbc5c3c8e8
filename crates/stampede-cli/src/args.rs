//! Parsers for the command line's values, shared by every subcommand.
//!
//! Each parser's error is a short phrase; clap puts it after the flag's name
//! (`invalid value '-1s' for '--base <DURATION>': …`), so every message names the flag.

use stampede::{ConfigError, MAX_DURATION_MS};

/// Parses a duration: a non-negative decimal number with an optional unit, `ms` (the
/// default), `s` or `m`: `200ms`, `1.5s`, `2m`, `250`. Returns milliseconds.
pub fn duration_ms(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (t, 1.0)
    };
    let expected = || {
        format!(
            "expected a duration from 0 to {}m, such as 200ms, 1.5s or 2m",
            MAX_DURATION_MS / 60_000.0
        )
    };
    let num = num.trim();
    // f64's parser accepts "inf" and "NaN"; a duration is digits and at most one point.
    let well_formed = !num.is_empty()
        && num
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-' || b == b'+')
        && num.bytes().any(|b| b.is_ascii_digit());
    let value: f64 = match num.parse() {
        Ok(v) if well_formed => v,
        _ => return Err(expected()),
    };
    let ms = value * scale;
    if !(ms.is_finite() && (0.0..=MAX_DURATION_MS).contains(&ms)) {
        return Err(expected());
    }
    Ok(ms)
}

/// Parses a finite number in `[min, max]`.
pub fn number_in(s: &str, min: f64, max: f64) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("expected a number from {min} to {max}")),
    }
}

/// Parses a whole number in `[min, max]`.
pub fn whole_in(s: &str, min: u32, max: u32) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("expected a whole number from {min} to {max}")),
    }
}

/// Parses a seed: a whole number from 0 to 2^64 - 1.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| "expected a whole number from 0 to 18446744073709551615".to_owned())
}

/// The command-line flag that sets a core field, for error messages.
pub fn flag_for(field: &str) -> &str {
    match field {
        "base" => "--base",
        "cap" => "--cap",
        "multiplier" => "--multiplier",
        "max_attempts" => "--attempts",
        "max_retry_after" => "--max-retry-after",
        "max_elapsed" => "--max-elapsed",
        "status" => "--status",
        "strategy" => "--strategy",
        "method" => "--method",
        "error" => "--error",
        "retry_on" => "--retry-on",
        "capacity" | "refill_per_sec" | "retry_cost" | "success_refund" => "--budget",
        other => other,
    }
}

/// A core settings error, as one line naming the flag.
pub fn config_error(e: &ConfigError) -> String {
    format!(
        "{}: expected {}, got {}",
        flag_for(e.field),
        e.expected,
        e.got
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for (s, ms) in [
            ("200ms", 200.0),
            ("1.5s", 1500.0),
            ("2m", 120_000.0),
            ("250", 250.0),
            ("0", 0.0),
            (" 30s ", 30_000.0),
            (".5s", 500.0),
            ("1440m", 86_400_000.0),
        ] {
            assert_eq!(duration_ms(s), Ok(ms), "{s}");
        }
        for s in [
            "", "-1s", "NaNms", "nan", "inf", "infs", "1e400s", "abc", "1h", "s", "ms", "1441m",
            "1.2.3s", "--1",
        ] {
            assert!(duration_ms(s).is_err(), "{s:?} should be rejected");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(number_in("0.1", 0.0, 1.0), Ok(0.1));
        assert!(number_in("NaN", 0.0, 1.0).is_err());
        assert!(number_in("2", 0.0, 1.0).is_err());
    }
}
