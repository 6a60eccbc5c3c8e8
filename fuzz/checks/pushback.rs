//! `grpc-retry-pushback-ms` (gRFC A6): `parse_pushback` on arbitrary text, and round trips.
//!
//! Properties: exactly an optional `-` and ASCII digits (whitespace around them) that fit
//! a signed 32-bit integer are accepted; a non-negative value is that many milliseconds, a
//! negative one means do-not-retry; anything else (`+5`, `1.5`, `2147483648`) is malformed.

use stampede::retry_after::{Pushback, parse_pushback};

use super::input::Input;

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    match input.choice(3) {
        0 => {
            let n = input.u32() as i32;
            let zeros = "0".repeat(usize::from(input.choice(3)));
            let (sign, digits) = if n < 0 {
                ("-", n.unsigned_abs())
            } else {
                ("", n as u32)
            };
            let value = format!(" {sign}{zeros}{digits}\t");
            assert_eq!(parse_pushback(&value), Ok(expected(n)), "{value:?}");
        }
        1 => {
            // Past i32 either way: malformed, not saturated.
            let wide = input.u64() as i64;
            let n = if wide >= 0 {
                wide.saturating_add(1 << 31)
            } else {
                wide.saturating_sub(1 << 31)
            };
            assert!(parse_pushback(&n.to_string()).is_err(), "{n}");
        }
        _ => any_text(&input.rest_str()),
    }
}

fn expected(n: i32) -> Pushback {
    if n < 0 {
        Pushback::DoNotRetry
    } else {
        Pushback::RetryAfter(f64::from(n))
    }
}

fn any_text(value: &str) {
    let t = value.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    let well_formed = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    let want = t.parse::<i32>().ok().filter(|_| well_formed).map(expected);
    assert_eq!(parse_pushback(value).ok(), want, "{value:?}");
    if let Ok(Pushback::RetryAfter(ms)) = parse_pushback(value) {
        assert!((0.0..=f64::from(i32::MAX)).contains(&ms) && ms.fract() == 0.0);
    }
}
