//! `Retry-After` (RFC 9110 §10.2.3): `parse_retry_after` on arbitrary text, and round trips
//! of both forms.
//!
//! Properties: a delay is never negative, never NaN, and finite for a finite `now` (the
//! front ends refuse any other); a value of digits only is delta-seconds, read exactly (and
//! saturating past `u64`), anything else is an HTTP-date: whole seconds since the epoch,
//! relative to `now`, and 0 once past. Every second from 1970 to 9999, written in any of the
//! three forms by an independent writer, reads back to the same instant; the wrong weekday
//! is refused.

use stampede::retry_after::parse_retry_after;

use super::http_date::{self, Form, MAX_SECS};
use super::input::Input;

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    let now = input.f64_finite();
    match input.choice(4) {
        0 => delta_round_trip(&mut input, now),
        1 => date_round_trip(&mut input, now),
        2 => wrong_weekday(&mut input, now),
        _ => any_text(&input.rest_str(), now),
    }
}

fn any_text(value: &str, now: f64) {
    let got = parse_retry_after(value, now);
    let t = value.trim();
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let Ok(ms) = got else {
        assert!(!digits, "{value:?}: delta-seconds refused");
        return;
    };
    assert!(ms >= 0.0 && ms.is_finite(), "{value:?} at {now}: {ms}");
    if digits {
        check_delta(value, t, ms);
        return;
    }
    // Not digits, so an HTTP-date: whole seconds from 1970 to 9999, relative to `now`.
    let at = parse_retry_after(value, 0.0).expect("a date parses whatever now is");
    assert!(
        at % 1000.0 == 0.0 && at <= MAX_SECS as f64 * 1000.0,
        "{value:?}: {at}"
    );
    assert_eq!(ms, (at - now).max(0.0), "{value:?} at {now}");
    let after = (MAX_SECS as f64 + 1.0) * 1000.0;
    assert_eq!(parse_retry_after(value, after), Ok(0.0), "{value:?}: past");
}

fn delta_round_trip(input: &mut Input<'_>, now: f64) {
    let secs = input.u64();
    let zeros = "0".repeat(usize::from(input.choice(4)));
    let pad = [" ", "\t", " \t "][usize::from(input.choice(3))];
    let value = format!("{pad}{zeros}{secs}{pad}");
    let ms = parse_retry_after(&value, now).expect("delta-seconds parse");
    check_delta(&value, &format!("{zeros}{secs}"), ms);
}

/// Delta-seconds `digits` read as `ms`: exact up to 2^53 s; past that within the rounding
/// of a float fold (one rounding a digit); past `f64::MAX` ms, saturated there. The
/// reference is the standard library's correctly rounded parse.
fn check_delta(value: &str, digits: &str, ms: f64) {
    let want = digits.parse::<f64>().expect("digits parse") * 1000.0;
    match digits.parse::<u64>() {
        Ok(secs) if secs <= 1 << 53 => assert_eq!(ms, secs as f64 * 1000.0, "{value:?}"),
        _ if want > 1e300 => assert!(ms > 1e300 && ms <= f64::MAX, "{value:?}: {ms}"),
        _ => assert!(
            ((ms - want) / want).abs() < 1e-12,
            "{value:?}: {ms}, not {want}"
        ),
    }
}

/// Any second the forms can name, as seconds since the epoch, and a form that can write it.
fn some_date(input: &mut Input<'_>) -> (u64, Form) {
    let secs = input.u64() % (MAX_SECS + 1);
    let form = match input.choice(3) {
        0 => Form::Imf,
        // RFC 850's two-digit years read as 1970–2069.
        1 if http_date::civil(secs).year < 2070 => Form::Rfc850,
        1 => Form::Imf,
        _ => Form::Asctime,
    };
    (secs, form)
}

fn date_round_trip(input: &mut Input<'_>, now: f64) {
    let (secs, form) = some_date(input);
    let value = http_date::format(http_date::civil(secs), form);
    let at_ms = secs as f64 * 1000.0;
    assert_eq!(
        parse_retry_after(&value, now),
        Ok((at_ms - now).max(0.0)),
        "{value:?} at {now}"
    );
}

fn wrong_weekday(input: &mut Input<'_>, now: f64) {
    let (secs, form) = some_date(input);
    let mut c = http_date::civil(secs);
    c.weekday = (c.weekday + 1 + usize::from(input.choice(6))) % 7;
    let value = http_date::format(c, form);
    assert!(
        parse_retry_after(&value, now).is_err(),
        "{value:?}: the weekday does not match the date"
    );
}
